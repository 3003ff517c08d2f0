// A session's branches and tags: create, switch, list and delete branches; tag and untag.
import type { Branch } from "../../timeline/types.js";
import { defineOperation } from "../operation.js";
import { checkpointJson, refField, sessionField, type CheckpointJson } from "../shared.js";

export interface BranchJson {
  readonly name: string;
  readonly current: boolean;
  readonly head: CheckpointJson;
}

const branchJson = (b: Branch): BranchJson => ({ name: b.name, current: b.current, head: checkpointJson(b.head) });

export const branchCreateOperation = defineOperation({
  name: "branch_create",
  title: "Create a branch",
  description: "Names a new branch at a checkpoint (HEAD by default), and with `switch` moves HEAD onto it.",
  effect: "write",
  input: (z) => ({
    name: z.string().min(1),
    from: refField(z, "where the branch starts").default("HEAD"),
    switch: z.boolean().default(false),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<BranchJson> => {
    const session = await ctx.existingSession(input.session);
    const b = await session.branch(input.name, { from: input.from });
    if (input.switch) await session.switch(input.name);
    return { ...branchJson(b), current: input.switch || b.current };
  },
});

export interface SwitchResult {
  readonly branch: string;
  readonly checkpoint: CheckpointJson;
  /** The branch head's state, now the working state. */
  readonly state: unknown;
}

export const branchSwitchOperation = defineOperation({
  name: "branch_switch",
  title: "Switch branch",
  description: "CHANGES STATE. Moves HEAD onto a branch: its head's state becomes the session's working state.",
  effect: "destructive",
  input: (z) => ({ name: z.string().min(1), session: sessionField(z) }),
  run: async (ctx, input): Promise<SwitchResult> => {
    const r = await (await ctx.existingSession(input.session)).switch(input.name);
    return { branch: input.name, checkpoint: checkpointJson(r.checkpoint), state: r.state };
  },
});

export const branchListOperation = defineOperation({
  name: "branch_list",
  title: "List branches",
  description: "A session's branches with their heads; `current` marks the one HEAD is on.",
  effect: "read",
  input: (z) => ({ session: sessionField(z) }),
  run: async (ctx, input): Promise<{ readonly branches: readonly BranchJson[] }> => ({
    branches: (await (await ctx.existingSession(input.session)).branches()).map(branchJson),
  }),
});

export const branchDeleteOperation = defineOperation({
  name: "branch_delete",
  title: "Delete a branch",
  description: "Deletes a branch name; its checkpoints stay until pruned.",
  effect: "destructive",
  input: (z) => ({ name: z.string().min(1), session: sessionField(z) }),
  run: async (ctx, input): Promise<{ readonly deleted: string }> => {
    await (await ctx.existingSession(input.session)).deleteBranch(input.name);
    return { deleted: input.name };
  },
});

export const tagOperation = defineOperation({
  name: "checkpoint_tag",
  title: "Tag or untag a checkpoint",
  description: "Adds tags to a checkpoint (or with `remove`, takes them off).",
  effect: "write",
  input: (z) => ({ ref: refField(z, "the checkpoint"), tags: z.array(z.string().min(1)).min(1), remove: z.boolean().default(false), session: sessionField(z) }),
  run: async (ctx, input): Promise<{ readonly checkpoint: CheckpointJson }> => {
    const session = await ctx.existingSession(input.session);
    const cp = input.remove ? await session.untag(input.ref, ...input.tags) : await session.tag(input.ref, ...input.tags);
    return { checkpoint: checkpointJson(cp) };
  },
});
