// hook_pre_compact: a checkpoint of the reasoning with the compaction trigger, changed or
// not (the compaction is the event), and with `files` a snapshot when the files changed.
import { preCompact, type HookReport } from "../../integrations/hooks/hooks.js";
import { strategyField } from "../files/shared.js";
import { defineOperation } from "../operation.js";
import { hookOptions, hookRootField, hostInputField } from "./shared.js";

export const preCompactHookOperation = defineOperation({
  name: "hook_pre_compact",
  title: "Hook: before a compaction",
  description:
    "An automatic checkpoint of the reasoning with the compaction trigger, changed or not; with `files`, also a snapshot of the workspace's files when they changed.",
  effect: "write",
  input: (z) => ({
    hostInput: hostInputField(z),
    files: z.boolean().default(false).describe("also snapshot the workspace's files"),
    strategy: strategyField(z),
    root: hookRootField(z),
  }),
  run: async (ctx, input): Promise<HookReport> => preCompact(await ctx.store(), input.hostInput, { ...hookOptions(ctx, input), files: input.files }),
});
