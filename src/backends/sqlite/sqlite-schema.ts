// The SQLite schema and its migrations, applied in order; PRAGMA user_version records how far.
// Also how a Forge store file is told apart from any other file before SQLite touches it.
import Database from "better-sqlite3";
import { sqliteAddon } from "./sqlite-addon.js";
import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { ForgeError } from "../../core/errors.js";
import { sessionFactsSql } from "../sql/statements.js";

/**
 * PRAGMA application_id of a Forge store: the ASCII of "FRGE" (0x46524745), big-endian at
 * offset 68 of the file header. Set when a store is created, so an existing file can be
 * recognised from its first 100 bytes without opening it.
 */
const FORGE_APPLICATION_ID = 0x46524745;

/** The tables every Forge store has had since migration 1. */
const FORGE_TABLES = ["meta", "objects", "sessions", "checkpoints", "refs"] as const;

/** A migration: SQL text, or a function for one that must look before it changes (and so may run twice). */
type Migration = string | ((db: Database.Database) => void);

const MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
   CREATE TABLE objects (
     hash BLOB PRIMARY KEY,
     data BLOB NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE sessions (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     kind TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     metadata TEXT NOT NULL,
     next_seq INTEGER NOT NULL,
     head_branch TEXT,
     head_checkpoint TEXT
   );
   CREATE TABLE checkpoints (
     id TEXT PRIMARY KEY,
     session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     parent_id TEXT,
     branch TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     message TEXT NOT NULL,
     tags TEXT NOT NULL,
     trigger TEXT NOT NULL,
     metadata TEXT NOT NULL,
     state_root TEXT NOT NULL,
     files_root TEXT,
     logical_bytes INTEGER NOT NULL,
     new_bytes INTEGER NOT NULL,
     UNIQUE (session_id, seq)
   );
   CREATE INDEX checkpoints_by_time ON checkpoints (session_id, created_at);
   CREATE TABLE refs (
     session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
     name TEXT NOT NULL,
     checkpoint_id TEXT NOT NULL,
     PRIMARY KEY (session_id, name)
   ) WITHOUT ROWID;`,
  // 2: a session's working state, between checkpoints.
  `ALTER TABLE sessions ADD COLUMN work_root TEXT;
   ALTER TABLE sessions ADD COLUMN work_version INTEGER NOT NULL DEFAULT 0;`,
  // 3: milestones, named stretches of a session's timeline.
  `CREATE TABLE milestones (
     session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
     name TEXT NOT NULL,
     from_id TEXT NOT NULL,
     to_id TEXT NOT NULL,
     description TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (session_id, name)
   ) WITHOUT ROWID;`,
  // 4: the full-text index (docs/ARCHITECTURE.md, Search). Empty here: a store written before
  // it is indexed by its first search, or by `forge search --reindex`. IF NOT EXISTS: a
  // store taken back to an older schema by hand (the tests do) keeps its index tables.
  `CREATE TABLE IF NOT EXISTS search_docs (
     id INTEGER PRIMARY KEY,
     key BLOB NOT NULL UNIQUE,
     source TEXT NOT NULL,
     place TEXT NOT NULL
   );
   CREATE VIRTUAL TABLE IF NOT EXISTS search_words USING fts5 (words, content = '', tokenize = 'unicode61 remove_diacritics 0');
   CREATE TABLE IF NOT EXISTS search_postings (
     checkpoint TEXT NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
     doc INTEGER NOT NULL,
     delta INTEGER NOT NULL,
     PRIMARY KEY (checkpoint, doc)
   ) WITHOUT ROWID;
   CREATE INDEX IF NOT EXISTS search_postings_by_doc ON search_postings (doc, delta);
   CREATE TABLE IF NOT EXISTS search_marks (
     checkpoint TEXT PRIMARY KEY REFERENCES checkpoints (id) ON DELETE CASCADE,
     parent TEXT
   ) WITHOUT ROWID;`,
  // 5: costs that grow with the change, not with history (bench/history.ts): a session counts
  // its checkpoints, keeps its latest time and notes whether its times ever went back in seq
  // order; the time index ends in seq, so "the last checkpoint at or before t" is one index
  // probe; and the checkpoints search has yet to index are listed (search_pending) rather
  // than found by reading every checkpoint. Safe to run again on a store taken back to an
  // older schema by hand (the tests do).
  (db) => {
    const columns = (db.pragma("table_info(sessions)") as { name: string }[]).map((c) => c.name);
    if (!columns.includes("checkpoint_count")) db.exec("ALTER TABLE sessions ADD COLUMN checkpoint_count INTEGER NOT NULL DEFAULT 0");
    if (!columns.includes("times_unordered")) db.exec("ALTER TABLE sessions ADD COLUMN times_unordered INTEGER NOT NULL DEFAULT 0");
    if (!columns.includes("max_created_at")) db.exec("ALTER TABLE sessions ADD COLUMN max_created_at INTEGER NOT NULL DEFAULT 0");
    db.exec(sessionFactsSql("sessions", "checkpoints"));
    db.exec(`DROP INDEX IF EXISTS checkpoints_by_time;
      CREATE INDEX IF NOT EXISTS checkpoints_by_time_seq ON checkpoints (session_id, created_at, seq);
      CREATE TABLE IF NOT EXISTS search_pending (
        checkpoint TEXT PRIMARY KEY REFERENCES checkpoints (id) ON DELETE CASCADE
      ) WITHOUT ROWID;
      INSERT INTO search_pending (checkpoint)
        SELECT c.id FROM checkpoints c LEFT JOIN search_marks m ON m.checkpoint = c.id
        WHERE m.checkpoint IS NULL OR m.parent IS NOT c.parent_id
        ON CONFLICT (checkpoint) DO NOTHING;`);
  },
  // 6: side records, small keyed records an integration keeps beside a session's checkpoints
  // (ForgeSaver's LangGraph pending writes: a row each instead of a checkpoint each). A rowid
  // table with the key in an index of its own: in a WITHOUT ROWID table a row over ~1 KB
  // (a LangChain message) spills into an overflow page, 4 KB for its last bytes.
  `CREATE TABLE IF NOT EXISTS side_records (
     session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
     scope TEXT NOT NULL,
     key TEXT NOT NULL,
     value BLOB NOT NULL,
     UNIQUE (session_id, scope, key)
   );`,
];

export function migrate(db: Database.Database): void {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    throw new ForgeError("STORE_UNAVAILABLE", `the store's schema (version ${version}) is newer than this Forge knows (${MIGRATIONS.length})`, {
      hint: "upgrade forge-reasoning",
    });
  }
  if (version === MIGRATIONS.length && db.pragma("application_id", { simple: true }) === FORGE_APPLICATION_ID) return;
  db.transaction(() => {
    // Another process may have migrated while this one waited for the lock.
    const now = db.pragma("user_version", { simple: true }) as number;
    for (let v = now; v < MIGRATIONS.length; v++) {
      const m = MIGRATIONS[v] as Migration;
      if (typeof m === "string") db.exec(m);
      else m(db);
    }
    db.pragma(`user_version = ${MIGRATIONS.length}`);
    // Stores written before the mark existed get it here, with their first migration or on their first open.
    db.pragma(`application_id = ${FORGE_APPLICATION_ID}`);
  }).immediate();
}

/**
 * What an existing path holds, read from its first 100 bytes with plain `fs` (SQLite, which
 * would add `-wal`/`-shm` files, change the journal mode or create tables, is not used):
 * "absent" (nothing there yet), "forge" (marked as a Forge store), or "legacy" (no mark, but
 * the signature of a store written by a Forge before the mark: the caller must confirm its
 * tables with `requireForgeTables` before writing anything). Anything else is NOT_A_STORE.
 */
export function recogniseStoreFile(path: string): "absent" | "forge" | "legacy" {
  let header: Buffer;
  try {
    const fd = openSync(path, "r");
    try {
      header = Buffer.alloc(100);
      header = header.subarray(0, readSync(fd, header, 0, 100, 0));
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return "absent";
    throw new ForgeError("STORE_UNAVAILABLE", `cannot read ${path}: ${(e as Error).message}`, {
      hint: "check that the path names a readable file",
      cause: e,
    });
  }
  if (header.length === 0) throw notAStore(path, `${path} is an empty file, not a Forge store`);
  if (header.length < 100 || !header.subarray(0, 16).equals(SQLITE_MAGIC)) {
    throw notAStore(path, `${path} is not a Forge store (not a SQLite database)`);
  }
  const applicationId = header.readUInt32BE(68);
  if (applicationId === FORGE_APPLICATION_ID) return "forge";
  const userVersion = header.readUInt32BE(60);
  const wal = header[18] === 2 && header[19] === 2;
  // A store whose creating process still runs (or died) before its first WAL checkpoint
  // has user_version 0 in the main file; its schema is in the -wal file beside it.
  const migrated = (userVersion >= 1 && userVersion <= MIGRATIONS.length) || (userVersion === 0 && walHasFrames(path));
  if (applicationId === 0 && wal && migrated) return "legacy";
  throw foreign(path, applicationId, tablesOfCopy(path));
}

/** Refuses (NOT_A_STORE) a legacy-looking file that lacks Forge's tables; only reads. */
export function requireForgeTables(db: Database.Database, path: string): void {
  const names = tableNames(db);
  if (FORGE_TABLES.some((t) => !names.includes(t))) throw foreign(path, 0, names);
}

const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");
/** At most this much of a foreign file is copied into memory to name its tables. */
const DESCRIBE_MAX_BYTES = 32 * 1024 * 1024;

function foreign(path: string, applicationId: number, tables: readonly string[] | Error): ForgeError {
  const listed =
    tables instanceof Error
      ? `its tables could not be listed: ${tables.message}`
      : tables.length === 0
        ? "no tables"
        : `${tables.length} table${tables.length === 1 ? "" : "s"}, e.g. ${tables.slice(0, 3).join(", ")}`;
  return notAStore(path, `${path} is not a Forge store (another program's SQLite database: application_id ${hex32(applicationId)}, ${listed})`);
}

function notAStore(path: string, message: string): ForgeError {
  return new ForgeError("NOT_A_STORE", message, {
    hint: "nothing was changed; give the store a path of its own",
    data: { path },
  });
}

function walHasFrames(path: string): boolean {
  return existsSync(`${path}-wal`) && statSync(`${path}-wal`).size > 32;
}

function hex32(n: number): string {
  return `0x${n.toString(16).padStart(8, "0")}`;
}

function tableNames(db: Database.Database): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid").all() as { name: string }[]).map((r) => r.name);
}

/**
 * The tables of a foreign file, read from a copy in memory (of its start, when it is big):
 * opening the file itself could create files beside it or run a WAL checkpoint into it.
 */
function tablesOfCopy(path: string): string[] | Error {
  try {
    const fd = openSync(path, "r");
    let copy: Buffer;
    try {
      copy = Buffer.alloc(Math.min(fstatSync(fd).size, DESCRIBE_MAX_BYTES));
      copy = copy.subarray(0, readSync(fd, copy, 0, copy.length, 0));
    } finally {
      closeSync(fd);
    }
    // An in-memory database cannot be in WAL mode: mark the copy's header as rollback-journal.
    copy[18] = 1;
    copy[19] = 1;
    const db = new Database(copy, { readonly: true, ...sqliteAddon() });
    try {
      return tableNames(db);
    } finally {
      db.close();
    }
  } catch (e) {
    return e as Error;
  }
}
