// Where configuration comes from: the environment and the nearest .forge folder. The only
// module below the interfaces that reads process.env.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ForgeError } from "./errors.js";
import { setOwn } from "./own.js";

export const FORGE_DIR = ".forge";
export const DEFAULT_DB = "forge.db";
export const DEFAULT_SESSION = "default";

export interface ForgeConfigFile {
  /** The store URL `forge init --store` chose for this folder. */
  readonly store?: string;
  /** Workspace snapshots: extra ignore patterns, the size limit, retention. */
  readonly workspace?: {
    readonly ignore?: readonly string[];
    readonly maxFileBytes?: number;
    readonly keepLast?: number;
    readonly keepDays?: number;
  };
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
    const { store, workspace } = parsed as { store?: unknown; workspace?: unknown };
    if (store !== undefined && typeof store !== "string") throw new Error('"store" is not a string');
    return { ...(typeof store === "string" && { store }), ...(workspace !== undefined && { workspace: checkWorkspaceConfig(workspace) }) };
  } catch (e) {
    throw new ForgeError("INVALID_ARGUMENT", `cannot read ${path}: ${(e as Error).message}`, {
      hint: "fix or delete the file; `forge init` writes a new one",
      cause: e,
    });
  }
}

function checkWorkspaceConfig(v: unknown): NonNullable<ForgeConfigFile["workspace"]> {
  if (typeof v !== "object" || v === null) throw new Error('"workspace" is not an object');
  const w = v as Record<string, unknown>;
  const out: { ignore?: string[]; maxFileBytes?: number; keepLast?: number; keepDays?: number } = {};
  if (w["ignore"] !== undefined) {
    if (!Array.isArray(w["ignore"]) || !w["ignore"].every((p) => typeof p === "string")) throw new Error('"workspace.ignore" is not a list of patterns');
    out.ignore = w["ignore"] as string[];
  }
  for (const k of ["maxFileBytes", "keepLast", "keepDays"] as const) {
    const n = w[k];
    if (n === undefined) continue;
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0) throw new Error(`"workspace.${k}" is not a number ≥ 0`);
    out[k] = n;
  }
  return out;
}

/**
 * The store URL to use, found as git finds its repository: an explicit one, else
 * FORGE_STORE, else the store of the nearest .forge folder at or above `cwd` (its config's
 * URL, or its forge.db); undefined when there is none.
 */
export function resolveStoreUrl(explicit: string | undefined, cwd: string): string | undefined {
  if (explicit) return explicit;
  const env = process.env["FORGE_STORE"];
  if (env) return env;
  const root = findForgeRoot(cwd);
  if (root) {
    const cfg = readConfigFile(root);
    if (cfg.store) return cfg.store;
    return `sqlite:${join(root, FORGE_DIR, DEFAULT_DB)}`;
  }
  return undefined;
}

/** Where `forge init` puts the embedded store of `folder`. */
export function defaultStoreUrl(folder: string): string {
  return `sqlite:${join(resolve(folder), FORGE_DIR, DEFAULT_DB)}`;
}

/** The session to use: an explicit one, else FORGE_SESSION, else "default". */
export function resolveSessionName(explicit: string | undefined): string {
  return explicit || process.env["FORGE_SESSION"] || DEFAULT_SESSION;
}

/** The values of the named environment variables that are set. */
export function readEnv(names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) {
    // Own variables only: process.env["constructor"] is Object's constructor, not a variable.
    const v = Object.hasOwn(process.env, n) ? process.env[n] : undefined;
    if (v !== undefined) setOwn(out, n, v);
  }
  return out;
}

/** NO_COLOR (https://no-color.org) and friends, read here so the CLI needs no env access. */
export function envFlag(name: "NO_COLOR" | "FORGE_DEBUG" | "CI" | "FORGE_CHECK_INPUTS"): boolean {
  const v = process.env[name];
  return v !== undefined && v !== "" && v !== "0";
}
