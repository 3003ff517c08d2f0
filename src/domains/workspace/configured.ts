// Opening a workspace the way every front end does (CLI, MCP server, hooks, watch): the
// root is the one asked for, else the folder holding the nearest .forge, else the current
// one; ignore patterns, the size limit and retention come from that folder's config.json.
import { findForgeRoot, readConfigFile } from "../../core/config.js";
import { type WorkspaceLocation, workspaceRoot } from "./location.js";
import type { Store } from "../../timeline/store.js";
import { WORKSPACE_SESSION, Workspace } from "./workspace.js";

export { type WorkspaceLocation, workspaceRoot } from "./location.js";

/** Opens the workspace at `location` with its folder's configuration. */
export async function openConfiguredWorkspace(store: Store, location: WorkspaceLocation = {}): Promise<Workspace> {
  const root = workspaceRoot(location);
  const forgeRoot = findForgeRoot(root);
  const cfg = (forgeRoot ? readConfigFile(forgeRoot).workspace : undefined) ?? {};
  return Workspace.open(store, {
    root,
    session: location.filesSession ?? WORKSPACE_SESSION,
    ...(cfg.ignore && { ignore: cfg.ignore }),
    ...(cfg.maxFileBytes !== undefined && { maxFileBytes: cfg.maxFileBytes }),
    ...(cfg.secretFiles !== undefined && { secretFiles: cfg.secretFiles }),
    ...((cfg.keepLast !== undefined || cfg.keepDays !== undefined) && { retention: { keepLast: cfg.keepLast ?? 100, keepDays: cfg.keepDays ?? 30 } }),
  });
}
