// The anchors Forge is measured against, on the same SQLite settings as Forge's sqlite
// backend (better-sqlite3, journal_mode=WAL, synchronous=NORMAL, BEGIN IMMEDIATE writes):
//  - NaiveStore: each checkpoint is a gzip-compressed full JSON copy in one row.
//  - Floor: a bare one-row insert transaction with a tiny payload (and a point select).
import Database from "better-sqlite3";
import { existsSync, statSync } from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";

type Db = Database.Database;

function openDb(path: string): Db {
  const db = new Database(path, { timeout: 60_000 });
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(
    `CREATE TABLE IF NOT EXISTS checkpoints (
       id TEXT PRIMARY KEY,
       session TEXT NOT NULL,
       seq INTEGER NOT NULL,
       created_at INTEGER NOT NULL,
       data BLOB NOT NULL,
       UNIQUE (session, seq)
     )`,
  );
  return db;
}

/** Time-ordered ids like Forge's ULIDs (so both B-trees append at the right edge). */
function makeId(seq: number): string {
  return Date.now().toString(36).padStart(10, "0") + "-" + String(seq).padStart(12, "0");
}

export interface NaiveWrite {
  readonly id: string;
  /** Length of the JSON text. */
  readonly jsonBytes: number;
  /** Stored (gzip) bytes. */
  readonly storedBytes: number;
}

export class NaiveStore {
  readonly path: string;
  #db: Db;
  #insert: Database.Statement;
  #select: Database.Statement;
  #seq = 0;
  /** The id of the latest checkpoint written. */
  lastId: string | undefined;

  constructor(path: string) {
    this.path = path;
    this.#db = openDb(path);
    this.#insert = this.#db.prepare("INSERT INTO checkpoints (id, session, seq, created_at, data) VALUES (?, ?, ?, ?, ?)");
    this.#select = this.#db.prepare("SELECT data FROM checkpoints WHERE id = ?");
  }

  /** Serialises, compresses and inserts one full copy in one transaction. */
  checkpoint(session: string, state: unknown): NaiveWrite {
    const json = JSON.stringify(state);
    const data = gzipSync(json);
    const seq = ++this.#seq;
    const id = makeId(seq);
    const insert = this.#insert;
    this.#db.transaction(() => insert.run(id, session, seq, Date.now(), data)).immediate();
    this.lastId = id;
    return { id, jsonBytes: json.length, storedBytes: data.length };
  }

  restore(id: string): unknown {
    const row = this.#select.get(id) as { data: Buffer } | undefined;
    if (!row) throw new Error(`naive anchor: no checkpoint ${id}`);
    return JSON.parse(gunzipSync(row.data).toString("utf8"));
  }

  /** Closes and reopens the connection: the next restore starts with an empty page cache. */
  reopen(): void {
    this.#db.close();
    this.#db = openDb(this.path);
    this.#insert = this.#db.prepare("INSERT INTO checkpoints (id, session, seq, created_at, data) VALUES (?, ?, ?, ?, ?)");
    this.#select = this.#db.prepare("SELECT data FROM checkpoints WHERE id = ?");
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}

export class Floor {
  readonly #db: Db;
  readonly #insert: Database.Statement;
  readonly #select: Database.Statement;
  readonly #payload = Buffer.from('{"tiny":true}');
  #seq = 0;

  constructor(path: string) {
    this.#db = openDb(path);
    this.#insert = this.#db.prepare("INSERT INTO checkpoints (id, session, seq, created_at, data) VALUES (?, ?, ?, ?, ?)");
    this.#select = this.#db.prepare("SELECT data FROM checkpoints WHERE id = ?");
  }

  /** One bare insert transaction; returns the row's id. */
  write(): string {
    const seq = ++this.#seq;
    const id = makeId(seq);
    const insert = this.#insert;
    const payload = this.#payload;
    this.#db.transaction(() => insert.run(id, "floor", seq, Date.now(), payload)).immediate();
    return id;
  }

  read(id: string): unknown {
    return this.#select.get(id);
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}

/**
 * Checkpoints the WAL into the database file (PRAGMA wal_checkpoint(TRUNCATE)) on a fresh
 * connection and returns the database file's size plus the -wal file's. Call it once the
 * store's own connections are closed (or idle).
 */
export function sqliteFootprint(path: string): Footprint {
  const size = (p: string): number => (existsSync(p) ? statSync(p).size : 0);
  const before = size(path) + size(`${path}-wal`);
  const db = new Database(path, { timeout: 60_000 });
  try {
    db.pragma("wal_checkpoint(TRUNCATE)");
    const dbBytes = size(path);
    const wal = size(`${path}-wal`);
    return { before, db: dbBytes, wal, total: dbBytes + wal };
  } finally {
    db.close();
  }
}

export interface Footprint {
  /** Database file plus -wal before the checkpoint. */
  readonly before: number;
  readonly db: number;
  readonly wal: number;
  /** Database file plus -wal after PRAGMA wal_checkpoint(TRUNCATE). */
  readonly total: number;
}
