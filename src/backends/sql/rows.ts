// Table rows as the drivers return them (snake_case column names, JSON columns in the
// dialect's form) and their conversion to and from the backend interface's rows.
import type { CheckpointRow, MilestoneRow, RefRow, SessionRow } from "../backend.js";
import type { SqlDialect } from "./dialect.js";

export interface SessionRecord {
  id: string;
  name: string;
  kind: string;
  created_at: number;
  metadata: unknown;
  next_seq: number;
  head_branch: string | null;
  head_checkpoint: string | null;
  work_root: string | null;
  work_version: number;
}

export interface CheckpointRecord {
  id: string;
  session_id: string;
  seq: number;
  parent_id: string | null;
  branch: string;
  created_at: number;
  message: string;
  tags: unknown;
  trigger: string;
  metadata: unknown;
  state_root: string;
  files_root: string | null;
  logical_bytes: number;
  new_bytes: number;
}

export interface RefRecord {
  session_id: string;
  name: string;
  checkpoint_id: string;
}

export interface MilestoneRecord {
  session_id: string;
  name: string;
  from_id: string;
  to_id: string;
  description: string;
  created_at: number;
}

/** The columns of a session row, in the order `sessionParams` gives their values. */
export const SESSION_COLUMNS = "id, name, kind, created_at, metadata, next_seq, head_branch, head_checkpoint, work_root, work_version";

export function sessionParams(row: SessionRow): unknown[] {
  return [
    row.id,
    row.name,
    row.kind,
    row.createdAt,
    JSON.stringify(row.metadata),
    row.nextSeq,
    row.headBranch,
    row.headCheckpoint,
    row.workRoot,
    row.workVersion,
  ];
}

export function toSession(d: SqlDialect, r: SessionRecord): SessionRow {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    createdAt: r.created_at,
    metadata: d.readJson(r.metadata) as Record<string, unknown>,
    nextSeq: r.next_seq,
    headBranch: r.head_branch,
    headCheckpoint: r.head_checkpoint,
    workRoot: r.work_root,
    workVersion: r.work_version,
  };
}

/** The columns of a checkpoint row, in the order `checkpointParams` gives their values. */
export const CHECKPOINT_COLUMNS =
  "id, session_id, seq, parent_id, branch, created_at, message, tags, trigger, metadata, state_root, files_root, logical_bytes, new_bytes";

export function checkpointParams(c: CheckpointRow): unknown[] {
  return [
    c.id,
    c.sessionId,
    c.seq,
    c.parentId,
    c.branch,
    c.createdAt,
    c.message,
    JSON.stringify(c.tags),
    c.trigger,
    JSON.stringify(c.metadata),
    c.stateRoot,
    c.filesRoot,
    c.logicalBytes,
    c.newBytes,
  ];
}

export function toCheckpoint(d: SqlDialect, r: CheckpointRecord): CheckpointRow {
  return {
    id: r.id,
    sessionId: r.session_id,
    seq: r.seq,
    parentId: r.parent_id,
    branch: r.branch,
    createdAt: r.created_at,
    message: r.message,
    tags: d.readJson(r.tags) as string[],
    trigger: r.trigger,
    metadata: d.readJson(r.metadata) as Record<string, unknown>,
    stateRoot: r.state_root,
    filesRoot: r.files_root,
    logicalBytes: r.logical_bytes,
    newBytes: r.new_bytes,
  };
}

export function toRef(r: RefRecord): RefRow {
  return { sessionId: r.session_id, name: r.name, checkpointId: r.checkpoint_id };
}

export function toMilestone(r: MilestoneRecord): MilestoneRow {
  return { sessionId: r.session_id, name: r.name, fromId: r.from_id, toId: r.to_id, description: r.description, createdAt: r.created_at };
}

/** An object hash as a key column holds it (BLOB, bytea): its 32 bytes. */
export function hashKey(hex: string): Buffer {
  return Buffer.from(hex, "hex");
}
