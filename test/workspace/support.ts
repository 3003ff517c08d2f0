// Shared set-up for the workspace-snapshot tests: a real folder in a temp directory with a
// real SQLite store in its .forge/, an independent walker to compare trees byte for byte,
// and an unprivileged user to run the `forge` command as (test/support/cli.ts runs it).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
  type Stats,
} from "node:fs";
import { dirname, join } from "node:path";
import { expect, onTestFinished } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import { Workspace, type SnapshotState, type WorkspaceOptions } from "../../src/domains/workspace/workspace.js";
import { readTreeColumns, type TreeColumns } from "../../src/domains/workspace/tree-cache.js";
import type { RunAs } from "../support/cli.js";
import { makeTempDir, type TempDir } from "../support/temp.js";

/** A temp folder removed when the test finishes (modes are opened up first, so 000 folders go too). */
export function tempDir(label: string): TempDir {
  const dir = makeTempDir(label);
  onTestFinished(() => {
    openUp(dir.path);
    dir.remove();
  });
  return dir;
}

/** Gives every folder under `path` rwx for its owner, so the tree can be removed. */
function openUp(path: string): void {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  if (!st.isDirectory()) return;
  try {
    chmodSync(path, 0o700 | (st.mode & 0o777));
  } catch {
    return;
  }
  for (const name of readdirSync(path)) openUp(join(path, name));
}

export interface Bench {
  /** The temp folder holding the workspace (and room for things "outside" it). */
  readonly parent: string;
  /** The workspace root: parent/ws. */
  readonly root: string;
  readonly url: string;
  readonly store: Store;
  readonly ws: Workspace;
  /** Another Workspace on the same root and store, with other options. */
  open(options?: Omit<WorkspaceOptions, "root">): Promise<Workspace>;
  /** The summary a snapshot checkpoint holds. */
  state(id: string): Promise<SnapshotState>;
}

/** A workspace at <temp>/ws with a SQLite store at <temp>/ws/.forge/forge.db; retention off. */
export async function workspaceBench(options: Omit<WorkspaceOptions, "root"> = {}): Promise<Bench> {
  const dir = tempDir("workspace");
  const parent = realpathSync(dir.path);
  const root = join(parent, "ws");
  mkdirSync(root);
  const url = `sqlite:${root}/.forge/forge.db`;
  const store = await openStore(url);
  onTestFinished(() => store.close());
  const open = (more: Omit<WorkspaceOptions, "root"> = {}) => Workspace.open(store, { retention: false, ...options, ...more, root });
  const ws = await open();
  return { parent, root, url, store, ws, open, state: async (id) => (await ws.session.state(id)) as SnapshotState };
}

/** Writes a file (making its folders), optionally with a mode. */
export function put(root: string, path: string, data: string | Uint8Array, mode?: number): void {
  const abs = join(root, path);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, data);
  if (mode !== undefined) chmodSync(abs, mode);
}

export function read(root: string, path: string): string {
  return readFileSync(join(root, path), "utf8");
}

/** Deterministic pseudo-random bytes (xorshift32), so failures repeat. */
export function noise(length: number, seed: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

export type WalkEntry =
  | { readonly type: "file"; readonly mode: string; readonly size: number; readonly sha256: string }
  | { readonly type: "dir"; readonly mode: string }
  | { readonly type: "symlink"; readonly target: string }
  | { readonly type: "other" };

/**
 * An independent walk of `root` (no Forge code): every path with its type, permission bits
 * (octal), content hash and size, or symlink target. Symlinks are not followed. Paths for
 * which `skip` is true (and everything under them) are left out.
 */
export function walkTree(root: string, skip: (path: string) => boolean = (p) => p === ".forge"): Record<string, WalkEntry> {
  const out: Record<string, WalkEntry> = {};
  const visit = (rel: string) => {
    for (const name of readdirSync(rel === "" ? root : join(root, rel)).sort()) {
      const path = rel === "" ? name : `${rel}/${name}`;
      if (skip(path)) continue;
      const abs = join(root, path);
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) out[path] = { type: "symlink", target: readlinkSync(abs) };
      else if (st.isDirectory()) {
        out[path] = { type: "dir", mode: (st.mode & 0o777).toString(8) };
        visit(path);
      } else if (st.isFile()) {
        const data = readFileSync(abs);
        out[path] = { type: "file", mode: (st.mode & 0o777).toString(8), size: data.length, sha256: createHash("sha256").update(data).digest("hex") };
      } else out[path] = { type: "other" };
    }
  };
  visit("");
  return out;
}

/** Every byte of every file under `dir` (for "untouched" checks), keyed by path, with inode numbers. */
export function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (rel: string) => {
    const abs = rel === "" ? dir : join(dir, rel);
    const st = lstatSync(abs);
    const key = rel === "" ? "." : rel;
    if (st.isSymbolicLink()) out[key] = `link ${readlinkSync(abs)} ino ${st.ino}`;
    else if (st.isDirectory()) {
      out[key] = `dir ${(st.mode & 0o7777).toString(8)} ino ${st.ino}`;
      for (const name of readdirSync(abs).sort()) visit(rel === "" ? name : `${rel}/${name}`);
    } else out[key] = `file ${(st.mode & 0o7777).toString(8)} ino ${st.ino} ${createHash("sha256").update(readFileSync(abs)).digest("hex")}`;
  };
  visit("");
  return out;
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "Forge Test",
  GIT_AUTHOR_EMAIL: "forge@example.invalid",
  GIT_COMMITTER_NAME: "Forge Test",
  GIT_COMMITTER_EMAIL: "forge@example.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8" });
}

// Running the CLI as someone else.

/** The id of a user with no special rights, for checks root would pass anyway ("nobody"). */
export function unprivilegedUser(): RunAs {
  const uid = Number(execFileSync("id", ["-u", "nobody"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "nobody"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

/** An hour ago, in seconds: times set to it are never racy at the next snapshot. */
export const HOUR_AGO_S = Math.floor(Date.now() / 1000) - 3600;

/** The tree cache of the workspace at `root` (.forge/tree-cache.bin). */
export const cachePath = (root: string): string => join(root, ".forge", "tree-cache.bin");

/** Sets the times of everything under `dir` (but .forge and .git) to `s` seconds: nothing racy at the next snapshot. */
export function age(dir: string, s = HOUR_AGO_S): void {
  for (const name of readdirSync(dir)) {
    if (name === ".forge" || name === ".git") continue;
    const abs = join(dir, name);
    const st = lstatSync(abs);
    if (st.isDirectory()) age(abs, s);
    if (st.isSymbolicLink()) lutimesSync(abs, s, s);
    else utimesSync(abs, s, s);
  }
  utimesSync(dir, s, s);
}

/** HEAD's files tree as the tree cache keeps it, with its walk's stats: what a comparison by stats goes by (the test fails when there are none). */
export async function headColumns(b: Bench): Promise<TreeColumns> {
  const head = (await b.ws.session.head()).checkpoint?.filesRoot as string;
  const cols = readTreeColumns(cachePath(b.root), head);
  expect(cols?.stats).toBeDefined();
  return cols as TreeColumns;
}

/** The status a fresh Workspace gives with no tree cache to go by (a whole walk); the cache is put back after. */
export async function walkedStatus(b: Bench, options: Omit<WorkspaceOptions, "root"> = {}) {
  const path = cachePath(b.root);
  const kept = readFileSync(path);
  rmSync(path);
  try {
    return await (await b.open(options)).status();
  } finally {
    writeFileSync(path, kept);
  }
}
