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

/**
 * The order the walk meets paths in: folder by folder, names in code-unit order, a folder's
 * content right after it ("a", "a/b", "a-c"). Lists kept in a snapshot's summary use it, so
 * they do not depend on how the tree was gathered.
 */
export function walkOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    const ca = a.charCodeAt(k);
    const cb = b.charCodeAt(k);
    if (ca === cb) continue;
    if (ca === 47) return -1; // "/": a's name ended first
    if (cb === 47) return 1;
    return ca - cb;
  }
  return a.length - b.length;
}
