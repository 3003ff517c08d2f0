// Where a workspace is: the root asked for, else the folder holding the nearest .forge, else
// the current one. Apart from configured.ts so that a caller that only needs the folder (a
// hook for a read-only tool) does not load the workspace engine.
import { resolve } from "node:path";
import { findForgeRoot } from "../../core/config.js";

export interface WorkspaceLocation {
  /** The workspace folder; default: the folder holding the nearest .forge, else `cwd`. */
  readonly root?: string;
  /** The session holding the snapshots (default "workspace"). */
  readonly filesSession?: string;
  /** Where relative roots and the .forge search start (default: the process's cwd). */
  readonly cwd?: string;
}

/** The workspace root for `location` (absolute). */
export function workspaceRoot(location: WorkspaceLocation = {}): string {
  const cwd = location.cwd ?? process.cwd();
  return location.root !== undefined ? resolve(cwd, location.root) : (findForgeRoot(cwd) ?? resolve(cwd));
}
