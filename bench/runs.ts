// Run-store benchmark: save and load latency of RunStore on sqlite and postgres, against
// the anchor of flowgraph's ADR-015 — its own SQLiteStore (one row per (run, node), INSERT
// OR REPLACE of the raw bytes, no history) and the same table on the same PostgreSQL server
// — in the same run. Also the bytes each keeps. The PostgreSQL server is a throwaway
// cluster this script starts (as the tests do).
//
//   npm run bench:runs
//   (= tsc -p tsconfig.bench.json && node --expose-gc build/bench/runs.js)
//
// Workload: RUNS workflow runs of NODES nodes; each node saves the run's state as JSON (a
// list of documents the run has fetched so far, growing by a few per node, plus a cursor
// and per-node stats), 10–150 KB. Each run revisits its first node at the end (a loop), so
// Forge keeps one overwritten save per run that the anchor throws away.
//
// `--quick` runs fewer runs (for trying the harness) and leaves bench/results/runs.md alone.
import Database from "better-sqlite3";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { parse, toClientConfig } from "pg-connection-string";
import { RunStore } from "../src/index.js";
import { startPostgres } from "../test/support/postgres-server.js";
import { sqliteFootprint } from "./lib/naive.js";
import { formatBytes, formatMs, formatRatio, msSince, summarize } from "./lib/stats.js";
import { Rng } from "./lib/workloads.js";

const QUICK = process.argv.includes("--quick");
const RUNS = QUICK ? 4 : 20;
const NODES = 12;
const COMMAND = "npm run bench:runs";

interface Anchor {
  save(runId: string, nodeId: string, data: Uint8Array): Promise<void>;
  load(runId: string, nodeId: string): Promise<Uint8Array>;
  bytes(): Promise<number>;
  close(): Promise<void>;
}

/** ADR-015's SQLiteStore, statement for statement, on Forge's SQLite settings (WAL, synchronous=NORMAL). */
class AdrSqlite implements Anchor {
  readonly #db: Database.Database;
  readonly #save: Database.Statement;
  readonly #load: Database.Statement;
  constructor(readonly path: string) {
    this.#db = new Database(path);
    this.#db.pragma("journal_mode = WAL");
    this.#db.pragma("synchronous = NORMAL");
    this.#db.exec(`CREATE TABLE IF NOT EXISTS checkpoints (
      run_id TEXT NOT NULL, node_id TEXT NOT NULL, sequence INTEGER NOT NULL, timestamp TEXT NOT NULL, data BLOB NOT NULL,
      PRIMARY KEY (run_id, node_id));
      CREATE INDEX IF NOT EXISTS idx_run_id ON checkpoints(run_id);`);
    this.#save = this.#db.prepare(`INSERT OR REPLACE INTO checkpoints (run_id, node_id, sequence, timestamp, data)
      VALUES (?, ?, COALESCE((SELECT MAX(sequence) FROM checkpoints WHERE run_id = ?), 0) + 1, ?, ?)`);
    this.#load = this.#db.prepare("SELECT data FROM checkpoints WHERE run_id = ? AND node_id = ?");
  }
  async save(runId: string, nodeId: string, data: Uint8Array): Promise<void> {
    this.#save.run(runId, nodeId, runId, new Date().toISOString(), data);
  }
  async load(runId: string, nodeId: string): Promise<Uint8Array> {
    return (this.#load.get(runId, nodeId) as { data: Buffer }).data;
  }
  async bytes(): Promise<number> {
    this.#db.close();
    return sqliteFootprint(this.path).total;
  }
  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

/** The same table and statements on PostgreSQL (ADR-015 lists a PostgresStore for multi-node use). */
class AdrPostgres implements Anchor {
  constructor(readonly pool: pg.Pool) {}
  static async open(url: string): Promise<AdrPostgres> {
    const pool = new pg.Pool({ ...toClientConfig(parse(url)), max: 4 });
    await pool.query(`CREATE TABLE IF NOT EXISTS adr_checkpoints (
      run_id text NOT NULL, node_id text NOT NULL, sequence integer NOT NULL, timestamp timestamptz NOT NULL, data bytea NOT NULL,
      PRIMARY KEY (run_id, node_id))`);
    return new AdrPostgres(pool);
  }
  async save(runId: string, nodeId: string, data: Uint8Array): Promise<void> {
    await this.pool.query(
      `INSERT INTO adr_checkpoints (run_id, node_id, sequence, timestamp, data)
       VALUES ($1, $2, COALESCE((SELECT MAX(sequence) FROM adr_checkpoints WHERE run_id = $1), 0) + 1, now(), $3)
       ON CONFLICT (run_id, node_id) DO UPDATE SET sequence = excluded.sequence, timestamp = excluded.timestamp, data = excluded.data`,
      [runId, nodeId, Buffer.from(data)],
    );
  }
  async load(runId: string, nodeId: string): Promise<Uint8Array> {
    return (await this.pool.query<{ data: Buffer }>("SELECT data FROM adr_checkpoints WHERE run_id = $1 AND node_id = $2", [runId, nodeId])).rows[0]
      ?.data as Buffer;
  }
  async bytes(): Promise<number> {
    await this.pool.query("VACUUM adr_checkpoints");
    return Number((await this.pool.query<{ n: string }>("SELECT pg_total_relation_size('adr_checkpoints') AS n")).rows[0]?.n);
  }
  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** The bytes of each save of one run, in order: (nodeId, JSON bytes). */
function runWorkload(run: number): [string, Uint8Array][] {
  const rng = new Rng(1000 + run);
  const docs: { id: string; title: string; body: string; score: number }[] = [];
  const out: [string, Uint8Array][] = [];
  const stats: Record<string, number> = {};
  for (let n = 0; n <= NODES; n++) {
    const node = n === NODES ? "node-01" : `node-${String(n + 1).padStart(2, "0")}`;
    for (let k = rng.int(2, 6); k > 0; k--) {
      const words = Array.from({ length: rng.int(80, 400) }, () => rng.pick(WORDS));
      docs.push({ id: `doc-${docs.length}`, title: words.slice(0, 6).join(" "), body: words.join(" "), score: Math.round(rng.next() * 1000) / 1000 });
    }
    stats[node] = (stats[node] ?? 0) + 1;
    const state = { run: `run-${run}`, cursor: docs.length, stats, docs };
    out.push([node, new TextEncoder().encode(JSON.stringify(state))]);
  }
  return out;
}
const WORDS =
  "the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were her she there one all we their can has more would will what if when".split(
    " ",
  );

interface Measured {
  save: number[];
  load: number[];
  bytes: number;
  logical: number;
}

async function measure(
  name: string,
  store: { save(r: string, n: string, d: Uint8Array): Promise<unknown>; load(r: string, n: string): Promise<Uint8Array> },
  finish: () => Promise<number>,
): Promise<Measured> {
  const save: number[] = [];
  const load: number[] = [];
  let logical = 0;
  for (let r = 0; r < RUNS; r++) {
    const runId = `run-${r}`;
    for (const [node, data] of runWorkload(r)) {
      logical += data.length;
      let t = process.hrtime.bigint();
      await store.save(runId, node, data);
      save.push(msSince(t));
      t = process.hrtime.bigint();
      const back = await store.load(runId, node);
      load.push(msSince(t));
      if (back.length !== data.length) throw new Error(`${name}: load gave ${back.length} bytes, saved ${data.length}`);
    }
  }
  return { save, load, bytes: await finish(), logical };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "forge-bench-runs-"));
  const server = startPostgres();
  const lines: string[] = [];
  const say = (s = "") => {
    lines.push(s);
    console.log(s);
  };
  try {
    say(`# Run store: save and load, RunStore vs ADR-015's stores`);
    say();
    say(
      `${RUNS} runs × ${NODES + 1} saves (JSON state 10–150 KB, the first node revisited at the end), ${cpus()[0]?.model ?? "?"} × ${cpus().length}, Node ${process.version}. Made by \`${COMMAND}\`.`,
    );
    say();
    const results: { backend: string; forge: Measured; anchor: Measured }[] = [];

    // SQLite
    {
      const url = `sqlite:${join(dir, "forge.db")}`;
      const runs = await RunStore.open(url);
      const forge = await measure("forge sqlite", runs, async () => {
        await runs.close();
        return sqliteFootprint(join(dir, "forge.db")).total;
      });
      const adr = new AdrSqlite(join(dir, "adr.db"));
      const anchor = await measure("adr sqlite", adr, () => adr.bytes());
      results.push({ backend: "sqlite", forge, anchor });
    }
    // PostgreSQL
    {
      const forgeUrl = `${server.url}&schema=forge_bench`;
      const runs = await RunStore.open(forgeUrl);
      const forge = await measure("forge postgres", runs, async () => {
        await runs.close();
        const config = parse(server.url);
        const client = new pg.Client(toClientConfig(config));
        await client.connect();
        try {
          await client.query("VACUUM");
          const r = await client.query<{ n: string }>(
            "SELECT sum(pg_total_relation_size(format('%I.%I', schemaname, tablename))) AS n FROM pg_tables WHERE schemaname = 'forge_bench'",
          );
          return Number(r.rows[0]?.n);
        } finally {
          await client.end();
        }
      });
      const adr = await AdrPostgres.open(server.url);
      const anchor = await measure("adr postgres", adr, async () => {
        const b = await adr.bytes();
        await adr.close();
        return b;
      });
      results.push({ backend: "postgres", forge, anchor });
    }

    say("| backend | metric | Forge RunStore | ADR-015 store | Forge / ADR |");
    say("|---|---|---:|---:|---:|");
    for (const { backend, forge, anchor } of results) {
      const fs = summarize(forge.save);
      const as = summarize(anchor.save);
      const fl = summarize(forge.load);
      const al = summarize(anchor.load);
      say(`| ${backend} | save, median | ${formatMs(fs.median)} | ${formatMs(as.median)} | ${formatRatio(fs.median, as.median)} |`);
      say(`| ${backend} | save, p95 | ${formatMs(fs.p95)} | ${formatMs(as.p95)} | ${formatRatio(fs.p95, as.p95)} |`);
      say(`| ${backend} | load, median | ${formatMs(fl.median)} | ${formatMs(al.median)} | ${formatRatio(fl.median, al.median)} |`);
      say(`| ${backend} | load, p95 | ${formatMs(fl.p95)} | ${formatMs(al.p95)} | ${formatRatio(fl.p95, al.p95)} |`);
      say(
        `| ${backend} | bytes kept (Forge with history, ADR latest only) | ${formatBytes(forge.bytes)} | ${formatBytes(anchor.bytes)} | ${formatRatio(forge.bytes, anchor.bytes)} |`,
      );
    }
    say();
    say(
      `Bytes saved in all: ${formatBytes(results[0]?.forge.logical ?? 0)} per backend. The ADR stores keep only each (run, node)'s latest bytes, uncompressed; Forge keeps every save (history) chunked, deduplicated and compressed.`,
    );
    if (!QUICK) {
      const out = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bench", "results", "runs.md");
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, lines.join("\n") + "\n");
      console.log(`\nwrote ${out}`);
    }
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
