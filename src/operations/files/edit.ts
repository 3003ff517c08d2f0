// files_edit: record files the agent changes through its own tools, so the next snapshot
// does not report them as changed outside it. (The post-edit hook does this for hosts.)
import { defineOperation } from "../operation.js";
import { locationFields } from "./shared.js";

export interface EditResult {
  readonly recorded: readonly string[];
  /** The agent is about to change them (any change until the next snapshot is its own). */
  readonly begin: boolean;
}

export const filesEditOperation = defineOperation({
  name: "files_edit",
  title: "Record the agent's edits",
  description:
    "Record files the agent changed through its own tools (or, with `begin: true`, is about to change), so a snapshot does not report them as changed outside the agent.",
  effect: "write",
  input: (z) => ({
    paths: z.array(z.string().min(1)).min(1).describe("the files, relative to the workspace or absolute inside it"),
    begin: z.boolean().default(false).describe("the agent is about to change them: any change until the next snapshot is its own"),
    ...locationFields(z),
  }),
  run: async (ctx, input): Promise<EditResult> => {
    const ws = await ctx.workspace({ root: input.root, filesSession: input.filesSession });
    if (input.begin) await ws.beginEdit(input.paths);
    else await ws.endEdit(input.paths);
    return { recorded: [...input.paths], begin: input.begin };
  },
});
