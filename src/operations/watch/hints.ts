// Hints for the workspace's statuses and hooks from a long-lived process that takes no
// snapshot itself (`forge mcp`, `forge ui`): while it runs, they ask it which files changed
// instead of looking at every file (domains/watch/change-log.ts, domains/workspace/watch-hint.ts).
// `forge watch --files` serves them on its own. FORGE_WATCH_HINTS=0 turns this off.

/** Serves hints for the workspace at `root` (default: the folder holding .forge), if it can; `close` when the process's work ends. */
export async function serveFileHints(root?: string): Promise<{ close(): void } | undefined> {
  if (process.env["FORGE_WATCH_HINTS"] === "0") return undefined;
  try {
    const { serveWorkspaceHints } = await import("../../domains/watch/change-log.js");
    return await serveWorkspaceHints(root === undefined ? {} : { root });
  } catch {
    return undefined; // a failure only leaves the hints out: every file is looked at, as with no such process
  }
}
