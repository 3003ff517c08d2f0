// The belief graph: what the agent holds true, how confident it is, and what rests on
// what. Contradictions are found, not stored: two held beliefs that contradict each other,
// a held belief resting on a rejected hypothesis or a retracted belief, and a cycle of
// dependencies (beliefs that only hold each other up).
import { InvalidArgumentError, NotFoundError } from "../../core/errors.js";
import type { Belief, Hypothesis } from "./model.js";
import { checkConfidence } from "./hypotheses.js";
import type { PartContext, Snapshotable } from "./part.js";

export interface Contradiction {
  readonly kind: "conflict" | "rests-on-rejected" | "cycle";
  /** The beliefs involved, in a stable order. */
  readonly beliefs: readonly string[];
  /** The rejected hypotheses or retracted beliefs a belief rests on (rests-on-rejected only). */
  readonly grounds: readonly string[];
  readonly description: string;
  /** A stable key, to tell a new contradiction from one seen before. */
  readonly key: string;
}

export interface BeliefLinks {
  readonly dependsOn?: readonly string[];
  readonly supports?: readonly string[];
  readonly contradicts?: readonly string[];
}

export class BeliefGraph implements Snapshotable<Belief[]> {
  readonly #ctx: PartContext;
  /** Whether an id names a hypothesis (beliefs may rest on hypotheses). */
  readonly #isHypothesis: (id: string) => boolean;
  #beliefs: Belief[] = [];

  constructor(ctx: PartContext, isHypothesis: (id: string) => boolean) {
    this.#ctx = ctx;
    this.#isHypothesis = isHypothesis;
  }

  capture(): Belief[] {
    return this.#beliefs;
  }

  restore(snapshot: Belief[]): void {
    this.#beliefs = snapshot;
  }

  add(statement: string, options: BeliefLinks & { confidence?: number } = {}): Belief {
    const text = statement.trim();
    if (text === "") throw new InvalidArgumentError("a belief statement is empty");
    this.#ctx.touch("beliefs");
    const now = this.#ctx.now();
    const id = this.#ctx.nextId("B");
    const b: Belief = {
      id,
      statement: text,
      confidence: checkConfidence(options.confidence ?? 0.7),
      status: "held",
      dependsOn: this.#checkLinks(id, options.dependsOn ?? [], true),
      supports: this.#checkLinks(id, options.supports ?? [], false),
      contradicts: this.#checkLinks(id, options.contradicts ?? [], false),
      createdAt: now,
      updatedAt: now,
    };
    this.#beliefs.push(b);
    return copy(b);
  }

  /** Upper-cased ids that exist: beliefs always; hypotheses only where a belief may rest on one. */
  #checkLinks(self: string, ids: readonly string[], hypothesesToo: boolean): string[] {
    const out: string[] = [];
    for (const raw of ids) {
      const id = raw.trim().toUpperCase();
      if (id === self) throw new InvalidArgumentError(`belief ${self} cannot refer to itself`);
      const known = this.#beliefs.some((b) => b.id === id) || (hypothesesToo && this.#isHypothesis(id));
      if (!known) {
        throw new NotFoundError(hypothesesToo ? "belief or hypothesis" : "belief", raw, "`forge belief list` and `forge hypothesis list` show the ids");
      }
      if (!out.includes(id)) out.push(id);
    }
    return out;
  }

  get(id: string): Belief {
    return copy(this.#find(id));
  }

  list(filter: { status?: Belief["status"] } = {}): Belief[] {
    return this.#beliefs.filter((b) => filter.status === undefined || b.status === filter.status).map(copy);
  }

  #find(id: string): Belief {
    const b = this.#beliefs.find((x) => x.id === id.trim().toUpperCase());
    if (!b) throw new NotFoundError("belief", id, "`forge belief list` shows the beliefs");
    return b;
  }

  update(id: string, patch: { statement?: string; confidence?: number; status?: Belief["status"] } & BeliefLinks): Belief {
    const b = this.#find(id);
    this.#ctx.touch("beliefs");
    if (patch.statement !== undefined) {
      const t = patch.statement.trim();
      if (t === "") throw new InvalidArgumentError("a belief statement is empty");
      b.statement = t;
    }
    if (patch.confidence !== undefined) b.confidence = checkConfidence(patch.confidence);
    if (patch.status !== undefined) {
      if (patch.status !== "held" && patch.status !== "retracted")
        throw new InvalidArgumentError(`"${String(patch.status)}" is not a belief status`, "use held or retracted");
      b.status = patch.status;
    }
    if (patch.dependsOn) b.dependsOn = [...new Set([...b.dependsOn, ...this.#checkLinks(b.id, patch.dependsOn, true)])];
    if (patch.supports) b.supports = [...new Set([...b.supports, ...this.#checkLinks(b.id, patch.supports, false)])];
    if (patch.contradicts) b.contradicts = [...new Set([...b.contradicts, ...this.#checkLinks(b.id, patch.contradicts, false)])];
    b.updatedAt = this.#ctx.now();
    return copy(b);
  }

  /** Every contradiction among the held beliefs, given the hypotheses they may rest on. */
  contradictions(hypotheses: readonly Hypothesis[]): Contradiction[] {
    return findContradictions(this.#beliefs, hypotheses);
  }
}

function copy(b: Belief): Belief {
  return { ...b, dependsOn: [...b.dependsOn], supports: [...b.supports], contradicts: [...b.contradicts] };
}

/** The contradictions in a set of beliefs (pure, so a stored checkpoint can be checked too). */
export function findContradictions(beliefs: readonly Belief[], hypotheses: readonly Hypothesis[]): Contradiction[] {
  const out: Contradiction[] = [];
  const byId = new Map(beliefs.map((b) => [b.id, b]));
  const held = (id: string) => byId.get(id)?.status === "held";
  const seen = new Set<string>();
  const push = (c: Omit<Contradiction, "key">) => {
    const key = `${c.kind}:${c.beliefs.join(",")}:${c.grounds.join(",")}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ ...c, key });
  };
  const hypothesisById = new Map(hypotheses.map((h) => [h.id, h]));
  for (const b of beliefs) {
    if (b.status !== "held") continue;
    // "contradicts" is symmetric: declared on either side, the pair is reported once.
    for (const other of b.contradicts) {
      if (!held(other)) continue;
      const pair = [b.id, other].sort(byNumber);
      push({ kind: "conflict", beliefs: pair, grounds: [], description: `${pair[0]} and ${pair[1]} are both held but contradict each other` });
    }
    const rejected = b.dependsOn.filter((d) => {
      const h = hypothesisById.get(d);
      if (h) return h.status === "rejected" || h.status === "abandoned";
      return byId.get(d)?.status === "retracted";
    });
    if (rejected.length > 0) {
      push({
        kind: "rests-on-rejected",
        beliefs: [b.id],
        grounds: rejected,
        description: `${b.id} is held but rests on ${rejected.map((r) => `${r} (${hypothesisById.get(r)?.status ?? "retracted"})`).join(", ")}`,
      });
    }
  }
  for (const cycle of dependencyCycles(beliefs)) {
    push({ kind: "cycle", beliefs: cycle, grounds: [], description: `${cycle.join(" → ")} → ${cycle[0]} rest on each other in a circle` });
  }
  return out;
}

/**
 * Cycles among held beliefs' depends-on links, each reported once, starting at its
 * smallest id. A depth-first search: every circle of beliefs yields at least one report
 * (not every elementary cycle of a tangle is listed).
 */
function dependencyCycles(beliefs: readonly Belief[]): string[][] {
  const held = new Map(beliefs.filter((b) => b.status === "held").map((b) => [b.id, b]));
  const cycles = new Map<string, string[]>();
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (id: string) => {
    state.set(id, "open");
    stack.push(id);
    for (const next of held.get(id)?.dependsOn ?? []) {
      if (!held.has(next)) continue;
      if (state.get(next) === "open") {
        const cycle = stack.slice(stack.indexOf(next));
        const start = cycle.indexOf([...cycle].sort(byNumber)[0] as string);
        const norm = [...cycle.slice(start), ...cycle.slice(0, start)];
        cycles.set(norm.join(","), norm);
      } else if (state.get(next) === undefined) {
        visit(next);
      }
    }
    stack.pop();
    state.set(id, "done");
  };
  for (const id of held.keys()) if (state.get(id) === undefined) visit(id);
  return [...cycles.values()];
}

/** B2 before B10: by prefix, then by number. */
function byNumber(a: string, b: string): number {
  const pa = a.replace(/\d+$/, "");
  const pb = b.replace(/\d+$/, "");
  if (pa !== pb) return pa < pb ? -1 : 1;
  return Number(a.slice(pa.length)) - Number(b.slice(pb.length));
}
