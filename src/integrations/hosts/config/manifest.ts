// What `forge enable` did in a project, kept in .forge/hosts.json so that `forge disable`
// can take exactly that back: per host and file, whether the file existed, the hash of the
// user's original and of what enable wrote, the edits that undo enable's (applied only while
// the file is still what enable wrote), what was added, and the folders enable created;
// and how the git hook was installed. .forge/ is the machine's, never committed.
import { join } from "node:path";
import { FORGE_DIR } from "../../../core/config.js";
import { ForgeError } from "../../../core/errors.js";
import type { HostId, JsonOp, TomlOp } from "../types.js";
import { deleteFile, readTextFile, writeTextFile } from "./file-io.js";
import type { TextEdit } from "./text-edits.js";

/** What enable did to one file. */
export type FileRecord = {
  /** Whether the file was there before enable (a file enable created is deleted by disable). */
  readonly existed: boolean;
  /** sha256 of the file before enable ("" when it did not exist). */
  readonly originalHash: string;
  /** sha256 of what enable wrote. */
  readonly writtenHash: string;
  /** The undo of each change enable made, in order: valid only while the file hashes to `writtenHash`. */
  readonly undo: readonly (readonly TextEdit[])[];
  /** Whether undoing gives the user's original (false once the user changed the file between two enables). */
  readonly exact: boolean;
  /** The folders (relative to the project root, outermost first) enable created for the file. */
  readonly createdDirs: readonly string[];
} & (
  | { readonly format: "json"; readonly added: readonly JsonOp[]; readonly created: readonly (readonly string[])[] }
  | { readonly format: "toml"; readonly added: readonly TomlOp[]; readonly created: readonly string[] }
  | { readonly format: "owned" }
  /** chained: where the user's own script was moved (relative to the project root), with its mode; absent when there was none. */
  | { readonly format: "script"; readonly chained?: { readonly file: string; readonly mode: number } }
);

/** What enable did for one host. */
export interface HostRecord {
  /** When it was first enabled (ISO 8601). */
  readonly enabledAt: string;
  /** The command its hooks run Forge as. */
  readonly command: string;
  /** By file, relative to the project root. */
  readonly files: Readonly<Record<string, FileRecord>>;
}

/** How the git hook was installed. */
export interface GitHookRecord {
  /** The hook script (relative to the project root, or absolute when outside it). */
  readonly path: string;
  /** created: Forge wrote the script; inserted: Forge's block went into the user's script; wrapped: the user's script was moved to `chained` and Forge's calls it. */
  readonly how: "created" | "inserted" | "wrapped";
  /** The exact text Forge put in. */
  readonly block: string;
  /** wrapped: where the user's script was moved. */
  readonly chained?: string;
  /** sha256 of the script as Forge left it. */
  readonly writtenHash: string;
  /** Folders enable created for it. */
  readonly createdDirs: readonly string[];
}

/** .forge/hosts.json: what enable did, by host, and the git hook. */
export interface Manifest {
  readonly version: 1;
  readonly hosts: Readonly<Partial<Record<HostId, HostRecord>>>;
  readonly gitHook?: GitHookRecord;
}

/** The manifest's path in a project. */
export function manifestPath(root: string): string {
  return join(root, FORGE_DIR, "hosts.json");
}

/** The project's manifest (empty when enable never ran). */
export function readManifest(root: string): Manifest {
  const path = manifestPath(root);
  const text = readTextFile(path);
  if (text === null) return { version: 1, hosts: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ForgeError("INVALID_ARGUMENT", `${path} is not valid JSON: ${(e as Error).message}`, {
      hint: "restore it, or delete it (forge disable then leaves your host configs as they are)",
      data: { path },
      cause: e,
    });
  }
  const m = parsed as Partial<Manifest> | null;
  if (m?.version !== 1 || typeof m.hosts !== "object" || m.hosts === null) {
    throw new ForgeError("INVALID_ARGUMENT", `${path} is not a manifest this version of Forge reads`, {
      hint: "upgrade Forge, or delete the file",
      data: { path },
    });
  }
  return m as Manifest;
}

/** Writes the manifest (deletes it when it records nothing). */
export function writeManifest(root: string, manifest: Manifest): void {
  const path = manifestPath(root);
  if (Object.keys(manifest.hosts).length === 0 && manifest.gitHook === undefined) deleteFile(path);
  else writeTextFile(path, `${JSON.stringify(manifest, null, 2)}\n`);
}
