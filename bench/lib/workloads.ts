// Deterministic synthetic states for the engine benchmark: a reasoning state of ≈1 MB that
// changes by ~1 % per step (workload A) and a log that grows by one ~500-byte item per
// step (workload B). Text is word-salad from a fixed vocabulary, so it compresses roughly
// like prose rather than like random bytes.

/** mulberry32: a small, fast, seeded PRNG. */
export class Rng {
  #s: number;

  constructor(seed: number) {
    this.#s = seed >>> 0;
  }

  next(): number {
    this.#s = (this.#s + 0x6d2b79f5) >>> 0;
    let t = this.#s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** `k` distinct integers in [0, n). */
  distinct(k: number, n: number): number[] {
    const out = new Set<number>();
    while (out.size < k) out.add(Math.floor(this.next() * n));
    return [...out];
  }
}

const SYLLABLES = ["ka", "lo", "mi", "ren", "tos", "va", "qui", "del", "sar", "nu", "po", "ent", "ix", "ma", "tor", "ber", "ul", "ci", "an", "fe"];
const COMMON = ["the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "with", "was", "on", "be", "by", "this", "not", "are", "from", "or"];

function vocabulary(rng: Rng, size: number): string[] {
  const words = new Set<string>(COMMON);
  while (words.size < size) {
    let w = "";
    const n = rng.int(1, 4);
    for (let i = 0; i < n; i++) w += rng.pick(SYLLABLES);
    words.add(w);
  }
  return [...words];
}

export class TextGen {
  readonly #rng: Rng;
  readonly #words: string[];

  constructor(rng: Rng, vocabSize = 2000) {
    this.#rng = rng;
    this.#words = vocabulary(rng, vocabSize);
  }

  /** A sentence of about `chars` characters. */
  sentence(chars: number): string {
    let s = "";
    while (s.length < chars) {
      // Zipf-ish: common words most of the time, the long tail otherwise.
      const w = this.#rng.next() < 0.35 ? this.#rng.pick(COMMON) : this.#rng.pick(this.#words);
      s += s === "" ? w[0]?.toUpperCase() + w.slice(1) : " " + w;
    }
    return s + ".";
  }
}

// ---------------------------------------------------------------- workload A

export interface Evidence {
  readonly kind: string;
  readonly content: string;
  readonly source: string;
  readonly at: string;
}

export interface Hypothesis {
  readonly id: string;
  readonly statement: string;
  readonly status: string;
  readonly confidence: number;
  readonly tags: readonly string[];
  readonly evidence: readonly Evidence[];
}

export interface ReasoningState {
  readonly task: { readonly id: string; readonly goal: string; readonly startedAt: string };
  readonly hypotheses: readonly Hypothesis[];
  readonly notes: readonly { readonly at: string; readonly text: string }[];
  readonly metrics: {
    readonly step: number;
    readonly tokensIn: number;
    readonly tokensOut: number;
    readonly toolCalls: number;
    readonly costUsd: number;
  };
}

const STATUSES = ["open", "supported", "refuted", "uncertain", "needs-evidence"];
const KINDS = ["observation", "tool_result", "citation", "inference", "counterexample"];
/** Evidence lists keep the latest few items (push, then drop the oldest), so the state stays ≈1 MB. */
export const EVIDENCE_WINDOW = 5;
const T0 = Date.UTC(2025, 0, 1);

export class ReasoningWorkload {
  readonly #rng: Rng;
  readonly #text: TextGen;
  #clock = T0;

  constructor(seed: number) {
    this.#rng = new Rng(seed);
    this.#text = new TextGen(new Rng(seed ^ 0x9e3779b9));
  }

  #at(): string {
    this.#clock += this.#rng.int(200, 5000);
    return new Date(this.#clock).toISOString();
  }

  #evidence(): Evidence {
    const rng = this.#rng;
    return {
      kind: rng.pick(KINDS),
      content: this.#text.sentence(rng.int(45, 80)),
      source: rng.next() < 0.5 ? `tool:web_search#${rng.int(1, 99999)}` : `https://example.org/doc/${rng.int(1, 99999)}#p${rng.int(1, 40)}`,
      at: this.#at(),
    };
  }

  /** The first state: `hypotheses` hypotheses of EVIDENCE_WINDOW evidence items each (≈1 KB apiece). */
  initial(hypotheses = 1000): ReasoningState {
    const rng = this.#rng;
    const hyps: Hypothesis[] = [];
    for (let i = 0; i < hypotheses; i++) {
      const evidence: Evidence[] = [];
      for (let e = 0; e < EVIDENCE_WINDOW; e++) evidence.push(this.#evidence());
      hyps.push({
        id: `h-${String(i).padStart(4, "0")}`,
        statement: this.#text.sentence(rng.int(50, 90)),
        status: rng.pick(STATUSES),
        confidence: Math.round(rng.next() * 1000) / 1000,
        tags: [this.#text.sentence(6).slice(0, -1).toLowerCase(), rng.pick(KINDS)],
        evidence,
      });
    }
    const notes = [];
    for (let i = 0; i < 40; i++) notes.push({ at: this.#at(), text: this.#text.sentence(rng.int(120, 220)) });
    return {
      task: { id: "task-42", goal: this.#text.sentence(200), startedAt: new Date(T0).toISOString() },
      hypotheses: hyps,
      notes,
      metrics: { step: 0, tokensIn: 0, tokensOut: 0, toolCalls: 0, costUsd: 0 },
    };
  }

  /** What one step changes: `count` hypotheses get a new confidence/status and one new evidence item. */
  plan(state: ReasoningState, count = 10): StepPlan {
    const rng = this.#rng;
    const changes = rng.distinct(count, state.hypotheses.length).map((index) => ({
      index,
      status: rng.pick(STATUSES),
      confidence: Math.round(rng.next() * 1000) / 1000,
      evidence: this.#evidence(),
    }));
    return {
      changes,
      metrics: {
        tokensIn: rng.int(500, 4000),
        tokensOut: rng.int(100, 800),
        toolCalls: rng.int(0, 3),
      },
    };
  }
}

export interface StepPlan {
  readonly changes: readonly { index: number; status: string; confidence: number; evidence: Evidence }[];
  readonly metrics: { tokensIn: number; tokensOut: number; toolCalls: number };
}

function nextMetrics(m: ReasoningState["metrics"], p: StepPlan["metrics"]): ReasoningState["metrics"] {
  return {
    step: m.step + 1,
    tokensIn: m.tokensIn + p.tokensIn,
    tokensOut: m.tokensOut + p.tokensOut,
    toolCalls: m.toolCalls + p.toolCalls,
    costUsd: Math.round((m.costUsd + p.tokensIn * 3e-6 + p.tokensOut * 15e-6) * 1e6) / 1e6,
  };
}

/** Applies a step immutably: copies the changed hypotheses and the arrays on their path; shares the rest. */
export function applyImmutable(state: ReasoningState, plan: StepPlan): ReasoningState {
  const hypotheses = state.hypotheses.slice();
  for (const c of plan.changes) {
    const h = hypotheses[c.index] as Hypothesis;
    const evidence = [...h.evidence, c.evidence];
    if (evidence.length > EVIDENCE_WINDOW) evidence.shift();
    hypotheses[c.index] = { ...h, status: c.status, confidence: c.confidence, evidence };
  }
  return { ...state, hypotheses, metrics: nextMetrics(state.metrics, plan.metrics) };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Applies the same step by mutating `state` in place (the harness clones first). */
export function applyInPlace(state: ReasoningState, plan: StepPlan): void {
  for (const c of plan.changes) {
    const h = state.hypotheses[c.index] as Mutable<Hypothesis>;
    h.status = c.status;
    h.confidence = c.confidence;
    const evidence = h.evidence as Evidence[];
    evidence.push(c.evidence);
    if (evidence.length > EVIDENCE_WINDOW) evidence.shift();
  }
  (state as Mutable<ReasoningState>).metrics = nextMetrics(state.metrics, plan.metrics);
}

// ---------------------------------------------------------------- workload B

export interface LogItem {
  readonly id: number;
  readonly role: string;
  readonly at: string;
  readonly content: string;
  readonly tokens: number;
  readonly toolCall: { readonly name: string; readonly ok: boolean } | null;
}

export interface LogState {
  readonly conversationId: string;
  readonly system: string;
  readonly messages: readonly LogItem[];
  readonly summary: { readonly turns: number; readonly tokens: number; readonly lastAt: string };
}

const ROLES = ["user", "assistant", "tool", "assistant"];
const TOOLS = ["web_search", "read_file", "run_tests", "sql_query"];

export class LogWorkload {
  readonly #rng: Rng;
  readonly #text: TextGen;
  #clock = T0;

  constructor(seed: number) {
    this.#rng = new Rng(seed);
    this.#text = new TextGen(new Rng(seed ^ 0x85ebca6b));
  }

  initial(): LogState {
    return {
      conversationId: "conv-7",
      system: this.#text.sentence(600),
      messages: [],
      summary: { turns: 0, tokens: 0, lastAt: new Date(T0).toISOString() },
    };
  }

  /** A new item of ≈500 bytes of JSON. */
  item(id: number): LogItem {
    const rng = this.#rng;
    this.#clock += rng.int(500, 20000);
    const role = rng.pick(ROLES);
    return {
      id,
      role,
      at: new Date(this.#clock).toISOString(),
      content: this.#text.sentence(rng.int(300, 420)),
      tokens: rng.int(40, 140),
      toolCall: role === "tool" ? { name: rng.pick(TOOLS), ok: rng.next() < 0.9 } : null,
    };
  }

  /** The state after appending one item (a new messages array; the items are shared). */
  append(state: LogState): LogState {
    const item = this.item(state.messages.length);
    return {
      ...state,
      messages: [...state.messages, item],
      summary: { turns: state.summary.turns + 1, tokens: state.summary.tokens + item.tokens, lastAt: item.at },
    };
  }
}
