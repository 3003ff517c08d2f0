// What `forge hook` reads before it runs an event: the events there are, and the host's
// input (its JSON on stdin, read leniently by the hooks integration) with the working folder
// it names, where the store is looked for. The integration loads only when an event runs.
import type { HookInput } from "../../integrations/hooks/hooks.js";

export { HOOK_EVENTS, type HookEvent } from "../../integrations/hooks/events.js";

/** The host's input from its stdin text (only the fields Forge knows, as own properties) and the folder it works in, if it names one that exists. */
export async function readHostInput(text: string): Promise<{ readonly input: HookInput; readonly cwd: string | undefined }> {
  const { hookCwd, parseHookInput } = await import("../../integrations/hooks/hooks.js");
  const input = parseHookInput(text);
  return { input, cwd: hookCwd(input) };
}
