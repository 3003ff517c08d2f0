// A snapshot when only file contents changed (quick-status.ts found every folder as it was),
// made from the kept tree's columns (tree-cache.ts) and the files read again — with no Map of
// the whole tree. A hook after one edit in 10,000 files built two such Maps and went over
// every entry three more times (the folders' objects, the summary, the stats to keep): ~12 ms
// and the garbage of 30,000 objects. Here the work is the files read again, the folders
// above them, and a few passes over the columns' typed arrays.
//
// The folder objects are made exactly as `buildTree` makes them (the same entries, in name
// order, in the same text): a snapshot's root does not depend on which way it was taken
// (test/workspace/quick-snapshot.test.ts holds the two to each other).
import { ForgeError } from "../../core/errors.js";
import type { ProgressListener } from "../../core/progress.js";
import type { FileInfo } from "../../objects/file-tree.js";
import { sha256, type Hash } from "../../objects/hash.js";
import { dirNodeText, type DirEntry } from "../../objects/node.js";
import type { ObjectStore } from "../../objects/object-store.js";
import { linkInfo, type NewFolder, type StatCompared } from "./quick-status.js";
import { StatCache } from "./stat-cache.js";
import { FILE_STAT, fileEntry, linkTargets, nameAt, parentsOf, type TreeColumns } from "./tree-cache.js";
import type { CachePatch } from "./tree-cache-write.js";
import { sameEntry, withRenames, type FileChange } from "./tree-compare.js";
import { hashPending, hashingProgress } from "./walk.js";

/** A snapshot's tree as the kept columns and what changed in them. */
export interface QuickTree {
  readonly root: Hash;
  /** The objects of the folders above a changed file, made anew. */
  readonly objects: Map<Hash, Buffer>;
  /** The files read again, by path, as they are now (those that differ are `changes`). */
  readonly read: ReadonlyMap<string, FileInfo>;
  /** "modified", and "created", "deleted" or "renamed" for files new in or gone from folders listed again, in path order. */
  readonly changes: FileChange[];
  /** Bytes of file objects written to the store. */
  readonly newBytes: number;
  /** What the snapshot's summary counts: files, their bytes, those too large to store. */
  readonly files: number;
  readonly bytes: number;
  readonly tooLarge: readonly string[];
  readonly secretFiles: readonly string[];
  /** What to write into the tree cache for it. */
  readonly patch: CachePatch;
}

/**
 * Reads (and stores in `objects`) the files `found` names, and makes the snapshot's tree from
 * `cols`. Undefined when one of them is gone or unreadable since it was stat'ed: a walk says.
 */
export async function quickTree(
  root: string,
  cols: TreeColumns,
  found: StatCompared,
  objects: ObjectStore,
  onProgress?: ProgressListener,
): Promise<QuickTree | undefined> {
  const stats = cols.stats;
  if (stats === undefined) return undefined;
  const { nDirs, nFiles, nums } = cols;
  const cache = StatCache.empty();
  const scan = {
    tree: { files: new Map<string, FileInfo>(), dirs: new Map() },
    pending: [...found.reads, ...(found.added ?? [])].map((r) => ({ path: r.path, st: r.st, mode: r.st.mode & 0o777 })),
    unreadable: new Map<string, string>(),
    large: [],
  };
  const { newBytes } = await hashPending(scan, root, cache, objects, hashingProgress(onProgress));
  const read = scan.tree.files;
  let bytes = 0;
  for (let j = 0; j < nFiles; j++) bytes += nums[nDirs + 2 * j + 1] as number;
  const fileStats = stats.files.slice();
  const changed = new Map<number, FileInfo>();
  const changes: FileChange[] = [];
  const patched: { j: number; info: FileInfo }[] = [];
  for (const r of found.reads) {
    const now = read.get(r.path);
    if (now?.type !== "f") return undefined;
    // The stats the file was read with, kept unless it changed while read (then NaN: read again next time).
    if (!cache.statInto(r.path, now.hash, now.size, fileStats, r.j * FILE_STAT)) fileStats.fill(Number.NaN, r.j * FILE_STAT, r.j * FILE_STAT + FILE_STAT);
    patched.push({ j: r.j, info: now });
    const before = fileEntry(cols, r.j);
    if (sameEntry(before, now)) continue;
    changed.set(r.j, now);
    bytes += now.size - before.size;
    changes.push({ path: r.path, kind: "modified", before, after: now });
  }
  // New files in folders listed again: appended to the columns.
  const added: { path: string; info: FileInfo; stats: number[] }[] = [];
  const created: FileChange[] = [];
  for (const a of found.added ?? []) {
    const now = read.get(a.path);
    if (now?.type !== "f") return undefined;
    const kept = new Float64Array(FILE_STAT);
    added.push({
      path: a.path,
      info: now,
      stats: cache.statInto(a.path, now.hash, now.size, kept, 0) ? [...kept] : [Number.NaN, Number.NaN, Number.NaN, Number.NaN],
    });
    bytes += now.size;
    created.push({ path: a.path, kind: "created", before: null, after: now });
  }
  // New symlinks: appended too, with their targets.
  for (const l of found.addedLinks ?? []) {
    const info = linkInfo(l.target, l.st);
    added.push({ path: l.path, info, stats: [l.st.mtimeMs, l.st.ctimeMs, l.st.ino, l.st.mode] });
    bytes += info.size;
    created.push({ path: l.path, kind: "created", before: null, after: info });
  }
  // Files gone: left out of the columns; with the new ones, paired into renames as a walk pairs them.
  const removed = found.removed ?? [];
  const deleted: FileChange[] = [];
  for (const j of removed) {
    const before = fileEntry(cols, j, linkTargets(cols).get(j));
    bytes -= before.size;
    deleted.push({ path: cols.strings[nDirs + j] as string, kind: "deleted", before, after: null });
  }
  withRenames(changes, created, deleted);
  const newDirs = found.addedDirs ?? [];
  const goneDirs = found.removedDirs ?? [];
  const built = buildFromColumns(cols, changed, added, new Set(removed), newDirs, new Set(goneDirs));
  return {
    root: built.root,
    objects: built.objects,
    read,
    changes,
    newBytes,
    files: nFiles + added.length - removed.length,
    bytes,
    tooLarge: found.tooLarge,
    secretFiles: found.secretFiles,
    patch: {
      root: built.root,
      dirHashes: built.dirHashes,
      files: patched,
      takenAt: found.takenAt,
      dirStats: found.dirStats ?? stats.dirs,
      fileStats,
      ...(added.length > 0 && { added }),
      ...(removed.length > 0 && { removed }),
      ...(newDirs.length > 0 && { addedDirs: newDirs.map((d, k) => ({ ...d, hash: built.newDirHashes[k] as Hash })) }),
      ...(goneDirs.length > 0 && { removedDirs: goneDirs }),
    },
  };
}

/**
 * The folders' objects of the columns' tree with `changed` (files by place), `added` (new
 * files) and `newDirs` (new folders) in it, and `removed` (files by place) and `goneDirs`
 * (folders by place, with all in them) out of it: the new folders and those above a change
 * are made, each from its entries as `buildTree` lists them.
 */
function buildFromColumns(
  cols: TreeColumns,
  changed: ReadonlyMap<number, FileInfo>,
  added: readonly { readonly path: string; readonly info: FileInfo }[] = [],
  removed: ReadonlySet<number> = new Set(),
  newDirs: readonly NewFolder[] = [],
  goneDirs: ReadonlySet<number> = new Set(),
): { root: Hash; objects: Map<Hash, Buffer>; dirHashes: Hash[]; newDirHashes: Hash[] } {
  const { nDirs, nFiles, strings, nums, types } = cols;
  const dirHashes: Hash[] = [];
  for (let i = 0; i < nDirs; i++) dirHashes.push(cols.hashOf(i));
  const objects = new Map<Hash, Buffer>();
  const rootAt = strings.indexOf("");
  if (rootAt < 0 || rootAt >= nDirs) throw new ForgeError("INVALID_STATE", "the tree cache has no root folder");
  if (changed.size === 0 && added.length === 0 && removed.size === 0 && newDirs.length === 0 && goneDirs.size === 0)
    return { root: cols.root, objects, dirHashes, newDirHashes: [] };
  const parents = parentsOf(cols);
  // Every folder above a changed or new file (by place), each with the entries it will list.
  const dirty = new Map<number, DirEntry[]>();
  const markAbove = (first: number, path: string) => {
    let up = first;
    let top = -1;
    for (; up >= 0 && !dirty.has(up); up = parents[up] as number) {
      dirty.set(up, []);
      top = up;
    }
    // Up to a folder already marked, or to the root: else a folder on the way is not in the columns.
    if (up < 0 && top !== rootAt)
      throw new ForgeError("INVALID_STATE", `the tree cache has a file in ${path.slice(0, Math.max(0, path.lastIndexOf("/")))} but no such folder`);
  };
  // A folder gone is listed by none: the folder above the first gone on the way lists one entry less.
  for (const i of goneDirs) if (!goneDirs.has(parents[i] as number)) markAbove(parents[i] as number, strings[i] as string);
  for (const j of [...changed.keys(), ...removed]) {
    const up = parents[nDirs + j] as number;
    if (!goneDirs.has(up)) markAbove(up, strings[nDirs + j] as string);
  }
  const dirAt = added.length > 0 || newDirs.length > 0 ? new Map(strings.slice(0, nDirs).map((d, i) => [d, i])) : undefined;
  // New entries by the folder that lists them: one of the columns' (by place), or a new folder (by path).
  const addedIn: [number, DirEntry][] = [];
  const inNew = new Map<string, DirEntry[]>(newDirs.map((d) => [d.path, []]));
  const place = (path: string, entry: DirEntry): void => {
    const slash = path.lastIndexOf("/");
    const parent = slash < 0 ? "" : path.slice(0, slash);
    const fresh = inNew.get(parent);
    if (fresh !== undefined) return void fresh.push(entry);
    const i = dirAt?.get(parent);
    if (i === undefined) throw new ForgeError("INVALID_STATE", `a new entry ${path} is in no folder of the tree cache`);
    markAbove(i, path);
    addedIn.push([i, entry]);
  };
  for (const { path, info: f } of added) {
    const name = path.slice(path.lastIndexOf("/") + 1);
    place(path, f.type === "l" ? [f.hash, name, f.type, f.mode, f.size, f.target ?? ""] : [f.hash, name, f.type, f.mode, f.size]);
  }
  // New folders, deepest first: each made from its entries, then listed by its parent.
  const newDirHashes = new Array<Hash>(newDirs.length);
  const newOrder = newDirs.map((_, k) => k).sort((a, b) => depth((newDirs[b] as NewFolder).path) - depth((newDirs[a] as NewFolder).path));
  for (const k of newOrder) {
    const d = newDirs[k] as NewFolder;
    const entries = (inNew.get(d.path) as DirEntry[]).sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    const raw = Buffer.from(dirNodeText(entries));
    const hash = sha256(raw);
    objects.set(hash, raw);
    newDirHashes[k] = hash;
    place(d.path, [hash, d.path.slice(d.path.lastIndexOf("/") + 1), "d", d.mode, 0]);
  }
  // The files in them: one pass over the places (a symlink's target is the next of the targets, in file order).
  let links = 0;
  for (let j = 0; j < nFiles; j++) {
    const isLink = types[j] === 0x6c;
    const target = isLink ? (strings[nDirs + nFiles + links++] as string) : undefined;
    const list = dirty.get(parents[nDirs + j] as number);
    if (list === undefined || removed.has(j)) continue;
    const f = changed.get(j) ?? fileEntry(cols, j, target);
    const name = nameAt(cols, nDirs + j);
    list.push(f.type === "l" ? [f.hash, name, f.type, f.mode, f.size, f.target ?? ""] : [f.hash, name, f.type, f.mode, f.size]);
  }
  for (const [i, entry] of addedIn) (dirty.get(i) as DirEntry[]).push(entry);
  // Deepest first, so that a folder's new hash is known before its parent lists it.
  const order = [...dirty.keys()].sort((a, b) => depth(strings[b] as string) - depth(strings[a] as string) || a - b);
  for (const i of order) {
    const entries = dirty.get(i) as DirEntry[];
    for (let k = 0; k < nDirs; k++) if (parents[k] === i && !goneDirs.has(k)) entries.push([dirHashes[k] as Hash, nameAt(cols, k), "d", nums[k] as number, 0]);
    entries.sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    const raw = Buffer.from(dirNodeText(entries));
    const hash = sha256(raw);
    objects.set(hash, raw);
    dirHashes[i] = hash;
  }
  return { root: dirHashes[rootAt] as Hash, objects, dirHashes, newDirHashes };
}

function depth(dir: string): number {
  if (dir === "") return 0;
  let n = 1;
  for (let i = 0; i < dir.length; i++) if (dir.charCodeAt(i) === 47) n++;
  return n;
}
