// The one interface every storage backend implements: immutable objects by hash, and
// relational metadata (sessions, checkpoints, branch refs, milestones) changed in atomic transactions.
// Every method is async so a network backend fits; the shared contract suite holds each
// implementation to the same behaviour. Beside them, each keeps a full-text index of what the
// checkpoints hold (search/search-index.ts).
import type { SearchIndexReader, SearchIndexWriter } from "./search/search-index.js";

/** A stored object: its SHA-256 (hex) and its stored bytes (codec byte + body). */
export interface StoredObject {
  readonly hash: string;
  readonly data: Uint8Array;
}

/** What `listObjects` reports of an object without reading it. */
export interface ObjectInfo {
  readonly hash: string;
  /** Stored size in bytes. */
  readonly size: number;
  /** When the object was first written (epoch ms). */
  readonly createdAt: number;
}

export interface DeletedObjects {
  readonly count: number;
  readonly bytes: number;
}

export interface SessionRow {
  readonly id: string;
  readonly name: string;
  /** What the session holds: "generic", "reasoning", "conversation", ... */
  readonly kind: string;
  readonly createdAt: number;
  readonly metadata: Record<string, unknown>;
  /** The next seq to hand out; seqs are never reused, even after deletes. */
  readonly nextSeq: number;
  /** The branch HEAD is on, or null when HEAD is detached at `headCheckpoint`. */
  readonly headBranch: string | null;
  /** The checkpoint HEAD points at when detached, else null. */
  readonly headCheckpoint: string | null;
  /**
   * Root of the session's working state — what it holds now, between checkpoints (a
   * reasoning session's live board, say) — or null when it has none.
   */
  readonly workRoot: string | null;
  /** Bumped by every change of the working state, for compare-and-swap. */
  readonly workVersion: number;
}

/** The session fields a transaction may change. */
export type SessionPatch = Partial<Pick<SessionRow, "name" | "metadata" | "headBranch" | "headCheckpoint" | "workRoot" | "workVersion">>;

export interface CheckpointRow {
  readonly id: string;
  readonly sessionId: string;
  readonly seq: number;
  readonly parentId: string | null;
  /** The branch the checkpoint was made on. */
  readonly branch: string;
  readonly createdAt: number;
  readonly message: string;
  readonly tags: readonly string[];
  readonly trigger: string;
  readonly metadata: Record<string, unknown>;
  /** Root object of the state's value tree. */
  readonly stateRoot: string;
  /** Root object of a workspace file tree, when the checkpoint carries one. */
  readonly filesRoot: string | null;
  /** Size of the state as JSON text. */
  readonly logicalBytes: number;
  /** Stored bytes of the objects this checkpoint was the first to write. */
  readonly newBytes: number;
}

export interface RefRow {
  readonly sessionId: string;
  readonly name: string;
  readonly checkpointId: string;
}

/**
 * A milestone: a named stretch of one session's timeline, from a checkpoint to a later one
 * on its history. Kept in a relation of its own, not among the refs: every reader of refs
 * takes them for branches.
 */
export interface MilestoneRow {
  readonly sessionId: string;
  /** Unique within the session. */
  readonly name: string;
  /** The checkpoint the stretch starts at: an ancestor of `toId`. */
  readonly fromId: string;
  /** The checkpoint it ends at. */
  readonly toId: string;
  readonly description: string;
  readonly createdAt: number;
}

export interface CheckpointQuery {
  readonly sessionId?: string;
  readonly branch?: string;
  readonly tag?: string;
  readonly trigger?: string;
  /** Inclusive lower bound on createdAt (epoch ms). */
  readonly since?: number;
  /** Inclusive upper bound on createdAt (epoch ms). */
  readonly until?: number;
  /** Sort by seq; "asc" by default. Across sessions the order is by createdAt, then id. */
  readonly order?: "asc" | "desc";
  readonly limit?: number;
}

/**
 * A small keyed record an integration keeps beside a session's checkpoints (ForgeSaver's
 * LangGraph pending writes): part of no state, deleted with its session. Optional: the SQL
 * backends keep them (`listSideRecords` is defined); memory and file do not, and their
 * callers keep such data in states instead.
 */
export interface SideRecord {
  /** What the record belongs to inside the session; a scope's records are read together. */
  readonly scope: string;
  /** Unique within the scope. */
  readonly key: string;
  readonly value: Uint8Array;
}

/** Reads of the metadata. Outside a transaction each call sees the latest committed data. */
export interface MetaReader {
  getSessionById(id: string): Promise<SessionRow | undefined>;
  getSessionByName(name: string): Promise<SessionRow | undefined>;
  listSessions(): Promise<SessionRow[]>;
  getCheckpoint(id: string): Promise<CheckpointRow | undefined>;
  /** Checkpoints whose id starts with `prefix` (upper case), at most `limit`, optionally in one session. */
  findCheckpointsByPrefix(prefix: string, limit: number, sessionId?: string): Promise<CheckpointRow[]>;
  getCheckpointBySeq(sessionId: string, seq: number): Promise<CheckpointRow | undefined>;
  listCheckpoints(query: CheckpointQuery): Promise<CheckpointRow[]>;
  countCheckpoints(sessionId?: string): Promise<number>;
  listRefs(sessionId: string): Promise<RefRow[]>;
  getRef(sessionId: string, name: string): Promise<RefRow | undefined>;
  /** The session's milestones, oldest first (then by name). */
  listMilestones(sessionId: string): Promise<MilestoneRow[]>;
  getMilestone(sessionId: string, name: string): Promise<MilestoneRow | undefined>;
  /** Every object hash a checkpoint or a session's working state points at directly, for gc and fsck. */
  listRoots(): Promise<string[]>;
  /** Bumped by each gc that deletes objects; writers compare it to know their cached object knowledge still holds. */
  getGcEpoch(): Promise<number>;
  /** The session's side records (of one scope, or all), by scope then key; absent where the backend keeps none. */
  listSideRecords?(sessionId: string, scope?: string): Promise<SideRecord[]>;
}

/** Metadata changes; all of one `transaction` call commit together or not at all. */
export interface MetaWriter extends MetaReader {
  insertSession(row: SessionRow): Promise<void>;
  updateSession(id: string, patch: SessionPatch): Promise<void>;
  /** Deletes the session with its checkpoints, refs and milestones (objects are left to gc). */
  deleteSession(id: string): Promise<void>;
  /** Hands out the session's next seq and advances the counter. */
  allocateSeq(sessionId: string): Promise<number>;
  /** Inserts a checkpoint made elsewhere (import) and raises the session's counter past its seq. */
  insertCheckpoint(row: CheckpointRow): Promise<void>;
  /** Changes a checkpoint's row; `stateRoot` only to a tree holding the same state with its secrets redacted (`forge redact`). */
  updateCheckpoint(id: string, patch: Partial<Pick<CheckpointRow, "tags" | "parentId" | "message" | "metadata" | "stateRoot">>): Promise<void>;
  deleteCheckpoints(ids: readonly string[]): Promise<void>;
  setRef(sessionId: string, name: string, checkpointId: string): Promise<void>;
  deleteRef(sessionId: string, name: string): Promise<void>;
  /** Creates the milestone, or replaces the session's milestone of that name. */
  setMilestone(row: MilestoneRow): Promise<void>;
  deleteMilestone(sessionId: string, name: string): Promise<void>;
  bumpGcEpoch(): Promise<number>;
  /**
   * Deletes the given objects that were written before `createdBefore` (epoch ms), so an
   * object a writer has just written survives. Runs under the transaction's lock so no
   * checkpoint can commit in between; a deletion is not undone if the transaction fails
   * (it only ever removes garbage). Returns how many objects and stored bytes went.
   */
  deleteObjects(hashes: readonly string[], createdBefore: number): Promise<DeletedObjects>;
  /** The full-text index's writes, committed with the transaction. */
  readonly search: SearchIndexWriter;
  /**
   * Writes side records of a session (where `listSideRecords` exists): one with `replace`
   * overwrites the record of its scope and key, any other leaves a stored one as it is.
   * SESSION_NOT_FOUND when the session does not exist.
   */
  putSideRecords?(sessionId: string, records: readonly (SideRecord & { readonly replace?: boolean })[]): Promise<void>;
  /**
   * Writes objects not stored yet inside this transaction, committed with it (as
   * `Backend.putObjects`); returns the stored bytes newly written. Used where the backend
   * says `objectsInTransaction`.
   */
  putObjects?(objects: readonly StoredObject[]): Promise<number>;
}

export interface Backend {
  /** The store URL this backend was opened from, for messages. */
  readonly url: string;

  /** Writes objects that are not stored yet (idempotent); returns the stored bytes newly written. */
  putObjects(objects: readonly StoredObject[]): Promise<number>;
  /**
   * A few objects are better written in the transaction whose metadata refers to them
   * (`MetaWriter.putObjects`) than in one of their own (SQLite: one commit instead of two).
   */
  readonly objectsInTransaction?: boolean;
  /**
   * Writes side records of a session in a transaction of their own, as `transaction` with
   * `MetaWriter.putSideRecords` would, in one step (SQLite: no await inside it). Optional:
   * without it, callers use a transaction.
   */
  putSideRecords?(sessionId: string, records: readonly (SideRecord & { readonly replace?: boolean })[]): Promise<void>;
  /** The stored bytes of each hash that exists; absent hashes are missing from the map. */
  getObjects(hashes: readonly string[]): Promise<Map<string, Uint8Array>>;
  /** The subset of `hashes` that is stored. */
  hasObjects(hashes: readonly string[]): Promise<Set<string>>;
  /** Every stored object, in no particular order. */
  listObjects(): AsyncIterable<ObjectInfo>;
  /** How many objects are stored (for progress reports). */
  countObjects(): Promise<number>;
  /** Overwrites an object's stored bytes as they are: only for tests that simulate damage. */
  corruptObjectForTesting?(hash: string, data: Uint8Array): Promise<void>;

  /** Metadata reads outside a transaction. */
  readonly meta: MetaReader;
  /** Runs `fn` in one exclusive metadata transaction: all its writes commit, or none do. */
  transaction<T>(fn: (tx: MetaWriter) => Promise<T>): Promise<T>;
  /** The full-text index's reads (its writes are the transaction's `search`). */
  readonly search: SearchIndexReader;

  close(): Promise<void>;
}
