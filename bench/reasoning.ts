// Reasoning-session benchmark: checkpoint and restore of a ReasoningSession of 1,000
// hypotheses, 5,000 evidence items and 500 beliefs where one hypothesis changes between
// checkpoints, on the sqlite backend, against the naive anchor (one gzip'd full JSON copy
// of rs.state() per checkpoint in one SQLite row, same settings) in the same run.
//
//   npm run bench:reasoning
//   (= tsc -p tsconfig.bench.json && node --expose-gc build/bench/reasoning.js)
//
// `--quick` runs smaller counts (for trying the harness, not for numbers) and leaves
// bench/results/reasoning.md alone.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Checkpoint, type Store } from "../src/index.js";
import { toReasoningState } from "../src/domains/reasoning/model.js";
import { ReasoningSession, type ReasoningOptions } from "../src/domains/reasoning/reasoning-session.js";
import { NaiveStore, sqliteFootprint } from "./lib/naive.js";
import { CHANGE_KINDS, ISSUE_SIZES, ReasoningBuilder, type ChangeKind } from "./lib/reasoning-workload.js";
import { collectGarbage, formatBytes, formatMs, formatPercent, formatRatio, msSince, summarize, timeAsync, timeSync, type Summary } from "./lib/stats.js";
import { Rng } from "./lib/workloads.js";
import { publish, runMain } from "./lib/report.js";

const QUICK = process.argv.includes("--quick");
const CONFIG = {
  warmupSteps: QUICK ? 5 : 10,
  steps: QUICK ? 40 : 200,
  savePairs: QUICK ? 20 : 40,
  updateSamples: QUICK ? 5 : 15,
  warmRestores: QUICK ? 10 : 50,
  coldRestores: QUICK ? 5 : 30,
} as const;
const COMMAND = "npm run bench:reasoning";
const SESSION = "debug";
/**
 * Automatic checkpoints off: a status change (even proposed ↔ testing) queues a
 * hypothesis-status trigger, which would turn the next rs.save() into an automatic
 * checkpoint; with them off every checkpoint here is the manual one being measured and
 * every save writes the working state only. rs.checkpoint() itself behaves the same either way.
 */
const RS_OPTIONS: ReasoningOptions = { autoCheckpoints: false };
const TARGETS = {
  checkpoint: { design: 100, ours: 5 },
  restore: { design: 200, ours: 10 },
  storage: { design: 0.5, ours: 0.05 },
} as const;

// ---------------------------------------------------------------- report table

interface Row {
  workload: string;
  metric: string;
  forge: string;
  naive: string;
  ratio: string;
  target: string;
  met: string;
}

const rows: Row[] = [];

function row(r: Partial<Row> & Pick<Row, "workload" | "metric">): void {
  rows.push({ forge: "—", naive: "—", ratio: "—", target: "—", met: "—", ...r });
}

function yn(ok: boolean): string {
  return ok ? "yes" : "NO";
}

function msTarget(t: { design: number; ours: number }): string {
  return `design < ${t.design} ms · ours < ${t.ours} ms`;
}

function msMet(value: number, t: { design: number; ours: number }): string {
  return `${yn(value < t.design)} · ${yn(value < t.ours)}`;
}

/** Median and p95 rows; the targets apply to the median. */
function latencyRows(workload: string, what: string, forge: Summary, naive: Summary | undefined, target?: { design: number; ours: number }): void {
  row({
    workload,
    metric: `${what}, median (n=${forge.n})`,
    forge: formatMs(forge.median),
    naive: naive ? formatMs(naive.median) : "—",
    ratio: naive ? formatRatio(forge.median, naive.median) : "—",
    ...(target && { target: msTarget(target), met: msMet(forge.median, target) }),
  });
  row({
    workload,
    metric: `${what}, p95`,
    forge: formatMs(forge.p95),
    naive: naive ? formatMs(naive.p95) : "—",
    ratio: naive ? formatRatio(forge.p95, naive.p95) : "—",
  });
}

function renderTable(): string {
  const header: Row = {
    workload: "workload",
    metric: "metric",
    forge: "forge",
    naive: "naive anchor",
    ratio: "ratio (forge/naive)",
    target: "target (design · ours)",
    met: "met? (design · ours)",
  };
  const cols = Object.keys(header) as (keyof Row)[];
  const line = (r: Row): string => "| " + cols.map((c) => r[c].replace(/\|/g, "\\|")).join(" | ") + " |";
  return [line(header), "| " + cols.map(() => "---").join(" | ") + " |", ...rows.map(line)].join("\n");
}

function log(msg: string): void {
  process.stderr.write(`[bench:reasoning] ${msg}\n`);
}

/** JSON text of a state (timeSpentMs is dropped should an old state carry it). */
function comparable(state: unknown): string {
  return JSON.stringify(state, (k, v: unknown) => (k === "timeSpentMs" ? undefined : v));
}

// ---------------------------------------------------------------- one step

interface Step {
  kind: ChangeKind;
  forgeMs: number;
  naiveMs: number;
  newBytes: number;
  logicalBytes: number;
  jsonBytes: number;
  gzipBytes: number;
  checkpoint: Checkpoint;
  naiveId: string;
}

/**
 * Changes one hypothesis, then checkpoints in both systems. The naive anchor gets
 * rs.state() (a copy, made outside the timing); which goes first alternates, so neither
 * always pays for the other's garbage.
 */
async function step(rs: ReasoningSession, naive: NaiveStore, b: ReasoningBuilder, i: number): Promise<Step> {
  const kind = CHANGE_KINDS[i % CHANGE_KINDS.length] as ChangeKind;
  b.change(rs, kind);
  const state = rs.state();
  const doForge = () => timeAsync(() => rs.checkpoint(`step ${i}: one hypothesis (${kind})`));
  const doNaive = () => timeSync(() => naive.checkpoint(SESSION, state));
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
    kind,
    forgeMs: f.ms,
    naiveMs: n.ms,
    newBytes: f.value.sizes.newBytes,
    logicalBytes: f.value.sizes.logicalBytes,
    jsonBytes: n.value.jsonBytes,
    gzipBytes: n.value.storedBytes,
    checkpoint: f.value,
    naiveId: n.value.id,
  };
}

async function buildSession(url: string, seed: number): Promise<{ store: Store; rs: ReasoningSession; builder: ReasoningBuilder; buildMs: number }> {
  const store = await openStore(url);
  const rs = await ReasoningSession.open(store, SESSION, RS_OPTIONS);
  const builder = new ReasoningBuilder(seed);
  const t = timeSync(() => builder.build(rs, ISSUE_SIZES));
  return { store, rs, builder, buildMs: t.ms };
}

// ---------------------------------------------------------------- warm-up

/** JIT warm-up on throwaway files (another seed): every path the measured run takes. */
async function warmUp(dir: string): Promise<void> {
  const { store, rs, builder } = await buildSession(`sqlite:${join(dir, "warm-forge.db")}`, 99);
  const naive = new NaiveStore(join(dir, "warm-naive.db"));
  const steps: Step[] = [];
  await rs.checkpoint("initial");
  for (let i = 0; i < CONFIG.warmupSteps; i++) steps.push(await step(rs, naive, builder, i));
  for (let i = 0; i < 3; i++) {
    builder.change(rs, "confidence");
    await rs.save();
    await rs.save();
    await rs.update((r) => builder.change(r, "status"));
  }
  for (const s of steps.slice(0, 5)) {
    await rs.restore(s.checkpoint.id);
    toReasoningState(naive.restore(s.naiveId), SESSION);
  }
  await store.close();
  const cold = await openStore(`sqlite:${join(dir, "warm-forge.db")}`);
  const rs2 = await ReasoningSession.open(cold, SESSION, RS_OPTIONS);
  await rs2.restore((steps[0] as Step).checkpoint.id);
  await cold.close();
  naive.close();
}

// ---------------------------------------------------------------- the run

async function run(dir: string): Promise<{ jsonBytes: number; buildMs: number }> {
  const W = `1,000 H · 5,000 E · 500 B`;
  const forgePath = join(dir, "forge.db");
  const url = `sqlite:${forgePath}`;
  const { store, rs, builder, buildMs } = await buildSession(url, 1);
  let liveStore: Store = store;
  const naive = new NaiveStore(join(dir, "naive.db"));

  // The first checkpoint writes every object; reported on its own, not in the medians.
  const firstState = rs.state();
  const f0 = await timeAsync(() => rs.checkpoint("initial"));
  const n0 = timeSync(() => naive.checkpoint(SESSION, firstState));
  const jsonBytes = n0.value.jsonBytes;
  log(
    `state ${formatBytes(jsonBytes)} JSON (built in ${formatMs(buildMs)}); first checkpoint forge ${formatMs(f0.ms)} (${formatBytes(f0.value.sizes.newBytes)} new), naive ${formatMs(n0.ms)} (${formatBytes(n0.value.storedBytes)})`,
  );
  row({
    workload: W,
    metric: `first checkpoint (writes everything; not in the medians), state JSON ${formatBytes(jsonBytes)}`,
    forge: `${formatMs(f0.ms)} · ${formatBytes(f0.value.sizes.newBytes)}`,
    naive: `${formatMs(n0.ms)} · ${formatBytes(n0.value.storedBytes)}`,
    ratio: formatRatio(f0.ms, n0.ms),
  });
  for (let i = 0; i < CONFIG.warmupSteps; i++) await step(rs, naive, builder, i);
  collectGarbage();

  // ---- checkpoints: one hypothesis changed per step (status, confidence, new evidence in turn)
  const footBefore = sqliteFootprint(forgePath);
  const naiveFootBefore = sqliteFootprint(naive.path);
  const steps: Step[] = [];
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < CONFIG.steps; i++) steps.push(await step(rs, naive, builder, i));
  log(`${CONFIG.steps} checkpoints in ${formatMs(msSince(t0))}`);
  const footAfter = sqliteFootprint(forgePath);
  const naiveFootAfter = sqliteFootprint(naive.path);
  const fC = summarize(steps.map((s) => s.forgeMs));
  const nC = summarize(steps.map((s) => s.naiveMs));
  latencyRows(W, "checkpoint latency, rs.checkpoint(msg) after one hypothesis changed", fC, nC, TARGETS.checkpoint);
  const byKind = CHANGE_KINDS.map((k) => {
    const ks = steps.filter((s) => s.kind === k);
    return { k, f: summarize(ks.map((s) => s.forgeMs)), n: summarize(ks.map((s) => s.naiveMs)), b: summarize(ks.map((s) => s.newBytes)) };
  });
  row({
    workload: W,
    metric: `  … median by change: ${byKind.map((x) => x.k).join(" / ")}`,
    forge: byKind.map((x) => formatMs(x.f.median)).join(" / "),
    naive: byKind.map((x) => formatMs(x.n.median)).join(" / "),
  });

  const newB = summarize(steps.map((s) => s.newBytes));
  const gzB = summarize(steps.map((s) => s.gzipBytes));
  const jsonS = summarize(steps.map((s) => s.jsonBytes));
  const logicalS = summarize(steps.map((s) => s.logicalBytes));
  row({
    workload: W,
    metric: "bytes written per checkpoint, median (forge: new objects, sizes.newBytes · naive: gzip copy)",
    forge: formatBytes(newB.median),
    naive: formatBytes(gzB.median),
    ratio: formatRatio(newB.median, gzB.median),
  });
  row({
    workload: W,
    metric: `  … by change: ${byKind.map((x) => x.k).join(" / ")} (median)`,
    forge: byKind.map((x) => formatBytes(x.b.median)).join(" / "),
  });
  const storage = newB.median / logicalS.median;
  row({
    workload: W,
    metric: `  … as a share of the full state JSON (${formatBytes(jsonS.median)})`,
    forge: formatPercent(storage),
    naive: formatPercent(gzB.median / jsonS.median),
    target: `design < ${formatPercent(TARGETS.storage.design)} · ours < ${formatPercent(TARGETS.storage.ours)}`,
    met: `${yn(storage < TARGETS.storage.design)} · ${yn(storage < TARGETS.storage.ours)}`,
  });
  const growF = (footAfter.total - footBefore.total) / CONFIG.steps;
  const growN = (naiveFootAfter.total - naiveFootBefore.total) / CONFIG.steps;
  row({
    workload: W,
    metric: `SQLite file growth per checkpoint (db + -wal after wal_checkpoint(TRUNCATE), over the ${CONFIG.steps}), as a share of the state JSON`,
    forge: `${formatBytes(Math.round(growF))} · ${formatPercent(growF / jsonS.median)}`,
    naive: `${formatBytes(Math.round(growN))} · ${formatPercent(growN / jsonS.median)}`,
    ratio: formatRatio(growF, growN),
    target: `design < ${formatPercent(TARGETS.storage.design)} · ours < ${formatPercent(TARGETS.storage.ours)}`,
    met: `${yn(growF / jsonS.median < TARGETS.storage.design)} · ${yn(growF / jsonS.median < TARGETS.storage.ours)}`,
  });
  collectGarbage();

  // ---- rs.save(): the working state only, interleaved with checkpoints of the same kind of change
  const saveF: number[] = [];
  const saveN: number[] = [];
  const ckptF: number[] = [];
  const idle: number[] = [];
  const updates: number[] = [];
  for (let j = 0; j < CONFIG.savePairs; j++) {
    const kind = CHANGE_KINDS[j % CHANGE_KINDS.length] as ChangeKind;
    const doSave = async () => {
      builder.change(rs, kind);
      const state = rs.state();
      if (j % 2 === 0) {
        saveF.push((await timeAsync(() => rs.save())).ms);
        saveN.push(timeSync(() => naive.checkpoint(SESSION, state)).ms);
      } else {
        saveN.push(timeSync(() => naive.checkpoint(SESSION, state)).ms);
        saveF.push((await timeAsync(() => rs.save())).ms);
      }
      idle.push((await timeAsync(() => rs.save())).ms);
    };
    const doCheckpoint = async () => {
      builder.change(rs, kind);
      const c = await timeAsync(() => rs.checkpoint(`save phase ${j}`));
      ckptF.push(c.ms);
    };
    if (j % 2 === 0) {
      await doSave();
      await doCheckpoint();
    } else {
      await doCheckpoint();
      await doSave();
    }
    if (j < CONFIG.updateSamples) updates.push((await timeAsync(() => rs.update((r) => builder.change(r, kind)))).ms);
  }
  const sF = summarize(saveF);
  latencyRows(W, "rs.save() (working state only, no checkpoint row) after one hypothesis changed", sF, summarize(saveN));
  const cF = summarize(ckptF);
  row({
    workload: W,
    metric: `  … rs.checkpoint() interleaved with those saves, median (n=${cF.n}); save / checkpoint`,
    forge: `${formatMs(cF.median)}; ${formatRatio(sF.median, cF.median)}`,
  });
  row({ workload: W, metric: `rs.save() with nothing changed, median (n=${idle.length})`, forge: formatMs(summarize(idle).median) });
  const uS = summarize(updates);
  row({
    workload: W,
    metric: `rs.update(fn) (reload + change one hypothesis + save), median / p95 (n=${uS.n})`,
    forge: `${formatMs(uS.median)} / ${formatMs(uS.p95)}`,
    ratio: `${formatRatio(uS.median, sF.median)} of rs.save()`,
  });
  collectGarbage();

  // ---- restore, warm: random checkpoints of the measured phase, same process and store
  const rng = new Rng(11);
  const picks = Array.from({ length: CONFIG.warmRestores }, () => rng.int(0, steps.length - 1));
  const rF: number[] = [];
  const rN: number[] = [];
  const zod: number[] = [];
  for (const [j, k] of picks.entries()) {
    const s = steps[k] as Step;
    let naiveState: unknown;
    if (j % 2 === 0) {
      rF.push((await timeAsync(() => rs.restore(s.checkpoint.id))).ms);
      const n = timeSync(() => naive.restore(s.naiveId));
      rN.push(n.ms);
      naiveState = n.value;
    } else {
      const n = timeSync(() => naive.restore(s.naiveId));
      rN.push(n.ms);
      naiveState = n.value;
      rF.push((await timeAsync(() => rs.restore(s.checkpoint.id))).ms);
    }
    // What reload() validates: the working state as the store assembles it (read again, outside the timing).
    const working = await rs.session.working();
    zod.push(timeSync(() => toReasoningState(working?.state, SESSION)).ms);
    if (j < 3 && comparable(rs.state()) !== comparable(naiveState)) throw new Error(`warm restore of step ${k}: the state differs from the one checkpointed`);
  }
  latencyRows(W, "restore latency, warm: rs.restore(ref) in the same process (restore + reload)", summarize(rF), summarize(rN), TARGETS.restore);
  const zS = summarize(zod);
  row({
    workload: W,
    metric: `  … of which the structural check (toReasoningState on the restored working state, timed apart), median (n=${zS.n})`,
    forge: formatMs(zS.median),
    ratio: `${formatPercent(zS.median / summarize(rF).median)} of forge's restore`,
  });
  collectGarbage();

  // ---- restore, cold: a new Store and ReasoningSession.open per restore (OS page cache warm)
  await liveStore.close();
  const openS: number[] = [];
  const openRs: number[] = [];
  const coldF: number[] = [];
  const coldN: number[] = [];
  for (const [j, k] of picks.slice(0, CONFIG.coldRestores).entries()) {
    const s = steps[k] as Step;
    const o = await timeAsync(() => openStore(url));
    openS.push(o.ms);
    const r = await timeAsync(() => ReasoningSession.open(o.value, SESSION, RS_OPTIONS));
    openRs.push(r.ms);
    coldF.push((await timeAsync(() => r.value.restore(s.checkpoint.id))).ms);
    if (j < 3) {
      const want = comparable(naive.restore(s.naiveId));
      if (comparable(r.value.state()) !== want) throw new Error(`cold restore of step ${k}: the state differs from the one checkpointed`);
    }
    await o.value.close();
    naive.reopen();
    coldN.push(timeSync(() => naive.restore(s.naiveId)).ms);
  }
  const cS = summarize(coldF);
  const cN = summarize(coldN);
  latencyRows(W, "restore latency, cold: rs.restore(ref) right after a new Store + ReasoningSession.open (open not included)", cS, cN, TARGETS.restore);
  const oS = summarize(openS);
  const orS = summarize(openRs);
  row({ workload: W, metric: `  … openStore(url), median (n=${oS.n})`, forge: formatMs(oS.median) });
  row({ workload: W, metric: "  … ReasoningSession.open(store, name) (loads + validates the working state), median", forge: formatMs(orS.median) });
  const total = summarize(coldF.map((x, i) => x + (openS[i] as number) + (openRs[i] as number)));
  row({
    workload: W,
    metric: "  … a one-off restore in a fresh process: openStore + ReasoningSession.open + rs.restore, median",
    forge: formatMs(total.median),
    naive: formatMs(cN.median),
    ratio: formatRatio(total.median, cN.median),
    target: msTarget(TARGETS.restore),
    met: msMet(total.median, TARGETS.restore),
  });

  liveStore = await openStore(url); // footprint with a live connection, as in use
  const fFoot = sqliteFootprint(forgePath);
  const nFoot = sqliteFootprint(naive.path);
  row({
    workload: W,
    metric: `SQLite file size at the end (db + -wal after TRUNCATE), ${2 + CONFIG.warmupSteps + CONFIG.steps + CONFIG.savePairs + CONFIG.savePairs} checkpoints (naive: + one per save)`,
    forge: formatBytes(fFoot.total),
    naive: formatBytes(nFoot.total),
    ratio: formatRatio(fFoot.total, nFoot.total),
  });
  await liveStore.close();
  naive.close();
  return { jsonBytes, buildMs };
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  const dir = mkdtempSync(join(tmpdir(), "forge-bench-reasoning-"));
  if (typeof globalThis.gc !== "function") log("global.gc is not available (run node with --expose-gc); phases are not separated by a GC");
  let info: { jsonBytes: number; buildMs: number };
  try {
    log(`temp dir ${dir}${QUICK ? " (quick mode)" : ""}`);
    const tw = process.hrtime.bigint();
    await warmUp(dir);
    log(`warm-up done in ${formatMs(msSince(tw))}`);
    collectGarbage();
    info = await run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const elapsed = msSince(started);

  const cpu = cpus();
  const env = `Node ${process.version}, ${cpu[0]?.model.trim() ?? "unknown CPU"} × ${cpu.length}, ${process.platform}/${process.arch}`;
  const notes = [
    `Session: built through the library API on a sqlite store in a temp dir — 1,000 hypotheses (rs.hypotheses.add; statements 60–240 chars; 40 % proposed, 40 % testing, 10 % confirmed/rejected/abandoned), 5,000 evidence items (rs.hypotheses.addEvidence; 80–600 chars, one in five with a 300–1,200-char log/stack excerpt; skewed so the first tenth of the hypotheses hold a third; 3 % standalone), 500 beliefs (rs.beliefs.add; 60–200 chars; 0–3 dependsOn links to hypotheses or earlier beliefs, some supports/contradicts links). State JSON ${formatBytes(info.jsonBytes)}; built in ${formatMs(info.buildMs)}.`,
    `Steps: each changes one open hypothesis, in turn a status change (proposed ↔ testing, rs.hypotheses.update), a confidence change (rs.hypotheses.update) or one new evidence item for it (rs.hypotheses.addEvidence), then rs.checkpoint(msg). ${CONFIG.warmupSteps} warm-up steps, then ${CONFIG.steps} measured. JIT warm-up beforehand on throwaway files of the same size (another seed).`,
    "Automatic checkpoints: the session is opened with { autoCheckpoints: false }. A status change — even proposed ↔ testing — queues a hypothesis-status trigger, which would make the next rs.save() an automatic checkpoint; with them off every checkpoint is the manual one measured and rs.save() writes the working state only. rs.checkpoint() behaves the same either way; confirmed/rejected are avoided anyway (they are significant events and create contradictions with the beliefs resting on them).",
    "Forge checkpoint bytes: sizes.newBytes — compressed object bytes this checkpoint was the first to store (the checkpoint row itself is not counted; the file-growth row counts everything). Storage share = that / the state's JSON length (sizes.logicalBytes).",
    "Naive anchor: JSON.stringify(rs.state()) + zlib.gzipSync + one-row INSERT transaction per checkpoint (rs.state(), a structuredClone, is taken outside the timing); restore = SELECT + gunzipSync + JSON.parse, with no schema validation. Forge's rs.restore() also checks the state's shape (toReasoningState) and rebuilds the session's parts; the check row times that on its own, on the working state as session.working() returns it.",
    "Both on better-sqlite3 with journal_mode=WAL, synchronous=NORMAL (Forge's sqlite backend settings). Latencies are wall time per call (process.hrtime.bigint); Forge and the anchor interleaved, alternating which goes first.",
    `rs.save() phase: ${CONFIG.savePairs} rounds of [one change + rs.save() (and the anchor's full copy), then rs.save() again with nothing changed] and [one change + rs.checkpoint()], the two in alternating order; rs.update(fn) timed ${CONFIG.updateSamples} times (it reloads the working state from the store, applies fn, saves).`,
    `Restores: ${CONFIG.warmRestores} random checkpoints of the measured phase (the same ones for both; the first three checked against the anchor's copy). Warm = the same ReasoningSession and Store. Cold = the first ${CONFIG.coldRestores} of them, each in a new Store + ReasoningSession.open (which itself loads and validates the working state, warming the node cache with the nodes the target shares with it) — open reported apart; the anchor reopens its connection. The OS page cache stays warm.`,
    "The machine is noisy (±30 % between runs): read the ratios.",
  ];
  const out = [
    "# Forge reasoning-session benchmark",
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
  publish("reasoning", out, { quick: QUICK, log });
}

runMain(main);
