// The timeline's public types: what callers of the library see of checkpoints and sessions.
import type { CheckpointRow, SessionRow } from "../backends/backend.js";
import type { ValueChange } from "../objects/tree-diff.js";
import type { UnchangedHint } from "../objects/value-encoder.js";
import type { KeepReason, RetentionPolicy } from "./retention.js";

/** The branch a new session's history starts on. */
export const MAIN_BRANCH = "main";

/** Why a checkpoint was made. "manual" unless an automatic trigger says otherwise. */
export type Trigger = string;

export interface CheckpointOptions {
  readonly message?: string;
  readonly tags?: readonly string[];
  readonly trigger?: Trigger;
  readonly metadata?: Record<string, unknown>;
  /** Root of a workspace file tree to carry with the state. */
  readonly filesRoot?: string | null;
  /**
   * The gc epoch (Store.gcEpoch) under which the caller chose objects the checkpoint points
   * at (a files tree): if a gc has run since, the checkpoint is refused with CONFLICT.
   */
  readonly gcEpoch?: number;
  /**
   * When the search index takes the checkpoint in: "now" (the default), right after it
   * commits, when that is cheap; "later", by the next search — it stays pending, as one over
   * the write budget does. For writers on a hot path (ForgeSaver's puts).
   */
  readonly searchIndex?: "now" | "later";
}

export interface Checkpoint {
  readonly id: string;
  readonly session: string;
  readonly sessionId: string;
  /** 1, 2, 3, … per session; never reused. */
  readonly seq: number;
  readonly parentId: string | null;
  readonly branch: string;
  readonly createdAt: Date;
  readonly message: string;
  readonly tags: readonly string[];
  readonly trigger: Trigger;
  readonly metadata: Record<string, unknown>;
  readonly stateRoot: string;
  readonly filesRoot: string | null;
  readonly sizes: {
    /** Length of the state as JSON text. */
    readonly logicalBytes: number;
    /** Stored bytes this checkpoint was the first to write. */
    readonly newBytes: number;
  };
}

export interface SessionInfo {
  readonly id: string;
  readonly name: string;
  readonly kind: string;
  readonly createdAt: Date;
  readonly metadata: Record<string, unknown>;
}

export interface Head {
  /** The branch HEAD is on; null when detached (after restoring a checkpoint that heads no branch). */
  readonly branch: string | null;
  /** The checkpoint HEAD points at; null in a session with no checkpoints yet. */
  readonly checkpoint: Checkpoint | null;
}

export interface Branch {
  readonly name: string;
  readonly head: Checkpoint;
  /** HEAD is on this branch. */
  readonly current: boolean;
}

export interface ListFilter {
  readonly tag?: string;
  readonly branch?: string;
  readonly trigger?: Trigger;
  readonly since?: Date | number | string;
  readonly until?: Date | number | string;
  readonly limit?: number;
  /** "asc" (oldest first, the default) or "desc". */
  readonly order?: "asc" | "desc";
}

export interface RestoreOptions {
  /**
   * The linear model: delete the checkpoints that came after the target on its branch.
   * Without it restore only moves HEAD, and the next checkpoint starts a new branch.
   * Refused (PROTECTED) when a checkpoint it would delete is a milestone end.
   */
  readonly discardFuture?: boolean;
}

export interface RestoreResult {
  readonly checkpoint: Checkpoint;
  readonly state: unknown;
  readonly head: { readonly branch: string | null; readonly checkpointId: string };
  /** Checkpoints deleted by `discardFuture`. */
  readonly discarded: readonly Checkpoint[];
  /** The working state's version after the restore (it now holds `state`). */
  readonly workVersion: number;
}

export interface Change extends ValueChange {
  /** The path for people: `hypotheses[0].confidence`. */
  readonly at: string;
}

export interface Comparison {
  readonly from: Checkpoint;
  readonly to: Checkpoint;
  readonly changes: readonly Change[];
  readonly counts: { readonly added: number; readonly removed: number; readonly changed: number };
  /** to.createdAt − from.createdAt. */
  readonly elapsedMs: number;
  readonly summary: string;
}

export interface Timeline {
  readonly session: SessionInfo;
  readonly head: { readonly branch: string | null; readonly checkpointId: string | null };
  readonly branches: readonly { readonly name: string; readonly headId: string }[];
  /** Every checkpoint of the session, oldest first. */
  readonly checkpoints: readonly Checkpoint[];
  /** The session's milestones: named stretches from one checkpoint to a later one. */
  readonly milestones: readonly { readonly name: string; readonly fromId: string; readonly toId: string; readonly description: string }[];
}

export function toCheckpoint(row: CheckpointRow, sessionName: string): Checkpoint {
  return {
    id: row.id,
    session: sessionName,
    sessionId: row.sessionId,
    seq: row.seq,
    parentId: row.parentId,
    branch: row.branch,
    createdAt: new Date(row.createdAt),
    message: row.message,
    tags: row.tags,
    trigger: row.trigger,
    metadata: row.metadata,
    stateRoot: row.stateRoot,
    filesRoot: row.filesRoot,
    sizes: { logicalBytes: row.logicalBytes, newBytes: row.newBytes },
  };
}

export function toSessionInfo(row: SessionRow): SessionInfo {
  return { id: row.id, name: row.name, kind: row.kind, createdAt: new Date(row.createdAt), metadata: row.metadata };
}

/** A checkpoint as plain JSON data: its time as ISO text. */
export type CheckpointJson = Omit<Checkpoint, "createdAt"> & { readonly createdAt: string };

/** A checkpoint as plain JSON data: what --json, the MCP tools and the web API give, in one shape. */
export function checkpointJson(cp: Checkpoint): CheckpointJson {
  return { ...cp, createdAt: cp.createdAt.toISOString() };
}

export interface SetWorkingOptions {
  /** Write only if the working state is still at this version (else CONFLICT). */
  readonly expectedVersion?: number;
  /** Top-level keys the caller knows are unchanged since the state with a given root (see UnchangedHint). */
  readonly unchanged?: UnchangedHint;
  /**
   * Decides, inside the write's transaction, whether it is also a checkpoint; or the
   * checkpoint's options, when it always is one (HEAD's checkpoint is then not read for facts).
   */
  readonly checkpoint?: ((facts: WriteFacts) => CheckpointOptions | undefined) | CheckpointOptions;
}

/** What a working-state write knows inside its transaction. */
export interface WriteFacts {
  /** The state differs from the working state before. */
  readonly changed: boolean;
  /** The state differs from the one HEAD's checkpoint holds (there is work since it). */
  readonly unsaved: boolean;
  /** When HEAD's checkpoint was made; null without one. */
  readonly lastCheckpointAt: number | null;
  /** The seq a checkpoint made by this write gets (so its message may name it). */
  readonly nextSeq: number;
}

export interface SetWorkingResult {
  readonly version: number;
  readonly root: string;
  /** Whether the state differed from the working state before. */
  readonly changed: boolean;
  /** The checkpoint made with it, if `checkpoint` asked for one. */
  readonly checkpoint: Checkpoint | null;
}

export interface PruneOptions extends RetentionPolicy {
  /** Report what would go without deleting anything. */
  readonly dryRun?: boolean;
}

export interface PruneReport {
  readonly dryRun: boolean;
  readonly policy: RetentionPolicy;
  readonly kept: readonly { readonly checkpoint: Checkpoint; readonly reason: KeepReason }[];
  readonly deleted: readonly Checkpoint[];
  /** Where HEAD went, when the checkpoint it was detached at was pruned. */
  readonly headMoved: { readonly from: string; readonly to: Head["branch"] | string } | null;
}
