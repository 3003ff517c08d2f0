// What the hook operations share: the host's input as a field, and the options every event
// passes on to the hooks integration.
import type { HookInput, HookOptions } from "../../integrations/hooks/hooks.js";
import type { OperationContext } from "../context.js";
import type { Z } from "../operation.js";

/** The `hostInput` field: the host's JSON, read leniently by the caller (only known fields are kept). */
export const hostInputField = (z: Z) =>
  z
    .custom<HookInput>((v) => typeof v === "object" && v !== null && !Array.isArray(v), "expected the host's hook input, a JSON object")
    .default({})
    .describe("the host's hook input (its JSON on stdin): cwd, session_id, source, trigger, tool_name, tool_input, …");

/** The `root` field: where the workspace is, when not the folder holding .forge above the host's cwd. */
export const hookRootField = (z: Z) => z.string().min(1).optional().describe("the workspace folder (default: the folder holding .forge above the host's cwd)");

/** The options every event gets: the context's session, the workspace's root, the strategy. */
export function hookOptions(ctx: OperationContext, input: { readonly root?: string | undefined; readonly strategy?: HookOptions["strategy"] }): HookOptions {
  return {
    session: ctx.sessionName(),
    ...(input.root !== undefined && { workspace: { root: input.root } }),
    ...(input.strategy !== undefined && { strategy: input.strategy }),
  };
}
