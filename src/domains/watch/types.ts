// What a watcher is told to do and what it reports: its options, the events it emits (a
// snapshot, a checkpoint, something skipped, an error) and its summary when it stops.
import type { Session } from "../../timeline/session.js";
import type { Checkpoint } from "../../timeline/types.js";
import type { FileChange, Strategy, Workspace } from "../workspace/workspace.js";
import type { HookHandler } from "../workspace/hook-serve.js";

export interface WatchOptions {
  /** The session whose working state is checkpointed. */
  readonly session: Session;
  /** The workspace whose files are followed and snapshotted; none: the session only. */
  readonly workspace?: Workspace;
  /** How often to checkpoint if something changed (default 10 minutes). */
  readonly everyMs?: number;
  /** How long the files must stay unchanged before a burst of edits is snapshotted (default 2 s). */
  readonly quietMs?: number;
  /**
   * How often to walk the whole workspace (through the stat cache) for changes the file
   * watches missed (default 5 minutes; 0: never).
   */
  readonly rescanMs?: number;
  /** What to do with file changes made outside the agent (default "warn"). */
  readonly strategy?: Strategy;
  /** Where the watch locks live (default: a folder of the user's in the temp directory). */
  readonly lockDir?: string;
  /** Told about everything the watcher does. */
  readonly onEvent?: (event: WatchEvent) => void;
  /** Runs the capture hooks the workspace's hook processes hand over (operations/hooks/served.ts), beside the hints. */
  readonly hooks?: HookHandler;
}

/** Why a snapshot was taken: the first walk, a burst of edits gone quiet, or a full rescan that found what the watches missed. */
export type SnapshotCause = "startup" | "changes" | "rescan";

export type WatchEvent =
  | {
      readonly type: "started";
      readonly at: Date;
      readonly session: string;
      readonly root: string | null;
      readonly everyMs: number;
      readonly quietMs: number;
      readonly rescanMs: number;
      readonly strategy: Strategy | null;
      /** Folders under watch. */
      readonly folders: number;
      readonly pid: number;
    }
  | {
      readonly type: "snapshot";
      readonly at: Date;
      readonly cause: SnapshotCause;
      readonly snapshot: Checkpoint;
      /** With auto-integrate: the snapshot of the outside changes, taken first. */
      readonly external: Checkpoint | null;
      readonly changes: Record<FileChange["kind"], number>;
      /** The first changed paths (at most 20). */
      readonly paths: readonly string[];
      readonly unknown: readonly string[];
      /** File events in the burst. */
      readonly events: number;
      /**
       * "limited": only the folders holding the paths the file events named were listed
       * again; "full": the whole tree was walked (at start, at a rescan, or when the events
       * could not be trusted to name every change).
       */
      readonly walk: "full" | "limited";
      readonly ms: number;
    }
  | {
      readonly type: "checkpoint";
      readonly at: Date;
      readonly checkpoint: Checkpoint;
      /** What changed since the last checkpoint. */
      readonly reasons: readonly ("state" | "files")[];
      readonly ms: number;
    }
  | { readonly type: "skipped"; readonly at: Date; readonly what: "snapshot" | "checkpoint"; readonly reason: string }
  | {
      readonly type: "error";
      readonly at: Date;
      readonly what: "snapshot" | "checkpoint" | "watch";
      readonly code: string;
      readonly message: string;
      readonly hint: string | null;
      readonly data: Readonly<Record<string, unknown>>;
    }
  /** A stop was asked for while a write was in progress: it finishes first. */
  | { readonly type: "stopping"; readonly at: Date; readonly reason: string; readonly finishing: "snapshot" | "checkpoint" }
  | { readonly type: "stopped"; readonly at: Date; readonly reason: string; readonly snapshots: number; readonly checkpoints: number; readonly errors: number };

export interface WatchSummary {
  readonly snapshots: number;
  readonly checkpoints: number;
  readonly errors: number;
}
