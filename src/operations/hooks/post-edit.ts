// hook_post_edit: the paths the agent's edit tool changed recorded as its own, then a
// snapshot, in which anything else that changed is reported as changed outside the agent.
import { postEdit, type HookReport } from "../../integrations/hooks/hooks.js";
import { strategyField } from "../files/shared.js";
import { defineOperation } from "../operation.js";
import { hookOptions, hookRootField, hostInputField } from "./shared.js";

export const postEditHookOperation = defineOperation({
  name: "hook_post_edit",
  title: "Hook: after an edit",
  description: "Record the paths the agent's edit tool changed as its own, then snapshot the workspace's files (without `snapshot`: only record).",
  effect: "write",
  input: (z) => ({
    hostInput: hostInputField(z),
    snapshot: z.boolean().default(true).describe("snapshot after recording (false: a later stop hook snapshots)"),
    strategy: strategyField(z),
    root: hookRootField(z),
  }),
  run: async (ctx, input): Promise<HookReport> => postEdit(await ctx.store(), input.hostInput, { ...hookOptions(ctx, input), snapshot: input.snapshot }),
});
