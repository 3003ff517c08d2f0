// What the workspace's snapshots, status and restores report, and how a workspace is set up.
import type { Tree } from "../../objects/file-tree.js";
import type { ProgressListener } from "../../core/progress.js";
import type { Session } from "../../timeline/session.js";
import type { Checkpoint } from "../../timeline/types.js";
import type { Strategy } from "./names.js";
import type { FileChange } from "./tree-compare.js";

/** The summary a snapshot checkpoint holds as its state. */
export interface SnapshotState {
  readonly kind: "forge.files";
  readonly root: string;
  readonly files: number;
  readonly bytes: number;
  /** Files over the size limit: listed, not stored; restore leaves them alone. */
  readonly tooLarge: readonly string[];
  /** Files that could not be read: the snapshot is incomplete for them. */
  readonly unreadable: readonly { readonly path: string; readonly why: string }[];
  /** Changes found that were not made through the agent (warn strategy). */
  readonly unknown: readonly string[];
  /** This snapshot records only changes made outside the agent (auto-integrate). */
  readonly external: boolean;
  /** A snapshot taken before a restore, so the restore can be undone. */
  readonly safety: boolean;
  /** Secret files left out (absent when none: states of older snapshots have no such field). */
  readonly secretFiles?: readonly string[];
}

export interface StatusReport {
  /** The snapshot compared against; null before the first one. */
  readonly base: Checkpoint | null;
  readonly changes: readonly FileChange[];
  /** Changed paths the agent did not record as its own edits. */
  readonly unknown: readonly string[];
  readonly tooLarge: readonly string[];
  readonly unreadable: readonly { readonly path: string; readonly why: string }[];
  /** Secret files (`.env`, private keys, credential stores) left out: not tracked by git, not kept by `secretFiles`. */
  readonly secretFiles: readonly string[];
}

export interface SnapshotResult {
  readonly snapshot: Checkpoint;
  /** With auto-integrate: the snapshot of the outside changes taken first. */
  readonly external: Checkpoint | null;
  readonly unknown: readonly string[];
  readonly changes: readonly FileChange[];
  /** Stored bytes this snapshot added: file contents, directories and its summary. */
  readonly newBytes: number;
  readonly incomplete: boolean;
  /** "limited": only the folders holding the paths `changed` named were listed, the rest taken from the last walk. */
  readonly walk: "full" | "limited";
  /** Secret files left out of the snapshot (see StatusReport.secretFiles). */
  readonly secretFiles: readonly string[];
}

export interface RestoreReport {
  /**
   * The snapshot taken first, only when the files held changes since HEAD (HEAD holds them
   * otherwise): of the whole tree, on HEAD's timeline; of some paths, in the session beside it
   * ("<session>/safety"). Null on a dry run, and when none was needed.
   */
  readonly safety: Checkpoint | null;
  /** The snapshot recording the restored tree (HEAD moves to it); null on a dry run and for a partial restore, which leaves HEAD alone. */
  readonly restored: Checkpoint | null;
  /**
   * How to undo it: restore `snapshot` (the safety snapshot, or HEAD when the files held no
   * changes since it) — only `paths` after a partial restore (none: nothing to restore) —
   * and delete `created`, the paths asked for that did not exist before. Null on a dry run
   * and when nothing changed.
   */
  readonly undo: { readonly snapshot: Checkpoint; readonly paths: readonly string[]; readonly created: readonly string[] } | null;
  readonly written: readonly string[];
  readonly deleted: readonly string[];
  /** Paths left alone, and why (too large, unreadable). */
  readonly skipped: readonly { readonly path: string; readonly why: string }[];
  readonly dryRun: boolean;
}

export interface WorkspaceOptions {
  readonly root: string;
  /** The session holding the snapshots (default "workspace"). */
  readonly session?: string;
  readonly maxFileBytes?: number;
  /** Extra ignore patterns (gitignore syntax). */
  readonly ignore?: readonly string[];
  /** Retention applied after a snapshot once there are more than `keepLast` (default 100 snapshots, 30 days). */
  readonly retention?: { readonly keepLast: number; readonly keepDays: number } | false;
  /**
   * Secret files (`.env`, private keys, credential stores) that snapshots keep anyway: true for
   * all, or gitignore-style patterns. By default they are left out unless git tracks them.
   */
  readonly secretFiles?: boolean | readonly string[];
}

/** What a snapshot is asked to do (the public methods take part of it). */
export interface SnapshotOptions {
  readonly strategy?: Strategy;
  readonly tags?: readonly string[];
  readonly onProgress?: ProgressListener;
  /** Taken before a restore: the files as they are, no unknown changes. */
  readonly safety?: boolean;
  /** The agent's own doing (a restore's result): no unknown changes. */
  readonly trusted?: boolean;
  /** Every path that may have changed since this object's last walk (`snapshotIfChanged`). */
  readonly changed?: Iterable<string>;
  /** The session to record it in when not this workspace's own: HEAD, the caches and the edit journal stay as they are. */
  readonly into?: Session;
}

/** What `Workspace`'s commit of a tree is told besides the tree (internal). */
export interface CommitExtra {
  readonly external?: boolean;
  readonly unknown?: readonly string[];
  readonly safety?: boolean;
  readonly epoch: number;
  readonly newBytes?: number;
  readonly changes?: readonly FileChange[];
  /** The last snapshot: its directories are reused where nothing in them changed (its objects are stored: it is live). */
  readonly base: { checkpoint: Checkpoint; tree: Tree; cached: boolean } | null;
  /** Another session than this workspace's (a partial restore's safety snapshot). */
  readonly into?: Session;
  /** Secret files the walk left out. */
  readonly secretFiles?: readonly string[];
  /**
   * Another commit on this timeline follows at once (the snapshot after one of external
   * changes; a restore after its safety snapshot): the tree cache is left to that one.
   * Were the process to die in between, the cache names an older root and is not used.
   */
  readonly followed?: boolean;
}

/** A commit's extras that a quick snapshot does not take from its tree (workspace.ts `#commitQuick`). */
export type QuickExtra = Omit<CommitExtra, "secretFiles" | "newBytes" | "changes" | "base">;

/** What a restore covers: only `paths` (relative to the root, or absolute inside it), and whether it only says what it would do. */
export type RestoreOptions = { readonly paths?: readonly string[]; readonly dryRun?: boolean };
