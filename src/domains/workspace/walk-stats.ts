// What a walk saw beside the tree it made, to be kept with it (tree-cache.ts) for a quick
// status: a whole walk's (folders from its listing, files from the stat cache), a quick
// walk's (the kept stats, the files read again from the stat cache), and a walk limited to
// what changed (the kept stats where it did not look again).
import type { FileInfo, Tree } from "../../objects/file-tree.js";
import type { ChangedSince, StatCompared } from "./quick-status.js";
import type { StatCache } from "./stat-cache.js";
import { DIR_STAT, FILE_STAT, type TreeColumns, type WalkStats } from "./tree-cache.js";
import type { Scan } from "./walk.js";

/**
 * What a walk saw, to be written with its tree: `read`, how many files it read (their stats
 * were not in the cache); `relisted`, how many folders it listed again because their stats
 * moved — either means the cache's stats are not the disk's, even when the tree is the same.
 */
export type Walked = WalkStats & { readonly read: number; readonly relisted?: number };

/** Every entry's stats at once, in the tree's order, into the columns written (NaN where none): no array per entry. */
function bulkStats(
  tree: Tree,
  dirOf: (path: string) => ArrayLike<number> | undefined,
  fileInto: (path: string, f: FileInfo, out: Float64Array, at: number) => void,
): { dirs: Float64Array; files: Float64Array } {
  const dirs = new Float64Array(DIR_STAT * tree.dirs.size).fill(Number.NaN);
  let i = 0;
  for (const p of tree.dirs.keys()) {
    const st = dirOf(p);
    if (st !== undefined) dirs.set(st, i);
    i += DIR_STAT;
  }
  const files = new Float64Array(FILE_STAT * tree.files.size).fill(Number.NaN);
  let j = 0;
  for (const [p, f] of tree.files) {
    fileInto(p, f, files, j);
    j += FILE_STAT;
  }
  return { dirs, files };
}

/** A file's stats as a walk saw them: a regular file's from the stat cache (where it holds this content), any other's from the walk. */
function walkedFileInto(seen: NonNullable<Scan["seen"]>, cache: StatCache, path: string, f: FileInfo, out: Float64Array, at: number): void {
  if (f.type === "f") cache.statInto(path, f.hash, f.size, out, at);
  else {
    const st = seen.others.get(path);
    if (st !== undefined) out.set(st, at);
  }
}

/** The stats of a full walk: folders' from the walk, files' from the stat cache where it holds this content. */
export function walkedStats(
  key: string,
  takenAt: number,
  secretFiles: readonly string[],
  seen: NonNullable<Scan["seen"]>,
  cache: StatCache,
  read: number,
): Walked {
  return {
    takenAt,
    key,
    secretFiles,
    read,
    // Every entry at once into the columns written, no array per file (a first snapshot of 10,000 files writes them all).
    bulk: (tree) =>
      bulkStats(
        tree,
        (p) => seen.dirs.get(p),
        (p, f, out, at) => walkedFileInto(seen, cache, p, f, out, at),
      ),
    dir: (path) => seen.dirs.get(path),
    file: (path, f) => (f.type === "f" ? cachedStat(cache, path, f) : seen.others.get(path)),
  };
}

/**
 * The stats of a walk limited to what changed (`Scanner.#changedWalk`): what it saw where it
 * looked (folders listed again and what is new, from `seen` and the stat cache), the kept
 * stats of `cols` everywhere else — entries `changedSince` found as they were, in folders it
 * found as they were.
 */
export function changedStats(
  key: string,
  takenAt: number,
  secretFiles: readonly string[],
  seen: NonNullable<Scan["seen"]>,
  cache: StatCache,
  cols: TreeColumns,
  changed: ChangedSince,
  read: number,
): Walked {
  const kept = cols.stats as NonNullable<TreeColumns["stats"]>;
  const { nDirs, nFiles, strings } = cols;
  const relisted = new Set(changed.folders);
  const looked = new Set(changed.paths);
  // The kept folders' and files' places by path, made when first needed.
  let dirAt: Map<string, number> | undefined;
  let fileAt: Map<string, number> | undefined;
  const dirIndex = (): Map<string, number> => {
    if (dirAt === undefined) {
      dirAt = new Map();
      for (let i = 0; i < nDirs; i++) dirAt.set(strings[i] as string, i);
    }
    return dirAt;
  };
  /** The kept folder's place, unless it was listed again (its stats are the walk's). */
  const keptDirPlace = (path: string): number | undefined => (relisted.has(path) ? undefined : dirIndex().get(path));
  /** Whether `path` is in a folder listed again. */
  const inRelisted = (path: string): boolean => {
    const slash = path.lastIndexOf("/");
    return relisted.has(slash < 0 ? "" : path.slice(0, slash));
  };
  /** File `path`'s place in the kept columns, if there. */
  const placeOf = (path: string): number | undefined => {
    if (fileAt === undefined) {
      fileAt = new Map();
      for (let j = 0; j < nFiles; j++) fileAt.set(strings[nDirs + j] as string, j);
    }
    return fileAt.get(path);
  };
  /** Whether this walk looked at the file again (it was named, or its folder listed again): its stats are the walk's. */
  const lookedAgain = (path: string): boolean => looked.has(path) || inRelisted(path);
  /** The kept file's place, unless this walk looked at it again. */
  const keptPlace = (path: string): number | undefined => (lookedAgain(path) ? undefined : placeOf(path));
  // A folder listed again has the stats it was found with; one entered anew, those its parent's listing gave.
  const dirNow = (path: string): readonly number[] | undefined => seen.dirs.get(path) ?? changed.folderStats.get(path);
  const fileNow = (path: string, f: FileInfo): number[] | undefined => (f.type === "f" ? cachedStat(cache, path, f) : seen.others.get(path));
  return {
    takenAt,
    key,
    secretFiles,
    read,
    relisted: relisted.size,
    // Every entry at once into the columns written: an array per entry cost ~20 ms at 10,000 files.
    bulk: (tree) => {
      const dirs = new Float64Array(DIR_STAT * tree.dirs.size).fill(Number.NaN);
      let i = 0;
      for (const p of tree.dirs.keys()) {
        const k = keptDirPlace(p);
        const st = dirNow(p) ?? (k === undefined ? undefined : kept.dirs.subarray(k * DIR_STAT, k * DIR_STAT + DIR_STAT));
        if (st !== undefined) dirs.set(st, i);
        i += DIR_STAT;
      }
      // The files in one loop, not a call per file (10,000 in code that has just been loaded): the kept stats copied
      // number by number, found where the last kept one was, one further (the tree keeps them in their order, new ones among them).
      const files = new Float64Array(FILE_STAT * tree.files.size).fill(Number.NaN);
      const kf = kept.files;
      let next = 0;
      let at = 0;
      for (const [p, f] of tree.files) {
        const atCursor = next < nFiles && strings[nDirs + next] === p;
        const k = lookedAgain(p) ? undefined : atCursor ? next : placeOf(p);
        if (k === undefined) {
          if (atCursor) next++;
          walkedFileInto(seen, cache, p, f, files, at);
        } else {
          next = k + 1;
          const s = k * FILE_STAT;
          for (let n = 0; n < FILE_STAT; n++) files[at + n] = kf[s + n] as number;
        }
        at += FILE_STAT;
      }
      return { dirs, files };
    },
    dir: (path) => {
      const st = dirNow(path);
      const k = st === undefined ? keptDirPlace(path) : undefined;
      return st !== undefined ? [...st] : k === undefined ? undefined : Array.from(kept.dirs.subarray(k * DIR_STAT, k * DIR_STAT + DIR_STAT));
    },
    file: (path, f) => {
      const k = keptPlace(path);
      return k === undefined ? fileNow(path, f) : Array.from(kept.files.subarray(k * FILE_STAT, k * FILE_STAT + FILE_STAT));
    },
  };
}

/** The stats of a quick walk: the kept ones, but for the files read again (from the stat cache). */
export function quickStats(cols: TreeColumns, found: StatCompared, cache: StatCache): Walked {
  const stats = cols.stats as NonNullable<TreeColumns["stats"]>;
  const dirs = found.dirStats ?? stats.dirs; // with those of the folders listed again
  const reread = new Set(found.reads.map((r) => r.path));
  return {
    // Kept entries were not racy at the walk that took them, and so are not now.
    takenAt: found.takenAt,
    from: { cols, reread: found.reads },
    key: stats.key,
    secretFiles: found.secretFiles,
    read: trustable(found.reads, found.takenAt),
    bulk: (tree) => {
      // The kept columns as they are, when the tree has the same entries in the same order (a quick walk's does).
      if (tree.dirs.size !== cols.nDirs || tree.files.size !== cols.nFiles) return undefined;
      let i = 0;
      for (const p of tree.dirs.keys()) if (cols.strings[i++] !== p) return undefined;
      for (const p of tree.files.keys()) if (cols.strings[i++] !== p) return undefined;
      const files = stats.files.slice();
      for (const r of found.reads) {
        const f = tree.files.get(r.path);
        if (f?.type !== "f" || !cache.statInto(r.path, f.hash, f.size, files, r.j * FILE_STAT))
          files.fill(Number.NaN, r.j * FILE_STAT, r.j * FILE_STAT + FILE_STAT);
      }
      return { dirs, files };
    },
    dir: (path, i) => (cols.strings[i] === path ? Array.from(dirs.subarray(i * DIR_STAT, i * DIR_STAT + DIR_STAT)) : undefined),
    file: (path, f, j) => {
      if (reread.has(path)) return f.type === "f" ? cachedStat(cache, path, f) : undefined;
      return cols.strings[cols.nDirs + j] === path ? Array.from(stats.files.subarray(j * FILE_STAT, j * FILE_STAT + FILE_STAT)) : undefined;
    },
  };
}

/**
 * How many of the files read a fresh write of the stats would spare reading next time: those
 * not modified within a second of the walk (racy ones are read again whatever is written).
 */
export function trustable(read: readonly { readonly st: { readonly mtimeMs: number } }[], takenAt: number): number {
  let n = 0;
  for (const r of read) if (r.st.mtimeMs < takenAt - 1000) n++;
  return n;
}

/** A file's [mtimeMs, ctimeMs, ino, st_mode] from the stat cache, if it holds this content. */
export function cachedStat(cache: StatCache, path: string, f: FileInfo): number[] | undefined {
  const out = new Float64Array(FILE_STAT);
  return cache.statInto(path, f.hash, f.size, out, 0) ? Array.from(out) : undefined;
}
