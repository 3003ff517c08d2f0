// `sqlite:PATH` — the embedded default (.forge/forge.db): better-sqlite3 in WAL mode.
// Many processes may share one file; SQLite's write lock (BEGIN IMMEDIATE, with a busy
// timeout) serialises their transactions.
import Database from "better-sqlite3";
import { randomBytes } from "node:crypto";
import { constants as fsConstants, copyFileSync, linkSync, mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { ForgeError } from "../../core/errors.js";
import { Mutex } from "../../core/mutex.js";
import type {
  Backend,
  CheckpointQuery,
  CheckpointRow,
  DeletedObjects,
  MetaReader,
  MetaWriter,
  MilestoneRow,
  ObjectInfo,
  RefRow,
  SessionPatch,
  SessionRow,
  StoredObject,
} from "../backend.js";
import { migrate, recogniseStoreFile, requireForgeTables } from "./sqlite-schema.js";
import { SqliteWriter, WRITER_AVAILABLE } from "./sqlite-writer.js";

type Db = Database.Database;

interface SessionRecord {
  id: string;
  name: string;
  kind: string;
  created_at: number;
  metadata: string;
  next_seq: number;
  head_branch: string | null;
  head_checkpoint: string | null;
  work_root: string | null;
  work_version: number;
}

interface CheckpointRecord {
  id: string;
  session_id: string;
  seq: number;
  parent_id: string | null;
  branch: string;
  created_at: number;
  message: string;
  tags: string;
  trigger: string;
  metadata: string;
  state_root: string;
  files_root: string | null;
  logical_bytes: number;
  new_bytes: number;
}

export interface SqliteOptions {
  /** How long a writer waits for another process's write lock, in ms. */
  readonly busyTimeoutMs?: number;
}

export class SqliteBackend implements Backend {
  readonly url: string;
  readonly capabilities = { persistent: true, multiProcess: true } as const;
  readonly meta: MetaReader;
  readonly #db: Db;
  readonly #lock = new Mutex();
  readonly #q: Queries;
  readonly #tx: MetaWriter;
  /** The file (null for ":memory:", which no other connection can share) and the busy timeout, for the writer thread. */
  readonly #file: { path: string; timeoutMs: number } | null;
  /** Started by the first batch big enough to be worth a thread. */
  #writer: SqliteWriter | undefined;

  private constructor(url: string, db: Db, file: { path: string; timeoutMs: number } | null) {
    this.url = url;
    this.#db = db;
    this.#file = file;
    this.#q = new Queries(db);
    this.meta = new SqliteMeta(db, this.#q);
    this.#tx = new SqliteMeta(db, this.#q);
  }

  static open(path: string, options: SqliteOptions = {}): SqliteBackend {
    const timeoutMs = options.busyTimeoutMs ?? 60_000;
    if (path === ":memory:") return new SqliteBackend("sqlite::memory:", openConnection(path, timeoutMs, "memory"), null);
    // Decided from the file's first bytes before SQLite opens it: SQLite would make an empty
    // file a store, and add tables and WAL mode to another program's database.
    let kind = recogniseStoreFile(path);
    if (kind === "absent") {
      wrapOpenErrors(path, () => createStoreFile(path, timeoutMs));
      kind = recogniseStoreFile(path);
      if (kind === "absent") throw new ForgeError("STORE_UNAVAILABLE", `the SQLite store at ${path} vanished while it was being created`, { hint: "try again" });
    }
    return new SqliteBackend(`sqlite:${path}`, openConnection(path, timeoutMs, kind), { path, timeoutMs });
  }

  putObjects(objects: readonly StoredObject[]): Promise<number> {
    return this.#lock.run(async () => {
      const now = Date.now();
      if (this.#file && WRITER_AVAILABLE) {
        let bytes = 0;
        for (const o of objects) bytes += o.data.length;
        // Under the same lock as the main connection's writes: one writer at a time per process, as before.
        if (bytes >= WRITER_MIN_BYTES) return (this.#writer ??= new SqliteWriter(this.#file.path, this.#file.timeoutMs)).put(objects, now);
      }
      const insert = this.#q.insertObject;
      let bytes = 0;
      this.#db.transaction(() => {
        for (const o of objects) {
          if (insert.run(Buffer.from(o.hash, "hex"), o.data, now).changes > 0) bytes += o.data.length;
        }
      }).immediate();
      return bytes;
    });
  }

  async getObjects(hashes: readonly string[]): Promise<Map<string, Uint8Array>> {
    const out = new Map<string, Uint8Array>();
    if (hashes.length === 0) return out;
    const rows = this.#q.getObjects.all(JSON.stringify(hashes)) as { hash: Buffer; data: Buffer }[];
    for (const r of rows) out.set(r.hash.toString("hex"), r.data);
    return out;
  }

  async hasObjects(hashes: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    if (hashes.length === 0) return out;
    const rows = this.#q.hasObjects.all(JSON.stringify(hashes)) as { hash: Buffer }[];
    for (const r of rows) out.add(r.hash.toString("hex"));
    return out;
  }

  async *listObjects(): AsyncIterable<ObjectInfo> {
    // Pages by key so no cursor stays open while the caller works.
    let after: Buffer = Buffer.alloc(0);
    for (;;) {
      const rows = this.#q.listObjects.all(after) as { hash: Buffer; size: number; created_at: number }[];
      for (const r of rows) yield { hash: r.hash.toString("hex"), size: r.size, createdAt: r.created_at };
      const last = rows[rows.length - 1];
      if (!last || rows.length < 1000) return;
      after = last.hash;
    }
  }

  async countObjects(): Promise<number> {
    return (this.#q.countObjects.get() as { n: number }).n;
  }

  async corruptObjectForTesting(hash: string, data: Uint8Array): Promise<void> {
    this.#db.prepare("UPDATE objects SET data = ? WHERE hash = ?").run(data, Buffer.from(hash, "hex"));
  }

  transaction<T>(fn: (tx: MetaWriter) => Promise<T>): Promise<T> {
    return this.#lock.run(async () => {
      // Prepared once: exec() would parse the statement again on every transaction.
      this.#q.begin.run();
      try {
        const result = await fn(this.#tx);
        this.#q.commit.run();
        return result;
      } catch (e) {
        if (this.#db.inTransaction) this.#q.rollback.run();
        throw e;
      }
    });
  }

  async close(): Promise<void> {
    await this.#lock.run(async () => {
      // The writer first: the main connection, closing last, checkpoints the WAL.
      await this.#writer?.close();
      this.#writer = undefined;
      if (this.#db.open) this.#db.close();
    });
  }
}

/**
 * The connection to a recognised store (or ":memory:"). A legacy store's tables are checked
 * before anything is written; the mark migrate() gives it is checkpointed into the main
 * file at once, so other processes recognise it from its header while this one runs.
 */
function openConnection(path: string, timeoutMs: number, kind: "memory" | "forge" | "legacy"): Db {
  return wrapOpenErrors(path, () => {
    const db = new Database(path, { timeout: timeoutMs, fileMustExist: kind !== "memory" });
    try {
      if (kind === "legacy") requireForgeTables(db, path);
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.pragma("foreign_keys = ON");
      migrate(db);
      if (kind === "legacy") db.pragma("wal_checkpoint(PASSIVE)");
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
    const db = new Database(building, { timeout: timeoutMs });
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

/** Prepared statements, made once per connection. */
class Queries {
  readonly begin;
  readonly commit;
  readonly rollback;
  readonly insertObject;
  readonly getObjects;
  readonly hasObjects;
  readonly listObjects;
  readonly deleteObject;
  readonly countObjects;
  readonly sessionById;
  readonly sessionByName;
  readonly sessions;
  readonly checkpoint;
  readonly checkpointBySeq;
  readonly checkpointsByPrefix;
  readonly checkpointsByPrefixInSession;
  readonly refs;
  readonly ref;
  readonly roots;
  readonly getMeta;
  readonly setMeta;
  readonly insertCheckpoint;
  readonly bumpSeq;

  constructor(db: Db) {
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
    this.rollback = db.prepare("ROLLBACK");
    this.insertObject = db.prepare("INSERT OR IGNORE INTO objects (hash, data, created_at) VALUES (?, ?, ?)");
    this.getObjects = db.prepare("SELECT hash, data FROM objects WHERE hash IN (SELECT unhex(value) FROM json_each(?))");
    this.hasObjects = db.prepare("SELECT hash FROM objects WHERE hash IN (SELECT unhex(value) FROM json_each(?))");
    this.listObjects = db.prepare("SELECT hash, length(data) AS size, created_at FROM objects WHERE hash > ? ORDER BY hash LIMIT 1000");
    this.deleteObject = db.prepare("DELETE FROM objects WHERE hash = ? AND created_at < ? RETURNING length(data) AS size");
    this.countObjects = db.prepare("SELECT count(*) AS n FROM objects");
    this.sessionById = db.prepare("SELECT * FROM sessions WHERE id = ?");
    this.sessionByName = db.prepare("SELECT * FROM sessions WHERE name = ?");
    this.sessions = db.prepare("SELECT * FROM sessions ORDER BY created_at, id");
    this.checkpoint = db.prepare("SELECT * FROM checkpoints WHERE id = ?");
    this.checkpointBySeq = db.prepare("SELECT * FROM checkpoints WHERE session_id = ? AND seq = ?");
    this.checkpointsByPrefix = db.prepare("SELECT * FROM checkpoints WHERE id >= ? AND id < ? ORDER BY id LIMIT ?");
    this.checkpointsByPrefixInSession = db.prepare(
      "SELECT * FROM checkpoints WHERE id >= ? AND id < ? AND session_id = ? ORDER BY id LIMIT ?",
    );
    this.refs = db.prepare("SELECT session_id, name, checkpoint_id FROM refs WHERE session_id = ? ORDER BY name");
    this.ref = db.prepare("SELECT session_id, name, checkpoint_id FROM refs WHERE session_id = ? AND name = ?");
    this.roots = db.prepare(
      `SELECT state_root AS h FROM checkpoints
       UNION SELECT files_root FROM checkpoints WHERE files_root IS NOT NULL
       UNION SELECT work_root FROM sessions WHERE work_root IS NOT NULL`,
    );
    this.getMeta = db.prepare("SELECT value FROM meta WHERE key = ?");
    this.setMeta = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    this.insertCheckpoint = db.prepare(
      `INSERT INTO checkpoints (id, session_id, seq, parent_id, branch, created_at, message, tags, trigger, metadata,
         state_root, files_root, logical_bytes, new_bytes)
       VALUES (@id, @session_id, @seq, @parent_id, @branch, @created_at, @message, @tags, @trigger, @metadata,
         @state_root, @files_root, @logical_bytes, @new_bytes)`,
    );
    this.bumpSeq = db.prepare("UPDATE sessions SET next_seq = max(next_seq, ?) WHERE id = ?");
  }
}

class SqliteMeta implements MetaWriter {
  readonly #db: Db;
  readonly #q: Queries;

  constructor(db: Db, q: Queries) {
    this.#db = db;
    this.#q = q;
  }

  /** Statements built from a few fixed shapes (filters, patches) are prepared once each. */
  readonly #prepared = new Map<string, Database.Statement>();
  #stmt(sql: string): Database.Statement {
    let st = this.#prepared.get(sql);
    if (!st) this.#prepared.set(sql, (st = this.#db.prepare(sql)));
    return st;
  }

  async getSessionById(id: string): Promise<SessionRow | undefined> {
    return toSession(this.#q.sessionById.get(id) as SessionRecord | undefined);
  }

  async getSessionByName(name: string): Promise<SessionRow | undefined> {
    return toSession(this.#q.sessionByName.get(name) as SessionRecord | undefined);
  }

  async listSessions(): Promise<SessionRow[]> {
    return (this.#q.sessions.all() as SessionRecord[]).map((r) => toSession(r) as SessionRow);
  }

  async getCheckpoint(id: string): Promise<CheckpointRow | undefined> {
    return toCheckpoint(this.#q.checkpoint.get(id) as CheckpointRecord | undefined);
  }

  async findCheckpointsByPrefix(prefix: string, limit: number, sessionId?: string): Promise<CheckpointRow[]> {
    // A range scan on the primary key: ids are upper-case ASCII, so prefix + "\x7f" bounds it.
    const hi = prefix + "\x7f";
    const rows = (
      sessionId === undefined
        ? this.#q.checkpointsByPrefix.all(prefix, hi, limit)
        : this.#q.checkpointsByPrefixInSession.all(prefix, hi, sessionId, limit)
    ) as CheckpointRecord[];
    return rows.map((r) => toCheckpoint(r) as CheckpointRow);
  }

  async getCheckpointBySeq(sessionId: string, seq: number): Promise<CheckpointRow | undefined> {
    return toCheckpoint(this.#q.checkpointBySeq.get(sessionId, seq) as CheckpointRecord | undefined);
  }

  async listCheckpoints(q: CheckpointQuery): Promise<CheckpointRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.sessionId !== undefined) where.push("session_id = ?"), params.push(q.sessionId);
    if (q.branch !== undefined) where.push("branch = ?"), params.push(q.branch);
    if (q.tag !== undefined) where.push("EXISTS (SELECT 1 FROM json_each(tags) WHERE value = ?)"), params.push(q.tag);
    if (q.trigger !== undefined) where.push("trigger = ?"), params.push(q.trigger);
    if (q.since !== undefined) where.push("created_at >= ?"), params.push(q.since);
    if (q.until !== undefined) where.push("created_at <= ?"), params.push(q.until);
    const dir = q.order === "desc" ? "DESC" : "ASC";
    const order = q.sessionId === undefined ? `created_at ${dir}, id ${dir}` : `seq ${dir}`;
    let sql = `SELECT * FROM checkpoints${where.length ? " WHERE " + where.join(" AND ") : ""} ORDER BY ${order}`;
    if (q.limit !== undefined) sql += " LIMIT ?", params.push(q.limit);
    return (this.#stmt(sql).all(...params) as CheckpointRecord[]).map((r) => toCheckpoint(r) as CheckpointRow);
  }

  async countCheckpoints(sessionId?: string): Promise<number> {
    const row = (
      sessionId === undefined
        ? this.#stmt("SELECT count(*) AS n FROM checkpoints").get()
        : this.#stmt("SELECT count(*) AS n FROM checkpoints WHERE session_id = ?").get(sessionId)
    ) as { n: number };
    return row.n;
  }

  async listRefs(sessionId: string): Promise<RefRow[]> {
    return (this.#q.refs.all(sessionId) as RefRecord[]).map(toRef);
  }

  async getRef(sessionId: string, name: string): Promise<RefRow | undefined> {
    const r = this.#q.ref.get(sessionId, name) as RefRecord | undefined;
    return r ? toRef(r) : undefined;
  }

  async listMilestones(sessionId: string): Promise<MilestoneRow[]> {
    return (this.#stmt("SELECT * FROM milestones WHERE session_id = ? ORDER BY created_at, name").all(sessionId) as MilestoneRecord[]).map(toMilestone);
  }

  async getMilestone(sessionId: string, name: string): Promise<MilestoneRow | undefined> {
    const r = this.#stmt("SELECT * FROM milestones WHERE session_id = ? AND name = ?").get(sessionId, name) as MilestoneRecord | undefined;
    return r ? toMilestone(r) : undefined;
  }

  async listRoots(): Promise<string[]> {
    return (this.#q.roots.all() as { h: string }[]).map((r) => r.h);
  }

  async getGcEpoch(): Promise<number> {
    const r = this.#q.getMeta.get("gc_epoch") as { value: string } | undefined;
    return r ? Number(r.value) : 0;
  }

  async insertSession(row: SessionRow): Promise<void> {
    try {
      this.#stmt(
        `INSERT INTO sessions (id, name, kind, created_at, metadata, next_seq, head_branch, head_checkpoint, work_root, work_version)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
          row.id, row.name, row.kind, row.createdAt, JSON.stringify(row.metadata), row.nextSeq,
          row.headBranch, row.headCheckpoint, row.workRoot, row.workVersion,
        );
    } catch (e) {
      if ((e as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE" || (e as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
        throw new ForgeError("SESSION_EXISTS", `session "${row.name}" already exists`, { cause: e });
      }
      throw e;
    }
  }

  async updateSession(id: string, patch: SessionPatch): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [];
    if (patch.name !== undefined) sets.push("name = ?"), params.push(patch.name);
    if (patch.metadata !== undefined) sets.push("metadata = ?"), params.push(JSON.stringify(patch.metadata));
    if (patch.headBranch !== undefined) sets.push("head_branch = ?"), params.push(patch.headBranch);
    if (patch.headCheckpoint !== undefined) sets.push("head_checkpoint = ?"), params.push(patch.headCheckpoint);
    if (patch.workRoot !== undefined) sets.push("work_root = ?"), params.push(patch.workRoot);
    if (patch.workVersion !== undefined) sets.push("work_version = ?"), params.push(patch.workVersion);
    if (sets.length === 0) return;
    const r = this.#stmt(`UPDATE sessions SET ${sets.join(", ")} WHERE id = ?`).run(...params, id);
    if (r.changes === 0) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${id}`);
  }

  async deleteSession(id: string): Promise<void> {
    // refs, milestones and checkpoints go with it (ON DELETE CASCADE).
    this.#stmt("DELETE FROM sessions WHERE id = ?").run(id);
  }

  async allocateSeq(sessionId: string): Promise<number> {
    const r = this.#stmt("UPDATE sessions SET next_seq = next_seq + 1 WHERE id = ? RETURNING next_seq - 1 AS seq").get(sessionId) as
      | { seq: number }
      | undefined;
    if (!r) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${sessionId}`);
    return r.seq;
  }

  async insertCheckpoint(row: CheckpointRow): Promise<void> {
    try {
      this.#q.insertCheckpoint.run(fromCheckpoint(row));
    } catch (e) {
      const code = (e as { code?: string }).code ?? "";
      if (code.startsWith("SQLITE_CONSTRAINT")) {
        throw new ForgeError("CONFLICT", `checkpoint ${row.id} (#${row.seq}) conflicts with one already stored: ${(e as Error).message}`, {
          cause: e,
        });
      }
      throw e;
    }
    this.#q.bumpSeq.run(row.seq + 1, row.sessionId);
  }

  async updateCheckpoint(id: string, patch: Partial<Pick<CheckpointRow, "tags" | "parentId" | "message" | "metadata">>): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [];
    if (patch.tags !== undefined) sets.push("tags = ?"), params.push(JSON.stringify(patch.tags));
    if (patch.parentId !== undefined) sets.push("parent_id = ?"), params.push(patch.parentId);
    if (patch.message !== undefined) sets.push("message = ?"), params.push(patch.message);
    if (patch.metadata !== undefined) sets.push("metadata = ?"), params.push(JSON.stringify(patch.metadata));
    if (sets.length === 0) return;
    const r = this.#stmt(`UPDATE checkpoints SET ${sets.join(", ")} WHERE id = ?`).run(...params, id);
    if (r.changes === 0) throw new ForgeError("CHECKPOINT_NOT_FOUND", `no checkpoint with id ${id}`);
  }

  async deleteCheckpoints(ids: readonly string[]): Promise<void> {
    const del = this.#stmt("DELETE FROM checkpoints WHERE id = ?");
    for (const id of ids) del.run(id);
  }

  async setRef(sessionId: string, name: string, checkpointId: string): Promise<void> {
    this.#stmt("INSERT INTO refs (session_id, name, checkpoint_id) VALUES (?, ?, ?) ON CONFLICT (session_id, name) DO UPDATE SET checkpoint_id = excluded.checkpoint_id").run(sessionId, name, checkpointId);
  }

  async deleteRef(sessionId: string, name: string): Promise<void> {
    this.#stmt("DELETE FROM refs WHERE session_id = ? AND name = ?").run(sessionId, name);
  }

  async setMilestone(row: MilestoneRow): Promise<void> {
    this.#stmt(
      `INSERT INTO milestones (session_id, name, from_id, to_id, description, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id, name) DO UPDATE SET from_id = excluded.from_id, to_id = excluded.to_id,
         description = excluded.description, created_at = excluded.created_at`,
    ).run(row.sessionId, row.name, row.fromId, row.toId, row.description, row.createdAt);
  }

  async deleteMilestone(sessionId: string, name: string): Promise<void> {
    this.#stmt("DELETE FROM milestones WHERE session_id = ? AND name = ?").run(sessionId, name);
  }

  async bumpGcEpoch(): Promise<number> {
    const next = (await this.getGcEpoch()) + 1;
    this.#q.setMeta.run("gc_epoch", String(next));
    return next;
  }

  async deleteObjects(hashes: readonly string[], createdBefore: number): Promise<DeletedObjects> {
    let count = 0;
    let bytes = 0;
    for (const h of hashes) {
      const r = this.#q.deleteObject.get(Buffer.from(h, "hex"), createdBefore) as { size: number } | undefined;
      if (r) count++, (bytes += r.size);
    }
    return { count, bytes };
  }
}

interface RefRecord {
  session_id: string;
  name: string;
  checkpoint_id: string;
}

interface MilestoneRecord {
  session_id: string;
  name: string;
  from_id: string;
  to_id: string;
  description: string;
  created_at: number;
}

function toMilestone(r: MilestoneRecord): MilestoneRow {
  return { sessionId: r.session_id, name: r.name, fromId: r.from_id, toId: r.to_id, description: r.description, createdAt: r.created_at };
}

function toRef(r: RefRecord): RefRow {
  return { sessionId: r.session_id, name: r.name, checkpointId: r.checkpoint_id };
}

function toSession(r: SessionRecord | undefined): SessionRow | undefined {
  if (!r) return undefined;
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    createdAt: r.created_at,
    metadata: JSON.parse(r.metadata) as Record<string, unknown>,
    nextSeq: r.next_seq,
    headBranch: r.head_branch,
    headCheckpoint: r.head_checkpoint,
    workRoot: r.work_root,
    workVersion: r.work_version,
  };
}

function toCheckpoint(r: CheckpointRecord | undefined): CheckpointRow | undefined {
  if (!r) return undefined;
  return {
    id: r.id,
    sessionId: r.session_id,
    seq: r.seq,
    parentId: r.parent_id,
    branch: r.branch,
    createdAt: r.created_at,
    message: r.message,
    tags: JSON.parse(r.tags) as string[],
    trigger: r.trigger,
    metadata: JSON.parse(r.metadata) as Record<string, unknown>,
    stateRoot: r.state_root,
    filesRoot: r.files_root,
    logicalBytes: r.logical_bytes,
    newBytes: r.new_bytes,
  };
}

function fromCheckpoint(c: CheckpointRow): CheckpointRecord {
  return {
    id: c.id,
    session_id: c.sessionId,
    seq: c.seq,
    parent_id: c.parentId,
    branch: c.branch,
    created_at: c.createdAt,
    message: c.message,
    tags: JSON.stringify(c.tags),
    trigger: c.trigger,
    metadata: JSON.stringify(c.metadata),
    state_root: c.stateRoot,
    files_root: c.filesRoot,
    logical_bytes: c.logicalBytes,
    new_bytes: c.newBytes,
  };
}
