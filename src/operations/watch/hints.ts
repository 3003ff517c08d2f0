// Hints for the workspace's statuses and hooks from a long-lived process that takes no
// snapshot itself (`forge mcp`, `forge ui`): while it runs, they ask it which files changed
// instead of looking at every file (domains/watch/change-log.ts, domains/workspace/watch-hint.ts).
// `forge watch --files` serves them on its own. FORGE_WATCH_HINTS=0 turns this off.
import type { HookHandler } from "../../domains/workspace/hook-serve.js";
import type { Store } from "../../timeline/store.js";

/**
 * Serves hints for the workspace at `root` (default: the folder holding .forge), if it can;
 * `close` when the process's work ends. With `store` (the process's own, and the URL it was
 * given), it also runs the capture hooks the workspace's hook processes hand it
 * (operations/hooks/served.ts); FORGE_HOOK_SERVE=0 turns that off.
 */
export async function serveFileHints(root?: string, store?: { open: () => Promise<Store>; url: string | undefined }): Promise<{ close(): void } | undefined> {
  if (process.env["FORGE_WATCH_HINTS"] === "0") return undefined;
  try {
    const { serveWorkspaceHints } = await import("../../domains/watch/change-log.js");
    let hooks: HookHandler | undefined;
    if (store !== undefined && process.env["FORGE_HOOK_SERVE"] !== "0") hooks = (await import("../hooks/served.js")).hookServer(store.open, store.url);
    return await serveWorkspaceHints(root === undefined ? {} : { root }, hooks);
  } catch {
    return undefined; // a failure only leaves the hints out: every file is looked at, as with no such process
  }
}
