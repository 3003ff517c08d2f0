// The one error every backend gives when asked to open a store that is not there and not
// to create it: where it looked, whether the folder itself is missing, how to make one.
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { ForgeError } from "../core/errors.js";

/** No store at `path` (which `url` names): NO_STORE, saying whether the folder itself is missing. */
export function noStoreAt(url: string, path: string): ForgeError {
  const folder = dirname(path);
  const where = existsSync(folder) ? `there is no Forge store at ${path}` : `there is no Forge store at ${path} (the folder ${folder} does not exist)`;
  return new ForgeError("NO_STORE", where, { hint: `create one with \`forge init --store ${url}\`; nothing was created`, data: { path } });
}
