// files_status: what changed in the workspace since the last snapshot, and which of those
// changes were made outside the agent.
import { defineOperation } from "../operation.js";
import { checkpointJson, fileChangeJson, type CheckpointJson, type FileChangeJson } from "../shared.js";
import { locationFields } from "./shared.js";

export interface StatusResult {
  /** The snapshot compared against; null before the first one. */
  readonly base: CheckpointJson | null;
  readonly changes: readonly FileChangeJson[];
  /** Changed paths the agent did not record as its own edits. */
  readonly unknown: readonly string[];
  /** Files over the size limit: a snapshot lists them without their content. */
  readonly tooLarge: readonly string[];
  readonly unreadable: readonly { readonly path: string; readonly why: string }[];
  /** Secret files (`.env`, private keys, credential stores) snapshots leave out: not tracked by git, not kept by `workspace.secretFiles`. */
  readonly secretFiles: readonly string[];
}

export const filesStatusOperation = defineOperation({
  name: "files_status",
  title: "Workspace status",
  description: "Files created, modified, deleted or renamed since the last snapshot, and which of them were changed outside the agent.",
  effect: "read",
  input: (z) => ({ ...locationFields(z) }),
  run: async (ctx, input): Promise<StatusResult> => {
    const s = await (await ctx.workspace({ root: input.root, filesSession: input.filesSession })).status();
    return {
      base: s.base ? checkpointJson(s.base) : null,
      changes: s.changes.map(fileChangeJson),
      unknown: [...s.unknown],
      tooLarge: [...s.tooLarge],
      unreadable: s.unreadable.map((u) => ({ path: u.path, why: u.why })),
      secretFiles: [...s.secretFiles],
    };
  },
});
