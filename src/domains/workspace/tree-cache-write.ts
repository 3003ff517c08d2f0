// Writing the tree cache (tree-cache.ts has its layout and reads it): whole, from a walk's
// tree; or, after a quick snapshot, as the bytes it was read as with what changed patched in
// place — and reshaped by the files, symlinks and folders new or gone when folders listed
// again held or lost some.
import { isAscii } from "node:buffer";
import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { FileInfo, Tree } from "../../objects/file-tree.js";
import { sha256, sha256Edited, type Hash } from "../../objects/hash.js";
import { DIR_STAT, FILE_STAT, HEADER, encodeTree, type TreeColumns, type WalkStats } from "./tree-cache.js";

export function writeTreeCache(path: string, root: Hash, tree: Tree, walk?: WalkStats): void {
  const from = walk?.from;
  const edits = from && patched(from.cols, from.reread, root, tree, walk);
  if (from && edits) writeEdited(path, from.cols.raw, edits);
  else writeWhole(path, encodeTree(root, tree, walk));
}

/**
 * Writes `buf` as the cache file whole: over the old file's bytes where there is one (as
 * `patchInPlace` writes, and as safe: every reader checks the checksum), else a new file
 * renamed into place. Not a new file renamed over the old: ext4 flushes a file renamed over
 * another before the rename returns (~1.5–2 ms of a hook after a file was created or deleted).
 */
function writeWhole(path: string, buf: Buffer): void {
  if (overwrite(path, buf)) return;
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, buf);
  renameSync(tmp, path);
}

/** `edits` made to the cache file that held `was`: in place where it still can be, else the edited bytes written whole. */
function writeEdited(path: string, was: Buffer, edits: readonly Edit[]): void {
  if (patchInPlace(path, was, edits)) return;
  const buf = Buffer.from(was);
  for (const [at, bytes] of edits) buf.set(bytes, at);
  writeWhole(path, buf);
}

/** A change to a cache file's bytes: these bytes at this offset. */
export type Edit = readonly [at: number, bytes: Uint8Array];

/**
 * Writes `edits` (in offset order, not overlapping) into the file at `path`, which held
 * `was`, those to the header (its checksum) last: a quick snapshot of a few files changes a
 * few hundred bytes of ~1 MB, and writing them costs ~0.1 ms, where copying the bytes and
 * writing a new file renamed over the old one cost ~7 ms (the copy's fresh pages, and ext4
 * flushing a file renamed over another). False, with nothing written, when the file is gone
 * or of another size (it is then written whole).
 *
 * Safe without a lock because every reader checks the checksum over all the bytes: a reader
 * that reads in the middle of the writes, a write cut short by a crash, or a file another
 * process changed meanwhile (its bytes then mix two trees) all fail the check, and the tree
 * is read from the store as when there is no cache, until a snapshot writes it whole again.
 */
export function patchInPlace(path: string, was: Buffer, edits: readonly Edit[]): boolean {
  return inPlace(path, (fd) => {
    if (fstatSync(fd).size !== was.length) return false;
    writeEdits(fd, edits);
    return true;
  });
}

/** `buf` written over the file at `path` as `patchInPlace` writes: after the header, its length, the header (the checksum) last. False when there is no such file. */
function overwrite(path: string, buf: Buffer): boolean {
  return inPlace(path, (fd) => {
    writeEdits(fd, [[HEADER, buf.subarray(HEADER)]]);
    if (fstatSync(fd).size > buf.length) ftruncateSync(fd, buf.length);
    writeEdits(fd, [[0, buf.subarray(0, HEADER)]]);
    return true;
  });
}

/** `write` on the file at `path` opened for writing in place; false when it cannot be opened. */
function inPlace(path: string, write: (fd: number) => boolean): boolean {
  let fd: number;
  try {
    fd = openSync(path, "r+");
  } catch {
    return false;
  }
  try {
    return write(fd);
  } finally {
    closeSync(fd);
  }
}

/** `edits` written into the file, those past the header first and those to it (the checksum) last. */
function writeEdits(fd: number, edits: readonly Edit[]): void {
  for (const [at, bytes] of edits) if (at >= HEADER) writeAll(fd, bytes, at);
  for (const [at, bytes] of edits) if (at < HEADER) writeAll(fd, bytes, at);
}

function writeAll(fd: number, bytes: Uint8Array, at: number): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, at + done);
}

/**
 * The cache of `tree` made from the one it was read from (a quick walk's: the same entries in
 * the same order, only the files in `reread` and the folders' hashes changed): the old bytes
 * with those patched, instead of every entry encoded again. Undefined when the tree is not
 * such a one.
 */
function patched(
  cols: TreeColumns,
  reread: readonly { readonly path: string; readonly j: number }[],
  root: Hash,
  tree: Tree,
  walk: WalkStats,
): Edit[] | undefined {
  const bulk = walk.bulk?.(tree); // checks the entries and their order
  if (bulk === undefined || tree.dirs.size !== cols.nDirs || tree.files.size !== cols.nFiles) return undefined;
  const dirHashes: Hash[] = [];
  for (const d of tree.dirs.values()) {
    if (d.hash === undefined) return undefined;
    dirHashes.push(d.hash);
  }
  const files: { j: number; info: FileInfo }[] = [];
  for (const { path, j } of reread) {
    const info = tree.files.get(path);
    if (cols.strings[cols.nDirs + j] !== path || info === undefined) return undefined;
    files.push({ j, info });
  }
  const edits = patchEdits(cols, { root, dirHashes, files, takenAt: walk.takenAt, dirStats: bulk.dirs, fileStats: bulk.files });
  return edits && withChecksum(cols.raw, edits);
}

/** What changes in a cache's bytes from one quick snapshot to the next: the same entries in the same order, but for those added and removed. */
export interface CachePatch {
  readonly root: Hash;
  /** Every folder's hash, in the columns' order. */
  readonly dirHashes: readonly Hash[];
  /** The files read again (regular files, as they were): their place in the columns and what they hold now. */
  readonly files: readonly { readonly j: number; readonly info: FileInfo }[];
  readonly takenAt: number;
  readonly dirStats: Float64Array;
  readonly fileStats: Float64Array;
  /** New regular files and symlinks (their targets in `info`), appended after the others, with their stats ([mtimeMs, ctimeMs, ino, st_mode], NaN if unknown). */
  readonly added?: readonly { readonly path: string; readonly info: FileInfo; readonly stats: readonly number[] }[];
  /** Files (by place) gone: left out of the columns. */
  readonly removed?: readonly number[];
  /** Folders (by place) gone, and every folder in them: left out of the columns (their files are among `removed`). */
  readonly removedDirs?: readonly number[];
  /** New folders (each above those in it), appended after the others: mode, stats ([mtimeMs, ctimeMs, ino]) and hash. */
  readonly addedDirs?: readonly { readonly path: string; readonly mode: number; readonly stats: readonly number[]; readonly hash: Hash }[];
}

/** The edits that make `cols`' bytes hold `patch`, in offset order, the checksum aside (`withChecksum`); undefined when the patch does not fit them. */
function patchEdits(cols: TreeColumns, patch: CachePatch): Edit[] | undefined {
  const { nDirs, nFiles, raw } = cols;
  const old = cols.stats;
  if (old === undefined || patch.dirHashes.length !== nDirs) return undefined;
  if (patch.dirStats.length !== DIR_STAT * nDirs || patch.fileStats.length !== FILE_STAT * nFiles) return undefined;
  const numsAt = HEADER + 32;
  const hashAt = numsAt + 8 * (nDirs + 2 * nFiles);
  const typeAt = hashAt + 32 * (nDirs + nFiles);
  const statAt = typeAt + nFiles + raw.readUInt32LE(12);
  const edits: Edit[] = [];
  // Only bytes that differ: a folder's hash or a stat that stayed the same is not written.
  const put = (at: number, bytes: Uint8Array) => {
    if (raw.compare(bytes, 0, bytes.length, at, at + bytes.length) !== 0) edits.push([at, bytes]);
  };
  const hashBytes = (h: Hash) => {
    const b = Buffer.from(h, "hex");
    return b.length === 32 ? b : undefined;
  };
  const root = hashBytes(patch.root);
  if (root === undefined) return undefined;
  put(HEADER, root);
  for (let i = 0; i < nDirs; i++) {
    const b = hashBytes(patch.dirHashes[i] as string);
    if (b === undefined) return undefined;
    put(hashAt + 32 * i, b);
  }
  for (const { j, info: f } of patch.files) {
    const b = hashBytes(f.hash);
    if (f.type !== "f" || raw[typeAt + j] !== 0x66 || b === undefined) return undefined;
    put(numsAt + 8 * (nDirs + 2 * j), doubles([f.mode, f.size]));
    put(hashAt + 32 * (nDirs + j), b);
  }
  put(statAt, doubles([patch.takenAt]));
  // The folders' stats all (a few hundred numbers); the files' only where a file was read again (nowhere else do they change).
  statEdits(edits, old.dirs, patch.dirStats, statAt + 24, 0, patch.dirStats.length);
  for (const { j } of patch.files) statEdits(edits, old.files, patch.fileStats, statAt + 24 + 8 * DIR_STAT * nDirs, j * FILE_STAT, (j + 1) * FILE_STAT);
  edits.sort((a, b) => a[0] - b[0]);
  return edits;
}

/** `edits` of the bytes `raw` (in offset order), with the checksum of the bytes they make last. */
function withChecksum(raw: Buffer, edits: Edit[]): Edit[] {
  edits.push([16, Buffer.from(sha256Edited(raw, HEADER, edits), "hex")]);
  return edits;
}

/** Little-endian doubles, as the cache keeps its numbers. */
function doubles(values: readonly number[]): Buffer {
  const b = Buffer.alloc(8 * values.length);
  for (let k = 0; k < values.length; k++) b.writeDoubleLE(values[k] as number, 8 * k);
  return b;
}

/** An edit for each run of numbers of `now` in [from, to) that differ from `was` (NaN equal to NaN), the numbers starting at byte `at`. */
function statEdits(edits: Edit[], was: Float64Array, now: Float64Array, at: number, from: number, to: number): void {
  const same = (k: number) => Object.is(was[k], now[k]);
  for (let k = from; k < to; k++) {
    if (same(k)) continue;
    let end = k + 1;
    while (end < to && !same(end)) end++;
    edits.push([at + 8 * k, doubles(Array.from(now.subarray(k, end)))]);
    k = end;
  }
}

/**
 * Writes the cache of a quick snapshot (quick-snapshot.ts): `cols`, as read from `path`,
 * patched — and reshaped by the files new or gone, which then writes the file whole; false
 * when the patch does not fit them (nothing written).
 */
export function writePatchedTreeCache(path: string, cols: TreeColumns, patch: CachePatch): boolean {
  const edits = patchEdits(cols, patch);
  if (edits === undefined) return false;
  const added = patch.added ?? [];
  const removed = patch.removed ?? [];
  const dirs = patch.addedDirs ?? [];
  const goneDirs = patch.removedDirs ?? [];
  if (added.length === 0 && removed.length === 0 && dirs.length === 0 && goneDirs.length === 0) writeEdited(path, cols.raw, withChecksum(cols.raw, edits));
  else {
    // Reshaped, the bytes are hashed whole (their checksum of the edits alone would be hashing ~1 MB for nothing).
    const reshaped = reshapedBytes(cols, edits, added, removed, dirs, goneDirs);
    if (reshaped === undefined) return false;
    writeWhole(path, reshaped);
  }
  return true;
}

/**
 * The cache bytes of `cols` with `edits` made (their checksum aside), the files at places
 * `removed` left out and the `added` files appended: each files' column copied but for the
 * entries removed, with the new entries after its own, and the checksum computed again.
 * Undefined when the text does not hold the paths its counts say, or a new entry cannot be
 * encoded.
 */
function reshapedBytes(
  cols: TreeColumns,
  edits: readonly Edit[],
  added: NonNullable<CachePatch["added"]>,
  removed: readonly number[],
  dirs: NonNullable<CachePatch["addedDirs"]>,
  goneDirs: readonly number[] = [],
): Buffer | undefined {
  const { nDirs, nFiles } = cols;
  const was = Buffer.from(cols.raw);
  for (const [at, bytes] of edits) if (at >= HEADER) was.set(bytes, at);
  const k = added.length;
  const numsAt = HEADER + 32;
  const hashAt = numsAt + 8 * (nDirs + 2 * nFiles);
  const typeAt = hashAt + 32 * (nDirs + nFiles);
  const textAt = typeAt + nFiles;
  const textBytes = was.readUInt32LE(12);
  const statAt = textAt + textBytes;
  // Where each path starts (folders' then files'); the last one ends where the symlinks' targets begin.
  // ASCII text: from the lengths of the paths the columns were read as; else found NUL by NUL (~0.3 µs a path).
  const starts = new Int32Array(nDirs + nFiles + 1);
  let at = textAt;
  const ascii = isAscii(was.subarray(textAt, statAt)) && cols.strings.length >= nDirs + nFiles;
  for (let n = 0; n < nDirs + nFiles; n++) {
    starts[n] = at;
    if (ascii) at += (cols.strings[n] as string).length + 1;
    else {
      const nul = was.indexOf(0, at);
      if (nul < 0 || nul >= statAt) return undefined;
      at = nul + 1;
    }
  }
  if (at > statAt || (ascii && was[at - 1] !== 0)) return undefined;
  starts[nDirs + nFiles] = at;
  const pathsEnd = at;
  const filesStatAt = statAt + 24 + 8 * DIR_STAT * nDirs;
  const keyAt = filesStatAt + 8 * FILE_STAT * nFiles;
  // The runs of files and folders kept, [from, to) by place.
  const gone = [...new Set(removed)].sort((a, b) => a - b);
  if (gone.some((j) => !(j >= 0 && j < nFiles))) return undefined;
  // The symlinks' targets, after the paths in file order: those of the symlinks gone are left out.
  const goneSet = new Set(gone);
  const targets: Buffer[] = [];
  let goneTargets = 0;
  let t = pathsEnd;
  for (let j = 0; j < nFiles; j++) {
    if (cols.types[j] !== 0x6c) continue;
    const nul = was.indexOf(0, t);
    if (nul < 0 || nul >= statAt) return undefined;
    if (goneSet.has(j)) goneTargets += nul + 1 - t;
    else targets.push(was.subarray(t, nul + 1));
    t = nul + 1;
  }
  if (t !== statAt) return undefined;
  const goneDir = [...new Set(goneDirs)].sort((a, b) => a - b);
  if (goneDir.some((i) => !(i >= 0 && i < nDirs) || cols.strings[i] === "")) return undefined;
  const runs = keptRuns(nFiles, gone);
  const dirRuns = keptRuns(nDirs, goneDir);
  const kept = (section: number, width: number) => runs.map(([a, b]) => was.subarray(section + width * a, section + width * b));
  const keptDirs = (section: number, width: number) => dirRuns.map(([a, b]) => was.subarray(section + width * a, section + width * b));
  const nums = new Float64Array(2 * k);
  const stats = new Float64Array(FILE_STAT * k);
  const hashes = Buffer.alloc(32 * k);
  const types = Buffer.alloc(k, 0x66); // "f"
  const newTargets: string[] = [];
  for (let a = 0; a < k; a++) {
    const { info, stats: st } = added[a] as (typeof added)[number];
    if (st.length !== FILE_STAT) return undefined;
    if (info.type === "l") {
      types[a] = 0x6c; // "l": no hash (zeros), its target after the others'
      newTargets.push(`${info.target ?? ""}\0`);
    } else if (info.type !== "f" || hashes.write(info.hash, 32 * a, 32, "hex") !== 32) return undefined;
    nums[2 * a] = info.mode;
    nums[2 * a + 1] = info.size;
    stats.set(st, FILE_STAT * a);
  }
  const addedTargets = Buffer.from(newTargets.join(""), "utf8");
  const paths = Buffer.from(added.map((e) => `${e.path}\0`).join(""), "utf8");
  // New folders: their modes, hashes, paths and stats after the kept folders' (a file's place does not move).
  const m = dirs.length;
  const dirModes = new Float64Array(m);
  const dirStats = new Float64Array(DIR_STAT * m);
  const dirHashes = Buffer.alloc(32 * m);
  for (let d = 0; d < m; d++) {
    const { mode, stats: st, hash } = dirs[d] as (typeof dirs)[number];
    if (st.length !== DIR_STAT || dirHashes.write(hash, 32 * d, 32, "hex") !== 32) return undefined;
    dirModes[d] = mode;
    dirStats.set(st, DIR_STAT * d);
  }
  const dirPaths = Buffer.from(dirs.map((d) => `${d.path}\0`).join(""), "utf8");
  const filePaths = runs.map(([a, b]) => was.subarray(starts[nDirs + a] as number, starts[nDirs + b] as number));
  const keptDirPaths = dirRuns.map(([a, b]) => was.subarray(starts[a] as number, starts[b] as number));
  const dirStatAt = statAt + 24;
  const out = Buffer.concat([
    was.subarray(0, numsAt),
    ...keptDirs(numsAt, 8),
    Buffer.from(dirModes.buffer),
    ...kept(numsAt + 8 * nDirs, 16),
    Buffer.from(nums.buffer),
    ...keptDirs(hashAt, 32),
    dirHashes,
    ...kept(hashAt + 32 * nDirs, 32),
    hashes,
    ...kept(typeAt, 1),
    types,
    ...keptDirPaths,
    dirPaths,
    ...filePaths,
    paths,
    ...targets,
    addedTargets,
    was.subarray(statAt, dirStatAt),
    ...keptDirs(dirStatAt, 8 * DIR_STAT),
    Buffer.from(dirStats.buffer),
    ...kept(filesStatAt, 8 * FILE_STAT),
    Buffer.from(stats.buffer),
    was.subarray(keyAt),
  ]);
  const textOf = (k0: number) => (starts[k0 + 1] as number) - (starts[k0] as number);
  const goneText = gone.reduce((sum, j) => sum + textOf(nDirs + j), 0) + goneDir.reduce((sum, i) => sum + textOf(i), 0);
  out.writeUInt32LE(nDirs + m - goneDir.length, 4);
  out.writeUInt32LE(nFiles + k - gone.length, 8);
  out.writeUInt32LE(textBytes - goneText - goneTargets + paths.length + dirPaths.length + addedTargets.length, 12);
  Buffer.from(sha256(out.subarray(HEADER)), "hex").copy(out, 16);
  return out;
}

/** The runs [from, to) of places 0..n not in `gone` (sorted). */
function keptRuns(n: number, gone: readonly number[]): [number, number][] {
  const runs: [number, number][] = [];
  let from = 0;
  for (const g of gone) {
    if (g > from) runs.push([from, g]);
    from = g + 1;
  }
  if (from < n) runs.push([from, n]);
  return runs;
}

/**
 * Writes the stats a status brought up to date (quick-status.ts `refreshedStats`) over the
 * cache `cols` was read from, in place. Only a cache: where the file system refuses (read
 * only, full, another owner's file), the stats stay as they were and the status stands.
 */
export function refreshCache(path: string, cols: TreeColumns, patch: CachePatch): void {
  try {
    writePatchedTreeCache(path, cols, patch);
  } catch (e) {
    if (typeof (e as NodeJS.ErrnoException).code !== "string") throw e;
  }
}
