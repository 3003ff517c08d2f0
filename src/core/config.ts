// Where configuration comes from: the environment and the nearest .forge folder. The only
// module below the interfaces that reads process.env.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ForgeError } from "./errors.js";

export const FORGE_DIR = ".forge";
export const DEFAULT_DB = "forge.db";
export const DEFAULT_SESSION = "default";

export interface ForgeConfigFile {
  /** The store URL `forge init --store` chose for this folder. */
  readonly store?: string;
}

/** The nearest folder at or above `cwd` that holds a .forge folder, if any. */
export function findForgeRoot(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    const candidate = join(dir, FORGE_DIR);
    if (existsSync(candidate) && statSync(candidate).isDirectory()) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

export function readConfigFile(root: string): ForgeConfigFile {
  const path = join(root, FORGE_DIR, "config.json");
  if (!existsSync(path)) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    if (typeof parsed !== "object" || parsed === null) throw new Error("not a JSON object");
    const store = (parsed as { store?: unknown }).store;
    return typeof store === "string" ? { store } : {};
  } catch (e) {
    throw new ForgeError("INVALID_ARGUMENT", `cannot read ${path}: ${(e as Error).message}`, {
      hint: "fix or delete the file; `forge init` writes a new one",
      cause: e,
    });
  }
}

/**
 * The store URL to use: an explicit one, else FORGE_STORE, else the config of the nearest
 * .forge folder, else `sqlite:<nearest .forge or cwd>/.forge/forge.db`.
 */
export function resolveStoreUrl(explicit: string | undefined, cwd: string): string {
  if (explicit) return explicit;
  const env = process.env["FORGE_STORE"];
  if (env) return env;
  const root = findForgeRoot(cwd);
  if (root) {
    const cfg = readConfigFile(root);
    if (cfg.store) return cfg.store;
    return `sqlite:${join(root, FORGE_DIR, DEFAULT_DB)}`;
  }
  return `sqlite:${join(resolve(cwd), FORGE_DIR, DEFAULT_DB)}`;
}

/** The session to use: an explicit one, else FORGE_SESSION, else "default". */
export function resolveSessionName(explicit: string | undefined): string {
  return explicit || process.env["FORGE_SESSION"] || DEFAULT_SESSION;
}

/** The values of the named environment variables that are set. */
export function readEnv(names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = process.env[n];
    if (v !== undefined) out[n] = v;
  }
  return out;
}

/** NO_COLOR (https://no-color.org) and friends, read here so the CLI needs no env access. */
export function envFlag(name: "NO_COLOR" | "FORGE_DEBUG" | "CI"): boolean {
  const v = process.env[name];
  return v !== undefined && v !== "" && v !== "0";
}
