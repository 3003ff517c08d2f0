// The hosts and capture events by name, for the CLI's choices at start-up (without loading
// the capture code), and each host's stdout at an event when the hook could not run.
import { HOST_IDS, CAPTURE_KINDS, type CaptureKind, type HostId } from "../../integrations/hosts/types.js";

export { HOST_IDS, CAPTURE_KINDS, type CaptureKind, type HostId };

/** Whether `name` is a host Forge captures. */
export function isHost(name: string): name is HostId {
  return (HOST_IDS as readonly string[]).includes(name);
}

/** What `host` expects on stdout at `kind` with `context` for the agent ("" for none): some hosts parse it as JSON always. */
export async function hostOutput(host: HostId, kind: CaptureKind, context: string): Promise<string> {
  const { hostCapture } = await import("../../integrations/hosts/capture/index.js");
  return (await hostCapture(host)).output(kind, context);
}
