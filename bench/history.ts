// History-length benchmark: what the everyday operations cost in a session of 100 checkpoints
// and in one of 100,000, measured side by side in the same run (medians). The target (issue 18,
// "cost that grows with the change, not with history") is the same time in both: a ratio
// (100,000 / 100) of about 1×, at most 1.5×.
//
//   npm run bench:history                          SQLite, 100 vs 100,000 checkpoints (≈3 min here)
//   npm run bench:history -- --postgres            the same on a throwaway PostgreSQL cluster too
//   npm run bench:history -- --file                the same on file: stores too (≈4 min more)
//   npm run bench:history -- --checkpoints 20000   another length for the long history
//   npm run bench:history -- --quick               100 vs 10,000, fewer repetitions; bench/results/history.md left alone
//
// Each history is a store of its own holding one session: the short store and the long one
// differ only in how much history they hold. The state is small and evolves as an agent's
// does (a step counter, a phase, a ring of the last notes, counters, a plan whose items get
// done), ≈0.8 KB of JSON; consecutive checkpoints are 5 s apart on a manual clock, so the
// long history spans ≈6 days and ends just before the measurements start.
//
// SQLite and file-store histories are written checkpoint by checkpoint through
// `Session.checkpoint` (the write path under test, search indexing included); PostgreSQL's
// through one `Store.importHistory` (one transaction: 100,000 checkpoints one by one there
// take ≈7 min), which leaves the search index to catch up at the first search — so the
// search is not measured there.
//
// Measured, interleaved (short, long, short, long, …) so drift on a shared machine falls on
// both alike: a new checkpoint on top; `at` for a recent time ("5 minutes ago") and for the
// middle of the history (an ISO time); the list of the newest 20 (library, and the CLI's
// `forge checkpoint list -n 20` as a whole process); `forge checkpoint at` as a process;
// restore of the newest, in process and from a freshly opened store; the session's count;
// a search for a word few checkpoints hold (which first looks for checkpoints to index).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ManualClock, openStore, type Session, type Store } from "../src/index.js";
import { startPostgres } from "../test/support/postgres-server.js";
import { sqliteFootprint } from "./lib/naive.js";
import { publish, runMain } from "./lib/report.js";
import { collectGarbage, formatBytes, formatMs, formatRatio, msSince, summarize } from "./lib/stats.js";

const argv = process.argv.slice(2);
const QUICK = argv.includes("--quick");
const POSTGRES = argv.includes("--postgres");
const FILE = argv.includes("--file");
const flag = (name: string): number | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : undefined;
};
const SHORT = 100;
const LONG = flag("--checkpoints") ?? (QUICK ? 10_000 : 100_000);
/** Repetitions of each in-process operation (after WARMUP), and of each CLI process. */
const REPS = QUICK ? 15 : 41;
const WARMUP = 3;
const CLI_REPS = QUICK ? 3 : 9;
/** Time between consecutive checkpoints of a history. */
const STEP_MS = 5_000;
const TARGET = 1.5;
const SESSION = "agent";
const COMMAND = `npm run bench:history${argv.length > 0 ? ` -- ${argv.join(" ")}` : ""}`;
const FORGE_BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bin", "forge.js");
const log = (msg: string) => process.stderr.write(`[history] ${msg}\n`);

const PHASES = ["explore", "plan", "edit", "test", "review"] as const;
const PLANTED = "ECONNRESET";
const NOTE_RING = 8;

/** The evolving state: checkpoint `i` changes the step, maybe the phase, one note, a counter and now and then the plan. */
interface AgentState {
  task: string;
  step: number;
  phase: string;
  notes: string[];
  counters: { edits: number; tests: number; failures: number };
  plan: { item: string; done: boolean }[];
}

function initialState(): AgentState {
  return {
    task: "make the flaky integration test for the payment gateway pass reliably",
    step: 0,
    phase: PHASES[0],
    notes: Array.from({ length: NOTE_RING }, (_, i) => `note ${i}: nothing yet`),
    counters: { edits: 0, tests: 0, failures: 0 },
    plan: ["reproduce the failure", "read the retry logic", "add a deterministic clock", "fix the race", "run the suite 50 times"].map((item) => ({
      item,
      done: false,
    })),
  };
}

/** Step `i` of the agent, applied in place. */
function advance(state: AgentState, i: number): void {
  state.step = i;
  state.phase = PHASES[Math.floor(i / 7) % PHASES.length] as string;
  state.notes[i % NOTE_RING] =
    `note ${i}: ${state.phase} step, looked at gateway/retry.ts line ${(i * 37) % 400}, ${i % 3 === 0 ? "test failed" : "test passed"}`;
  // What the search looks for: held by #50..#57 only (the ring overwrites it).
  if (i === 50) state.notes[i % NOTE_RING] += `; read ${PLANTED} from upstream 10.3.7.21:5432`;
  if (i % 2 === 0) state.counters.edits++;
  else state.counters.tests++;
  if (i % 3 === 0) state.counters.failures++;
  if (i % 50 === 0) {
    const item = state.plan[(i / 50) % state.plan.length] as { done: boolean };
    item.done = !item.done;
  }
}

/** A state that is `advance`d from `initialState` through step `i`, built as a fresh object (for importHistory). */
function stateAfter(i: number, prev: AgentState): AgentState {
  const next: AgentState = { ...prev, notes: [...prev.notes], counters: { ...prev.counters }, plan: prev.plan.map((p) => ({ ...p })) };
  advance(next, i);
  return next;
}

interface History {
  readonly label: string;
  readonly url: string;
  readonly checkpoints: number;
  readonly how: "checkpoint" | "import";
  readonly store: Store;
  readonly session: Session;
  readonly clock: ManualClock;
  readonly state: AgentState;
  /** When checkpoint #1 was made; #k was made at start + (k - 1) × STEP_MS. */
  readonly start: number;
  /** Checkpoint latency while the history was written checkpoint by checkpoint: over the first and the last 1,000. */
  readonly buildFirst?: number;
  readonly buildLast?: number;
  readonly buildMs: number;
}

/** Writes a history of `n` checkpoints into a new store at `url`, checkpoint by checkpoint or in one import. */
async function writeHistory(label: string, url: string, n: number, how: "checkpoint" | "import"): Promise<History> {
  const start = Date.now() - (n + 2) * STEP_MS;
  const clock = new ManualClock(start);
  const store = await openStore(url, { clock });
  const began = process.hrtime.bigint();
  let state = initialState();
  let buildFirst: number | undefined;
  let buildLast: number | undefined;
  let session: Session;
  if (how === "checkpoint") {
    session = await store.session(SESSION);
    const window = Math.min(1000, Math.floor(n / 2));
    const first: number[] = [];
    const last: number[] = [];
    let lap = process.hrtime.bigint();
    for (let i = 1; i <= n; i++) {
      clock.set(start + (i - 1) * STEP_MS);
      advance(state, i);
      const t = process.hrtime.bigint();
      await session.checkpoint(state, { message: `step ${i}: ${state.phase}`, trigger: i % 10 === 0 ? "compaction" : "manual" });
      const ms = msSince(t);
      if (i <= window) first.push(ms);
      else if (i > n - window) last.push(ms);
      if (i % 10_000 === 0) {
        log(`${label}: ${i.toLocaleString("en")} checkpoints (${formatMs(msSince(lap) / 10_000)} each over the last 10,000)`);
        lap = process.hrtime.bigint();
      }
    }
    buildFirst = summarize(first).median;
    buildLast = summarize(last).median;
  } else {
    const checkpoints = [];
    for (let i = 1; i <= n; i++) {
      state = stateAfter(i, state);
      checkpoints.push({
        key: `k${i}`,
        seq: i,
        parent: i === 1 ? null : `k${i - 1}`,
        branch: "main",
        createdAt: start + (i - 1) * STEP_MS,
        message: `step ${i}: ${state.phase}`,
        tags: [],
        trigger: i % 10 === 0 ? "compaction" : "manual",
        metadata: {},
        state,
      });
    }
    session = await store.importHistory({
      name: SESSION,
      kind: "generic",
      checkpoints,
      branches: [{ name: "main", checkpoint: `k${n}` }],
      head: { branch: "main" },
    });
    state = structuredClone(state); // the measured checkpoints go on from #n's state, changing it in place
  }
  const buildMs = msSince(began);
  clock.set(Math.max(clock.now(), Date.now()));
  log(`${label}: ${n.toLocaleString("en")} checkpoints written in ${formatMs(buildMs)}`);
  return {
    label,
    url,
    checkpoints: n,
    how,
    store,
    session,
    clock,
    state,
    start,
    buildMs,
    ...(buildFirst !== undefined && { buildFirst }),
    ...(buildLast !== undefined && { buildLast }),
  };
}

/** One measured operation, run on both histories. `check` looks at its result once (a wrong answer is a failed run, not a fast one). */
interface Operation {
  readonly name: string;
  readonly reps: number;
  /** Whether it is measured on these histories (default: always). */
  applies?(h: History): boolean;
  run(h: History, rep: number): Promise<unknown>;
  check?(h: History, result: unknown): void;
}

function fail(message: string): never {
  throw new Error(message);
}

function cli(h: History, args: readonly string[]): unknown {
  const r = spawnSync(process.execPath, [FORGE_BIN, "--store", h.url, "--session", SESSION, ...args, "--json"], { encoding: "utf8" });
  if (r.status !== 0) fail(`forge ${args.join(" ")} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as unknown;
}

function operations(): Operation[] {
  const middle = (h: History) => Math.floor(h.checkpoints / 2);
  const middleTime = (h: History) => new Date(h.start + (middle(h) - 1) * STEP_MS + STEP_MS / 2).toISOString();
  return [
    {
      name: "checkpoint (a new one on top)",
      reps: REPS,
      run: async (h, rep) => {
        h.clock.set(Math.max(h.clock.now() + 1, Date.now()));
        advance(h.state, h.state.step + 1);
        return h.session.checkpoint(h.state, { message: `measured ${rep}` });
      },
    },
    {
      name: '`at("5 minutes ago")` (a recent time)',
      reps: REPS,
      run: (h) => {
        h.clock.set(Math.max(h.clock.now(), Date.now()));
        return h.session.at("5 minutes ago");
      },
      check: (h, cp) => {
        if (cp === undefined) fail(`${h.label}: at("5 minutes ago") found nothing`);
      },
    },
    {
      name: "`at(ISO time)` in the middle of the history",
      reps: REPS,
      run: (h) => h.session.at(middleTime(h)),
      check: (h, cp) => {
        const seq = (cp as { seq?: number } | undefined)?.seq;
        if (seq !== middle(h)) fail(`${h.label}: at(middle) gave #${seq}, not #${middle(h)}`);
      },
    },
    {
      name: "list the newest 20 (`session.list`)",
      reps: REPS,
      run: (h) => h.session.list({ order: "desc", limit: 20 }),
      check: (h, rows) => {
        if ((rows as unknown[]).length !== 20) fail(`${h.label}: list gave ${(rows as unknown[]).length} checkpoints`);
      },
    },
    {
      name: "restore the newest (in process)",
      reps: REPS,
      run: (h) => h.session.restore("HEAD"),
      check: (h, r) => {
        const state = (r as { state: AgentState }).state;
        if (state.step !== h.state.step) fail(`${h.label}: restore gave step ${state.step}, not ${h.state.step}`);
      },
    },
    {
      name: "restore the newest from a fresh store (open + restore + close)",
      reps: REPS,
      run: async (h) => {
        const store = await openStore(h.url);
        try {
          return await (await store.getSession(SESSION)).restore("HEAD");
        } finally {
          await store.close();
        }
      },
      check: (h, r) => {
        if ((r as { state: AgentState }).state.step !== h.state.step) fail(`${h.label}: cold restore gave another state`);
      },
    },
    {
      name: "count the session's checkpoints (`session.count`)",
      reps: REPS,
      run: (h) => h.session.count(),
      check: (h, n) => {
        if ((n as number) < h.checkpoints) fail(`${h.label}: count gave ${n}`);
      },
    },
    {
      // Each search first looks for checkpoints the index has yet to take in. Only where the
      // histories were written checkpoint by checkpoint (indexed as they went): an imported
      // one would be indexed whole by its first search; file stores build their in-process
      // index at a process's first search.
      name: `search a word 8 checkpoints hold (\`store.search("${PLANTED}")\`)`,
      reps: REPS,
      applies: (h) => h.how === "checkpoint" && !h.url.startsWith("file:"),
      run: (h) => h.store.search(PLANTED),
      check: (h, r) => {
        const hits = (r as { results: { first: { seq: number } }[] }).results;
        if (hits[0]?.first.seq !== 50) fail(`${h.label}: the search found ${JSON.stringify(hits.map((x) => x.first.seq))}`);
      },
    },
    {
      name: "`forge checkpoint list -n 20` (a process)",
      reps: CLI_REPS,
      run: async (h) => cli(h, ["checkpoint", "list", "-n", "20"]),
      check: (h, r) => {
        if ((r as { checkpoints: unknown[] }).checkpoints.length !== 20) fail(`${h.label}: the CLI listed another count`);
      },
    },
    {
      name: '`forge checkpoint at "5 minutes ago"` (a process)',
      reps: CLI_REPS,
      run: async (h) => cli(h, ["checkpoint", "at", "5 minutes ago"]),
    },
  ];
}

interface Row {
  readonly backend: string;
  readonly operation: string;
  readonly short: number;
  readonly long: number;
}

/** Runs every operation on both histories, interleaved; medians after a warm-up. */
async function measure(backend: string, short: History, long: History, rows: Row[]): Promise<void> {
  for (const op of operations()) {
    if (op.applies && !(op.applies(short) && op.applies(long))) continue;
    const samples = new Map<History, number[]>([
      [short, []],
      [long, []],
    ]);
    const warmup = op.reps === CLI_REPS ? 1 : WARMUP;
    for (let rep = 0; rep < warmup + op.reps; rep++) {
      for (const h of rep % 2 === 0 ? [short, long] : [long, short]) {
        const t = process.hrtime.bigint();
        const result = await op.run(h, rep);
        const ms = msSince(t);
        if (rep === 0) op.check?.(h, result);
        if (rep >= warmup) samples.get(h)?.push(ms);
      }
    }
    const s = summarize(samples.get(short) ?? []).median;
    const l = summarize(samples.get(long) ?? []).median;
    rows.push({ backend, operation: op.name, short: s, long: l });
    log(`${backend}: ${op.name}: ${formatMs(s)} vs ${formatMs(l)} (${formatRatio(l, s)})`);
    collectGarbage();
  }
}

async function runBackend(backend: string, urlOf: (which: string) => string, how: "checkpoint" | "import", rows: Row[], notes: string[]): Promise<void> {
  const short = await writeHistory(`${backend} short`, urlOf("short"), SHORT, how);
  const long = await writeHistory(`${backend} long`, urlOf("long"), LONG, how);
  try {
    if (long.buildFirst !== undefined && long.buildLast !== undefined) {
      notes.push(
        `${backend}: writing the ${LONG.toLocaleString("en")}-checkpoint history took ${formatMs(long.buildMs)}; checkpoint median over its first 1,000 ${formatMs(long.buildFirst)}, over its last 1,000 ${formatMs(long.buildLast)} (${formatRatio(long.buildLast, long.buildFirst)}).`,
      );
    } else {
      notes.push(`${backend}: the ${LONG.toLocaleString("en")}-checkpoint history was written by one \`importHistory\` in ${formatMs(long.buildMs)}.`);
    }
    collectGarbage();
    await measure(backend, short, long, rows);
    if (short.url.startsWith("sqlite:") && long.url.startsWith("sqlite:")) {
      const a = sqliteFootprint(short.url.slice("sqlite:".length)).total;
      const b = sqliteFootprint(long.url.slice("sqlite:".length)).total;
      notes.push(`${backend}: store files (db + wal) ${formatBytes(a)} and ${formatBytes(b)}.`);
    }
  } finally {
    await short.store.close();
    await long.store.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "forge-bench-history-"));
  const started = process.hrtime.bigint();
  const rows: Row[] = [];
  const notes: string[] = [];
  try {
    log(`temp dir ${dir}; ${SHORT} vs ${LONG.toLocaleString("en")} checkpoints`);
    await runBackend("sqlite", (which) => `sqlite:${join(dir, `${which}.db`)}`, "checkpoint", rows, notes);
    if (FILE) await runBackend("file", (which) => `file:${join(dir, which)}`, "checkpoint", rows, notes);
    if (POSTGRES) {
      const server = startPostgres();
      try {
        const sep = server.url.includes("?") ? "&" : "?";
        await runBackend("postgres", (which) => `${server.url}${sep}schema=bench_history_${which}`, "import", rows, notes);
      } finally {
        server.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  const short = SHORT.toLocaleString("en");
  const long = LONG.toLocaleString("en");
  const out = [
    `Command: \`${COMMAND}\``,
    "",
    `Run: ${new Date().toISOString()} · Node ${process.version}, ${cpu} × ${cpus().length}, ${process.platform}/${process.arch} · total ${formatMs(msSince(started))}`,
    "",
    `Medians of ${REPS} in-process runs (${CLI_REPS} for CLI processes) per operation and history, interleaved.`,
    "",
    `| backend | operation | ${short} cp | ${long} cp | ratio (${long} / ${short}) | target | met? |`,
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map((r) => {
      const ratio = r.long / r.short;
      return `| ${r.backend} | ${r.operation} | ${formatMs(r.short)} | ${formatMs(r.long)} | ${formatRatio(r.long, r.short)} | ≈ 1× (≤ ${TARGET}×) | ${ratio <= TARGET ? "yes" : "NO"} |`;
    }),
    "",
    ...notes.map((n) => `- ${n}`),
    "",
  ].join("\n");
  publish("history", out, { quick: QUICK, log });
}

runMain(main);
