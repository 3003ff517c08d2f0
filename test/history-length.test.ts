// Costs that grow with the change, not with history (issue 18; bench/history.ts measures
// them): asserted here on what the stores do — query plans, the rows and files written, the
// migration of stores written before — never on time.
//
// - SQLite: every statement of a checkpoint, `at`, the newest 20, a restore and a count is an
//   index search, with no full scan of a table and no sort of a temporary B-tree.
// - Stores written before migration 5 (SQLite and PostgreSQL) gain the kept count and time
//   order of each session on open, exactly as the checkpoints say.
// - The file store's journal: a commit appends a line to meta.log instead of rewriting
//   meta.json; a line cut short by a crash, and lines of an older meta.json, are never applied.
import Database from "better-sqlite3";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import pg from "pg";
import { parse, toClientConfig } from "pg-connection-string";
import { afterAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { ManualClock, openStore, type Session, type Store } from "../src/index.js";
import { backendOf } from "../src/timeline/store-internals.js";
import { dropSchema, pgStoreUrl } from "./support/postgres.js";
import { makeTempDir } from "./support/temp.js";

const T0 = Date.UTC(2025, 0, 20, 12, 0, 0);
const MINUTE = 60_000;

function tempDir(label: string): string {
  const dir = makeTempDir(label);
  onTestFinished(() => dir.remove());
  return dir.path;
}

async function opened(url: string, clock?: ManualClock): Promise<Store> {
  const store = await openStore(url, clock ? { clock } : {});
  onTestFinished(() => store.close());
  return store;
}

/**
 * Two sessions: "ordered" (#1..#6 a minute apart, #3 deleted) and "skewed" (#1 at T0, #2 at
 * T0+60m, #3 at T0+30m — a clock set back — and #4 at T0+90m).
 */
async function writeFixture(store: Store, clock: ManualClock): Promise<void> {
  const ordered = await store.session("ordered");
  for (let i = 1; i <= 6; i++) {
    clock.set(T0 + i * MINUTE);
    await ordered.checkpoint({ i });
  }
  await ordered.deleteCheckpoints(["#3"]);
  const skewed = await store.session("skewed");
  for (const [i, m] of [
    [1, 0],
    [2, 60],
    [3, 30],
    [4, 90],
  ] as const) {
    clock.set(T0 + m * MINUTE);
    await skewed.checkpoint({ i });
  }
  clock.set(T0 + 3 * 60 * MINUTE);
}

/** What the fixture must answer, however the store was written or upgraded; then one more checkpoint (#7 of "ordered") unless `readOnly`. */
async function expectFixture(store: Store, readOnly = false): Promise<void> {
  const ordered = await store.getSession("ordered");
  const skewed = await store.getSession("skewed");
  expect(await ordered.count()).toBe(5);
  expect(await skewed.count()).toBe(4);
  expect((await store.listSessions()).map((s) => [s.name, s.checkpoints])).toEqual([
    ["ordered", 5],
    ["skewed", 4],
  ]);
  expect((await ordered.at(new Date(T0 + 3 * MINUTE + 30_000)))?.seq).toBe(2);
  expect((await ordered.at(new Date(T0 + 4 * MINUTE)))?.seq).toBe(4);
  // The highest seq made at or before the time, not the latest time before it.
  expect((await skewed.at(new Date(T0 + 45 * MINUTE)))?.seq).toBe(3);
  expect((await skewed.at(new Date(T0 + 75 * MINUTE)))?.seq).toBe(3);
  expect((await skewed.at(new Date(T0 + 95 * MINUTE)))?.seq).toBe(4);
  expect((await skewed.list({ until: new Date(T0 + 70 * MINUTE), order: "desc", limit: 2 })).map((c) => c.seq)).toEqual([3, 2]);
  if (readOnly) return;
  // Seqs are still handed out past the highest.
  expect((await ordered.checkpoint({ i: 7 })).seq).toBe(7);
  expect(await ordered.count()).toBe(6);
}

describe("SQLite: the everyday operations are index searches", () => {
  it("checkpoint, at, the newest 20, restore and count never scan a table or sort a temporary B-tree", async () => {
    const path = `${tempDir("history-plans")}/forge.db`;
    const clock = new ManualClock(T0);
    // Statements are prepared on first use per connection: note each one a fresh store prepares.
    const prepared = new Set<string>();
    const real = Database.prototype.prepare;
    const spy = vi.spyOn(Database.prototype, "prepare").mockImplementation(function (this: Database.Database, source: string) {
      prepared.add(source);
      return real.call(this, source) as Database.Statement;
    });
    const writer = await openStore(`sqlite:${path}`, { clock });
    const history = await writer.session("s");
    for (let i = 1; i <= 30; i++) {
      clock.advance(MINUTE);
      await history.checkpoint({ i, text: `step ${i}` });
    }
    await writer.close();
    let session: Session;
    try {
      // A store of its own, so every statement the operations run is prepared (and noted) here.
      const store = await opened(`sqlite:${path}`, clock);
      session = await store.getSession("s");
      prepared.clear();
      clock.advance(MINUTE);
      await session.checkpoint({ i: 31, text: "step 31" });
      expect((await session.at("10 minutes ago"))?.seq).toBe(21);
      expect((await session.at(new Date(T0 + 15 * MINUTE)))?.seq).toBe(15);
      expect((await session.list({ order: "desc", limit: 20 })).length).toBe(20);
      expect((await session.restore("HEAD")).checkpoint.seq).toBe(31);
      expect(await session.count()).toBe(31);
    } finally {
      spy.mockRestore();
    }
    const db = new Database(path, { readonly: true });
    try {
      const statements = [...prepared].filter((sql) => /^\s*(SELECT|UPDATE|INSERT|DELETE)/i.test(sql));
      expect(statements.length).toBeGreaterThan(5);
      const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
      expect(tables.has("checkpoints")).toBe(true);
      let timeWindows = 0;
      for (const sql of statements) {
        const params = (sql.match(/\?/g) ?? []).map(() => null);
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);
        // Only a scan of a stored table counts: json_each reading a list parameter, a constant
        // row or a subquery's few rows are not.
        const scans = plan.filter((d) => tables.has(/^SCAN (\S+)/.exec(d)?.[1] ?? "") || /TEMP B-TREE/.test(d));
        expect(scans, `${sql}\n${plan.join("\n")}`).toEqual([]);
        // A time window is found in the time index, not by walking the session's seqs until a time fits.
        if (/FROM checkpoints WHERE session_id = \? AND created_at/.test(sql)) {
          expect(plan.join("\n"), sql).toMatch(/SEARCH checkpoints USING INDEX checkpoints_by_time_seq \(session_id=\? AND created_at[<>]/);
          timeWindows++;
        }
      }
      expect(timeWindows).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });
});

describe("stores written before migration 5", () => {
  it("a SQLite store gains each session's count and time order on open", async () => {
    const path = `${tempDir("history-migrate")}/forge.db`;
    const clock = new ManualClock(T0);
    const first = await openStore(`sqlite:${path}`, { clock });
    await writeFixture(first, clock);
    await first.close();
    // Back to what migration 4 left.
    const db = new Database(path);
    db.exec(`ALTER TABLE sessions DROP COLUMN checkpoint_count;
      ALTER TABLE sessions DROP COLUMN times_unordered;
      DROP INDEX checkpoints_by_time_seq;
      CREATE INDEX checkpoints_by_time ON checkpoints (session_id, created_at);`);
    db.pragma("user_version = 4");
    db.close();
    await expectFixture(await opened(`sqlite:${path}`, clock));
    const fresh = `${tempDir("history-fresh")}/forge.db`;
    await (await openStore(`sqlite:${fresh}`)).close();
    const latest = new Database(fresh, { readonly: true });
    const version = latest.pragma("user_version", { simple: true }) as number;
    latest.close();
    const after = new Database(path, { readonly: true });
    try {
      expect(version).toBeGreaterThanOrEqual(5);
      expect(after.pragma("user_version", { simple: true })).toBe(version);
      const indexes = (after.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'checkpoints'").all() as { name: string }[]).map(
        (r) => r.name,
      );
      expect(indexes).toContain("checkpoints_by_time_seq");
      expect(indexes).not.toContain("checkpoints_by_time");
    } finally {
      after.close();
    }
  });

  it("migration 5 runs again without harm on a store taken back to version 4 by hand", async () => {
    const path = `${tempDir("history-remigrate")}/forge.db`;
    const clock = new ManualClock(T0);
    const first = await openStore(`sqlite:${path}`, { clock });
    await writeFixture(first, clock);
    await first.close();
    const db = new Database(path);
    db.pragma("user_version = 4");
    db.close();
    await expectFixture(await opened(`sqlite:${path}`, clock));
  });

  describe("PostgreSQL", () => {
    const urls: string[] = [];
    afterAll(async () => {
      for (const url of urls) await dropSchema(url);
    });

    it("a schema gains each session's count and time order on open", async () => {
      const url = pgStoreUrl("history");
      urls.push(url);
      const schema = String(parse(url).schema);
      const clock = new ManualClock(T0);
      const first = await openStore(url, { clock });
      await writeFixture(first, clock);
      await first.close();
      const config = parse(url);
      delete config.schema;
      const client = new pg.Client(toClientConfig(config));
      await client.connect();
      try {
        await client.query(`SET search_path TO "${schema}";
          ALTER TABLE forge_sessions DROP COLUMN checkpoint_count, DROP COLUMN times_unordered;
          DROP INDEX forge_checkpoints_by_time_seq;
          CREATE INDEX forge_checkpoints_by_time ON forge_checkpoints (session_id, created_at);
          DELETE FROM forge_migrations WHERE version > 4;`);
      } finally {
        await client.end();
      }
      await expectFixture(await opened(url, clock));
    });
  });
});

describe("a transaction's owed session facts", () => {
  for (const kind of ["sqlite", "postgres"] as const) {
    it(`${kind}: a transaction that fails after inserting a checkpoint leaves the session's count, counter and time order as they were`, async () => {
      const url = kind === "sqlite" ? `sqlite:${tempDir("history-rollback")}/forge.db` : pgStoreUrl("history");
      if (kind === "postgres") onTestFinished(() => dropSchema(url));
      const clock = new ManualClock(T0 + 60 * MINUTE);
      const store = await opened(url, clock);
      const session = await store.session("s");
      await session.checkpoint({ i: 1 });
      // A row inserted with a time before #1's (out of order) and a seq past the counter, then the transaction fails.
      await expect(
        backendOf(store).transaction(async (tx) => {
          const row = await tx.getCheckpointBySeq(session.id, 1);
          if (!row) throw new Error("no #1");
          await tx.insertCheckpoint({ ...row, id: "0".repeat(26), seq: 9, createdAt: T0 });
          // Inside the transaction the row is counted and the counter passed.
          expect(await tx.countCheckpoints(session.id)).toBe(2);
          expect((await tx.getSessionById(session.id))?.nextSeq).toBe(10);
          throw new Error("changed my mind");
        }),
      ).rejects.toThrow("changed my mind");
      expect(await session.count()).toBe(1);
      clock.advance(MINUTE);
      expect((await session.checkpoint({ i: 2 })).seq).toBe(2);
      expect(await session.count()).toBe(2);
      // Times still in order: the earlier time of the rolled-back row was never noted.
      expect((await session.at(new Date(T0 + 60 * MINUTE)))?.seq).toBe(1);
      expect((await session.at(new Date(T0 + 61 * MINUTE)))?.seq).toBe(2);
    });
  }
});

describe("the file store's journal", () => {
  const metaDoc = (dir: string) => JSON.parse(readFileSync(`${dir}/meta.json`, "utf8")) as { version: number; journal?: string };
  const logLines = (dir: string) =>
    existsSync(`${dir}/meta.log`)
      ? readFileSync(`${dir}/meta.log`, "utf8")
          .split("\n")
          .filter((l) => l !== "")
      : [];

  it("a commit appends one line to meta.log and leaves meta.json as it was; another store on the folder reads only the new lines", async () => {
    const dir = `${tempDir("journal")}/store`;
    const a = await opened(`file:${dir}`);
    const writer = await a.session("s");
    await writer.checkpoint({ i: 1 });
    const base = readFileSync(`${dir}/meta.json`, "utf8");
    const lines = logLines(dir).length;
    for (let i = 2; i <= 4; i++) await writer.checkpoint({ i });
    expect(readFileSync(`${dir}/meta.json`, "utf8")).toBe(base);
    expect(logLines(dir).length).toBe(lines + 3);
    const b = await opened(`file:${dir}`);
    const reader = await b.getSession("s");
    expect((await reader.list()).map((c) => c.seq)).toEqual([1, 2, 3, 4]);
    await writer.checkpoint({ i: 5 });
    await writer.tag("#2", "kept");
    expect((await reader.list()).map((c) => [c.seq, c.tags])).toEqual([
      [1, []],
      [2, ["kept"]],
      [3, []],
      [4, []],
      [5, []],
    ]);
    expect((await reader.state("HEAD")) as unknown).toEqual({ i: 5 });
  });

  it("a line cut short by a crash was never committed: it is not applied, and the next writer cuts it off", async () => {
    const dir = `${tempDir("journal-torn")}/store`;
    const a = await openStore(`file:${dir}`);
    const s = await a.session("s");
    for (let i = 1; i <= 3; i++) await s.checkpoint({ i });
    await a.close();
    const whole = logLines(dir);
    // What a writer killed in the middle of an append leaves: part of a line.
    appendFileSync(`${dir}/meta.log`, whole.at(-1)?.slice(0, 40) ?? "{");
    const b = await opened(`file:${dir}`);
    const again = await b.getSession("s");
    expect((await again.list()).map((c) => c.seq)).toEqual([1, 2, 3]);
    await again.checkpoint({ i: 4 });
    expect(logLines(dir).slice(0, whole.length)).toEqual(whole);
    expect(logLines(dir).length).toBe(whole.length + 1);
    const c = await opened(`file:${dir}`);
    expect((await (await c.getSession("s")).list()).map((cp) => cp.seq)).toEqual([1, 2, 3, 4]);
  });

  it("a deletion rewrites meta.json (no copy of the row stays in meta.log); so does a log grown past meta.json; lines of an older meta.json are never applied", async () => {
    const dir = `${tempDir("journal-fold")}/store`;
    const a = await opened(`file:${dir}`);
    const s = await a.session("s");
    await s.checkpoint({ i: 1 }, { message: "first" });
    await s.checkpoint({ i: 2 }, { message: "the one to go" });
    const oldLog = readFileSync(`${dir}/meta.log`);
    const journal = metaDoc(dir).journal;
    await s.deleteCheckpoints(["#2"]);
    expect(metaDoc(dir).journal).not.toBe(journal);
    expect(logLines(dir)).toEqual([]);
    expect(readFileSync(`${dir}/meta.json`, "utf8")).not.toContain("the one to go");
    // Appends until the log outgrows meta.json (and 256 KiB): then it is folded in.
    const grown = metaDoc(dir).journal;
    let n = 0;
    while (metaDoc(dir).journal === grown) {
      await s.checkpoint({ i: 3 + n, padding: "x".repeat(2000) });
      expect(++n).toBeLessThan(2000);
    }
    expect(n).toBeGreaterThan(50);
    const seqs = (await s.list()).map((c) => c.seq);
    expect(seqs).not.toContain(2);
    expect(logLines(dir).length).toBeLessThan(2);
    // A crash between writing a new meta.json and emptying meta.log leaves the old lines: one of them inserts #2.
    writeFileSync(`${dir}/meta.log`, oldLog);
    const b = await opened(`file:${dir}`);
    const reader = await b.getSession("s");
    expect((await reader.list()).map((c) => c.seq)).toEqual(seqs);
    await reader.checkpoint({ i: "after" });
    expect(logLines(dir).length).toBe(1);
    const c = await opened(`file:${dir}`);
    expect((await (await c.getSession("s")).list()).map((cp) => cp.seq)).toEqual([...seqs, (seqs.at(-1) ?? 0) + 1]);
  });

  it("a store written before the journal (meta.json version 1) opens, and its first commit makes it version 2", async () => {
    const dir = `${tempDir("journal-v1")}/store`;
    const clock = new ManualClock(T0);
    const a = await openStore(`file:${dir}`, { clock });
    await writeFixture(a, clock);
    await a.close();
    // As a Forge before the journal wrote it: the whole metadata in meta.json, version 1, no meta.log.
    const fresh = await openStore(`file:${dir}`, { clock });
    const meta = backendOf(fresh).meta;
    const sessions = await meta.listSessions();
    const checkpoints = (await Promise.all(sessions.map((x) => meta.listCheckpoints({ sessionId: x.id })))).flat();
    const refs = (await Promise.all(sessions.map((x) => meta.listRefs(x.id)))).flat();
    await fresh.close();
    writeFileSync(`${dir}/meta.json`, JSON.stringify({ version: 1, gcEpoch: 0, sessions, checkpoints, refs, milestones: [] }));
    writeFileSync(`${dir}/meta.log`, "");
    const b = await opened(`file:${dir}`, clock);
    await expectFixture(b); // its last step is a checkpoint: the first commit
    expect(metaDoc(dir)).toMatchObject({ version: 2, journal: expect.stringMatching(/^[0-9a-f]{16}$/) });
    const c = await opened(`file:${dir}`, clock);
    expect(await (await c.getSession("ordered")).count()).toBe(6);
  });

  it("a session's time order is read back from meta.json and from the journal alike", async () => {
    const dir = `${tempDir("journal-order")}/store`;
    const clock = new ManualClock(T0);
    const a = await opened(`file:${dir}`, clock);
    const b = await opened(`file:${dir}`, clock);
    await (await a.session("first")).checkpoint({ i: 0 });
    await (await b.getSession("first")).list(); // b has read the store before the fixture's commits
    await writeFixture(a, clock);
    await a.deleteSession("first");
    // b learns them from meta.log's lines; c from a fresh read.
    await expectFixture(b, true);
    await expectFixture(await opened(`file:${dir}`, clock));
  });
});
