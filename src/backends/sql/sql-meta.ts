// The metadata reads and writes of every SQL backend, written once over a dialect and a
// connection: outside a transaction on the backend's own connection, inside one on the
// connection its driver holds the transaction on.
import { ForgeError } from "../../core/errors.js";
import type { CheckpointQuery, CheckpointRow, DeletedObjects, MetaWriter, MilestoneRow, RefRow, SessionPatch, SessionRow } from "../backend.js";
import type { SqlConnection } from "./connection.js";
import { listParts, type SqlDialect } from "./dialect.js";
import {
  checkpointParams,
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
import { statementsFor, type Statements } from "./statements.js";

type CheckpointPatch = Partial<Pick<CheckpointRow, "tags" | "parentId" | "message" | "metadata" | "stateRoot">>;

export class SqlMeta implements MetaWriter {
  readonly #d: SqlDialect;
  readonly #db: SqlConnection;
  readonly #s: Statements;
  /** The full-text index on the same connection (inside a transaction: its writes commit with it). */
  readonly search: SqlSearch;

  constructor(dialect: SqlDialect, db: SqlConnection) {
    this.#d = dialect;
    this.#db = db;
    this.#s = statementsFor(dialect);
    this.search = new SqlSearch(dialect, dialect.search, db);
  }

  async getSessionById(id: string): Promise<SessionRow | undefined> {
    return this.#session(await this.#db.get<SessionRecord>(this.#s.sessionById, [id]));
  }

  async getSessionByName(name: string): Promise<SessionRow | undefined> {
    return this.#session(await this.#db.get<SessionRecord>(this.#s.sessionByName, [name]));
  }

  async listSessions(): Promise<SessionRow[]> {
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
    const order = q.sessionId === undefined ? `created_at ${dir}, id ${dir}` : `seq ${dir}`;
    let sql = `SELECT * FROM ${this.#d.tables.checkpoints}${where.length ? " WHERE " + where.join(" AND ") : ""} ORDER BY ${order}`;
    if (q.limit !== undefined) (sql += " LIMIT ?"), params.push(q.limit);
    const rows = await this.#db.all<CheckpointRecord>(this.#d.placeholders(sql), params);
    return rows.map((r) => toCheckpoint(this.#d, r));
  }

  async countCheckpoints(sessionId?: string): Promise<number> {
    const row =
      sessionId === undefined
        ? await this.#db.get<{ n: number }>(this.#s.countCheckpoints)
        : await this.#db.get<{ n: number }>(this.#s.countCheckpointsInSession, [sessionId]);
    return row?.n ?? 0;
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
    if (patch.name !== undefined) sets.push("name = ?"), params.push(patch.name);
    if (patch.metadata !== undefined) sets.push("metadata = ?"), params.push(JSON.stringify(patch.metadata));
    if (patch.headBranch !== undefined) sets.push("head_branch = ?"), params.push(patch.headBranch);
    if (patch.headCheckpoint !== undefined) sets.push("head_checkpoint = ?"), params.push(patch.headCheckpoint);
    if (patch.workRoot !== undefined) sets.push("work_root = ?"), params.push(patch.workRoot);
    if (patch.workVersion !== undefined) sets.push("work_version = ?"), params.push(patch.workVersion);
    if (!(await this.#update("sessions", sets, params, id))) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${id}`);
  }

  async deleteSession(id: string): Promise<void> {
    // refs, milestones and checkpoints go with it (ON DELETE CASCADE).
    await this.#db.run(this.#s.deleteSession, [id]);
  }

  async allocateSeq(sessionId: string): Promise<number> {
    const r = await this.#db.get<{ seq: number }>(this.#s.allocateSeq, [sessionId]);
    if (!r) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${sessionId}`);
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
    await this.#db.run(this.#s.raiseSeq, [row.seq + 1, row.sessionId, row.seq + 1]);
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
  }

  async deleteCheckpoints(ids: readonly string[]): Promise<void> {
    for (const part of listParts(this.#d, ids)) await this.#db.run(this.#s.deleteCheckpoints, [this.#d.listParam(part, "text")]);
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
