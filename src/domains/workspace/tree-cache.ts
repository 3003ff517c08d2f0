// The last snapshot's tree, kept beside the store (.forge/tree-cache.bin) so that a status
// or a snapshot need not read every directory object back from the store (on 10k files,
// ~500 rows to fetch, inflate, verify and parse: ~70 ms). It is used only for the files
// root it records, after checking that root is the one the store's HEAD points at, and
// only if its own checksum holds; otherwise the tree is read from the store as before.
//
// With the tree, the stats the walk that made it saw (as git's index keeps them beside each
// entry): each folder's and file's times, inode and mode, when they were taken, and what
// decided which files the walk took. A status then compares stats alone (quick-status.ts):
// no listing, no ignore rules, no tree built, while nothing but file contents changed.
import { readFileSync } from "node:fs";
import { sha256, type Hash } from "../../objects/hash.js";
import type { DirEntryType } from "../../objects/node.js";
import type { DirInfo, FileInfo, Tree } from "../../objects/file-tree.js";

// Layout (columns, so loading is a few bulk copies):
//   header (48 bytes): "FTC1" or "FTC2", dir count, file count, text bytes (u32 each), and
//                      the SHA-256 of everything after the header
//   the root hash (32 bytes)
//   dirs × mode, then files × (mode, size), as f64 in this machine's byte order (a local file)
//   dirs × 32-byte hash, then files × 32-byte hash (zeros where a file has none)
//   files × type byte
//   text: dir paths, file paths, then the targets of symlinks in file order, each + NUL
// FTC2 adds the walk's stats after the text:
//   taken at (f64), key bytes, secret-file bytes (u32 each), 4 bytes of zeros
//   dirs × (mtimeMs, ctimeMs, ino), then files × (mtimeMs, ctimeMs, ino, st_mode), as f64
//   (NaN where the walk did not stat it: the quick status then walks)
//   the key, then the secret files left out (each + NUL), in UTF-8
const MAGIC = 0x31435446; // "FTC1" little-endian
const MAGIC_STATS = 0x32435446; // "FTC2"
export const HEADER = 48;
const TYPES = "flxu";
/** What the columns hold as the hash of a file kept without content (too large, unreadable). */
export const NO_HASH = "0".repeat(64);
export const DIR_STAT = 3;
export const FILE_STAT = 4;

/** What a full walk saw of the tree it made, written beside it. */
export interface WalkStats {
  /** When the walk began (ms): an entry modified within a second of it is racy. */
  readonly takenAt: number;
  /** What decided which files the walk took (ignore settings and files, git's index): quick-status.ts recomputes it. */
  readonly key: string;
  /** The secret files the walk left out, in walk order. */
  readonly secretFiles: readonly string[];
  /** A folder's [mtimeMs, ctimeMs, ino], if the walk listed it; `i`: its position in the tree's folders. */
  dir(path: string, i: number): readonly number[] | undefined;
  /** A file's [mtimeMs, ctimeMs, ino, st_mode], if the walk saw it with this content; `j`: its position in the tree's files. */
  file(path: string, info: FileInfo, j: number): readonly number[] | undefined;
  /** All of them at once, as written (folders' then files' columns, in the tree's order), when that is cheaper; else undefined. */
  bulk?(tree: Tree): { readonly dirs: Float64Array; readonly files: Float64Array } | undefined;
  /** For a quick walk: the cache it started from and the files it read again (with their place in it), which `writeTreeCache` patches. */
  readonly from?: { readonly cols: TreeColumns; readonly reread: readonly { readonly path: string; readonly j: number }[] };
}

/** The cache file's columns as stored: what a quick status reads without building the tree. */
export interface TreeColumns {
  /** The file's bytes as read. */
  readonly raw: Buffer;
  readonly root: Hash;
  readonly nDirs: number;
  readonly nFiles: number;
  /** Dir paths then file paths (then symlink targets). */
  readonly strings: readonly string[];
  /** Dir modes, then files' (mode, size) pairs. */
  readonly nums: Float64Array;
  /** All hashes, dirs' then files', 64 hex digits each ("0"×64 for none): decoded when first asked. */
  readonly hex: string;
  /** Entry `i`'s hash (dirs then files), decoded alone: what a quick status needs of a few. */
  hashOf(i: number): string;
  /** Files' type letters' char codes. */
  readonly types: Uint8Array;
  readonly stats?: {
    readonly takenAt: number;
    readonly key: string;
    readonly secretFiles: readonly string[];
    readonly dirs: Float64Array;
    readonly files: Float64Array;
  };
}

/** The cache file's bytes for `tree` (with its walk's stats, when given). */
export function encodeTree(root: Hash, tree: Tree, walk: WalkStats | undefined): Buffer {
  // One pass over each map (the snapshot of a 10k-file tree writes this every time).
  const nDirs = tree.dirs.size;
  const nFiles = tree.files.size;
  const nums = new Float64Array(nDirs + 2 * nFiles);
  const paths = new Array<string>(nDirs + nFiles);
  const hashes = new Array<string>(nDirs + nFiles);
  const types = Buffer.alloc(nFiles);
  const targets: string[] = [];
  let i = 0;
  for (const [p, d] of tree.dirs) {
    if (d.hash === undefined || d.hash.length !== 64) throw new Error(`tree cache: directory ${p} has no hash`);
    nums[i] = d.mode;
    paths[i] = p;
    hashes[i] = d.hash;
    i++;
  }
  let j = 0;
  for (const [p, f] of tree.files) {
    if (f.hash !== "" && f.hash.length !== 64) throw new Error(`tree cache: file ${p} has a malformed hash`);
    nums[nDirs + 2 * j] = f.mode;
    nums[nDirs + 2 * j + 1] = f.size;
    paths[nDirs + j] = p;
    hashes[nDirs + j] = f.hash === "" ? NO_HASH : f.hash;
    types[j] = f.type.charCodeAt(0);
    if (f.type === "l") targets.push(f.target ?? "");
    j++;
  }
  const text = Buffer.from(`${paths.join("\0")}\0${targets.length > 0 ? `${targets.join("\0")}\0` : ""}`, "utf8");
  const numsAt = HEADER + 32;
  const hashAt = numsAt + nums.byteLength;
  const typeAt = hashAt + 32 * (nDirs + nFiles);
  const textAt = typeAt + nFiles;
  const statSection = walk === undefined ? undefined : encodeStats(tree, walk);
  const buf = Buffer.allocUnsafe(textAt + text.length + (statSection?.length ?? 0));
  buf.fill(0, 0, HEADER);
  buf.writeUInt32LE(statSection === undefined ? MAGIC : MAGIC_STATS, 0);
  buf.writeUInt32LE(nDirs, 4);
  buf.writeUInt32LE(nFiles, 8);
  buf.writeUInt32LE(text.length, 12);
  buf.write(root, HEADER, 32, "hex");
  Buffer.from(nums.buffer).copy(buf, numsAt);
  // All hashes in one hex decode (each is 64 hex digits): far faster than one write each.
  if (buf.write(hashes.join(""), hashAt, 32 * hashes.length, "hex") !== 32 * hashes.length) throw new Error("tree cache: a hash is not hex");
  types.copy(buf, typeAt);
  text.copy(buf, textAt);
  statSection?.copy(buf, textAt + text.length);
  Buffer.from(sha256(buf.subarray(HEADER)), "hex").copy(buf, 16);
  return buf;
}

function encodeStats(tree: Tree, walk: WalkStats): Buffer {
  const nums = new Float64Array(DIR_STAT * tree.dirs.size + FILE_STAT * tree.files.size);
  const bulk = walk.bulk?.(tree);
  if (bulk !== undefined) {
    nums.set(bulk.dirs, 0);
    nums.set(bulk.files, DIR_STAT * tree.dirs.size);
  } else fillStats(nums, tree, walk);
  return encodeStatsTail(walk, nums);
}

/** The stats entry by entry (NaN where the walk has none). */
function fillStats(nums: Float64Array, tree: Tree, walk: WalkStats): void {
  nums.fill(Number.NaN);
  let i = 0;
  let n = 0;
  for (const p of tree.dirs.keys()) {
    const st = walk.dir(p, n++);
    if (st !== undefined) for (let k = 0; k < DIR_STAT; k++) nums[i + k] = st[k] as number;
    i += DIR_STAT;
  }
  n = 0;
  for (const [p, f] of tree.files) {
    const st = walk.file(p, f, n++);
    if (st !== undefined) for (let k = 0; k < FILE_STAT; k++) nums[i + k] = st[k] as number;
    i += FILE_STAT;
  }
}

function encodeStatsTail(walk: WalkStats, nums: Float64Array): Buffer {
  const key = Buffer.from(walk.key, "utf8");
  const secret = Buffer.from(walk.secretFiles.map((p) => `${p}\0`).join(""), "utf8");
  const out = Buffer.alloc(24 + nums.byteLength + key.length + secret.length);
  out.writeDoubleLE(walk.takenAt, 0);
  out.writeUInt32LE(key.length, 8);
  out.writeUInt32LE(secret.length, 12);
  Buffer.from(nums.buffer).copy(out, 24);
  key.copy(out, 24 + nums.byteLength);
  secret.copy(out, 24 + nums.byteLength + key.length);
  return out;
}

/** The cached tree if the file holds the tree of `root` and is intact; undefined otherwise. */
export function readTreeCache(path: string, root: Hash): Tree | undefined {
  return readCached(path, root)?.tree;
}

/** Whatever tree the file holds, with its root, if it is intact: a base for reading another tree (`readTree`). */
export function readAnyTreeCache(path: string): { root: Hash; tree: Tree } | undefined {
  return readCached(path, undefined);
}

function readCached(path: string, root: Hash | undefined): { root: Hash; tree: Tree } | undefined {
  const c = readTreeColumns(path, root);
  const tree = c && treeFromColumns(c);
  return tree && { root: c.root, tree };
}

const parentsMemo = new WeakMap<TreeColumns, Int32Array>();

/**
 * Each entry's folder, as its place among the columns' folders (folders first, then files;
 * -1 for the root folder, and for an entry whose folder the columns lack). Made once per
 * columns: the passes that want some folders' entries (a quick snapshot, a folder listed
 * again, a quick restore) then compare numbers instead of cutting 10,000 paths each.
 */
export function parentsOf(cols: TreeColumns): Int32Array {
  const known = parentsMemo.get(cols);
  if (known !== undefined) return known;
  const { nDirs, nFiles, strings } = cols;
  const placeOf = new Map<string, number>();
  for (let i = 0; i < nDirs; i++) placeOf.set(strings[i] as string, i);
  const parents = new Int32Array(nDirs + nFiles);
  for (let k = 0; k < nDirs + nFiles; k++) {
    const path = strings[k] as string;
    const slash = path.lastIndexOf("/");
    parents[k] = path === "" ? -1 : (placeOf.get(slash < 0 ? "" : path.slice(0, slash)) ?? -1);
  }
  parentsMemo.set(cols, parents);
  return parents;
}

/**
 * The entries the columns have in folders `dirs` (places of folders): folder → name → place
 * (a file's `j`, a folder's `-1 - i`). One pass over the folder index (`parentsOf`).
 */
export function entriesIn(cols: TreeColumns, dirs: Iterable<number>): Map<number, Map<string, number>> {
  const { nDirs, nFiles } = cols;
  const parents = parentsOf(cols);
  const out = new Map<number, Map<string, number>>();
  for (const i of dirs) out.set(i, new Map());
  for (let k = 0; k < nDirs + nFiles; k++) out.get(parents[k] as number)?.set(nameAt(cols, k), k < nDirs ? -1 - k : k - nDirs);
  return out;
}

const targetsMemo = new WeakMap<TreeColumns, Map<number, string>>();

/** The symlinks' targets by file place (kept after the paths, in file order). */
export function linkTargets(cols: TreeColumns): ReadonlyMap<number, string> {
  let out = targetsMemo.get(cols);
  if (out === undefined) {
    out = new Map();
    const { nDirs, nFiles, strings, types } = cols;
    for (let j = 0, n = 0; j < nFiles; j++) if (types[j] === 0x6c) out.set(j, strings[nDirs + nFiles + n++] as string);
    targetsMemo.set(cols, out);
  }
  return out;
}

/** The last component of entry `k`'s path (folders first, then files). */
export function nameAt(cols: TreeColumns, k: number): string {
  const path = cols.strings[k] as string;
  return path.slice(path.lastIndexOf("/") + 1);
}

/** File `j` of the columns as a tree entry ("" for no hash, as `treeFromColumns` gives it); `target`: a symlink's. */
export function fileEntry(c: TreeColumns, j: number, target?: string): FileInfo {
  const type = String.fromCharCode(c.types[j] as number) as Exclude<DirEntryType, "d">;
  const h = c.hashOf(c.nDirs + j);
  const info = { type, mode: c.nums[c.nDirs + 2 * j] as number, size: c.nums[c.nDirs + 2 * j + 1] as number, hash: h === NO_HASH ? "" : h };
  return target === undefined ? info : { ...info, target };
}

/** The tree the columns hold (its Maps in the columns' order); undefined if they contradict themselves. */
export function treeFromColumns(c: TreeColumns): Tree | undefined {
  const { nDirs, nFiles, strings, nums, hex, types } = c;
  const dirs = new Map<string, DirInfo>();
  for (let i = 0; i < nDirs; i++) dirs.set(strings[i] as string, { mode: nums[i] as number, hash: hex.slice(64 * i, 64 * i + 64) });
  const files = new Map<string, FileInfo>();
  let target = nDirs + nFiles;
  for (let i = 0; i < nFiles; i++) {
    const type = String.fromCharCode(types[i] as number) as Exclude<DirEntryType, "d">;
    const mode = nums[nDirs + 2 * i] as number;
    const size = nums[nDirs + 2 * i + 1] as number;
    let h = hex.slice(64 * (nDirs + i), 64 * (nDirs + i) + 64);
    if (h === NO_HASH) h = "";
    files.set(strings[nDirs + i] as string, type === "l" ? { type, mode, size, hash: h, target: strings[target++] as string } : { type, mode, size, hash: h });
  }
  if (dirs.size !== nDirs || files.size !== nFiles || !dirs.has("")) return undefined;
  return { files, dirs };
}

/** The file's columns if it holds the tree of `root` (any tree when undefined) and is intact. */
export function readTreeColumns(path: string, root: Hash | undefined): TreeColumns | undefined {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
  const magic = buf.length < HEADER + 32 ? 0 : buf.readUInt32LE(0);
  if (magic !== MAGIC && magic !== MAGIC_STATS) return undefined;
  // The root first: a cache of another tree is not worth checking.
  const held = buf.toString("hex", HEADER, HEADER + 32);
  if (root !== undefined && held !== root) return undefined;
  const nDirs = buf.readUInt32LE(4);
  const nFiles = buf.readUInt32LE(8);
  const textBytes = buf.readUInt32LE(12);
  const numsAt = HEADER + 32;
  const hashAt = numsAt + 8 * (nDirs + 2 * nFiles);
  const typeAt = hashAt + 32 * (nDirs + nFiles);
  const textAt = typeAt + nFiles;
  const statAt = textAt + textBytes;
  const statNums = DIR_STAT * nDirs + FILE_STAT * nFiles;
  if (magic === MAGIC ? buf.length !== statAt : buf.length < statAt + 24 + 8 * statNums) return undefined;
  const keyAt = statAt + 24 + 8 * statNums;
  const secretAt = magic === MAGIC ? 0 : keyAt + buf.readUInt32LE(statAt + 8);
  if (magic === MAGIC_STATS && buf.length !== secretAt + buf.readUInt32LE(statAt + 12)) return undefined;
  if (sha256(buf.subarray(HEADER)) !== buf.toString("hex", 16, 48)) return undefined;

  const nums = new Float64Array(buf.buffer.slice(buf.byteOffset + numsAt, buf.byteOffset + hashAt));
  let hex: string | undefined;
  const types = buf.subarray(typeAt, textAt);
  const strings = buf.toString("utf8", textAt, statAt).split("\0");
  let links = 0;
  for (let i = 0; i < nFiles; i++) {
    if (!TYPES.includes(String.fromCharCode(types[i] as number))) return undefined;
    if (types[i] === 0x6c) links++;
  }
  if (strings.pop() !== "" || strings.length !== nDirs + nFiles + links) return undefined;
  let stats: TreeColumns["stats"];
  if (magic === MAGIC_STATS) {
    const all = new Float64Array(buf.buffer.slice(buf.byteOffset + statAt + 24, buf.byteOffset + keyAt));
    const secretFiles = buf.toString("utf8", secretAt).split("\0");
    if (secretFiles.pop() !== "") return undefined;
    stats = {
      takenAt: buf.readDoubleLE(statAt),
      key: buf.toString("utf8", keyAt, secretAt),
      secretFiles,
      dirs: all.subarray(0, DIR_STAT * nDirs),
      files: all.subarray(DIR_STAT * nDirs),
    };
  }
  return {
    raw: buf,
    root: held,
    nDirs,
    nFiles,
    strings,
    nums,
    get hex() {
      return (hex ??= buf.toString("hex", hashAt, typeAt));
    },
    hashOf: (i) => buf.toString("hex", hashAt + 32 * i, hashAt + 32 * i + 32),
    types,
    ...(stats && { stats }),
  };
}
