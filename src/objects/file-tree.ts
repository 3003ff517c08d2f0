// Files trees as objects: a file's bytes as one blob or content-defined chunks under an `f`
// node, folders as `d` nodes (built bottom-up, reusing an earlier tree's folders where
// nothing in them changed), and the way back from a stored root to the tree and a file's
// bytes. Paths are relative to the tree's root, "/"-separated. Pure: no file system.
import { ForgeError } from "../core/errors.js";
import { chunkBoundaries } from "./cdc.js";
import { sha256, type Hash } from "./hash.js";
import { blobRaw, dirNodeText, fileChunksText, type ChunkEntry, type DirEntry, type DirEntryType } from "./node.js";
import type { ObjectStore } from "./object-store.js";

/** Files up to this size are one object; bigger ones are cut into content-defined chunks. */
export const BIG_FILE = 1024 * 1024;

export interface FileInfo {
  /** f file, l symlink, x too large (not stored), u unreadable (not stored). */
  readonly type: Exclude<DirEntryType, "d">;
  readonly mode: number;
  readonly size: number;
  /** Hash of the file's `b` or `f` object; "" for symlinks and files not stored. */
  readonly hash: Hash;
  /** A symlink's target. */
  readonly target?: string;
}

/** A file's identity for comparison: its content hash, or a symlink's target. */
export function fileKey(f: FileInfo): string {
  return f.type === "l" ? `l:${f.target ?? ""}` : f.type === "f" ? f.hash : `${f.type}:${f.size}`;
}

export interface DirInfo {
  readonly mode: number;
  /**
   * The hash of the directory's object, when known: set on trees read from the store and by
   * `buildTree`. A later `buildTree` against this tree reuses it for a directory in which
   * nothing changed.
   */
  readonly hash?: Hash;
}

export interface Tree {
  readonly files: Map<string, FileInfo>;
  /** Every directory, empty ones included ("" is the root). */
  readonly dirs: Map<string, DirInfo>;
}

/**
 * The objects one file becomes: its root hash and every raw object (one blob, or chunks and
 * an `f` node when it is larger than `chunkAbove`).
 */
export function fileObjects(data: Buffer, chunkAbove = BIG_FILE): { hash: Hash; objects: Map<Hash, Buffer> } {
  return data.length <= chunkAbove ? oneBlob(blobRaw(data)) : chunked(data);
}

/** `fileObjects` for a file's bytes already read as a blob (`b` then the bytes). */
export function blobObjects(blob: Buffer): { hash: Hash; objects: Map<Hash, Buffer> } {
  return blob.length - 1 <= BIG_FILE ? oneBlob(blob) : chunked(blob.subarray(1));
}

function oneBlob(blob: Buffer): { hash: Hash; objects: Map<Hash, Buffer> } {
  const hash = sha256(blob);
  return { hash, objects: new Map([[hash, blob]]) };
}

function chunked(data: Buffer): { hash: Hash; objects: Map<Hash, Buffer> } {
  const objects = new Map<Hash, Buffer>();
  const entries: ChunkEntry[] = [];
  let start = 0;
  for (const end of chunkBoundaries(data)) {
    const raw = blobRaw(data.subarray(start, end));
    const h = sha256(raw);
    objects.set(h, raw);
    entries.push([h, end - start]);
    start = end;
  }
  const raw = Buffer.from(fileChunksText(entries));
  const hash = sha256(raw);
  objects.set(hash, raw);
  return { hash, objects };
}

/**
 * Directory objects for a tree, bottom-up; returns the root's hash and the raw objects of
 * the directories it had to encode, and records every directory's hash in `tree.dirs`.
 *
 * With `base` (a tree whose directories carry their hashes, and whose objects are stored —
 * the last snapshot), a directory in which nothing changed at any depth keeps its hash
 * from `base` without being encoded and hashed again: its object would be byte for byte
 * the same. A snapshot after an edit deep in the tree so encodes only the folders on the
 * path to it. With `changed` (every file whose entry may differ from `base`'s, the two
 * having the same folders and the same other files), those folders are found without
 * comparing every file.
 */
export function buildTree(tree: Tree, base: Tree | null = null, changed?: readonly string[]): { root: Hash; objects: Map<Hash, Buffer> } {
  const dirty = base ? (changed === undefined ? changedDirs(tree, base) : dirsAbove(changed)) : null;
  const kept = (dir: string): Hash | undefined => (base && dirty && !dirty.has(dir) ? base.dirs.get(dir)?.hash : undefined);
  const children = new Map<string, DirEntry[]>();
  for (const dir of tree.dirs.keys()) children.set(dir, []);
  // Files come folder by folder (walk order): the last file's folder is looked up once, not per file.
  let lastParent: string | null = null;
  let list: DirEntry[] | undefined;
  for (const [path, f] of tree.files) {
    const i = path.lastIndexOf("/");
    if (lastParent === null || i !== lastParent.length || (i > 0 && !path.startsWith(lastParent))) {
      lastParent = i < 0 ? "" : path.slice(0, i);
      list = children.get(lastParent);
      if (!list) throw new ForgeError("INVALID_STATE", `file ${path} has no directory in the tree`);
      if (dirty !== null && !dirty.has(lastParent)) list = undefined; // its folder is kept as it was
    }
    if (list === undefined) continue;
    const name = i < 0 ? path : path.slice(i + 1);
    list.push(f.type === "l" ? [f.hash, name, f.type, f.mode, f.size, f.target ?? ""] : [f.hash, name, f.type, f.mode, f.size]);
  }
  const objects = new Map<Hash, Buffer>();
  // Deepest first, so every subdirectory's hash is known before its parent is built.
  const dirs = [...tree.dirs.keys()].sort((a, b) => depth(b) - depth(a) || (a < b ? -1 : 1));
  for (const dir of dirs) {
    const mode = tree.dirs.get(dir)?.mode ?? 0o755;
    let hash = kept(dir);
    if (hash === undefined) {
      const entries = children.get(dir) as DirEntry[];
      entries.sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
      const raw = Buffer.from(dirNodeText(entries));
      hash = sha256(raw);
      objects.set(hash, raw);
    }
    tree.dirs.set(dir, { mode, hash });
    if (dir !== "") {
      const i = dir.lastIndexOf("/");
      const parent = i < 0 ? "" : dir.slice(0, i);
      const list = children.get(parent);
      if (!list) throw new ForgeError("INVALID_STATE", `directory ${dir} has no parent in the tree`);
      list.push([hash, i < 0 ? dir : dir.slice(i + 1), "d", mode, 0]);
    }
  }
  return { root: tree.dirs.get("")?.hash as Hash, objects };
}

/**
 * The directories of `tree` whose object can differ from `base`'s: every directory above a
 * file that was added, removed or changed (content, type, mode, size, link target), above
 * a directory added, removed or with another mode, and every directory `base` has no hash
 * for. A directory that is not listed has exactly `base`'s entries, and so its object.
 */
function changedDirs(tree: Tree, base: Tree): Set<string> {
  const dirty = new Set<string>();
  // Marks every directory above `path`. Whenever a directory is in the set its parents are
  // too, so the climb stops at the first one already there.
  const above = (path: string) => {
    let p = path;
    while (p !== "") {
      const i = p.lastIndexOf("/");
      p = i < 0 ? "" : p.slice(0, i);
      if (dirty.has(p)) return;
      dirty.add(p);
    }
  };
  let met = 0;
  for (const [path, f] of tree.files) {
    const b = base.files.get(path);
    if (b) met++;
    if (!b || b.type !== f.type || b.hash !== f.hash || b.mode !== f.mode || b.size !== f.size || (b.target ?? "") !== (f.target ?? "")) above(path);
  }
  // Every file of `base` met above: none is gone, and no pass is needed to find one.
  if (met !== base.files.size) for (const path of base.files.keys()) if (!tree.files.has(path)) above(path);
  for (const [dir, d] of tree.dirs) {
    const b = base.dirs.get(dir);
    if (!b || b.hash === undefined) {
      if (!dirty.has(dir)) {
        dirty.add(dir);
        above(dir);
      }
    } else if (b.mode !== d.mode) above(dir); // a folder's mode is in its parent's entry
  }
  for (const dir of base.dirs.keys()) if (!tree.dirs.has(dir)) above(dir);
  return dirty;
}

/** Every directory above the paths: `changedDirs` when they are all that differ (the same files and folders otherwise). */
function dirsAbove(paths: readonly string[]): Set<string> {
  const dirty = new Set<string>();
  for (const path of paths) {
    for (let p = path; p !== ""; ) {
      const i = p.lastIndexOf("/");
      p = i < 0 ? "" : p.slice(0, i);
      if (dirty.has(p)) break;
      dirty.add(p);
    }
  }
  return dirty;
}

function depth(path: string): number {
  if (path === "") return 0;
  let n = 1;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
}

/**
 * The tree a stored root describes (directories only are read). Every folder object was
 * checked when it was parsed (parseNode): names that could escape the root — "..", ".", "",
 * anything with "/" or NUL — and one name listed twice are refused there, naming the entry.
 * With `base` (a tree whose folders carry the hashes of their objects, as `buildTree`, a
 * stored tree and the tree cache give them), a folder whose object `base` has at the same
 * path is not read: its content is `base`'s.
 */
export async function readTree(objects: ObjectStore, root: Hash, base?: Tree): Promise<Tree> {
  if (base !== undefined && base.dirs.get("")?.hash === root) return { files: new Map(base.files), dirs: new Map(base.dirs) };
  const files = new Map<string, FileInfo>();
  const dirs = new Map<string, DirInfo>();
  // Folders whose object is the one `base` has at the same path: the same object holds the
  // same entries at every depth, so everything under it is taken from `base`, not read.
  const reused = new Set<string>();
  let level: [string, Hash, number][] = [["", root, 0o755]];
  while (level.length > 0) {
    const wanted = level.filter(([dir, hash]) => base?.dirs.get(dir)?.hash !== hash || (reused.add(dir), false));
    const nodes = await objects.getNodes(wanted.map((l) => l[1]));
    const next: [string, Hash, number][] = [];
    for (const [dir, hash, mode] of level) {
      dirs.set(dir, { mode, hash });
      if (reused.has(dir)) continue;
      const node = nodes.get(hash);
      if (node?.kind !== "d") throw new ForgeError("CORRUPT_OBJECT", `object ${hash} should be a directory of the snapshot but is not`);
      for (const [h, name, type, m, size, target] of node.entries) {
        const path = dir === "" ? name : `${dir}/${name}`;
        if (type === "d") next.push([path, h, m]);
        else files.set(path, type === "l" ? { type, mode: m, size, hash: h, target: target ?? "" } : { type, mode: m, size, hash: h });
      }
    }
    level = next;
  }
  if (base !== undefined && reused.size > 0) {
    const under = (path: string): boolean => {
      for (let i = path.lastIndexOf("/"); i > 0; i = path.lastIndexOf("/", i - 1)) if (reused.has(path.slice(0, i))) return true;
      return false;
    };
    for (const [path, d] of base.dirs) if (!dirs.has(path) && under(path)) dirs.set(path, d);
    for (const [path, f] of base.files) if (under(path)) files.set(path, f);
  }
  return { files, dirs };
}

/** The bytes of a stored file (its blob, or its chunks in order). */
export async function readFileObject(objects: ObjectStore, hash: Hash): Promise<Buffer> {
  const node = await objects.getNode(hash);
  if (node.kind === "b") return node.data;
  if (node.kind !== "f") throw new ForgeError("CORRUPT_OBJECT", `object ${hash} should hold a file's bytes but does not`);
  const chunks = await objects.getNodes(node.entries.map((e) => e[0]));
  return Buffer.concat(
    node.entries.map(([h]) => {
      const c = chunks.get(h);
      if (c?.kind !== "b") throw new ForgeError("CORRUPT_OBJECT", `object ${h} should be a chunk of a file but is not`);
      return c.data;
    }),
  );
}
