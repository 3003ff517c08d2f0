// The optional peer dependencies forge-reasoning/langgraph loads. Without them Node's
// ERR_MODULE_NOT_FOUND names one package and a file deep in dist/; this names every
// missing peer and the command that installs them.
import { createRequire } from "node:module";
import { ForgeError } from "../../core/errors.js";

/** Each peer, with a module the saver imports from it (a package may export no root). */
const PEERS = [
  { name: "@langchain/langgraph-checkpoint", module: "@langchain/langgraph-checkpoint" },
  { name: "@langchain/core", module: "@langchain/core/runnables" },
] as const;

/**
 * Runs `load` (the dynamic import of modules that import the peers). If it fails because
 * peers cannot be found from this package, throws a NOT_FOUND ForgeError naming them and
 * the install command, with Node's error as `cause`; any other failure is rethrown as is.
 */
export async function loadWithPeers<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    const missing = isModuleNotFound(e) ? PEERS.filter((p) => !resolvable(p.module)).map((p) => p.name) : [];
    if (missing.length === 0) throw e;
    const install = `npm install ${missing.join(" ")}`;
    const what =
      missing.length === 1 ? `its optional peer dependency ${missing[0]}, which is` : `its optional peer dependencies ${missing.join(" and ")}, which are`;
    throw new ForgeError("NOT_FOUND", `forge-reasoning/langgraph needs ${what} not installed: run \`${install}\``, {
      hint: `run \`${install}\` in the project that depends on forge-reasoning`,
      data: { kind: "package", missing },
      cause: e,
    });
  }
}

/** Node's "cannot find" for an import (ERR_MODULE_NOT_FOUND) or, in the bundled library, a require (MODULE_NOT_FOUND). */
function isModuleNotFound(e: unknown): boolean {
  const code = e instanceof Error ? (e as NodeJS.ErrnoException).code : undefined;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}

/** Whether `specifier` resolves from here, as the saver's own imports do. */
function resolvable(specifier: string): boolean {
  try {
    // The bundled library (a CommonJS script, where import.meta.resolve is not) loads the peers with require.
    if (typeof import.meta.resolve === "function") import.meta.resolve(specifier);
    else createRequire(import.meta.url).resolve(specifier);
    return true;
  } catch (e) {
    // Found but not exported (another major version) is a different problem: not "missing".
    return !isModuleNotFound(e);
  }
}
