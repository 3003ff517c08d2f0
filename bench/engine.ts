// Engine benchmark: Forge's sqlite backend against a naive anchor (one gzip'd full JSON copy
// per checkpoint, one row, one transaction) and the floor (a bare one-row insert
// transaction), all on the same SQLite settings (better-sqlite3, WAL, synchronous=NORMAL).
//
//   npm run bench:engine
//   (= npx tsc -p tsconfig.bench.json && node --expose-gc build/bench/engine.js)
//
// Workload A: a ≈1 MB reasoning state, ~1 % of it changed between checkpoints; checkpoint
//             and restore (warm, and cold through a new Store) latency.
// Workload B: a growing log, one ≈500-byte item appended per checkpoint, 1,000 checkpoints;
//             bytes stored and checkpoint latency.
//
// `--quick` runs smaller counts (for trying the harness, not for numbers).
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Session, type Store } from "../src/index.js";
import { Floor, NaiveStore, sqliteFootprint, type Footprint } from "./lib/naive.js";
import { collectGarbage, formatBytes, formatMs, formatPercent, formatRatio, msSince, summarize, timeAsync, timeSync, type Summary } from "./lib/stats.js";
import { LogWorkload, ReasoningWorkload, Rng, applyImmutable, applyInPlace, type LogState, type ReasoningState } from "./lib/workloads.js";
import { publish, runMain } from "./lib/report.js";

const QUICK = process.argv.includes("--quick");
const CONFIG = {
  floorWarmup: QUICK ? 50 : 200,
  floorSamples: QUICK ? 200 : 1000,
  aWarmup: QUICK ? 5 : 10,
  aCheckpoints: QUICK ? 40 : 200,
  aVariantSteps: QUICK ? 20 : 100,
  aRestoreSamples: QUICK ? 10 : 50,
  bWarmup: QUICK ? 20 : 50,
  bCheckpoints: QUICK ? 200 : 1000,
  /** Workload B's storage target: Forge's bytes under this fraction of the raw full copies. */
  bTargetFraction: 0.05,
} as const;
const COMMAND = "npm run bench:engine";

// ---------------------------------------------------------------- report table

interface Row {
  workload: string;
  metric: string;
  forge: string;
  naive: string;
  floor: string;
  ratio: string;
  target: string;
  met: string;
}

const rows: Row[] = [];

function row(r: Partial<Row> & Pick<Row, "workload" | "metric">): void {
  rows.push({ forge: "—", naive: "—", floor: "—", ratio: "—", target: "—", met: "—", ...r });
}

/** Latency rows; `targetMs` is the target for the median, when it sets one. */
function latencyRows(workload: string, what: string, forge: Summary, naive: Summary, floor?: Summary, targetMs?: number): void {
  row({
    workload,
    metric: `${what} median (n=${forge.n})`,
    forge: formatMs(forge.median),
    naive: formatMs(naive.median),
    floor: floor ? formatMs(floor.median) : "—",
    ratio: formatRatio(forge.median, naive.median),
    ...(targetMs !== undefined && { target: `< ${targetMs} ms`, met: forge.median < targetMs ? "yes" : "NO" }),
  });
  row({
    workload,
    metric: `${what} p95 (n=${forge.n})`,
    forge: formatMs(forge.p95),
    naive: formatMs(naive.p95),
    floor: floor ? formatMs(floor.p95) : "—",
    ratio: formatRatio(forge.p95, naive.p95),
  });
}

function renderTable(): string {
  const header: Row = {
    workload: "workload",
    metric: "metric",
    forge: "forge",
    naive: "naive anchor",
    floor: "floor",
    ratio: "ratio (forge/naive)",
    target: "target",
    met: "met?",
  };
  const cols = Object.keys(header) as (keyof Row)[];
  const line = (r: Row): string => "| " + cols.map((c) => r[c].replace(/\|/g, "\\|")).join(" | ") + " |";
  return [line(header), "| " + cols.map(() => "---").join(" | ") + " |", ...rows.map(line)].join("\n");
}

function log(msg: string): void {
  process.stderr.write(`[bench] ${msg}\n`);
}

function sameJson(a: unknown, b: unknown, what: string): void {
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${what}: the restored state differs from the one saved`);
}

// ---------------------------------------------------------------- floor

interface FloorResult {
  write: Summary;
  read: Summary;
}

function runFloor(dir: string): FloorResult {
  const floor = new Floor(join(dir, "floor.db"));
  try {
    const ids: string[] = [];
    for (let i = 0; i < CONFIG.floorWarmup; i++) ids.push(floor.write());
    const writes: number[] = [];
    for (let i = 0; i < CONFIG.floorSamples; i++) {
      const t = timeSync(() => floor.write());
      writes.push(t.ms);
      ids.push(t.value);
    }
    const rng = new Rng(7);
    for (let i = 0; i < 100; i++) floor.read(rng.pick(ids));
    const reads: number[] = [];
    for (let i = 0; i < CONFIG.floorSamples; i++) {
      const id = rng.pick(ids);
      reads.push(timeSync(() => floor.read(id)).ms);
    }
    return { write: summarize(writes), read: summarize(reads) };
  } finally {
    floor.close();
  }
}

// ---------------------------------------------------------------- workload A

interface Pair {
  forgeMs: number;
  naiveMs: number;
  forgeNewBytes: number;
  naiveBytes: number;
  jsonBytes: number;
  forgeId: string;
  naiveId: string;
}

/** One checkpoint in both systems; which goes first alternates so neither always pays for the other's garbage. */
async function checkpointBoth(s: Session, naive: NaiveStore, state: unknown, i: number): Promise<Pair> {
  const doForge = () => timeAsync(() => s.checkpoint(state, { message: `step ${i}` }));
  const doNaive = () => timeSync(() => naive.checkpoint(s.name, state));
  let f: Awaited<ReturnType<typeof doForge>>;
  let n: ReturnType<typeof doNaive>;
  if (i % 2 === 0) {
    f = await doForge();
    n = doNaive();
  } else {
    n = doNaive();
    f = await doForge();
  }
  return {
    forgeMs: f.ms,
    naiveMs: n.ms,
    forgeNewBytes: f.value.sizes.newBytes,
    naiveBytes: n.value.storedBytes,
    jsonBytes: n.value.jsonBytes,
    forgeId: f.value.id,
    naiveId: n.value.id,
  };
}

async function runWorkloadA(dir: string, floor: FloorResult): Promise<void> {
  const W = "A · 1 MB, 1 % changes";
  // JIT warm-up on throwaway files (another seed), so the measured first checkpoint pays
  // for writing every object, not for compiling the code.
  {
    const store = await openStore(`sqlite:${join(dir, "a-warm-forge.db")}`);
    const s = await store.session("warm");
    const naive = new NaiveStore(join(dir, "a-warm-naive.db"));
    const wl = new ReasoningWorkload(99);
    let state: ReasoningState = wl.initial(1000);
    for (let i = 0; i < CONFIG.aWarmup; i++) {
      if (i > 0) state = applyImmutable(state, wl.plan(state));
      await checkpointBoth(s, naive, state, i);
      await s.state("HEAD");
      naive.restore(naive.lastId ?? "");
    }
    await store.close();
    naive.close();
  }
  collectGarbage();

  const forgePath = join(dir, "a-forge.db");
  const url = `sqlite:${forgePath}`;
  let store: Store = await openStore(url);
  const s = await store.session("bench");
  const naive = new NaiveStore(join(dir, "a-naive.db"));
  const wl = new ReasoningWorkload(1);
  let state: ReasoningState = wl.initial(1000);

  // The first checkpoint writes every object; reported on its own, not in the medians.
  const first = await checkpointBoth(s, naive, state, 0);
  log(
    `A: state ${formatBytes(first.jsonBytes)} JSON; first checkpoint forge ${formatMs(first.forgeMs)} (${formatBytes(first.forgeNewBytes)} new), naive ${formatMs(first.naiveMs)}`,
  );
  for (let i = 1; i <= CONFIG.aWarmup; i++) {
    state = applyImmutable(state, wl.plan(state));
    await checkpointBoth(s, naive, state, i);
  }
  collectGarbage();

  // Main phase: immutable steps.
  const measured: Pair[] = [];
  const states: ReasoningState[] = [];
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < CONFIG.aCheckpoints; i++) {
    state = applyImmutable(state, wl.plan(state));
    measured.push(await checkpointBoth(s, naive, state, i));
    states.push(state);
  }
  log(`A: ${CONFIG.aCheckpoints} checkpoints in ${formatMs(msSince(t0))}`);
  const fA = summarize(measured.map((p) => p.forgeMs));
  const nA = summarize(measured.map((p) => p.naiveMs));
  const jsonA = summarize(measured.map((p) => p.jsonBytes));
  row({
    workload: W,
    metric: "first checkpoint (writes everything; not in the medians)",
    forge: formatMs(first.forgeMs),
    naive: formatMs(first.naiveMs),
    ratio: formatRatio(first.forgeMs, first.naiveMs),
  });
  latencyRows(W, "checkpoint latency", fA, nA, floor.write, 5);

  const newA = summarize(measured.map((p) => p.forgeNewBytes));
  const gzA = summarize(measured.map((p) => p.naiveBytes));
  row({
    workload: W,
    metric: `stored bytes per checkpoint, median (state JSON ${formatBytes(jsonA.median)})`,
    forge: formatBytes(newA.median),
    naive: formatBytes(gzA.median),
    ratio: formatRatio(newA.median, gzA.median),
    target: "≤ 0.1× naive (DESIGN §7)",
    met: newA.median <= 0.1 * gzA.median ? "yes" : "NO",
  });
  collectGarbage();

  // Variant: the harness mutates in place on a structuredClone. Interleaved with immutable
  // steps (same phase, alternating) so the comparison is free of drift.
  const inPlace: Pair[] = [];
  const control: Pair[] = [];
  for (let i = 0; i < CONFIG.aVariantSteps; i++) {
    const plan = wl.plan(state);
    if (i % 2 === 0) {
      const next = structuredClone(state) as ReasoningState;
      applyInPlace(next, plan);
      state = next;
      inPlace.push(await checkpointBoth(s, naive, state, i >> 1));
    } else {
      state = applyImmutable(state, plan);
      control.push(await checkpointBoth(s, naive, state, i >> 1));
    }
  }
  const fIn = summarize(inPlace.map((p) => p.forgeMs));
  const nIn = summarize(inPlace.map((p) => p.naiveMs));
  const fCtl = summarize(control.map((p) => p.forgeMs));
  const nCtl = summarize(control.map((p) => p.naiveMs));
  row({
    workload: W,
    metric: `variant: in-place mutation on structuredClone, checkpoint median / p95 (n=${fIn.n})`,
    forge: `${formatMs(fIn.median)} / ${formatMs(fIn.p95)}`,
    naive: `${formatMs(nIn.median)} / ${formatMs(nIn.p95)}`,
    ratio: formatRatio(fIn.median, nIn.median),
  });
  row({
    workload: W,
    metric: `variant control: immutable steps interleaved with the above, median / p95 (n=${fCtl.n})`,
    forge: `${formatMs(fCtl.median)} / ${formatMs(fCtl.p95)}`,
    naive: `${formatMs(nCtl.median)} / ${formatMs(nCtl.p95)}`,
    ratio: formatRatio(fCtl.median, nCtl.median),
  });
  collectGarbage();

  // Restore: random earlier checkpoints of the main phase, the same ones for both systems.
  const rng = new Rng(11);
  const picks = Array.from({ length: CONFIG.aRestoreSamples }, () => rng.int(0, measured.length - 1));
  const warmPicks = Array.from({ length: 5 }, () => rng.int(0, measured.length - 1));
  for (const k of warmPicks) {
    const p = measured[k] as Pair;
    await s.state(p.forgeId);
    naive.restore(p.naiveId);
  }
  const fWarm: number[] = [];
  const nWarm: number[] = [];
  for (const [j, k] of picks.entries()) {
    const p = measured[k] as Pair;
    const f = await timeAsync(() => s.state(p.forgeId));
    const n = timeSync(() => naive.restore(p.naiveId));
    fWarm.push(f.ms);
    nWarm.push(n.ms);
    if (j < 3) {
      sameJson(f.value, states[k], `forge warm restore of step ${k}`);
      sameJson(n.value, states[k], `naive restore of step ${k}`);
    }
  }
  latencyRows(W, "restore latency, warm (same Store / connection)", summarize(fWarm), summarize(nWarm), floor.read, 10);
  collectGarbage();

  // Cold: a new Store object (fresh object and node caches, new SQLite connection) per
  // sample; for the anchor, a new connection per sample. The OS page cache stays warm.
  await store.close();
  const fCold: number[] = [];
  const fOpen: number[] = [];
  const nCold: number[] = [];
  for (const [j, k] of picks.entries()) {
    const p = measured[k] as Pair;
    const opened = await timeAsync(async () => {
      const st = await openStore(url);
      return { st, sess: await st.session("bench") };
    });
    fOpen.push(opened.ms);
    const f = await timeAsync(() => opened.value.sess.state(p.forgeId));
    fCold.push(f.ms);
    await opened.value.st.close();
    naive.reopen();
    const n = timeSync(() => naive.restore(p.naiveId));
    nCold.push(n.ms);
    if (j < 3) sameJson(f.value, states[k], `forge cold restore of step ${k}`);
  }
  latencyRows(W, "restore latency, cold (new Store per restore; open not included)", summarize(fCold), summarize(nCold), floor.read, 10);
  const openS = summarize(fOpen);
  row({ workload: W, metric: "openStore + session(), per cold restore, median", forge: formatMs(openS.median) });

  store = await openStore(url); // reopened only so the footprint is taken with a live connection, as in use
  const fFoot = sqliteFootprint(forgePath);
  const nFoot = sqliteFootprint(naive.path);
  const total = 1 + CONFIG.aWarmup + CONFIG.aCheckpoints + CONFIG.aVariantSteps;
  row({
    workload: W,
    metric: `SQLite file size (db + -wal after wal_checkpoint(TRUNCATE)), ${total} checkpoints`,
    forge: formatBytes(fFoot.total),
    naive: formatBytes(nFoot.total),
    ratio: formatRatio(fFoot.total, nFoot.total),
  });
  await store.close();
  naive.close();
  log(`A: forge file ${formatBytes(fFoot.total)} (before truncate ${formatBytes(fFoot.before)}), naive ${formatBytes(nFoot.total)}`);
}

// ---------------------------------------------------------------- workload B

async function runWorkloadB(dir: string, floor: FloorResult): Promise<void> {
  const n = CONFIG.bCheckpoints;
  const W = `B · growing log, ${n.toLocaleString("en-US")} × ≈500 B`;

  // Warm-up on throwaway files, so the measured files hold only the measured session.
  {
    const store = await openStore(`sqlite:${join(dir, "b-warm-forge.db")}`);
    const s = await store.session("warm");
    const naive = new NaiveStore(join(dir, "b-warm-naive.db"));
    const wl = new LogWorkload(99);
    let state: LogState = wl.initial();
    for (let i = 0; i < CONFIG.bWarmup; i++) {
      state = wl.append(state);
      await checkpointBoth(s, naive, state, i);
    }
    await store.close();
    naive.close();
  }
  collectGarbage();

  const forgePath = join(dir, "b-forge.db");
  const store = await openStore(`sqlite:${forgePath}`);
  const s = await store.session("log");
  const naive = new NaiveStore(join(dir, "b-naive.db"));
  const wl = new LogWorkload(2);
  let state: LogState = wl.initial();
  const pairs: Pair[] = [];
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    state = wl.append(state);
    pairs.push(await checkpointBoth(s, naive, state, i));
  }
  log(`B: ${n} checkpoints in ${formatMs(msSince(t0))}; final state ${formatBytes(JSON.stringify(state).length)}`);
  const last = pairs[pairs.length - 1] as Pair;
  sameJson(await s.state(last.forgeId), state, "forge restore of the last log checkpoint");
  sameJson(naive.restore(last.naiveId), state, "naive restore of the last log checkpoint");

  const raw = pairs.reduce((a, p) => a + p.jsonBytes, 0);
  const forgeNew = pairs.reduce((a, p) => a + p.forgeNewBytes, 0);
  const gz = pairs.reduce((a, p) => a + p.naiveBytes, 0);
  const fFoot: Footprint = sqliteFootprint(forgePath);
  const nFoot: Footprint = sqliteFootprint(naive.path);
  await store.close();
  naive.close();
  log(
    `B: raw ${formatBytes(raw)}, forge new ${formatBytes(forgeNew)}, file ${formatBytes(fFoot.total)} (before truncate ${formatBytes(fFoot.before)}); gzip ${formatBytes(gz)}, file ${formatBytes(nFoot.total)}`,
  );

  const target = `< ${formatPercent(CONFIG.bTargetFraction)} of raw`;
  const yes = (x: number) => (x < CONFIG.bTargetFraction ? "yes" : "NO");
  row({ workload: W, metric: `raw full copies: Σ JSON length of the ${n} states`, forge: formatBytes(raw), naive: formatBytes(raw) });
  row({
    workload: W,
    metric: "stored bytes: forge Σ sizes.newBytes · naive Σ gzip sizes",
    forge: formatBytes(forgeNew),
    naive: formatBytes(gz),
    ratio: formatRatio(forgeNew, gz),
  });
  row({
    workload: W,
    metric: "  … as a share of the raw full copies",
    forge: formatPercent(forgeNew / raw),
    naive: formatPercent(gz / raw),
    target,
    met: yes(forgeNew / raw),
  });
  row({
    workload: W,
    metric: "SQLite file size (db + -wal after wal_checkpoint(TRUNCATE))",
    forge: formatBytes(fFoot.total),
    naive: formatBytes(nFoot.total),
    ratio: formatRatio(fFoot.total, nFoot.total),
  });
  row({
    workload: W,
    metric: "  (db + -wal before the TRUNCATE checkpoint)",
    forge: formatBytes(fFoot.before),
    naive: formatBytes(nFoot.before),
    ratio: formatRatio(fFoot.before, nFoot.before),
  });
  row({
    workload: W,
    metric: "  … after TRUNCATE, as a share of the raw full copies",
    forge: formatPercent(fFoot.total / raw),
    naive: formatPercent(nFoot.total / raw),
    target,
    met: yes(fFoot.total / raw),
  });
  latencyRows(W, "checkpoint latency", summarize(pairs.map((p) => p.forgeMs)), summarize(pairs.map((p) => p.naiveMs)), floor.write);
  const tail = pairs.slice(-Math.max(1, Math.floor(n / 10)));
  const fTail = summarize(tail.map((p) => p.forgeMs));
  const nTail = summarize(tail.map((p) => p.naiveMs));
  row({
    workload: W,
    metric: `checkpoint latency, last ${tail.length} (log ≈ ${formatBytes(last.jsonBytes)}), median / p95`,
    forge: `${formatMs(fTail.median)} / ${formatMs(fTail.p95)}`,
    naive: `${formatMs(nTail.median)} / ${formatMs(nTail.p95)}`,
    ratio: formatRatio(fTail.median, nTail.median),
  });
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  const dir = mkdtempSync(join(tmpdir(), "forge-bench-"));
  if (typeof globalThis.gc !== "function") log("global.gc is not available (run node with --expose-gc); phases are not separated by a GC");
  try {
    log(`temp dir ${dir}${QUICK ? " (quick mode)" : ""}`);
    const floor = runFloor(dir);
    log(`floor: insert tx median ${formatMs(floor.write.median)}, point select median ${formatMs(floor.read.median)}`);
    collectGarbage();
    await runWorkloadA(dir, floor);
    collectGarbage();
    await runWorkloadB(dir, floor);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const elapsed = msSince(started);

  const cpu = cpus();
  const env = `Node ${process.version}, ${cpu[0]?.model.trim() ?? "unknown CPU"} × ${cpu.length}, ${process.platform}/${process.arch}`;
  const notes = [
    "Floor: a bare one-row INSERT transaction (BEGIN IMMEDIATE … COMMIT, 13-byte payload) for checkpoint rows; a point SELECT by primary key for restore rows.",
    "Naive anchor: JSON.stringify + zlib.gzipSync + one-row INSERT transaction (id, session, seq, created_at, data); restore = SELECT + gunzipSync + JSON.parse.",
    "All three on better-sqlite3 with journal_mode=WAL, synchronous=NORMAL, like Forge's sqlite backend. Latencies are wall time per call (process.hrtime.bigint), Forge and anchor interleaved and alternating order.",
    `A: 1,000 hypotheses × 5 evidence items + 40 notes + metrics (≈1 MB JSON); each step changes 10 hypotheses (status, confidence, one evidence item pushed, the oldest dropped beyond 5) and the metrics. JIT warm-up on throwaway files, then the first checkpoint (reported alone), ${CONFIG.aWarmup} warm-up steps, then ${CONFIG.aCheckpoints} measured; restores are ${CONFIG.aRestoreSamples} random checkpoints of the measured phase (verified against the saved state). Cold = new Store (or connection) per restore, OS page cache warm.`,
    `B: ${CONFIG.bCheckpoints} checkpoints of a log that grows by one ≈500-byte item per checkpoint (after ${CONFIG.bWarmup} warm-up checkpoints on throwaway files). Target: Forge under 5 % of the raw full copies.`,
  ];
  const out = [
    "# Forge engine benchmark",
    "",
    `Command: \`${COMMAND}\`${QUICK ? " --quick (QUICK MODE: reduced counts)" : ""}`,
    "",
    `Run: ${new Date().toISOString()} · ${env} · total ${formatMs(elapsed)}`,
    "",
    renderTable(),
    "",
    ...notes.map((n) => `- ${n}`),
    "",
  ].join("\n");
  publish("engine", out, { quick: QUICK, log });
}

runMain(main);
