// Search benchmark: full-text search latency over a store of many checkpoints and a large
// logical history, against `grep -r` over the same history exported as files (one JSON file
// per checkpoint's state) in the same run, plus what indexing costs per checkpoint and how
// many index rows the history needs (against a row per checkpoint per object held).
//
//   npm run bench:search                       10,000 checkpoints, ≈1 GB of states (≈4–6 min here)
//   npm run bench:search -- --checkpoints 2000 a smaller store (the logical size scales with it)
//   npm run bench:search -- --postgres         the same on a throwaway PostgreSQL cluster too
//   npm run bench:search -- --quick            1,000 checkpoints; bench/results/search.md left alone
//
// Workload: SESSIONS reasoning-like sessions, each a timeline of checkpoints whose state grows
// by a note (≈250 B) every step and a command with its output (≈2–4 KB) every third step, so
// states reach ≈200 KB and average ≈100 KB. Words come from a fixed vocabulary; a few
// strings are planted: an error code in one session, a phrase in five, an identifier prefix.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore, type Store } from "../src/index.js";
import { backendOf } from "../src/timeline/store-internals.js";
import { startPostgres } from "../test/support/postgres-server.js";
import { sqliteFootprint } from "./lib/naive.js";
import { publish, runMain } from "./lib/report.js";
import { formatBytes, formatMs, formatRatio, msSince, summarize } from "./lib/stats.js";
import { Rng } from "./lib/workloads.js";

const argv = process.argv.slice(2);
const QUICK = argv.includes("--quick");
const POSTGRES = argv.includes("--postgres");
const flag = (name: string): number | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : undefined;
};
const CHECKPOINTS = flag("--checkpoints") ?? (QUICK ? 1000 : 10_000);
const PER_SESSION = 200;
const SESSIONS = Math.max(1, Math.round(CHECKPOINTS / PER_SESSION));
const COMMAND = `npm run bench:search${argv.length > 0 ? ` -- ${argv.join(" ")}` : ""}`;
const FORGE_BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bin", "forge.js");
const log = (msg: string) => process.stderr.write(`[search] ${msg}\n`);

const WORDS = (
  "the a of to and in is it for on with as was at by an be this that from or are not have has had were but which their will would there " +
  "latency timeout worker queue retry request response gateway cache shard replica primary socket handshake payload buffer thread lock " +
  "deadlock batch nightly deploy rollback migration schema index query plan cursor transaction commit restart connection pool client server " +
  "memory heap allocation garbage collector pause spike error warning trace stack frame module import export build compile test flaky " +
  "assert expected actual mismatch tensor shape layer gradient optimizer epoch checkpoint loader sampler kernel device stream event handler"
).split(" ");

/** Planted strings: what the queries look for, and where they go (sessions as shares of SESSIONS). */
const at = (share: number) => Math.min(SESSIONS - 1, Math.floor(share * SESSIONS));
const PLANT = {
  rare: { text: "read ECONNRESET from upstream 10.3.7.21:5432", session: at(0.35), step: 120 },
  phrase: {
    text: "RuntimeError: tensor shape mismatch in layer 12 (got [3, 512], expected [4, 512])",
    sessions: [0.06, 0.18, 0.42, 0.66, 0.9].map(at),
    step: 60,
  },
  ident: { text: "calling reconnectWithBackoff(attempt=3) after the socket closed", session: at(0.16), step: 30 },
};

interface Query {
  readonly label: string;
  readonly query: string;
  readonly grep: string;
  readonly first?: boolean;
}

const QUERIES: readonly Query[] = [
  { label: "rare error code (in 1 session)", query: "ECONNRESET", grep: "ECONNRESET" },
  { label: "phrase (in 5 sessions)", query: '"tensor shape mismatch"', grep: "tensor shape mismatch" },
  { label: "phrase, --first", query: '"tensor shape mismatch"', grep: "tensor shape mismatch", first: true },
  { label: "identifier prefix", query: "reconnectwith", grep: "reconnectWith" },
  { label: "two common words", query: "deadlock rollback", grep: "deadlock" },
];

function sentence(rng: Rng, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(rng.pick(WORDS));
  return out.join(" ");
}

interface Written {
  readonly checkpoints: number;
  readonly logicalBytes: number;
  readonly exported: number;
  readonly checkpointMs: number[];
  readonly ms: number;
}

/** Writes the workload into `store` and (once) exports every state as a file under `exportDir`. */
async function writeHistory(store: Store, exportDir: string | null): Promise<Written> {
  const rng = new Rng(42);
  const checkpointMs: number[] = [];
  let logicalBytes = 0;
  let exported = 0;
  let count = 0;
  const started = process.hrtime.bigint();
  for (let s = 0; s < SESSIONS; s++) {
    const session = await store.session(`agent-${s}`, { kind: "reasoning" });
    const state = { task: `investigate ${sentence(rng, 6)}`, notes: [] as string[], commands: [] as { command: string; output: string }[] };
    if (exportDir) mkdirSync(join(exportDir, `agent-${s}`), { recursive: true });
    for (let step = 1; step <= PER_SESSION && count < CHECKPOINTS; step++) {
      let note = `step ${step}: ${sentence(rng, 40)}`;
      if (s === PLANT.rare.session && step === PLANT.rare.step) note += ` ${PLANT.rare.text}`;
      if (s === PLANT.ident.session && step === PLANT.ident.step) note += ` ${PLANT.ident.text}`;
      state.notes.push(note);
      if (step % 3 === 0) {
        let output = Array.from({ length: rng.int(12, 25) }, () => sentence(rng, 20)).join("\n");
        if (PLANT.phrase.sessions.includes(s) && step === PLANT.phrase.step) output += `\n${PLANT.phrase.text}`;
        state.commands.push({ command: `npm test -- --grep ${rng.pick(WORDS)}`, output });
      }
      const t = process.hrtime.bigint();
      const cp = await session.checkpoint(state, { message: `step ${step}` });
      checkpointMs.push(msSince(t));
      logicalBytes += cp.sizes.logicalBytes;
      if (exportDir) {
        const text = JSON.stringify(state);
        writeFileSync(join(exportDir, `agent-${s}`, `${step}.json`), text);
        exported += text.length;
      }
      count++;
      if (count % 1000 === 0) log(`${count} checkpoints, ${formatBytes(logicalBytes)} logical`);
    }
  }
  return { checkpoints: count, logicalBytes, exported, checkpointMs, ms: msSince(started) };
}

function median(samples: readonly number[]): number {
  return summarize(samples).median;
}

async function timeSearch(store: Store, q: Query, reps: number): Promise<{ ms: number; hits: number; firstSeq: number | undefined }> {
  const samples: number[] = [];
  let hits = 0;
  let firstSeq: number | undefined;
  for (let i = 0; i < reps; i++) {
    const t = process.hrtime.bigint();
    const r = await store.search(q.query, q.first ? { order: "first" } : {});
    samples.push(msSince(t));
    hits = r.results.length;
    firstSeq = r.results[0]?.checkpoint.seq;
  }
  return { ms: median(samples), hits, firstSeq };
}

function timeCli(url: string, q: Query, reps: number): number {
  const samples: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [FORGE_BIN, "--store", url, "search", q.query, ...(q.first ? ["--first"] : []), "--json"], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`forge search failed: ${r.stderr}`);
    samples.push(msSince(t));
  }
  return median(samples);
}

/** `grep -rliF` over the exported history (case-insensitive and fixed, as the search is): files holding the text. */
function timeGrep(dir: string, text: string, reps: number): { ms: number; files: number } {
  const samples: number[] = [];
  let files = 0;
  for (let i = 0; i < reps; i++) {
    const t = process.hrtime.bigint();
    const r = spawnSync("grep", ["-rliF", text, dir], { encoding: "utf8", maxBuffer: 1 << 28 });
    samples.push(msSince(t));
    files = r.stdout.split("\n").filter((l) => l !== "").length;
  }
  return { ms: median(samples), files };
}

interface Row {
  readonly backend: string;
  readonly metric: string;
  readonly forge: string;
  readonly anchor: string;
  readonly ratio: string;
}

async function runBackend(
  label: string,
  url: string,
  exportDir: string | null,
  rows: Row[],
  grepCache: Map<string, { ms: number; files: number }>,
): Promise<void> {
  log(`${label}: writing ${CHECKPOINTS} checkpoints`);
  const store = await openStore(url);
  const w = await writeHistory(store, exportDir);
  const cps = summarize(w.checkpointMs);
  const add = (metric: string, forge: string, anchor = "—", ratio = "—") => rows.push({ backend: label, metric, forge, anchor, ratio });
  add("checkpoints / sessions", `${w.checkpoints.toLocaleString("en")} / ${SESSIONS}`);
  add("logical history (Σ state JSON of every checkpoint)", formatBytes(w.logicalBytes), exportDir ? `${formatBytes(w.exported)} exported as files` : "—");
  add("checkpoint latency with inline indexing, median / p95", `${formatMs(cps.median)} / ${formatMs(cps.p95)}`);
  const stats = await store.searchIndexStats();
  add(
    "index rows: documents / postings / marks",
    `${stats.docs.toLocaleString("en")} / ${stats.postings.toLocaleString("en")} / ${stats.checkpoints.toLocaleString("en")}`,
  );
  const perObject = await rowsPerObject(store);
  add(
    "postings against a row per (checkpoint, text object held)",
    stats.postings.toLocaleString("en"),
    perObject.toLocaleString("en"),
    formatRatio(stats.postings, perObject),
  );
  add("postings per checkpoint", (stats.postings / w.checkpoints).toFixed(2));
  // Indexing cost measured alone: the whole index rebuilt from the objects.
  log(`${label}: rebuilding the index`);
  const t = process.hrtime.bigint();
  await store.reindex();
  const rebuildMs = msSince(t);
  add("indexing cost per checkpoint (full rebuild ÷ checkpoints)", formatMs(rebuildMs / w.checkpoints), `rebuild ${formatMs(rebuildMs)}`);
  if (url.startsWith("sqlite:")) {
    const path = url.slice("sqlite:".length);
    const fp = sqliteFootprint(path);
    const db = execFileSync("sqlite3", [path, "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'search%'"], { encoding: "utf8" }).trim();
    add("store file (db + wal) / of which the search index", `${formatBytes(fp.total)} / ${formatBytes(Number(db))}`);
  }
  for (const q of QUERIES) {
    const s = await timeSearch(store, q, 15);
    const cli = timeCli(url, q, 5);
    let g = grepCache.get(q.grep);
    if (!g && exportDir) {
      g = timeGrep(exportDir, q.grep, 3);
      grepCache.set(q.grep, g);
    }
    const what = `${s.hits} hit(s)${q.first ? `, first #${s.firstSeq}` : ""}`;
    add(
      `search "${q.label}" in process, median (${what})`,
      formatMs(s.ms),
      g ? `${formatMs(g.ms)} (${g.files} files)` : "—",
      g ? formatRatio(s.ms, g.ms) : "—",
    );
    add(`search "${q.label}" as \`forge search\` (a process), median`, formatMs(cli), g ? formatMs(g.ms) : "—", g ? formatRatio(cli, g.ms) : "—");
  }
  await store.close();
}

/**
 * How many rows a (checkpoint, object) table would hold: for each text document, the
 * checkpoints from its appearance to its going (or its session's newest) — the runs the
 * postings encode, counted out.
 */
async function rowsPerObject(store: Store): Promise<number> {
  const search = backendOf(store).search;
  const stats = await search.stats();
  const newest = new Map<string, number>();
  for (const s of await store.listSessions()) {
    const last = (await (await store.getSession(s.name)).list({ order: "desc", limit: 1 }))[0];
    if (last) newest.set(last.sessionId, last.seq);
  }
  const runs = new Map<string, { seq: number; delta: number }[]>();
  // Document ids are 1..n on both SQL backends (a rebuild starts them again above the old ones: read generously).
  const ids = Array.from({ length: stats.docs * 3 + 10 }, (_, i) => i + 1);
  for (let i = 0; i < ids.length; i += 5000) {
    for (const p of await search.postings(ids.slice(i, i + 5000))) {
      const key = `${p.doc} ${p.checkpoint.sessionId}`;
      const list = runs.get(key) ?? [];
      list.push({ seq: p.checkpoint.seq, delta: p.delta });
      runs.set(key, list);
    }
  }
  let total = 0;
  for (const [key, list] of runs) {
    list.sort((a, b) => a.seq - b.seq);
    let open: number | null = null;
    for (const p of list) {
      if (p.delta > 0) open ??= p.seq;
      else if (open !== null) {
        total += p.seq - open;
        open = null;
      }
    }
    if (open !== null) total += (newest.get(key.split(" ")[1] as string) ?? open) - open + 1;
  }
  return total;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "forge-bench-search-"));
  const started = process.hrtime.bigint();
  const rows: Row[] = [];
  const grepCache = new Map<string, { ms: number; files: number }>();
  try {
    log(`temp dir ${dir}`);
    const exportDir = join(dir, "export");
    await runBackend("sqlite", `sqlite:${join(dir, "forge.db")}`, exportDir, rows, grepCache);
    if (POSTGRES) {
      const server = startPostgres();
      try {
        await runBackend("postgres", `${server.url}${server.url.includes("?") ? "&" : "?"}schema=bench_search`, null, rows, grepCache);
      } finally {
        server.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  const out = [
    `Command: \`${COMMAND}\``,
    "",
    `Run: ${new Date().toISOString()} · Node ${process.version}, ${cpu} × ${cpus().length}, ${process.platform}/${process.arch} · total ${formatMs(msSince(started))}`,
    "",
    "| backend | metric | forge | grep -r anchor | ratio (forge/grep) |",
    "| --- | --- | --- | --- | --- |",
    ...rows.map((r) => `| ${r.backend} | ${r.metric} | ${r.forge} | ${r.anchor} | ${r.ratio} |`),
    "",
  ].join("\n");
  publish("search", out, { quick: QUICK, log });
}

runMain(main);
