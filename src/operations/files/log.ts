// files_log: the workspace's snapshots, newest first.
import { defineOperation } from "../operation.js";
import { checkpointJson, type CheckpointJson } from "../shared.js";
import { locationFields } from "./shared.js";

export interface LogResult {
  /** Newest first; `metadata.fileBytesAdded` is what each added to the store in file contents. */
  readonly snapshots: readonly CheckpointJson[];
}

export const filesLogOperation = defineOperation({
  name: "files_log",
  title: "Workspace snapshots",
  description: "Snapshots, newest first; `limit` keeps the newest N.",
  effect: "read",
  input: (z) => ({
    limit: z.number().int().min(1).max(100_000).optional().describe("at most this many: the newest"),
    ...locationFields(z),
  }),
  run: async (ctx, input): Promise<LogResult> => {
    const list = await (await ctx.workspace({ root: input.root, filesSession: input.filesSession })).log(input.limit);
    return { snapshots: list.map(checkpointJson) };
  },
});
