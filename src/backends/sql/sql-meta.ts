// The metadata reads and writes of every SQL backend, written once over a dialect and a
// connection: outside a transaction on the backend's own connection, inside one on the
// connection its driver holds the transaction on.
import { ForgeError } from "../../core/errors.js";
import type {
  CheckpointQuery,
  CheckpointRow,
  DeletedObjects,
  MetaWriter,
  MilestoneRow,
  RefRow,
  SessionPatch,
  SessionRow,
  SideRecord,
  StoredObject,
} from "../backend.js";
import type { SqlConnection } from "./connection.js";
import { listParts, type SqlDialect } from "./dialect.js";
import {
  checkpointParams,
  hashKey,
  sessionParams,
  toCheckpoint,
  toMilestone,
  toRef,
  toSession,
  type CheckpointRecord,
  type MilestoneRecord,
  type RefRecord,
  type SessionRecord,
} from "./rows.js";
import { SqlSearch } from "./sql-search.js";
import { type Owed, owedFacts, owedParams, statementsFor, type Statements } from "./statements.js";

type CheckpointPatch = Partial<Pick<CheckpointRow, "tags" | "parentId" | "message" | "metadata" | "stateRoot">>;

export class SqlMeta implements MetaWriter {
  readonly #d: SqlDialect;
  readonly #db: SqlConnection;
  readonly #s: Statements;
  /** The full-text index on the same connection (inside a transaction: its writes commit with it). */
  readonly search: SqlSearch;
  /**
   * Session-row changes that inserted checkpoints owe (count, seq counter, time order), by
   * session: written in one UPDATE per session before anything next reads or writes the
   * sessions table, and before commit. A transaction that inserts 100,000 checkpoints (an
   * import) so updates its session row once — PostgreSQL would otherwise keep a version of the
   * row per update until commit, and each update would walk them all.
   */
  readonly #owed = new Map<string, Owed>();
  /** The seqs `allocateSeq` handed out in this transaction, as `session seq`: a row with one is appended. */
  readonly #allocated = new Set<string>();

  constructor(dialect: SqlDialect, db: SqlConnection) {
    this.#d = dialect;
    this.#db = db;
    this.#s = statementsFor(dialect);
    this.search = new SqlSearch(dialect, dialect.search, db);
  }

  /** Writes what inserted checkpoints owe their sessions' rows; the transaction's driver calls it before COMMIT. */
  async settle(): Promise<void> {
    if (this.#owed.size === 0) return;
    const owed = [...this.#owed];
    this.#owed.clear();
    this.#allocated.clear();
    for (const [id, o] of owed) await this.#db.run(o.appended ? this.#s.appendedCheckpoints : this.#s.insertedCheckpoints, [...owedParams(id, o), id]);
  }

  /** Forgets what is owed (the transaction rolled back). */
  discard(): void {
    this.#owed.clear();
    this.#allocated.clear();
  }

  async getSessionById(id: string): Promise<SessionRow | undefined> {
    await this.settle();
    return this.#session(await this.#db.get<SessionRecord>(this.#s.sessionById, [id]));
  }

  async getSessionByName(name: string): Promise<SessionRow | undefined> {
    await this.settle();
    return this.#session(await this.#db.get<SessionRecord>(this.#s.sessionByName, [name]));
  }

  async listSessions(): Promise<SessionRow[]> {
    await this.settle();
    return (await this.#db.all<SessionRecord>(this.#s.sessions)).map((r) => toSession(this.#d, r));
  }

  async getCheckpoint(id: string): Promise<CheckpointRow | undefined> {
    return this.#checkpoint(await this.#db.get<CheckpointRecord>(this.#s.checkpoint, [id]));
  }

  async findCheckpointsByPrefix(prefix: string, limit: number, sessionId?: string): Promise<CheckpointRow[]> {
    const hi = prefix + "\x7f";
    const rows =
      sessionId === undefined
        ? await this.#db.all<CheckpointRecord>(this.#s.checkpointsByPrefix, [prefix, hi, limit])
        : await this.#db.all<CheckpointRecord>(this.#s.checkpointsByPrefixInSession, [prefix, hi, sessionId, limit]);
    return rows.map((r) => toCheckpoint(this.#d, r));
  }

  async getCheckpointBySeq(sessionId: string, seq: number): Promise<CheckpointRow | undefined> {
    return this.#checkpoint(await this.#db.get<CheckpointRecord>(this.#s.checkpointBySeq, [sessionId, seq]));
  }

  async listCheckpoints(q: CheckpointQuery): Promise<CheckpointRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.sessionId !== undefined) where.push("session_id = ?"), params.push(q.sessionId);
    if (q.branch !== undefined) where.push("branch = ?"), params.push(q.branch);
    if (q.tag !== undefined) where.push(this.#d.jsonArrayHas("tags")), params.push(q.tag);
    if (q.trigger !== undefined) where.push("trigger = ?"), params.push(q.trigger);
    if (q.since !== undefined) where.push("created_at >= ?"), params.push(q.since);
    if (q.until !== undefined) where.push("created_at <= ?"), params.push(q.until);
    const dir = q.order === "desc" ? "DESC" : "ASC";
    let order = q.sessionId === undefined ? `created_at ${dir}, id ${dir}` : `seq ${dir}`;
    if (q.sessionId !== undefined && (q.since !== undefined || q.until !== undefined)) {
      // A session whose times never go back as its seqs go up has the same order by (time,
      // seq) as by seq: the time index then finds the window and reads it in order, so
      // `at(t)` and "the newest N before t" read N rows, not every row of the window. In one
      // whose times do go back, a limited read walks the seq index instead and stops at the
      // limit: its time conditions are written so no index serves them.
      if (!(await this.#timesUnordered(q.sessionId))) order = `created_at ${dir}, seq ${dir}`;
      else if (q.limit !== undefined) for (let i = 0; i < where.length; i++) where[i] = (where[i] as string).replace(/^created_at /, "created_at + 0 ");
    }
    let sql = `SELECT * FROM ${this.#d.tables.checkpoints}${where.length ? " WHERE " + where.join(" AND ") : ""} ORDER BY ${order}`;
    if (q.limit !== undefined) (sql += " LIMIT ?"), params.push(q.limit);
    const rows = await this.#db.all<CheckpointRecord>(this.#d.placeholders(sql), params);
    return rows.map((r) => toCheckpoint(this.#d, r));
  }

  async countCheckpoints(sessionId?: string): Promise<number> {
    // A session's count is kept on its row (insertCheckpoint, deleteCheckpoints): no index range is counted.
    await this.settle();
    const row =
      sessionId === undefined
        ? await this.#db.get<{ n: number }>(this.#s.countCheckpoints)
        : await this.#db.get<{ n: number }>(this.#s.checkpointCount, [sessionId]);
    return Number(row?.n ?? 0);
  }

  /** Whether a checkpoint of the session was ever stored with a time earlier than one before it in seq order. */
  async #timesUnordered(sessionId: string): Promise<boolean> {
    await this.settle();
    return Number((await this.#db.get<{ u: number }>(this.#s.timesUnordered, [sessionId]))?.u ?? 0) !== 0;
  }

  async listRefs(sessionId: string): Promise<RefRow[]> {
    return (await this.#db.all<RefRecord>(this.#s.refs, [sessionId])).map(toRef);
  }

  async getRef(sessionId: string, name: string): Promise<RefRow | undefined> {
    const r = await this.#db.get<RefRecord>(this.#s.ref, [sessionId, name]);
    return r ? toRef(r) : undefined;
  }

  async listMilestones(sessionId: string): Promise<MilestoneRow[]> {
    return (await this.#db.all<MilestoneRecord>(this.#s.milestones, [sessionId])).map(toMilestone);
  }

  async getMilestone(sessionId: string, name: string): Promise<MilestoneRow | undefined> {
    const r = await this.#db.get<MilestoneRecord>(this.#s.milestone, [sessionId, name]);
    return r ? toMilestone(r) : undefined;
  }

  async listRoots(): Promise<string[]> {
    return (await this.#db.all<{ h: string }>(this.#s.roots)).map((r) => r.h);
  }

  async getGcEpoch(): Promise<number> {
    const r = await this.#db.get<{ value: string }>(this.#s.getMeta, [GC_EPOCH]);
    return r ? Number(r.value) : 0;
  }

  async insertSession(row: SessionRow): Promise<void> {
    try {
      await this.#db.run(this.#s.insertSession, sessionParams(row));
    } catch (e) {
      if (this.#d.constraintViolation(e) === "unique") throw new ForgeError("SESSION_EXISTS", `session "${row.name}" already exists`, { cause: e });
      throw e;
    }
  }

  async updateSession(id: string, patch: SessionPatch): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [];
    // What this session's inserted checkpoints owe goes in the same statement (a checkpoint's transaction ends with this update).
    const owed = this.#owed.get(id);
    if (owed) {
      this.#owed.delete(id);
      sets.push(owedFacts(this.#d.tables.checkpoints, owed));
      params.push(...owedParams(id, owed));
    }
    await this.settle();
    if (patch.name !== undefined) sets.push("name = ?"), params.push(patch.name);
    if (patch.metadata !== undefined) sets.push("metadata = ?"), params.push(JSON.stringify(patch.metadata));
    if (patch.headBranch !== undefined) sets.push("head_branch = ?"), params.push(patch.headBranch);
    if (patch.headCheckpoint !== undefined) sets.push("head_checkpoint = ?"), params.push(patch.headCheckpoint);
    if (patch.workRoot !== undefined) sets.push("work_root = ?"), params.push(patch.workRoot);
    if (patch.workVersion !== undefined) sets.push("work_version = ?"), params.push(patch.workVersion);
    if (!(await this.#update("sessions", sets, params, id))) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${id}`);
  }

  async deleteSession(id: string): Promise<void> {
    await this.settle();
    // refs, milestones and checkpoints go with it (ON DELETE CASCADE).
    await this.#db.run(this.#s.deleteSession, [id]);
  }

  async allocateSeq(sessionId: string): Promise<number> {
    await this.settle();
    const r = await this.#db.get<{ seq: number }>(this.#s.allocateSeq, [sessionId]);
    if (!r) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${sessionId}`);
    this.#allocated.add(`${sessionId} ${r.seq}`);
    return r.seq;
  }

  async insertCheckpoint(row: CheckpointRow): Promise<void> {
    try {
      await this.#db.run(this.#s.insertCheckpoint, checkpointParams(row));
    } catch (e) {
      if (this.#d.constraintViolation(e) !== undefined) {
        throw new ForgeError("CONFLICT", `checkpoint ${row.id} (#${row.seq}) conflicts with one already stored: ${(e as Error).message}`, { cause: e });
      }
      throw e;
    }
    // Search has it to index (sql-search.ts: pending), unless the insert said so itself.
    if (this.#d.search.pendingWrites === "statement") await this.#db.run(this.#s.searchPending, [row.id]);
    // The session counts the row, its counter passes the seq, and it notes for good when the
    // row's time is out of order with its neighbours by seq (its times are then no longer
    // non-decreasing in seq, and time windows cannot use the time index for seq order): all
    // in the update of the session row that ends the transaction (`settle`).
    const appended = this.#allocated.has(`${row.sessionId} ${row.seq}`);
    const owed = this.#owed.get(row.sessionId);
    if (!owed) {
      this.#owed.set(row.sessionId, { added: 1, low: row.seq, high: row.seq, latest: row.createdAt, earliest: row.createdAt, appended });
      return;
    }
    owed.appended &&= appended && row.seq > owed.high && row.createdAt >= owed.latest;
    owed.added++;
    owed.low = Math.min(owed.low, row.seq);
    owed.high = Math.max(owed.high, row.seq);
    owed.latest = Math.max(owed.latest, row.createdAt);
    owed.earliest = Math.min(owed.earliest, row.createdAt);
  }

  async updateCheckpoint(id: string, patch: CheckpointPatch): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [];
    if (patch.tags !== undefined) sets.push("tags = ?"), params.push(JSON.stringify(patch.tags));
    if (patch.parentId !== undefined) sets.push("parent_id = ?"), params.push(patch.parentId);
    if (patch.message !== undefined) sets.push("message = ?"), params.push(patch.message);
    if (patch.metadata !== undefined) sets.push("metadata = ?"), params.push(JSON.stringify(patch.metadata));
    if (patch.stateRoot !== undefined) sets.push("state_root = ?"), params.push(patch.stateRoot);
    if (!(await this.#update("checkpoints", sets, params, id))) throw new ForgeError("CHECKPOINT_NOT_FOUND", `no checkpoint with id ${id}`);
    // What a checkpoint's postings say is relative to its parent: a new parent means indexing it again.
    if (patch.parentId !== undefined) await this.#db.run(this.#s.searchPending, [id]);
  }

  async deleteCheckpoints(ids: readonly string[]): Promise<void> {
    await this.settle();
    for (const part of listParts(this.#d, ids)) {
      const list = this.#d.listParam(part, "text");
      await this.#db.run(this.#s.uncountCheckpoints, [list, list]);
      await this.#db.run(this.#s.deleteCheckpoints, [list]);
    }
  }

  async setRef(sessionId: string, name: string, checkpointId: string): Promise<void> {
    await this.#db.run(this.#s.setRef, [sessionId, name, checkpointId]);
  }

  async deleteRef(sessionId: string, name: string): Promise<void> {
    await this.#db.run(this.#s.deleteRef, [sessionId, name]);
  }

  async setMilestone(row: MilestoneRow): Promise<void> {
    await this.#db.run(this.#s.setMilestone, [row.sessionId, row.name, row.fromId, row.toId, row.description, row.createdAt]);
  }

  async deleteMilestone(sessionId: string, name: string): Promise<void> {
    await this.#db.run(this.#s.deleteMilestone, [sessionId, name]);
  }

  async bumpGcEpoch(): Promise<number> {
    const r = await this.#db.get<{ value: string }>(this.#s.bumpCounter, [GC_EPOCH]);
    return Number(r?.value ?? 1);
  }

  async deleteObjects(hashes: readonly string[], createdBefore: number): Promise<DeletedObjects> {
    let count = 0;
    let bytes = 0;
    for (const part of listParts(this.#d, hashes)) {
      const rows = await this.#db.all<{ size: number }>(this.#s.deleteObjects, [this.#d.listParam(part, "hash"), createdBefore]);
      count += rows.length;
      for (const r of rows) bytes += r.size;
    }
    return { count, bytes };
  }

  async listSideRecords(sessionId: string, scope?: string): Promise<SideRecord[]> {
    const rows =
      scope === undefined
        ? await this.#db.all<SideRecord>(this.#s.sideRecords, [sessionId])
        : await this.#db.all<SideRecord>(this.#s.sideRecordsOfScope, [sessionId, scope]);
    return rows.map((r) => ({ scope: r.scope, key: r.key, value: r.value }));
  }

  async putObjects(objects: readonly StoredObject[]): Promise<number> {
    const now = Date.now();
    let bytes = 0;
    for (const o of objects) if ((await this.#db.run(this.#s.insertObject, [hashKey(o.hash), o.data, now])) > 0) bytes += o.data.length;
    return bytes;
  }

  async putSideRecords(sessionId: string, records: readonly (SideRecord & { readonly replace?: boolean })[]): Promise<void> {
    try {
      for (const r of records) await this.#db.run(r.replace ? this.#s.replaceSideRecord : this.#s.keepSideRecord, [sessionId, r.scope, r.key, r.value]);
    } catch (e) {
      // The one constraint besides the key, which the statements resolve: the session's foreign key.
      if (this.#d.constraintViolation(e) === "other") throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${sessionId}`);
      throw e;
    }
  }

  #session(r: SessionRecord | undefined): SessionRow | undefined {
    return r ? toSession(this.#d, r) : undefined;
  }

  #checkpoint(r: CheckpointRecord | undefined): CheckpointRow | undefined {
    return r ? toCheckpoint(this.#d, r) : undefined;
  }

  /** Applies `sets` to the row `id` of the table; false when no such row exists. Statements of a few fixed shapes. */
  async #update(table: "sessions" | "checkpoints", sets: string[], params: unknown[], id: string): Promise<boolean> {
    if (sets.length === 0) return true;
    const sql = `UPDATE ${this.#d.tables[table]} SET ${sets.join(", ")} WHERE id = ?`;
    return (await this.#db.run(this.#d.placeholders(sql), [...params, id])) > 0;
  }
}

/** The meta key of the counter every deleting gc bumps. */
const GC_EPOCH = "gc_epoch";
