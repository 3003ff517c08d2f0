// `sqlite:PATH` — the embedded default (.forge/forge.db): better-sqlite3 in WAL mode.
// Many processes may share one file; SQLite's write lock (BEGIN IMMEDIATE, with a busy
// timeout) serialises their transactions. The SQL itself is the shared layer's (../sql/);
// this file opens the store, writes objects and holds transactions.
import { mark } from "../../core/trace.js";
import Database from "better-sqlite3";
import { sqliteAddon } from "./sqlite-addon.js";
import { randomBytes } from "node:crypto";
import { constants as fsConstants, copyFileSync, linkSync, mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { ForgeError } from "../../core/errors.js";
import { noStoreAt } from "../no-store.js";
import { Mutex } from "../../core/mutex.js";
import type { MetaWriter, SideRecord, StoredObject } from "../backend.js";
import { hashKey } from "../sql/rows.js";
import { SqlBackend } from "../sql/sql-backend.js";
import { statementsFor } from "../sql/statements.js";
import type { SqlMeta } from "../sql/sql-meta.js";
import { SqliteConnection } from "./sqlite-connection.js";
import { sqliteDialect } from "./sqlite-dialect.js";
import { migrate, recogniseStoreFile, requireForgeTables } from "./sqlite-schema.js";
import type { SqliteWriter } from "./sqlite-writer.js";

type Db = Database.Database;

export interface SqliteOptions {
  /** How long a writer waits for another process's write lock, in ms. */
  readonly busyTimeoutMs?: number;
  /** Whether a store that does not exist yet is created (default true; else NO_STORE, nothing made). */
  readonly create?: boolean;
}

export class SqliteBackend extends SqlBackend {
  readonly url: string;
  readonly objectsInTransaction = true;
  readonly #db: SqliteConnection;
  readonly #lock = new Mutex();
  readonly #tx: SqlMeta;
  // Prepared once: exec() would parse the statement again on every transaction.
  readonly #begin: Database.Statement;
  readonly #commit: Database.Statement;
  readonly #rollback: Database.Statement;
  readonly #insertObject: Database.Statement;
  /** The file (null for ":memory:", which no other connection can share) and the busy timeout, for the writer thread. */
  readonly #file: { path: string; timeoutMs: number } | null;
  /** Started by the first batch big enough to be worth a thread. */
  #writer: SqliteWriter | undefined;

  private constructor(url: string, db: Db, file: { path: string; timeoutMs: number } | null) {
    const conn = new SqliteConnection(db);
    super(sqliteDialect, conn);
    this.url = url;
    this.#db = conn;
    this.#file = file;
    this.#tx = this.writer(conn);
    this.#begin = conn.prepared("BEGIN IMMEDIATE");
    this.#commit = conn.prepared("COMMIT");
    this.#rollback = conn.prepared("ROLLBACK");
    this.#insertObject = conn.prepared(INSERT_OBJECT);
  }

  static open(path: string, options: SqliteOptions = {}): SqliteBackend {
    const timeoutMs = options.busyTimeoutMs ?? 60_000;
    if (path === ":memory:") return new SqliteBackend("sqlite::memory:", openConnection(path, timeoutMs, "memory"), null);
    // Decided from the file's first bytes before SQLite opens it: SQLite would make an empty
    // file a store, and add tables and WAL mode to another program's database.
    let kind = recogniseStoreFile(path);
    if (kind === "absent") {
      if (options.create === false) throw noStoreAt(`sqlite:${path}`, path);
      wrapOpenErrors(path, () => createStoreFile(path, timeoutMs));
      kind = recogniseStoreFile(path);
      if (kind === "absent")
        throw new ForgeError("STORE_UNAVAILABLE", `the SQLite store at ${path} vanished while it was being created`, { hint: "try again" });
    }
    return new SqliteBackend(`sqlite:${path}`, openConnection(path, timeoutMs, kind), { path, timeoutMs });
  }

  putObjects(objects: readonly StoredObject[]): Promise<number> {
    return this.#lock.run(async () => {
      const now = Date.now();
      if (this.#file) {
        let bytes = 0;
        for (const o of objects) bytes += o.data.length;
        if (bytes >= WRITER_MIN_BYTES) {
          // Loaded with the first big batch: a process that writes little never starts a thread or loads its module.
          const { SqliteWriter, WRITER_AVAILABLE } = await import("./sqlite-writer.js");
          // Under the same lock as the main connection's writes: one writer at a time per process, as before.
          if (WRITER_AVAILABLE) return (this.#writer ??= new SqliteWriter(this.#file.path, this.#file.timeoutMs)).put(objects, now);
        }
      }
      const insert = this.#insertObject;
      let bytes = 0;
      this.#db.db
        .transaction(() => {
          for (const o of objects) {
            if (insert.run(hashKey(o.hash), o.data, now).changes > 0) bytes += o.data.length;
          }
        })
        .immediate();
      return bytes;
    });
  }

  putSideRecords(sessionId: string, records: readonly (SideRecord & { readonly replace?: boolean })[]): Promise<void> {
    return this.#lock.run(async () => {
      const s = statementsFor(sqliteDialect);
      this.#begin.run();
      try {
        for (const r of records) this.#db.prepared(r.replace ? s.replaceSideRecord : s.keepSideRecord).run(sessionId, r.scope, r.key, r.value);
        this.#commit.run();
      } catch (e) {
        if (this.#db.db.inTransaction) this.#rollback.run();
        // The one constraint besides the key, which the statements resolve: the session's foreign key.
        if (sqliteDialect.constraintViolation(e) === "other") throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${sessionId}`);
        throw e;
      }
    });
  }

  transaction<T>(fn: (tx: MetaWriter) => Promise<T>): Promise<T> {
    return this.#lock.run(async () => {
      this.#begin.run();
      try {
        const result = await fn(this.#tx);
        await this.#tx.settle();
        this.#commit.run();
        return result;
      } catch (e) {
        this.#tx.discard();
        if (this.#db.db.inTransaction) this.#rollback.run();
        throw e;
      }
    });
  }

  async close(): Promise<void> {
    await this.#lock.run(async () => {
      // The writer first: the main connection, closing last, checkpoints the WAL.
      await this.#writer?.close();
      this.#writer = undefined;
      if (this.#db.db.open) this.#db.db.close();
      mark("store: closed");
    });
  }
}

/** How the main connection inserts an object (the writer thread has its own copy). */
const INSERT_OBJECT = "INSERT OR IGNORE INTO objects (hash, data, created_at) VALUES (?, ?, ?)";

/**
 * The connection to a recognised store (or ":memory:"). A legacy store's tables are checked
 * before anything is written; the mark migrate() gives it is checkpointed into the main
 * file at once, so other processes recognise it from its header while this one runs.
 */
function openConnection(path: string, timeoutMs: number, kind: "memory" | "forge" | "legacy"): Db {
  return wrapOpenErrors(path, () => {
    const db = new Database(path, { timeout: timeoutMs, fileMustExist: kind !== "memory", ...sqliteAddon() });
    try {
      if (kind === "legacy") requireForgeTables(db, path);
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.pragma("foreign_keys = ON");
      migrate(db);
      if (kind === "legacy") db.pragma("wal_checkpoint(PASSIVE)");
      mark("store: opened");
      return db;
    } catch (e) {
      db.close();
      throw e;
    }
  });
}

/**
 * Creates a store at `path` whole: built under a name of its own beside it (schema and
 * application_id first, then WAL mode, all in the main file once closed), then linked into
 * place. Processes that open a new store at once never see a half-made file (which would
 * look empty, not a store); the first link wins and the others open that store.
 */
function createStoreFile(path: string, timeoutMs: number): void {
  mkdirSync(dirname(path), { recursive: true });
  const building = `${path}.${process.pid}-${randomBytes(4).toString("hex")}.creating`;
  try {
    const db = new Database(building, { timeout: timeoutMs, ...sqliteAddon() });
    try {
      migrate(db);
      db.pragma("journal_mode = WAL");
    } finally {
      db.close();
    }
    try {
      linkSync(building, path);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === "EEXIST") return;
      // File systems without hard links: copying never replaces a file, but is not atomic.
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS") throw e;
      try {
        copyFileSync(building, path, fsConstants.COPYFILE_EXCL);
      } catch (e2) {
        if ((e2 as { code?: string }).code !== "EEXIST") throw e2;
      }
    }
  } finally {
    rmSync(building, { force: true });
  }
}

/** SQLite and file-system failures as STORE_UNAVAILABLE naming the path; NOT_A_STORE passes through. */
function wrapOpenErrors<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ForgeError && e.code === "NOT_A_STORE") throw e;
    throw new ForgeError("STORE_UNAVAILABLE", `cannot open SQLite store at ${path}: ${(e as Error).message}`, {
      hint: "check that the path is writable and is a Forge store",
      cause: e,
    });
  }
}

/** Batches of at least this many bytes are written by the writer thread (smaller ones cost less than its round trip). */
const WRITER_MIN_BYTES = 1024 * 1024;
