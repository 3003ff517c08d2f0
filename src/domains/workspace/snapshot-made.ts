// What a snapshot records of the files, whichever way it was taken (a walk's tree, or the kept
// columns and the files read again: quick-snapshot.ts), and the refusal of a strict snapshot.
import { ForgeError } from "../../core/errors.js";
import type { Tree } from "../../objects/file-tree.js";
import type { Hash } from "../../objects/hash.js";
import type { Checkpoint } from "../../timeline/types.js";
import type { Session } from "../../timeline/session.js";
import type { Strategy } from "./names.js";
import type { QuickTree } from "./quick-snapshot.js";
import { unreadableList } from "./scanner.js";
import type { TreeColumns } from "./tree-cache.js";
import type { FileChange } from "./tree-compare.js";
import type { CommitExtra, SnapshotResult, SnapshotState } from "./types.js";
import { walkOrder } from "./walk.js";

/** What a snapshot records: its root and new folder objects, its summary's counts, and the tree (or the quick snapshot) to keep. */
export interface Made {
  readonly root: Hash;
  readonly objects: Map<Hash, Buffer>;
  readonly files: number;
  readonly bytes: number;
  readonly tooLarge: string[];
  readonly tree?: Tree;
  readonly quick?: { readonly cols: TreeColumns; readonly q: QuickTree };
}

export function madeOf(tree: Tree, built: { root: Hash; objects: Map<Hash, Buffer> }): Made {
  let bytes = 0;
  const tooLarge: string[] = [];
  for (const [p, f] of tree.files) {
    bytes += f.size;
    if (f.type === "x") tooLarge.push(p);
  }
  return { ...built, files: tree.files.size, bytes, tooLarge, tree };
}

/** The files changed outside the agent, unless the strategy is strict: UNKNOWN_CHANGES then, before anything is written. */
export function refuseUnknown(unknown: string[], strategy: Strategy): string[] {
  if (unknown.length === 0 || strategy !== "strict") return unknown;
  throw new ForgeError(
    "UNKNOWN_CHANGES",
    `${unknown.length} file(s) changed outside the agent since the last snapshot: ${unknown.slice(0, 10).join(", ")}${unknown.length > 10 ? ", …" : ""}`,
    { hint: "look at them with `forge files diff`; snapshot with --strategy warn or auto-integrate to accept them", data: { unknown } },
  );
}

/** A quick snapshot's (quick-snapshot.ts): its tree is the kept columns with the files read again. */
export function madeOfQuick(cols: TreeColumns, q: QuickTree): Made {
  return { root: q.root, objects: q.objects, files: q.files, bytes: q.bytes, tooLarge: [...q.tooLarge], quick: { cols, q } };
}

/** The summary a snapshot checkpoint holds as its state. */
export function snapshotState(root: string, made: Made, unreadable: ReadonlyMap<string, string>, extra: CommitExtra): SnapshotState {
  return {
    kind: "forge.files",
    root,
    files: made.files,
    bytes: made.bytes,
    tooLarge: made.tooLarge.sort(walkOrder),
    unreadable: unreadableList(unreadable),
    unknown: extra.unknown ?? [],
    external: extra.external === true,
    safety: extra.safety === true,
    ...(extra.secretFiles !== undefined && extra.secretFiles.length > 0 && { secretFiles: extra.secretFiles }),
  };
}

/** A snapshot just recorded, and how its files were taken: what its result says. */
export interface Recorded {
  readonly snapshot: Checkpoint;
  readonly external: Checkpoint | null;
  readonly unknown: string[];
  readonly changes: FileChange[];
  readonly newBytes: number;
  readonly incomplete: boolean;
  readonly limited: boolean;
  readonly secretFiles: readonly string[];
  /** The session it went to, when not the workspace's own. */
  readonly into?: Session | undefined;
}

export function snapshotResult(r: Recorded): SnapshotResult {
  const added = r.snapshot.metadata["fileBytesAdded"];
  return {
    snapshot: r.snapshot,
    external: r.external,
    unknown: r.unknown,
    changes: r.changes,
    newBytes: (typeof added === "number" ? added : r.newBytes) + r.snapshot.sizes.newBytes,
    incomplete: r.incomplete,
    walk: r.limited ? "limited" : "full",
    secretFiles: r.secretFiles,
  };
}

/** A quick snapshot's (nothing unreadable, no walk). */
export function recordedQuick(snapshot: Checkpoint, unknown: string[], q: QuickTree): Recorded {
  return { snapshot, external: null, unknown, changes: q.changes, newBytes: q.newBytes, incomplete: false, limited: false, secretFiles: q.secretFiles };
}

/**
 * Prunes old snapshots of `session` once there are more than the retention keeps (the newest
 * always stays). None younger than keepDays goes: until one is older than that at `now`, the
 * prune (it reads every checkpoint) is not run.
 */
export async function applyRetention(session: Session, retention: { keepLast: number; keepDays: number } | false, now: number): Promise<void> {
  if (retention === false) return;
  const { keepLast, keepDays } = retention;
  if ((await session.count()) <= keepLast) return;
  const before = now - keepDays * 86_400_000;
  if ((await session.list({ until: before - 1, limit: 1 })).length === 0) return;
  await session.prune({ keepLast, keepDays });
}
