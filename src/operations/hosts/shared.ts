// What enable, disable and status share: where the project is, and the shape of what a
// command did to one host's files.
import { resolve } from "node:path";
import { findForgeRoot } from "../../core/config.js";
import { gitTopLevel } from "../../integrations/hosts/config/git-hook.js";
import type { FileChange } from "../../integrations/hosts/config/wiring.js";
import type { HostId } from "../../integrations/hosts/types.js";

/** The project a command works on: the folder holding .forge above `folder`, else its git work tree's top, else `folder`. */
export function projectRoot(folder: string): { readonly root: string; readonly hasStore: boolean } {
  const abs = resolve(folder);
  const found = findForgeRoot(abs);
  return found !== undefined ? { root: found, hasStore: true } : { root: gitTopLevel(abs) ?? abs, hasStore: false };
}

/** What enable or disable did for one host. */
export interface HostChangeJson {
  readonly host: HostId;
  /** The host's name for people. */
  readonly label: string;
  /** Whether the host was enabled before the command (disable: false means there was nothing to take out). */
  readonly wasEnabled: boolean;
  readonly files: readonly FileChange[];
}
