// A store is recognisable before it is touched: `--store` at a file or schema that is not a
// Forge store is refused and left exactly as it was; stores made by earlier Forge versions
// (no mark yet) still open and get the mark.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { parse, toClientConfig } from "pg-connection-string";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../src/index.js";
import { rejectsWith } from "./support/errors.js";
import { dropSchema, pgStoreUrl } from "./support/postgres.js";
import { requireBuiltLibrary } from "./support/processes.js";
import { forge as runForge, type Run } from "./support/cli.js";
import { makeTempDir, type TempDir } from "./support/temp.js";

/** "FRGE" in ASCII: the application_id in a Forge SQLite store's header. */
const FORGE_APPLICATION_ID = 0x46524745;

/** `forge ARGS` in `cwd`, reading `input` on stdin. */
function forge(cwd: string, args: string[], input = ""): Run {
  return runForge(cwd, args, { input });
}

/** Journal mode and tables, read through a read-only connection (which creates nothing in rollback-journal mode). */
function sqliteFacts(path: string): { mode: unknown; tables: string[] } {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return {
      mode: db.pragma("journal_mode", { simple: true }),
      tables: (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name),
    };
  } finally {
    db.close();
  }
}

const header = (path: string) => readFileSync(path).subarray(0, 100);

interface ForeignFile {
  readonly what: string;
  readonly name: string;
  readonly make: (path: string) => void;
  readonly sqlite: boolean;
}

const FOREIGN_FILES: readonly ForeignFile[] = [
  {
    what: "another program's SQLite database (a users table, journal mode delete)",
    name: "users.sqlite",
    sqlite: true,
    make: (path) => {
      const db = new Database(path);
      db.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL); INSERT INTO users (email) VALUES ('ada@example.invalid');");
      db.close();
    },
  },
  { what: "a zero-byte file", name: "empty.db", sqlite: false, make: (path) => writeFileSync(path, "") },
  { what: "a file of random bytes", name: "random.bin", sqlite: false, make: (path) => writeFileSync(path, randomBytes(8192)) },
  { what: "a text file", name: "notes.txt", sqlite: false, make: (path) => writeFileSync(path, "# notes\nnot a database\n") },
];

describe.each(FOREIGN_FILES)("forge --store sqlite: at $what", ({ name, make, sqlite }) => {
  let dir: TempDir;
  let path: string;
  let before: { bytes: Buffer; siblings: string[]; facts: ReturnType<typeof sqliteFacts> | null };
  let runs: { code: number; stdout: string; stderr: string }[];

  beforeAll(() => {
    requireBuiltLibrary();
    dir = makeTempDir("recognition-cli");
    path = join(dir.path, name);
    make(path);
    before = { bytes: readFileSync(path), siblings: readdirSync(dir.path).sort(), facts: sqlite ? sqliteFacts(path) : null };
    runs = [
      ["checkpoint", "list"],
      ["session", "list"],
      ["checkpoint", "create", "x", "--state", "-"],
    ].map((args) => forge(dir.path, [...args, "--store", `sqlite:${path}`], '{"step":1}'));
  });
  afterAll(() => dir.remove());

  it("is refused with exit 1 and one `forge: …` line naming the file, without a stack trace", () => {
    for (const r of runs) {
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      const lines = r.stderr.trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^forge: .+ \(.+\)$/);
      expect(lines[0]).toContain(path);
      expect(lines[0]).toMatch(/not a Forge store/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("leaves the file byte-identical", () => {
    expect(readFileSync(path).equals(before.bytes)).toBe(true);
  });

  it("creates no file beside it (no -wal, -shm or journal)", () => {
    expect(readdirSync(dir.path).sort()).toEqual(before.siblings);
  });

  if (sqlite) {
    it("leaves its journal mode and tables as they were", () => {
      expect(sqliteFacts(path)).toEqual(before.facts);
    });
  }
});

describe("SQLite store recognition (library)", () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir("recognition");
  });
  afterEach(() => dir.remove());

  /** A store with two checkpoints, then its mark taken away, as a Forge before the mark left it. */
  async function legacyStore(): Promise<string> {
    const path = join(dir.path, "forge.db");
    const store = await openStore(`sqlite:${path}`);
    const session = await store.session("s");
    await session.checkpoint({ step: 1 }, { message: "one" });
    await session.checkpoint({ step: 2 }, { message: "two" });
    await store.close();
    const db = new Database(path);
    db.pragma("application_id = 0");
    db.close();
    expect(header(path).readUInt32BE(68)).toBe(0);
    return path;
  }

  it("a new store carries Forge's application_id, its schema and WAL mode in the file header on disk while it is open", async () => {
    const path = join(dir.path, "new", "forge.db");
    const store = await openStore(`sqlite:${path}`);
    try {
      const h = header(path);
      expect(h.readUInt32BE(68)).toBe(FORGE_APPLICATION_ID);
      expect(h.readUInt32BE(60)).toBeGreaterThan(0);
      expect([h[18], h[19]]).toEqual([2, 2]);
    } finally {
      await store.close();
    }
  });

  it("creating a new store leaves only the store file in its folder", async () => {
    const store = await openStore(`sqlite:${join(dir.path, "forge.db")}`);
    await store.close();
    expect(readdirSync(dir.path)).toEqual(["forge.db"]);
  });

  it("a store written before the mark (application_id 0) opens with its checkpoints and states", async () => {
    const path = await legacyStore();
    const store = await openStore(`sqlite:${path}`);
    try {
      const session = await store.getSession("s");
      const list = await session.list();
      expect(list.map((c) => c.message)).toEqual(["one", "two"]);
      expect(await session.state(list[1]!.id)).toEqual({ step: 2 });
    } finally {
      await store.close();
    }
  });

  it("a store written before the mark is marked on disk as soon as it is opened", async () => {
    const path = await legacyStore();
    const store = await openStore(`sqlite:${path}`);
    try {
      expect(header(path).readUInt32BE(68)).toBe(FORGE_APPLICATION_ID);
    } finally {
      await store.close();
    }
  });

  it("a store written before the mark whose schema is still only in its -wal file (its creator has not checkpointed) opens", async () => {
    const path = await legacyStore();
    // The old Forge's process: a fresh store, written in WAL mode, never checkpointed.
    const fresh = join(dir.path, "fresh.db");
    const creator = new Database(fresh);
    try {
      creator.pragma("journal_mode = WAL");
      creator.pragma("wal_autocheckpoint = 0");
      creator.exec("BEGIN");
      // Copy the legacy store's schema, as a Forge before the mark would have created it (it had no search index).
      const schema = new Database(path, { readonly: true });
      const sql = (
        schema.prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'search\\_%' ESCAPE '\\' ORDER BY rowid").all() as {
          sql: string;
        }[]
      ).map((r) => r.sql);
      const version = schema.pragma("user_version", { simple: true }) as number;
      schema.close();
      for (const s of sql) creator.exec(s);
      creator.pragma(`user_version = ${version}`);
      creator.exec("COMMIT");
      expect(header(fresh).readUInt32BE(60)).toBe(0);
      const store = await openStore(`sqlite:${fresh}`);
      try {
        expect(await store.listSessions()).toEqual([]);
      } finally {
        await store.close();
      }
    } finally {
      creator.close();
    }
  });

  it("a WAL-mode database that looks like an old store but lacks Forge's tables is refused, byte-identical and with nothing beside it", async () => {
    const path = join(dir.path, "app.db");
    const db = new Database(path);
    db.pragma("journal_mode = WAL");
    db.exec("CREATE TABLE users (id INTEGER PRIMARY KEY)");
    db.pragma("user_version = 2");
    db.close();
    const bytes = readFileSync(path);
    expect([bytes[18], bytes[19], bytes.readUInt32BE(60)]).toEqual([2, 2, 2]);
    const error = await rejectsWith(openStore(`sqlite:${path}`), "NOT_A_STORE", /application_id 0x00000000, 1 table, e\.g\. users/);
    expect(error.message).toContain(path);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(readdirSync(dir.path)).toEqual(["app.db"]);
  });

  it("a SQLite database with another application_id is refused, naming the id and its tables", async () => {
    const path = join(dir.path, "other.db");
    const db = new Database(path);
    db.pragma("application_id = 1234");
    db.exec("CREATE TABLE a (x); CREATE TABLE b (x); CREATE TABLE c (x); CREATE TABLE d (x)");
    db.close();
    await rejectsWith(
      openStore(`sqlite:${path}`),
      "NOT_A_STORE",
      /is not a Forge store \(another program's SQLite database: application_id 0x000004d2, 4 tables, e\.g\. a, b, c\)$/,
    );
  });
});

describe("PostgreSQL store recognition", () => {
  const urls: string[] = [];
  afterAll(async () => {
    for (const url of urls) await dropSchema(url);
  });

  function newUrl(): { url: string; schema: string } {
    const url = pgStoreUrl("recognition");
    urls.push(url);
    return { url, schema: String(parse(url).schema) };
  }

  async function sql<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
    const config = parse(url);
    delete config.schema;
    const client = new pg.Client(toClientConfig(config));
    await client.connect();
    try {
      return (await client.query<T>(text)).rows;
    } finally {
      await client.end();
    }
  }

  const tablesOf = async (url: string, schema: string) =>
    (await sql<{ t: string }>(url, `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = '${schema}' ORDER BY 1`)).map((r) => r.t);

  /** A schema holding an application's own table. */
  async function foreignSchema(): Promise<{ url: string; schema: string }> {
    const s = newUrl();
    await sql(s.url, `CREATE SCHEMA "${s.schema}"; CREATE TABLE "${s.schema}".users (id int PRIMARY KEY); INSERT INTO "${s.schema}".users VALUES (1)`);
    return s;
  }

  it("a schema holding another program's tables is refused with NOT_A_STORE naming the schema and its tables", async () => {
    const { url, schema } = await foreignSchema();
    const error = await rejectsWith(openStore(url), "NOT_A_STORE");
    expect(error.message).toBe(`schema "${schema}" is not a Forge store (it holds 1 table, e.g. users, and no forge_migrations)`);
  });

  it("a refused schema is left with its own tables and rows only", async () => {
    const { url, schema } = await foreignSchema();
    await rejectsWith(openStore(url), "NOT_A_STORE");
    expect(await tablesOf(url, schema)).toEqual(["users"]);
    expect(await sql(url, `SELECT id FROM "${schema}".users`)).toEqual([{ id: 1 }]);
  });

  it("a new schema is created as a store and marked as Forge's", async () => {
    const { url, schema } = newUrl();
    const store = await openStore(url);
    await store.close();
    expect(await sql(url, `SELECT value FROM "${schema}".forge_meta WHERE key = 'store'`)).toEqual([{ value: "forge" }]);
  });

  it("an existing empty schema is used as a new store", async () => {
    const { url, schema } = newUrl();
    await sql(url, `CREATE SCHEMA "${schema}"`);
    const store = await openStore(url);
    await store.close();
    expect(await tablesOf(url, schema)).toContain("forge_migrations");
  });

  it("a schema made by an earlier Forge (no marker) is accepted with its data and marked", async () => {
    const { url, schema } = newUrl();
    const first = await openStore(url);
    const cp = await (await first.session("s")).checkpoint({ kept: true });
    await first.close();
    // As a Forge before the marker left it: migrations 1 and 2 only.
    await sql(url, `DELETE FROM "${schema}".forge_meta WHERE key = 'store'; DELETE FROM "${schema}".forge_migrations WHERE version > 2`);
    const again = await openStore(url);
    try {
      expect(await (await again.getSession("s")).state(cp.id)).toEqual({ kept: true });
    } finally {
      await again.close();
    }
    expect(await sql(url, `SELECT value FROM "${schema}".forge_meta WHERE key = 'store'`)).toEqual([{ value: "forge" }]);
  });

  it("two stores opening one new schema at the same time both open it", async () => {
    const { url } = newUrl();
    const stores = await Promise.all([openStore(url), openStore(url)]);
    try {
      await (await stores[0]!.session("s")).checkpoint({ n: 1 });
      expect(await (await stores[1]!.getSession("s")).list()).toHaveLength(1);
    } finally {
      for (const s of stores) await s.close();
    }
  });
});
