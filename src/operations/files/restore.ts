// files_restore: bring the workspace's files (or some paths) back to a snapshot. The current
// files are snapshotted first, so the restore itself can be undone.
import type { FilesRestoreJson } from "../checkpoint/restore.js";
import { defineOperation } from "../operation.js";
import { checkpointJson, type CheckpointJson } from "../shared.js";
import { locationFields } from "./shared.js";

export interface FilesRestoreResult extends FilesRestoreJson {
  /** The snapshot recording the restored files; null on a dry run. */
  readonly restored: CheckpointJson | null;
  /** Nothing was changed: `written` and `deleted` say what would be. */
  readonly dryRun: boolean;
}

export const filesRestoreOperation = defineOperation({
  name: "files_restore",
  title: "Restore the workspace's files",
  description:
    "CHANGES FILES ON DISK. Rewrites the workspace (or only `paths`) to a snapshot: changed files are rewritten, files that did not exist then are DELETED, ignored files are left alone. The current files are snapshotted first and the result names that safety snapshot, so the restore can be undone by restoring it. `dryRun: true` lists what would change without changing anything.",
  effect: "destructive",
  input: (z) => ({
    ref: z.string().min(1).describe("the snapshot"),
    paths: z.array(z.string().min(1)).default([]).describe("only these files or folders"),
    dryRun: z.boolean().default(false).describe("list what would change, change nothing"),
    ...locationFields(z),
  }),
  run: async (ctx, input): Promise<FilesRestoreResult> => {
    const ws = await ctx.workspace({ root: input.root, filesSession: input.filesSession });
    const r = await ws.restore(input.ref, { paths: input.paths, dryRun: input.dryRun });
    return {
      dryRun: r.dryRun,
      written: [...r.written],
      deleted: [...r.deleted],
      skipped: r.skipped.map((s) => ({ path: s.path, why: s.why })),
      safety: r.safety ? checkpointJson(r.safety) : null,
      restored: r.restored ? checkpointJson(r.restored) : null,
    };
  },
});
