// Each host's capture module, loaded only when its hook runs: a hook is a process of its own
// at every event of the host, and needs one host's code, not ten.
import { ForgeError } from "../../../core/errors.js";
import { HOST_IDS, type HostCapture, type HostId } from "../types.js";

const LOADERS: Record<HostId, () => Promise<{ capture: HostCapture }>> = {
  "claude-code": () => import("./claude-code.js"),
  codex: () => import("./codex.js"),
  "gemini-cli": () => import("./gemini-cli.js"),
  cursor: () => import("./cursor.js"),
  copilot: () => import("./copilot.js"),
  opencode: () => import("./opencode.js"),
  "factory-droid": () => import("./factory-droid.js"),
  windsurf: () => import("./windsurf.js"),
  cline: () => import("./cline.js"),
  kiro: () => import("./kiro.js"),
};

/** Whether `name` is a host Forge knows. */
export function isHostId(name: string): name is HostId {
  return (HOST_IDS as readonly string[]).includes(name);
}

/** The capture module of `host`. */
export async function hostCapture(host: string): Promise<HostCapture> {
  if (!isHostId(host)) throw new ForgeError("INVALID_ARGUMENT", `unknown host "${host}"`, { hint: `the hosts: ${HOST_IDS.join(", ")}` });
  return (await LOADERS[host]()).capture;
}
