// hook_session_start: the session's brief for the host to add to its context, after a
// compaction, a resume or a clear (or always, with `always`).
import { sessionStart, type HookReport } from "../../integrations/hooks/hooks.js";
import { defineOperation } from "../operation.js";
import { hookOptions, hostInputField } from "./shared.js";

export const sessionStartHookOperation = defineOperation({
  name: "hook_session_start",
  title: "Hook: session start",
  description: "The session's brief, for the host to add to the context: after a compaction, a resume or a clear; with `always`, at startup too.",
  effect: "read",
  input: (z) => ({ hostInput: hostInputField(z), always: z.boolean().default(false).describe("print the brief at startup too") }),
  run: async (ctx, input): Promise<HookReport> => sessionStart(await ctx.store(), input.hostInput, { ...hookOptions(ctx, {}), always: input.always }),
});
