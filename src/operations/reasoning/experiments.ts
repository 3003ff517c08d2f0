// Experiment branches of a reasoning session: start one, move between them, list them. Work
// since the last checkpoint is checkpointed before a move, so it is neither lost nor carried
// off to the other branch.
import { isForgeError } from "../../core/errors.js";
import { branchListOperation, type BranchJson } from "../checkpoint/branches.js";
import { defineOperation } from "../operation.js";
import { checkpointJson, refField, sessionField, type CheckpointJson } from "../shared.js";

export interface ExperimentBranchResult {
  readonly branch: string;
  /** Whether HEAD moved onto it. */
  readonly switched: boolean;
  /** The checkpoint of the work since the last one, made first; null when there was none. */
  readonly saved: CheckpointJson | null;
}

export const experimentBranchOperation = defineOperation({
  name: "experiment_branch",
  title: "Start an experiment branch",
  description:
    "CHANGES STATE. Starts a branch at HEAD (or `from`) and, unless `switch` is false, moves onto it; unsaved work is checkpointed first so it is neither lost nor carried off.",
  effect: "write",
  input: (z) => ({
    name: z.string().min(1),
    from: refField(z, "where the branch starts").optional(),
    switch: z.boolean().default(true),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<ExperimentBranchResult> => {
    const rs = await ctx.reasoning(input.session);
    const r = await rs.branch(input.name, { switch: input.switch, ...(input.from !== undefined && { from: input.from }) });
    return { branch: r.branch, switched: input.switch, saved: r.saved ? checkpointJson(r.saved) : null };
  },
});

export interface ExperimentSwitchResult {
  readonly branch: string;
  /** The branch's head: its state is now the working state. */
  readonly checkpoint: CheckpointJson;
  /** The checkpoint of the work since the last one, made first; null when there was none. */
  readonly saved: CheckpointJson | null;
}

export const experimentSwitchOperation = defineOperation({
  name: "experiment_switch",
  title: "Switch branch",
  description: "CHANGES STATE. Moves onto another branch: its head's state becomes the working state (unsaved work is checkpointed first).",
  effect: "write",
  input: (z) => ({ name: z.string().min(1), session: sessionField(z) }),
  run: async (ctx, input): Promise<ExperimentSwitchResult> => {
    const r = await (await ctx.reasoning(input.session)).switch(input.name);
    return { branch: input.name, checkpoint: checkpointJson(r.checkpoint), saved: r.saved ? checkpointJson(r.saved) : null };
  },
});

export const experimentListOperation = defineOperation({
  name: "experiment_list",
  title: "List experiment branches",
  description: "A session's branches with their heads; `current` marks the one HEAD is on. A session nobody has written to yet has none.",
  effect: "read",
  input: (z) => ({ session: sessionField(z) }),
  run: async (ctx, input): Promise<{ readonly branches: readonly BranchJson[] }> => {
    try {
      return await branchListOperation.run(ctx, input);
    } catch (e) {
      // Listed as empty, not created: the first checkpoint starts main.
      if (isForgeError(e) && e.code === "SESSION_NOT_FOUND") return { branches: [] };
      throw e;
    }
  },
});
