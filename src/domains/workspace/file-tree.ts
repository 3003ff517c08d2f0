// Walking a directory into a flat map of files, hashing what changed, and turning the map
// into directory objects (and back). Paths are relative to the root, "/"-separated.
import { lstatSync, readFileSync, readdirSync, readlinkSync, type Stats } from "node:fs";
import { join } from "node:path";
import { ForgeError } from "../../core/errors.js";
import { sha256, type Hash } from "../../objects/hash.js";
import { blobRaw, dirNodeText, fileChunksText, type ChunkEntry, type DirEntry, type DirEntryType } from "../../objects/node.js";
import type { ObjectStore } from "../../objects/object-store.js";
import { chunkBoundaries } from "./cdc.js";
import type { IgnoreRules } from "./ignore-rules.js";
import type { StatCache, StatSignature } from "./stat-cache.js";

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

export interface Tree {
  readonly files: Map<string, FileInfo>;
  /** Every directory, empty ones included ("" is the root). */
  readonly dirs: Map<string, { mode: number }>;
}

export interface ScanOptions {
  readonly root: string;
  readonly ignore: IgnoreRules;
  readonly cache: StatCache;
  /** Files bigger than this are listed as too large, not stored. */
  readonly maxFileBytes: number;
}

/** A file the walk found whose content must be read (its stat is not in the cache). */
export interface Pending {
  readonly path: string;
  readonly st: StatSignature;
  readonly mode: number;
}

export interface Scan {
  readonly tree: Tree;
  /** Files to read and hash. */
  readonly pending: Pending[];
  /** Files that could not be read: path → why. */
  readonly unreadable: Map<string, string>;
}

const NAME_OK = (name: string) => name !== "" && name !== "." && name !== ".." && !name.includes("/") && !name.includes("\0");

/**
 * Walks the tree. Unchanged files (by the stat cache) get their hash at once; the others
 * are listed as pending. Directories and files that cannot be read are reported, not skipped.
 */
export function scanTree(options: ScanOptions): Scan {
  const { root, ignore, cache, maxFileBytes } = options;
  const files = new Map<string, FileInfo>();
  const dirs = new Map<string, { mode: number }>();
  const pending: Pending[] = [];
  const unreadable = new Map<string, string>();
  const walk = (dir: string, mode: number, size: number) => {
    let names: string[];
    try {
      names = readdirSync(dir === "" ? root : join(root, dir));
    } catch (e) {
      const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      if (dir === "") throw new ForgeError("INVALID_ARGUMENT", `cannot read the workspace folder ${root}: ${why}`);
      // Recorded as unreadable, not as empty: a restore must leave whatever is in it alone.
      unreadable.set(dir, why);
      files.set(dir, { type: "u", mode, size, hash: "" });
      return;
    }
    dirs.set(dir, { mode });
    if (dir !== "") ignore.enter(dir, names);
    names.sort();
    const base = dir === "" ? `${root}/` : `${root}/${dir}/`;
    for (const name of names) {
      const path = dir === "" ? name : `${dir}/${name}`;
      let st: Stats;
      try {
        st = lstatSync(base + name);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") continue; // removed while we walked
        unreadable.set(path, (e as NodeJS.ErrnoException).code ?? (e as Error).message);
        continue;
      }
      const isDir = st.isDirectory();
      if (ignore.ignores(path, isDir)) continue;
      const perm = st.mode & 0o777;
      if (isDir) {
        walk(path, perm, st.size);
        ignore.leave(path);
      } else if (st.isSymbolicLink()) {
        let target: string;
        try {
          target = readlinkSync(base + name);
        } catch (e) {
          unreadable.set(path, (e as NodeJS.ErrnoException).code ?? (e as Error).message);
          files.set(path, { type: "u", mode: perm, size: st.size, hash: "" });
          continue;
        }
        files.set(path, { type: "l", mode: perm, size: st.size, hash: "", target });
      } else if (st.isFile()) {
        if (st.size > maxFileBytes) {
          files.set(path, { type: "x", mode: perm, size: st.size, hash: "" });
          continue;
        }
        const sig: StatSignature = { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, mode: st.mode };
        const cached = cache.get(path, sig);
        if (cached !== undefined) files.set(path, { type: "f", mode: perm, size: st.size, hash: cached });
        else pending.push({ path, st: sig, mode: perm });
      }
      // Sockets, FIFOs and devices are not files an agent edits: left out.
    }
  };
  const rootSt = lstatSync(root);
  walk("", rootSt.mode & 0o777, 0);
  return { tree: { files, dirs }, pending, unreadable };
}

/**
 * The objects one file becomes: its root hash and every raw object (one blob, or chunks and
 * an `f` node when it is larger than `chunkAbove`).
 */
export function fileObjects(data: Buffer, chunkAbove = BIG_FILE): { hash: Hash; objects: Map<Hash, Buffer> } {
  const objects = new Map<Hash, Buffer>();
  if (data.length <= chunkAbove) {
    const raw = blobRaw(data);
    const hash = sha256(raw);
    objects.set(hash, raw);
    return { hash, objects };
  }
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
 * Reads and hashes the pending files, in batches; `store`, if given, gets their objects
 * (only those it lacks are written). A file that vanished meanwhile is dropped; one that
 * cannot be read is recorded as unreadable.
 */
export async function hashPending(
  scan: Scan,
  root: string,
  cache: StatCache,
  store: ObjectStore | undefined,
  onProgress?: (done: number, total: number) => void,
): Promise<{ newBytes: number; newObjects: number }> {
  let newBytes = 0;
  let newObjects = 0;
  let batch = new Map<Hash, Buffer>();
  let batchBytes = 0;
  // Batches are compressed (on the thread pool) and stored while the next one is read and
  // hashed; at most two are in flight, so memory stays bounded.
  const inFlight: Promise<void>[] = [];
  const flush = async () => {
    if (store && batch.size > 0) {
      const full = batch;
      inFlight.push(
        store.putRaw(full, "fast").then((w) => {
          newBytes += w.newBytes;
          newObjects += w.newObjects;
        }),
      );
      if (inFlight.length >= 2) await inFlight.shift();
    }
    batch = new Map();
    batchBytes = 0;
  };
  let done = 0;
  for (const p of scan.pending) {
    let data: Buffer;
    try {
      data = readFileSync(join(root, p.path));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT") continue;
      scan.unreadable.set(p.path, code ?? (e as Error).message);
      scan.tree.files.set(p.path, { type: "u", mode: p.mode, size: p.st.size, hash: "" });
      continue;
    }
    const { hash, objects } = fileObjects(data);
    scan.tree.files.set(p.path, { type: "f", mode: p.mode, size: data.length, hash });
    // The stat read before the file; if it changed while we read, do not trust it next time.
    if (data.length === p.st.size) cache.set(p.path, p.st, hash);
    if (store) {
      for (const [h, raw] of objects) {
        batch.set(h, raw);
        batchBytes += raw.length;
      }
      if (batchBytes > 8 * 1024 * 1024 || batch.size > 1000) await flush();
    }
    onProgress?.(++done, scan.pending.length);
  }
  await flush();
  await Promise.all(inFlight);
  return { newBytes, newObjects };
}

/** Directory objects for a tree, bottom-up; returns the root's hash and the raw objects. */
export function buildTree(tree: Tree): { root: Hash; objects: Map<Hash, Buffer> } {
  const children = new Map<string, DirEntry[]>();
  for (const dir of tree.dirs.keys()) children.set(dir, []);
  const parentOf = (path: string) => {
    const i = path.lastIndexOf("/");
    return { parent: i < 0 ? "" : path.slice(0, i), name: i < 0 ? path : path.slice(i + 1) };
  };
  for (const [path, f] of tree.files) {
    const { parent, name } = parentOf(path);
    const list = children.get(parent);
    if (!list) throw new ForgeError("INVALID_STATE", `file ${path} has no directory in the tree`);
    list.push(f.type === "l" ? [f.hash, name, f.type, f.mode, f.size, f.target ?? ""] : [f.hash, name, f.type, f.mode, f.size]);
  }
  const objects = new Map<Hash, Buffer>();
  const hashes = new Map<string, Hash>();
  // Deepest first, so every subdirectory's hash is known before its parent is built.
  const dirs = [...tree.dirs.keys()].sort((a, b) => depth(b) - depth(a) || (a < b ? -1 : 1));
  for (const dir of dirs) {
    const entries = children.get(dir) as DirEntry[];
    entries.sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    const raw = Buffer.from(dirNodeText(entries));
    const hash = sha256(raw);
    objects.set(hash, raw);
    hashes.set(dir, hash);
    if (dir !== "") {
      const { parent, name } = parentOf(dir);
      const list = children.get(parent);
      if (!list) throw new ForgeError("INVALID_STATE", `directory ${dir} has no parent in the tree`);
      list.push([hash, name, "d", tree.dirs.get(dir)?.mode ?? 0o755, 0]);
    }
  }
  return { root: hashes.get("") as Hash, objects };
}

function depth(path: string): number {
  if (path === "") return 0;
  let n = 1;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
}

/**
 * The tree a stored root describes (directories only are read). Names that could escape
 * the root — "..", ".", "", anything with "/" or NUL — make it an error: a crafted
 * snapshot must never steer a restore outside its folder.
 */
export async function readTree(objects: ObjectStore, root: Hash): Promise<Tree> {
  const files = new Map<string, FileInfo>();
  const dirs = new Map<string, { mode: number }>();
  let level: [string, Hash, number][] = [["", root, 0o755]];
  while (level.length > 0) {
    const nodes = await objects.getNodes(level.map((l) => l[1]));
    const next: [string, Hash, number][] = [];
    for (const [dir, hash, mode] of level) {
      const node = nodes.get(hash);
      if (!node || node.kind !== "d") throw new ForgeError("CORRUPT_OBJECT", `object ${hash} should be a directory of the snapshot but is not`);
      dirs.set(dir, { mode });
      for (const [h, name, type, m, size, target] of node.entries) {
        if (!NAME_OK(name)) {
          throw new ForgeError("PATH_OUTSIDE_WORKSPACE", `the snapshot has an unsafe name ${JSON.stringify(name)} in ${dir === "" ? "its root" : dir}`, {
            hint: "it was crafted or damaged; nothing was written",
          });
        }
        const path = dir === "" ? name : `${dir}/${name}`;
        if (type === "d") next.push([path, h, m]);
        else files.set(path, type === "l" ? { type, mode: m, size, hash: h, target: target ?? "" } : { type, mode: m, size, hash: h });
      }
    }
    level = next;
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
      if (!c || c.kind !== "b") throw new ForgeError("CORRUPT_OBJECT", `object ${h} should be a chunk of a file but is not`);
      return c.data;
    }),
  );
}
