// files_restore: bring the workspace's files (or some paths) back to a snapshot. The whole
// tree: the current files are snapshotted first and the result recorded (HEAD moves). Some
// paths: HEAD stays; what the restore overwrites is kept (if no snapshot has it) so it can be undone.
import type { FilesRestoreJson } from "../checkpoint/restore.js";
import { defineOperation } from "../operation.js";
import { checkpointJson, type CheckpointJson } from "../shared.js";
import { locationFields } from "./shared.js";

export interface FilesRestoreResult extends FilesRestoreJson {
  /** The snapshot recording the restored files (HEAD moved to it); null on a dry run and for a partial restore. */
  readonly restored: CheckpointJson | null;
  /** Nothing was changed: `written` and `deleted` say what would be. */
  readonly dryRun: boolean;
  /** Only `paths` were restored: HEAD stayed where it was, and `status` shows the restore until the next snapshot. */
  readonly partial: boolean;
  /**
   * How to undo it: restore `snapshot` (only `paths` after a partial restore; none: nothing to
   * restore) and delete `created` (paths asked for that did not exist before). Null on a dry
   * run and when nothing changed.
   */
  readonly undo: { readonly snapshot: CheckpointJson; readonly paths: readonly string[]; readonly created: readonly string[] } | null;
}

export const filesRestoreOperation = defineOperation({
  name: "files_restore",
  title: "Restore the workspace's files",
  description:
    'CHANGES FILES ON DISK. Rewrites the workspace (or only `paths`) to a snapshot: changed files are rewritten, files that did not exist then are DELETED, ignored files are left alone. The whole workspace: the current files are snapshotted first (`safety`) when they differ from the last snapshot, and the result is recorded as a snapshot, so HEAD moves. Only `paths` (each must be in the snapshot): HEAD stays and nothing is recorded on the timeline, except that if those paths held changes since the last snapshot the current files are first kept as a safety snapshot in the session "<session>/safety". `undo` says how to undo it either way. `dryRun: true` lists what would change without changing anything.',
  effect: "destructive",
  input: (z) => ({
    ref: z.string().min(1).describe("the snapshot"),
    paths: z.array(z.string().min(1)).default([]).describe("only these files or folders (each must be in the snapshot); HEAD stays where it is"),
    dryRun: z.boolean().default(false).describe("list what would change, change nothing"),
    ...locationFields(z),
  }),
  run: async (ctx, input): Promise<FilesRestoreResult> => {
    const ws = await ctx.workspace({ root: input.root, filesSession: input.filesSession });
    const r = await ws.restore(input.ref, { paths: input.paths, dryRun: input.dryRun });
    return {
      dryRun: r.dryRun,
      partial: input.paths.length > 0,
      written: [...r.written],
      deleted: [...r.deleted],
      skipped: r.skipped.map((s) => ({ path: s.path, why: s.why })),
      safety: r.safety ? checkpointJson(r.safety) : null,
      restored: r.restored ? checkpointJson(r.restored) : null,
      undo: r.undo && { snapshot: checkpointJson(r.undo.snapshot), paths: [...r.undo.paths], created: [...r.undo.created] },
    };
  },
});
