// files_diff: unified diffs between two snapshots, or a snapshot and the files on disk; or,
// with `stat`, only what changed. A text-only client reads the patches themselves.
import { countChanges } from "../../domains/workspace/names.js";
import { filePatch } from "../../domains/workspace/patches.js";
import type { FileChange } from "../../domains/workspace/tree-compare.js";
import { defineOperation } from "../operation.js";
import { fileChangeJson, type FileChangeJson } from "../shared.js";
import { locationFields } from "./shared.js";

export interface DiffResult {
  /** Files changed, by kind. */
  readonly counts: Record<FileChange["kind"], number>;
  /** Each changed file; without `stat`, with its `patch` (or a `note` saying why there is none). */
  readonly files: readonly FileChangeJson[];
}

export const filesDiffOperation = defineOperation({
  name: "files_diff",
  title: "Diff the workspace's files",
  description:
    'Unified diffs between two snapshots, or a snapshot and the files on disk (default: the last snapshot and the disk; "working" names the disk). `stat: true` gives counts only.',
  effect: "read",
  input: (z) => ({
    from: z.string().min(1).optional().describe("a snapshot (default: the last)"),
    to: z.string().min(1).optional().describe('a snapshot or "working" (default: the files on disk)'),
    paths: z.array(z.string().min(1)).default([]).describe("limit to these files or folders"),
    stat: z.boolean().default(false).describe("what changed, without the patches"),
    ...locationFields(z),
  }),
  run: async (ctx, input): Promise<DiffResult> => {
    const ws = await ctx.workspace({ root: input.root, filesSession: input.filesSession });
    const { changes, read } = await ws.diff(input.from, input.to, { paths: input.paths });
    const files: FileChangeJson[] = [];
    for (const ch of changes) {
      if (input.stat) {
        files.push(fileChangeJson(ch));
        continue;
      }
      const { patch, note } = await filePatch(ch, read);
      files.push({ ...fileChangeJson(ch), patch, ...(note !== null && { note }) });
    }
    return { counts: countChanges(changes), files };
  },
  // The patches themselves (a note for a file without one); counts only: the result as JSON.
  text: (r) => {
    if (r.files.some((f) => f.patch === undefined)) return JSON.stringify(r, null, 2);
    return r.files.map((f) => f.patch ?? `${f.kind} ${f.from !== undefined ? `${f.from} → ` : ""}${f.path}: ${f.note ?? ""}\n`).join("") || "no changes\n";
  },
});
