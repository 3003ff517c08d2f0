// Where configuration comes from: the environment and the nearest .forge folder. The only
// module below the interfaces that reads process.env.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ForgeError } from "./errors.js";
import { setOwn } from "./own.js";
import type { RedactionOptions } from "./redact/redactor.js";

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
    /**
     * Secret files (`.env`, private keys, credential stores) that snapshots hold anyway:
     * gitignore-style patterns, or true for all of them. Files git tracks are always held.
     */
    readonly secretFiles?: boolean | readonly string[];
  };
  /** Secret redaction: on unless `enabled` is false; `allow` turns false positives off (docs/SECURITY.md). */
  readonly redact?: RedactionOptions;
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
    const { store, workspace, redact } = parsed as { store?: unknown; workspace?: unknown; redact?: unknown };
    if (store !== undefined && typeof store !== "string") throw new Error('"store" is not a string');
    return {
      ...(typeof store === "string" && { store }),
      ...(workspace !== undefined && { workspace: checkWorkspaceConfig(workspace) }),
      ...(redact !== undefined && { redact: checkRedactConfig(redact) }),
    };
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
  const out: { ignore?: string[]; maxFileBytes?: number; keepLast?: number; keepDays?: number; secretFiles?: boolean | string[] } = {};
  if (w["ignore"] !== undefined) {
    if (!Array.isArray(w["ignore"]) || !w["ignore"].every((p) => typeof p === "string")) throw new Error('"workspace.ignore" is not a list of patterns');
    out.ignore = w["ignore"] as string[];
  }
  const secretFiles = w["secretFiles"];
  if (secretFiles !== undefined) {
    if (typeof secretFiles !== "boolean" && !(Array.isArray(secretFiles) && secretFiles.every((p) => typeof p === "string")))
      throw new Error('"workspace.secretFiles" is neither true/false nor a list of patterns');
    out.secretFiles = secretFiles as boolean | string[];
  }
  for (const k of ["maxFileBytes", "keepLast", "keepDays"] as const) {
    const n = w[k];
    if (n === undefined) continue;
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0) throw new Error(`"workspace.${k}" is not a number ≥ 0`);
    out[k] = n;
  }
  return out;
}

function checkRedactConfig(v: unknown): RedactionOptions {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error('"redact" is not an object');
  const r = v as Record<string, unknown>;
  for (const k of Object.keys(r)) if (k !== "enabled" && k !== "allow") throw new Error(`"redact.${k}" is not a setting (enabled, allow)`);
  if (r["enabled"] !== undefined && typeof r["enabled"] !== "boolean") throw new Error('"redact.enabled" is not true or false');
  const allow = r["allow"];
  if (allow === undefined) return { ...(r["enabled"] !== undefined && { enabled: r["enabled"] as boolean }) };
  if (typeof allow !== "object" || allow === null || Array.isArray(allow)) throw new Error('"redact.allow" is not an object');
  const a = allow as Record<string, unknown>;
  const lists: Record<string, string[]> = {};
  for (const k of Object.keys(a)) {
    const list = a[k];
    if (k !== "rules" && k !== "values" && k !== "paths") throw new Error(`"redact.allow.${k}" is not a setting (rules, values, paths)`);
    if (!Array.isArray(list) || !list.every((x) => typeof x === "string" && x !== "")) throw new Error(`"redact.allow.${k}" is not a list of strings`);
    lists[k] = list as string[];
  }
  return { ...(r["enabled"] !== undefined && { enabled: r["enabled"] as boolean }), allow: lists };
}

/** The redaction settings of the store found from `cwd` (its .forge/config.json), or none. */
export function redactionConfig(cwd: string): RedactionOptions | undefined {
  const root = findForgeRoot(cwd);
  return root === undefined ? undefined : readConfigFile(root).redact;
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
