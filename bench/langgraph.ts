// LangGraph checkpointer benchmark: a 500-turn chat agent's state put step by step through
// ForgeSaver (forge-reasoning/langgraph, on a sqlite store) and through LangGraph's own
// SqliteSaver (@langchain/langgraph-checkpoint-sqlite, the anchor) in the same run, on
// files in a temp dir: put and putWrites latency, getTuple of the latest checkpoint and
// list of the whole thread from a fresh saver, and the database bytes on disk.
//
//   npm run bench:langgraph
//   (= tsc -p tsconfig.bench.json && node --expose-gc build/bench/langgraph.js)
//
// The anchor runs twice: as it ships (journal_mode=WAL, SQLite's default synchronous=FULL,
// so an fsync per put) and on Forge's settings (synchronous=NORMAL), so the ratios show
// what is the format and what is the fsync. Two message shapes: plain JSON objects, and
// LangChain message objects (HumanMessage/AIMessage, as MessagesAnnotation holds them).
//
// `--quick` runs 100 turns (for trying the harness, not for numbers) and leaves
// bench/results/langgraph.md alone.
import Database from "better-sqlite3";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { JsonPlusSerializer, uuid6, type BaseCheckpointSaver, type Checkpoint, type CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { isDeepStrictEqual } from "node:util";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { CARRIED_KEY, ENTRY_FORMAT, buildEntry, sameCarried, type ChannelVersion } from "../src/integrations/langgraph/entry.js";
import { ForgeSaver, type ForgeSaverOptions } from "../src/integrations/langgraph/index.js";
import { openStore } from "../src/timeline/store.js";
import { ValueCodec, type StoredValue } from "../src/integrations/langgraph/value-codec.js";
import { encodeTree, type TreeMemo } from "../src/objects/value-encoder.js";
import { sqliteFootprint } from "./lib/naive.js";
import { collectGarbage, formatBytes, formatMs, formatRatio, msSince, summarize, type Summary } from "./lib/stats.js";
import { Rng, TextGen } from "./lib/workloads.js";
import { publish, runMain } from "./lib/report.js";

const QUICK = process.argv.includes("--quick");
const TURNS = QUICK ? 100 : 500;
const WARMUP_TURNS = QUICK ? 20 : 60;
const WARM_READS = 20;
const COLD_READS = QUICK ? 3 : 7;
const COMMAND = "npm run bench:langgraph";
const THREAD = "chat-1";
/** Issue 18's targets, as ratios to the anchor (SqliteSaver as shipped) measured in the same run. */
const TARGETS = { putMedian: 0.5, putWrites: 1, coldGetTuple: 1, bytes: 0.02 } as const;

function log(msg: string): void {
  process.stderr.write(`[bench:langgraph] ${msg}\n`);
}

// ---------------------------------------------------------------- the chat workload

type Shape = "plain" | "langchain";

/** Everything one turn puts: the checkpoint LangGraph would build, and what changed. */
interface Turn {
  readonly checkpoint: Checkpoint;
  readonly metadata: CheckpointMetadata;
  readonly newVersions: Record<string, number>;
  /** The agent's write of this turn (its new messages), as LangGraph puts it before the next checkpoint. */
  readonly write: [string, unknown][];
}

/**
 * A chat agent's state: `messages` (a user and an assistant message per turn, 200–500 and
 * 300–800 characters), `tools` (20 tool specs, never changing), `system` (a 1.5 KB prompt,
 * never changing), `profile` (changes every 100 turns) and `turn` (a counter).
 */
class Chat {
  readonly #rng: Rng;
  readonly #text: TextGen;
  readonly #shape: Shape;
  readonly #messages: unknown[] = [];
  readonly #tools: unknown[];
  readonly #system: string;
  #profile: Record<string, unknown>;
  readonly #versions: Record<string, number> = { messages: 0, tools: 1, system: 1, profile: 1, turn: 0 };
  #turn = 0;

  constructor(seed: number, shape: Shape) {
    this.#rng = new Rng(seed);
    this.#text = new TextGen(this.#rng);
    this.#shape = shape;
    this.#system = this.#text.sentence(1500);
    this.#tools = Array.from({ length: 20 }, (_, i) => ({
      name: `tool_${i}`,
      description: this.#text.sentence(this.#rng.int(200, 400)),
      parameters: {
        type: "object",
        properties: { query: { type: "string", description: this.#text.sentence(60) }, limit: { type: "integer" } },
        required: ["query"],
      },
    }));
    this.#profile = { name: "Ada", locale: "en-GB", preferences: { tone: "brief", units: "metric" }, notes: [] };
  }

  #message(role: "user" | "assistant", content: string, id: string): unknown {
    if (this.#shape === "langchain") return role === "user" ? new HumanMessage({ content, id }) : new AIMessage({ content, id });
    return { type: role === "user" ? "human" : "ai", content, id };
  }

  next(): Turn {
    const t = this.#turn++;
    const user = this.#message("user", this.#text.sentence(this.#rng.int(200, 500)), `u-${t}`);
    const assistant = this.#message("assistant", this.#text.sentence(this.#rng.int(300, 800)), `a-${t}`);
    this.#messages.push(user, assistant);
    const changed: string[] = t === 0 ? Object.keys(this.#versions) : ["messages", "turn"];
    if (t > 0 && t % 100 === 0) {
      this.#profile = { ...this.#profile, notes: [...(this.#profile["notes"] as string[]), this.#text.sentence(120)] };
      changed.push("profile");
    }
    for (const c of changed) if (t > 0 || c === "messages" || c === "turn") this.#versions[c] = (this.#versions[c] ?? 0) + 1;
    const versions = { ...this.#versions };
    return {
      checkpoint: {
        v: 4,
        id: uuid6(-1),
        ts: new Date().toISOString(),
        // As LangGraph passes it: every channel's current value, the message list in full.
        channel_values: { messages: [...this.#messages], tools: this.#tools, system: this.#system, profile: this.#profile, turn: t },
        channel_versions: versions,
        versions_seen: {
          __input__: {},
          __start__: { __start__: t + 1 },
          agent: { messages: versions["messages"] as number, profile: versions["profile"] as number },
        },
      },
      metadata: { source: "loop", step: t, parents: {} },
      newVersions: Object.fromEntries(changed.map((c) => [c, versions[c] as number])),
      write: [["messages", [assistant]]],
    };
  }
}

// ---------------------------------------------------------------- savers under test

interface Contender {
  readonly name: string;
  readonly path: string;
  /** Only its puts are measured (a variant, not a saver of the comparison). */
  readonly putsOnly?: boolean;
  open(): Promise<BaseCheckpointSaver>;
  close(saver: BaseCheckpointSaver): Promise<void>;
}

function forgeContender(dir: string, name = "ForgeSaver", options: ForgeSaverOptions = {}): Contender {
  const path = join(dir, `${name}.db`);
  return {
    name,
    path,
    putsOnly: name !== "ForgeSaver",
    open: () => ForgeSaver.open(`sqlite:${path}`, options),
    close: (s) => (s as ForgeSaver).close(),
  };
}

function sqliteContender(dir: string, name: string, synchronous: "FULL" | "NORMAL" | undefined): Contender {
  const path = join(dir, `${name}.db`);
  return {
    name,
    path,
    open: async () => {
      const db = new Database(path);
      if (synchronous) db.pragma(`synchronous = ${synchronous}`);
      return new SqliteSaver(db);
    },
    close: async (s) => {
      (s as SqliteSaver).db.close();
    },
  };
}

interface Measured {
  put: number[];
  putWrites: number[];
  getTupleCold: number;
  getTupleWarm: Summary;
  listMs: number;
  listed: number;
  bytes: number;
  latest: unknown;
  /** ForgeSaver: the first search of the store after the run (it indexes the thread), and the bytes after it. */
  searched?: { ms: number; bytes: number };
}

async function time<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { value, ms: msSince(start) };
}

/** Puts every turn through every contender (alternating who goes first), then reads back. */
async function runWorkload(dir: string, shape: Shape, turns: number): Promise<Map<string, Measured>> {
  const contenders = [forgeContender(dir), sqliteContender(dir, "sqlite-saver", undefined), sqliteContender(dir, "sqlite-saver-normal", "NORMAL")];
  // How much of ForgeSaver's put time on LangChain messages is its reuse of their serialized form.
  if (shape === "langchain") contenders.push(forgeContender(dir, "ForgeSaver-no-reuse", { reuseSerializable: false }));
  const savers = await Promise.all(contenders.map((c) => c.open()));
  const configs: RunnableConfig[] = contenders.map(() => ({ configurable: { thread_id: THREAD, checkpoint_ns: "" } }));
  const results = new Map<string, Measured>(
    contenders.map((c) => [
      c.name,
      { put: [], putWrites: [], getTupleCold: 0, getTupleWarm: summarize([]), listMs: 0, listed: 0, bytes: 0, latest: undefined },
    ]),
  );
  const chat = new Chat(1, shape);
  for (let t = 0; t < turns; t++) {
    const turn = chat.next();
    for (let k = 0; k < contenders.length; k++) {
      const i = (k + t) % contenders.length;
      const saver = savers[i] as BaseCheckpointSaver;
      const m = results.get((contenders[i] as Contender).name) as Measured;
      const config = configs[i] as RunnableConfig;
      if (t > 0) m.putWrites.push((await time(() => saver.putWrites(config, turn.write, `agent-${t}`, "~__pregel_pull, agent"))).ms);
      const put = await time(() => saver.put(config, turn.checkpoint, turn.metadata, turn.newVersions));
      m.put.push(put.ms);
      configs[i] = put.value;
    }
    if (t % 100 === 99) log(`${shape}: ${t + 1} turns`);
  }
  for (let i = 0; i < contenders.length; i++) await (contenders[i] as Contender).close(savers[i] as BaseCheckpointSaver);
  collectGarbage();

  // Reads from fresh savers on the same file, as another process would make them: the first
  // getTuple of each of COLD_READS savers (one call each is one sample: a median of several),
  // the savers taking turns going first, a full GC before each.
  const readers = contenders.filter((c) => !c.putsOnly);
  const colds = new Map<string, number[]>(readers.map((c) => [c.name, []]));
  for (let r = 0; r < COLD_READS; r++) {
    for (let k = 0; k < readers.length; k++) {
      const c = readers[(k + r) % readers.length] as Contender;
      collectGarbage();
      const saver = await c.open();
      const cold = await time(() => saver.getTuple({ configurable: { thread_id: THREAD } }));
      colds.get(c.name)?.push(cold.ms);
      if (r === 0) (results.get(c.name) as Measured).latest = cold.value?.checkpoint.channel_values;
      await c.close(saver);
    }
  }
  for (const c of readers) {
    const m = results.get(c.name) as Measured;
    m.getTupleCold = summarize(colds.get(c.name) ?? []).median;
    collectGarbage();
    const saver = await c.open();
    await saver.getTuple({ configurable: { thread_id: THREAD } });
    const warm: number[] = [];
    for (let i = 0; i < WARM_READS; i++) warm.push((await time(() => saver.getTuple({ configurable: { thread_id: THREAD } }))).ms);
    m.getTupleWarm = summarize(warm);
    collectGarbage();
    const listed = await time(async () => {
      let n = 0;
      for await (const _t of saver.list({ configurable: { thread_id: THREAD } })) n++;
      return n;
    });
    m.listMs = listed.ms;
    m.listed = listed.value;
    await c.close(saver);
    m.bytes = sqliteFootprint(c.path).total;
    collectGarbage();
    if (c.name === "ForgeSaver") {
      // ForgeSaver's puts leave the search index to the next search (searchIndex: "later"): what that search costs, and adds.
      const store = await openStore(`sqlite:${c.path}`);
      const searched = await time(() => store.search("agent"));
      await store.close();
      m.searched = { ms: searched.ms, bytes: sqliteFootprint(c.path).total };
    }
  }
  // Same latest state from every saver (messages compared as JSON: LangChain objects are revived anew).
  const [first, ...rest] = contenders.filter((c) => !c.putsOnly).map((c) => JSON.parse(JSON.stringify(results.get(c.name)?.latest)) as unknown);
  for (const other of rest) if (!isDeepStrictEqual(first, other)) throw new Error(`${shape}: the savers disagree on the latest checkpoint's values`);
  return results;
}

// ---------------------------------------------------------------- the UnchangedHint, measured

interface HintEffect {
  readonly hinted: Summary;
  readonly memoOnly: Summary;
  /** Median objects built and hashed per put (the same either way: unchanged parts are never re-hashed). */
  readonly hashed: number;
}

/**
 * The value encoder alone, on the entries ForgeSaver.put builds for the plain chat (plus,
 * with `documents`, an unchanging channel of 5,000 small records): encoded twice,
 * as two streams — once telling the encoder which channels were carried over unchanged
 * (the UnchangedHint ForgeSaver gives when it wrote the parent), once with its memo only.
 */
async function hintEffect(turns: number, documents: boolean): Promise<HintEffect> {
  const chat = new Chat(3, "plain");
  const codec = new ValueCodec(new JsonPlusSerializer());
  const text = new TextGen(new Rng(4));
  const docs = documents ? Array.from({ length: 5000 }, (_, i) => ({ id: `rec-${i}`, kind: i % 7, label: text.sentence(40), score: i / 5000 })) : undefined;
  const streams = [
    { hint: true, known: new Set<string>(), memo: undefined as TreeMemo | undefined, times: [] as number[], hashed: [] as number[] },
    { hint: false, known: new Set<string>(), memo: undefined as TreeMemo | undefined, times: [] as number[], hashed: [] as number[] },
  ];
  let parent: ReadonlyMap<string, StoredValue> = new Map();
  let parentCarried: ReadonlyMap<string, StoredValue> = new Map();
  for (let t = 0; t < turns; t++) {
    const turn = chat.next();
    const { channel_values: values, ...rest } = turn.checkpoint;
    const all: Record<string, unknown> = docs ? { ...values, documents: docs } : values;
    const versions: Record<string, ChannelVersion> = docs ? { ...turn.checkpoint.channel_versions, documents: 1 } : { ...turn.checkpoint.channel_versions };
    const changed = t === 0 && docs ? { ...turn.newVersions, documents: 1 } : turn.newVersions;
    const fresh = new Map<string, StoredValue>();
    const carried = new Map<string, StoredValue>();
    for (const name of Object.keys(versions)) {
      const inherited = parent.get(name);
      if (name in changed || inherited === undefined) fresh.set(name, await codec.toStored(all[name]));
      else carried.set(name, inherited);
    }
    const entry = buildEntry({
      head: { format: ENTRY_FORMAT, thread: THREAD, ns: "", id: turn.checkpoint.id, parent: null, versions },
      checkpoint: await codec.toStored(rest),
      metadata: await codec.toStored(turn.metadata),
      fresh,
      carried,
      writes: [],
    });
    const unchanged = carried.size > 0 && sameCarried(parentCarried, carried) ? new Set([CARRIED_KEY]) : undefined;
    for (const s of streams) {
      const hint = s.hint && s.memo && unchanged ? { since: s.memo.rootHash, keys: unchanged } : undefined;
      const start = process.hrtime.bigint();
      const tree = encodeTree(entry.state, s.known, s.memo, undefined, hint);
      if (t >= WARMUP_TURNS) s.times.push(msSince(start));
      s.hashed.push(tree.hashed);
      for (const h of tree.fresh.keys()) s.known.add(h);
      s.memo = tree.memo;
    }
    parent = entry.channels;
    parentCarried = entry.carried;
  }
  const [hinted, memoOnly] = streams as [(typeof streams)[number], (typeof streams)[number]];
  return { hinted: summarize(hinted.times), memoOnly: summarize(memoOnly.times), hashed: summarize(hinted.hashed.slice(1)).median };
}

function reportHint(documents: boolean, e: HintEffect): void {
  row({
    workload: `${TURNS} turns, plain JSON messages${documents ? " + an unchanging channel of 5,000 small records (~400 KB)" : ""}`,
    metric: `value encoder per put (ForgeSaver's entries): with the UnchangedHint for carried channels vs its memo only, median; objects hashed per put`,
    forge: `${formatMs(e.hinted.median)} vs ${formatMs(e.memoOnly.median)} (${formatRatio(e.hinted.median, e.memoOnly.median)}); ${e.hashed} hashed`,
  });
}

// ---------------------------------------------------------------- report

interface Row {
  workload: string;
  metric: string;
  forge: string;
  anchor: string;
  ratio: string;
  normal: string;
  ratioNormal: string;
  target: string;
  met: string;
}

const rows: Row[] = [];

function row(r: Partial<Row> & Pick<Row, "workload" | "metric">): void {
  rows.push({ forge: "—", anchor: "—", ratio: "—", normal: "—", ratioNormal: "—", target: "—", met: "—", ...r });
}

function compare(workload: string, metric: string, f: number, a: number, n: number, fmt: (x: number) => string, target?: number): void {
  row({
    workload,
    metric,
    forge: fmt(f),
    anchor: fmt(a),
    ratio: formatRatio(f, a),
    normal: fmt(n),
    ratioNormal: formatRatio(f, n),
    ...(target !== undefined && { target: target === 1 ? "≤ anchor" : `≤ ${target}× anchor`, met: f / a <= target ? "yes" : "NO" }),
  });
}

function report(shape: Shape, results: Map<string, Measured>): void {
  const f = results.get("ForgeSaver") as Measured;
  const a = results.get("sqlite-saver") as Measured;
  const n = results.get("sqlite-saver-normal") as Measured;
  const w = shape === "plain" ? `${TURNS} turns, plain JSON messages` : `${TURNS} turns, LangChain message objects`;
  const sum = (xs: number[]): number => xs.reduce((x, y) => x + y, 0);
  const [fp, ap, np] = [summarize(f.put), summarize(a.put), summarize(n.put)];
  compare(w, `put, total (${f.put.length} puts)`, sum(f.put), sum(a.put), sum(n.put), formatMs);
  compare(w, "put, median", fp.median, ap.median, np.median, formatMs, TARGETS.putMedian);
  compare(w, "put, p95", fp.p95, ap.p95, np.p95, formatMs);
  const noReuse = results.get("ForgeSaver-no-reuse");
  if (noReuse) {
    const r = summarize(noReuse.put);
    row({
      workload: w,
      metric: "put, total · median, ForgeSaver with { reuseSerializable: false } (every message serialized at every put)",
      forge: `${formatMs(sum(noReuse.put))} · ${formatMs(r.median)}`,
      anchor: `${formatMs(sum(a.put))} · ${formatMs(ap.median)}`,
      ratio: `${formatRatio(sum(noReuse.put), sum(a.put))} · ${formatRatio(r.median, ap.median)}`,
    });
  }
  const [fw, aw, nw] = [summarize(f.putWrites), summarize(a.putWrites), summarize(n.putWrites)];
  compare(w, `putWrites (the agent's new message), median (n=${f.putWrites.length})`, fw.median, aw.median, nw.median, formatMs, TARGETS.putWrites);
  compare(
    w,
    `getTuple of the latest, fresh saver, first call (median of ${COLD_READS} fresh savers)`,
    f.getTupleCold,
    a.getTupleCold,
    n.getTupleCold,
    formatMs,
    TARGETS.coldGetTuple,
  );
  compare(w, `getTuple of the latest, median of the next ${WARM_READS}`, f.getTupleWarm.median, a.getTupleWarm.median, n.getTupleWarm.median, formatMs);
  compare(w, `list of the whole thread (${f.listed} checkpoints with their writes), fresh saver`, f.listMs, a.listMs, n.listMs, formatMs);
  compare(w, "database on disk (db + -wal after wal_checkpoint(TRUNCATE))", f.bytes, a.bytes, n.bytes, formatBytes, TARGETS.bytes);
  if (f.searched) {
    row({
      workload: w,
      metric: "after a first `forge search` on the ForgeSaver store (its puts leave the search index to it): that search's time · the database then",
      forge: `${formatMs(f.searched.ms)} · ${formatBytes(f.searched.bytes)}`,
      anchor: `— · ${formatBytes(a.bytes)}`,
      ratio: `— · ${formatRatio(f.searched.bytes, a.bytes)}`,
    });
  }
}

function renderTable(): string {
  const header: Row = {
    workload: "workload",
    metric: "metric",
    forge: "ForgeSaver",
    anchor: "SqliteSaver (as shipped)",
    ratio: "Forge / SqliteSaver",
    normal: "SqliteSaver (synchronous=NORMAL)",
    ratioNormal: "Forge / NORMAL",
    target: "target",
    met: "met?",
  };
  const cols = Object.keys(header) as (keyof Row)[];
  const line = (r: Row): string => "| " + cols.map((c) => r[c].replace(/\|/g, "\\|")).join(" | ") + " |";
  return [line(header), "| " + cols.map(() => "---").join(" | ") + " |", ...rows.map(line)].join("\n");
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  const dir = mkdtempSync(join(tmpdir(), "forge-bench-langgraph-"));
  if (typeof globalThis.gc !== "function") log("global.gc is not available (run node with --expose-gc)");
  try {
    log(`temp dir ${dir}${QUICK ? " (quick mode)" : ""}`);
    // JIT warm-up on throwaway files: every path the measured run takes.
    for (const shape of ["plain", "langchain"] as const) {
      const warm = join(dir, `warm-${shape}`);
      mkdirSync(warm);
      await runWorkload(warm, shape, WARMUP_TURNS);
    }
    collectGarbage();
    for (const documents of [false, true]) reportHint(documents, await hintEffect(TURNS, documents));
    collectGarbage();
    for (const shape of ["plain", "langchain"] as const) {
      const d = join(dir, shape);
      mkdirSync(d);
      const t0 = process.hrtime.bigint();
      report(shape, await runWorkload(d, shape, TURNS));
      log(`${shape} done in ${formatMs(msSince(t0))}`);
      collectGarbage();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const cpu = cpus();
  const env = `Node ${process.version}, ${cpu[0]?.model.trim() ?? "unknown CPU"} × ${cpu.length}, ${process.platform}/${process.arch}`;
  const notes = [
    `Workload: a chat agent's thread of ${TURNS} turns. Channels: \`messages\` (one user message of 200–500 characters and one assistant message of 300–800 per turn; ${2 * TURNS} at the end), \`tools\` (20 tool specs, ~6 KB, never changing), \`system\` (a 1.5 KB prompt, never changing), \`profile\` (changes every 100 turns) and \`turn\` (a counter). Text is word salad from a fixed vocabulary (compresses like prose).`,
    "Each turn, for each saver: putWrites of the agent's new message against the previous checkpoint (task path as LangGraph gives it), then one put of the new checkpoint — channel_versions incremented for the channels that changed, newVersions naming only those, every channel value passed (the message list in full), as LangGraph's loop does. The checkpoint objects are the same for every saver; the savers take turns going first.",
    "Message shapes: plain JSON objects ({type, content, id}), and @langchain/core HumanMessage/AIMessage objects (what MessagesAnnotation holds; both savers serialize them with LangGraph's JsonPlusSerializer). ForgeSaver serializes an object met again as the same object once (LangGraph's reducers replace messages, never change them), and checks plain items of a list against what it stored before reusing that.",
    "SqliteSaver as shipped: journal_mode=WAL, SQLite's default synchronous=FULL (an fsync per commit), one row with the whole checkpoint per put. The synchronous=NORMAL column is the same saver on Forge's sqlite settings. ForgeSaver: forge-reasoning's sqlite backend (WAL, synchronous=NORMAL); one Forge checkpoint per put, one side-record row per pending write (see src/integrations/langgraph/forge-saver.ts).",
    `Reads: after all puts every saver is closed. Then ${COLD_READS} times, each saver in turn (who goes first rotating, a full GC before each): a fresh saver on the same file, one getTuple of the latest checkpoint — its first call; for ForgeSaver that is the session's row, its newest checkpoint row, the checkpoint's side records and its value tree, no other checkpoint row — and close; the median is reported. Then one more fresh saver each: ${WARM_READS} getTuples after its first (median), and a list of the whole thread (every checkpoint with its pending writes, values revived). The savers' results are checked to agree on the latest checkpoint's values.`,
    "Database bytes: after closing, PRAGMA wal_checkpoint(TRUNCATE) on a fresh connection, then the database file plus its -wal file.",
    `Targets (issue 18), against SqliteSaver as shipped in the same run: putWrites median at most the anchor's, the first getTuple of a fresh saver at most the anchor's, put median at most ${TARGETS.putMedian}× the anchor's, the database at least ${1 / TARGETS.bytes}× smaller (≤ ${TARGETS.bytes}×). Latencies are wall time per call; ${WARMUP_TURNS} warm-up turns of each shape ran first on throwaway files.`,
    "Search: a ForgeSaver put leaves its checkpoint for the next search to index (CheckpointOptions.searchIndex \"later\") instead of indexing it on LangGraph's hot path; the database row is before any search, and the row after it says what the first `forge search` then costs and adds (the index of every message's words).",
    "The machine is noisy (±30 % between runs): read the ratios.",
  ];
  const out = [
    "# LangGraph checkpointer: ForgeSaver vs SqliteSaver",
    "",
    `Command: \`${COMMAND}\`${QUICK ? " --quick (QUICK MODE: reduced counts)" : ""}`,
    "",
    `Run: ${new Date().toISOString()} · ${env} · total ${formatMs(msSince(started))}`,
    "",
    renderTable(),
    "",
    ...notes.map((n) => `- ${n}`),
    "",
  ].join("\n");
  publish("langgraph", out, { quick: QUICK, log });
}

runMain(main);
