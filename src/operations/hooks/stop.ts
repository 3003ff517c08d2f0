// hook_stop: at the end of the agent's turn, a closing checkpoint when the reasoning changed
// since the last, and a snapshot when the files changed — never an empty duplicate.
import { stop, type HookReport } from "../../integrations/hooks/hooks.js";
import { strategyField } from "../files/shared.js";
import { defineOperation } from "../operation.js";
import { hookOptions, hookRootField, hostInputField } from "./shared.js";

export const stopHookOperation = defineOperation({
  name: "hook_stop",
  title: "Hook: end of a turn",
  description:
    "A closing checkpoint (trigger session-end) when the reasoning changed since the last, and a snapshot of the workspace's files when they changed (`files: false`: no snapshot).",
  effect: "write",
  input: (z) => ({
    hostInput: hostInputField(z),
    files: z.boolean().default(true).describe("snapshot the workspace's files when they changed"),
    strategy: strategyField(z),
    root: hookRootField(z),
  }),
  run: async (ctx, input): Promise<HookReport> => stop(await ctx.store(), input.hostInput, { ...hookOptions(ctx, input), files: input.files }),
});
