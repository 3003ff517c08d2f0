// The workspace domain's names and small helpers, apart from its engine: command modules
// import these at their tops without loading the walk, the caches and the object store.
import type { FileChange } from "./workspace.js";

export const WORKSPACE_SESSION = "workspace";
export const DEFAULT_MAX_FILE_BYTES = 100 * 1024 * 1024;
/** What a snapshot does with changes made outside the agent. */
export const STRATEGIES = ["strict", "warn", "auto-integrate"] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** How many changes of each kind. */
export function countChanges(changes: readonly FileChange[]): Record<FileChange["kind"], number> {
  const out = { created: 0, modified: 0, deleted: 0, renamed: 0 };
  for (const c of changes) out[c.kind]++;
  return out;
}
