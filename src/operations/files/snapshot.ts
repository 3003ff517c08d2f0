// files_snapshot: record the workspace's files (everything not ignored) as a snapshot, with
// what the strategy says about changes made outside the agent — or nothing, when nothing
// changed since the last one.
import { countChanges } from "../../domains/workspace/names.js";
import type { FileChange } from "../../domains/workspace/tree-compare.js";
import type { SnapshotState } from "../../domains/workspace/workspace.js";
import type { Checkpoint } from "../../timeline/types.js";
import { defineOperation } from "../operation.js";
import { checkpointJson, type CheckpointJson } from "../shared.js";
import { locationFields, strategyField } from "./shared.js";

export interface SnapshotResult {
  /** False when the files are exactly as in the last snapshot: nothing was recorded, and `snapshot` is that last one. */
  readonly recorded: boolean;
  /** The snapshot taken (or, when nothing changed, the last one, which holds these very files). */
  readonly snapshot: CheckpointJson;
  /** With auto-integrate: the snapshot of the outside changes, taken first; else null. */
  readonly external: CheckpointJson | null;
  /** Changed paths the agent did not record as its own edits. */
  readonly unknown: readonly string[];
  /** Files changed since the snapshot before, by kind. */
  readonly changes: Record<FileChange["kind"], number>;
  /** Stored bytes the snapshot added. */
  readonly newBytes: number;
  /** Some files could not be read (listed in `unreadable`). */
  readonly incomplete: boolean;
  /** Files the snapshot holds. */
  readonly files: number;
  /** Files over the size limit: listed, not stored. */
  readonly tooLarge: readonly string[];
  readonly unreadable: readonly { readonly path: string; readonly why: string }[];
  /** Secret files (`.env`, private keys, credential stores) left out: not tracked by git, not kept by `workspace.secretFiles`. */
  readonly secretFiles: readonly string[];
}

export const filesSnapshotOperation = defineOperation({
  name: "files_snapshot",
  title: "Snapshot the workspace's files",
  description:
    "Record every file of the workspace that is not ignored (inside a git work tree: every file git tracks, whatever the ignore rules other than .forgeignore say). When nothing changed since the last snapshot nothing is recorded: `recorded: false`, and `snapshot` is that last one. Changes made outside the agent since the last snapshot are handled by `strategy`: warn (default: reported, then snapshotted), strict (refused, listed), auto-integrate (recorded first as their own snapshot).",
  effect: "write",
  input: (z) => ({
    message: z.string().default("").describe("what this snapshot is"),
    strategy: strategyField(z),
    tags: z.array(z.string().min(1)).default([]).describe("tags to find it by"),
    ...locationFields(z),
  }),
  run: async (ctx, input): Promise<SnapshotResult> => {
    const ws = await ctx.workspace({ root: input.root, filesSession: input.filesSession });
    const r = await ws.snapshotIfChanged(input.message, { strategy: input.strategy, tags: input.tags, ...(ctx.onProgress && { onProgress: ctx.onProgress }) });
    if (r === null) {
      // The same tree as HEAD's snapshot: a snapshot exists, so HEAD is one.
      const head = (await ws.session.head()).checkpoint as Checkpoint;
      const state = (await ws.session.state(head.id)) as SnapshotState;
      return {
        recorded: false,
        snapshot: checkpointJson(head),
        external: null,
        unknown: [],
        changes: { created: 0, modified: 0, deleted: 0, renamed: 0 },
        newBytes: 0,
        incomplete: state.unreadable.length > 0,
        files: state.files,
        tooLarge: [...state.tooLarge],
        unreadable: state.unreadable.map((u) => ({ path: u.path, why: u.why })),
        secretFiles: [...(state.secretFiles ?? [])],
      };
    }
    const state = (await ws.session.state(r.snapshot.id)) as SnapshotState;
    return {
      recorded: true,
      snapshot: checkpointJson(r.snapshot),
      external: r.external ? checkpointJson(r.external) : null,
      unknown: [...r.unknown],
      changes: countChanges(r.changes),
      newBytes: r.newBytes,
      incomplete: r.incomplete,
      files: state.files,
      tooLarge: [...state.tooLarge],
      unreadable: state.unreadable.map((u) => ({ path: u.path, why: u.why })),
      secretFiles: [...r.secretFiles],
    };
  },
});
