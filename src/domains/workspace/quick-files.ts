// The last step of a comparison by stats (quick-status.ts `statCompare`): each kept file's
// lstat against the stats kept for it, and which files must be read. With a stat preload
// (stat-preload.ts), the main thread lstat's the files find has not judged yet, from the last
// back, while find goes on from the first; the files find judged are looked at only when it
// listed them or their kept stats are racy.
import { MAX_READS } from "./relist.js";
import { S_IFMT, S_IFREG, ST_CTIME, ST_INO, ST_MODE, ST_MTIME, ST_SIZE, inRoot, statBuffer, walkLstat } from "./fast-stat.js";
import { secretByContent } from "./secret-files.js";
import type { StatSignature } from "./stat-cache.js";
import { CHUNK, type StatPreload } from "./stat-preload.js";
import { FILE_STAT, type TreeColumns } from "./tree-cache.js";

const MAX_READ_BYTES = 32 * 1024 * 1024;
const TOO_LARGE = 0x78; // "x": kept without content
const FILE = 0x66; // "f"

/** A file whose stats differ from those kept: its position in the columns and its stats now. */
export interface StatChange {
  readonly j: number;
  readonly path: string;
  readonly st: StatSignature;
}

/** Whether the lstat in `st` is the one kept for file `j` (times, inode, mode, size), and not racy: the file is the tree's entry. */
export function keptAsIs(st: Float64Array, cols: TreeColumns, j: number, racyFrom: number): boolean {
  const files = (cols.stats as NonNullable<TreeColumns["stats"]>).files;
  const s = j * FILE_STAT;
  const mtime = st[ST_MTIME] as number;
  return (
    mtime < racyFrom &&
    mtime === files[s] &&
    st[ST_CTIME] === files[s + 1] &&
    st[ST_INO] === files[s + 2] &&
    st[ST_MODE] === files[s + 3] &&
    st[ST_SIZE] === cols.nums[cols.nDirs + 2 * j + 1]
  );
}

export interface FilesToCompare {
  readonly root: string;
  readonly cols: TreeColumns;
  readonly maxFileBytes: number;
  readonly racyFrom: number;
  /** 1 for a file known gone (its folder was listed again). */
  readonly gone: Uint8Array;
  /** A watcher's word on the paths changed: other files with stats kept from before `racyFrom` are not looked at. */
  readonly hinted?: ReadonlySet<string>;
  /** New files to read besides (counted against the limits). */
  readonly added: number;
  readonly addedBytes: number;
  /** What find judged on the other core (taken by the caller, closed here). */
  readonly preload?: StatPreload;
}

/** The files to read (in the columns' order) and the files kept without content; undefined when a walk must say. */
export function compareFiles(c: FilesToCompare): { reads: StatChange[]; tooLarge: string[] } | undefined {
  const { root, cols, racyFrom, gone, hinted, preload } = c;
  const { nDirs, nFiles, strings, types } = cols;
  const files = (cols.stats as NonNullable<TreeColumns["stats"]>).files;
  const lstat = walkLstat(root);
  const st = statBuffer();
  const reads: StatChange[] = [];
  const tooLarge: string[] = [];
  let readBytes = c.addedBytes;
  const pathOf = (j: number) => strings[nDirs + j] as string;
  /** File j by its lstat now; false when a walk must say. */
  const look = (base: string, j: number): boolean => {
    const path = pathOf(j);
    try {
      if (!lstat(base + path, st)) return false; // deleted: its folder's times say so too, unless racy
    } catch {
      return false;
    }
    const size = st[ST_SIZE] as number;
    const mode = st[ST_MODE] as number;
    const type = types[j] as number;
    if (type === TOO_LARGE) tooLarge.push(path);
    if (keptAsIs(st, cols, j, racyFrom)) return true;
    // Only a regular file's content is read here; a symlink, a file too large or unreadable, anything that changed kind: walk.
    // So does a file whose content decides whether it is a secret file (secret-files.ts).
    if (type !== FILE || (mode & S_IFMT) !== S_IFREG || size > c.maxFileBytes || secretByContent(path)) return false;
    reads.push({ j, path, st: { size, mtimeMs: st[ST_MTIME] as number, ctimeMs: st[ST_CTIME] as number, ino: st[ST_INO] as number, mode } });
    readBytes += size;
    return reads.length + c.added <= MAX_READS && readBytes <= MAX_READ_BYTES;
  };
  // The files by paths relative to the root where the process allows it (fast-stat.ts).
  const whole = inRoot(root, (base) => {
    try {
      return compare(base);
    } finally {
      preload?.close();
    }
  });
  if (!whole) return undefined;
  if (preload !== undefined) reads.sort((a, b) => a.j - b.j); // the last files were looked at first
  return { reads, tooLarge };

  function compare(base: string): boolean {
    const isGone = (j: number) => gone.length > 0 && gone[j] === 1;
    // With find's word: from the last file back, a chunk at a time, until the files before are those it judged.
    let top = nFiles;
    let judged = preload?.judged(pathOf);
    while (judged !== undefined && judged.judged < top) {
      const from = Math.max(judged.judged, top - CHUNK);
      for (let j = top - 1; j >= from; j--) if (!isGone(j) && !look(base, j)) return false;
      top = from;
      judged = preload?.judged(pathOf);
    }
    // Without it (none, or its output made no sense): every file left, by its lstat (a watcher's hint comes only without a preload).
    if (judged === undefined) {
      for (let j = 0; j < top; j++) {
        if (isGone(j)) continue;
        if (hinted !== undefined && (files[j * FILE_STAT] as number) < racyFrom && !hinted.has(pathOf(j)) && types[j] !== TOO_LARGE) continue;
        if (!look(base, j)) return false;
      }
      return true;
    }
    const judgedFiles = inFindsWord(files, types, top, racyFrom, judged.listed, gone);
    for (const j of judgedFiles.tooLarge) tooLarge.push(pathOf(j));
    for (const j of judgedFiles.look) if (!look(base, j)) return false;
    return true;
  }
}

/**
 * Of the files before `top`, which find judged: those to look at (listed, or kept with racy or
 * unknown stats, which fail the comparisons) and those kept without content. A function of its
 * own, small: V8 optimises its loop on another thread, and the process waits at exit for a
 * compilation still running (a big closure's took ~8 ms).
 */
function inFindsWord(
  files: Float64Array,
  types: Uint8Array,
  top: number,
  racyFrom: number,
  listed: ReadonlySet<number>,
  gone: Uint8Array,
): { look: number[]; tooLarge: number[] } {
  const look: number[] = [];
  const tooLarge: number[] = [];
  const anyGone = gone.length > 0;
  for (let j = 0, s = 0; j < top; j++, s += FILE_STAT) {
    if (anyGone && gone[j] === 1) continue;
    if ((files[s] as number) < racyFrom && (files[s + 1] as number) < racyFrom && !listed.has(j)) {
      if (types[j] === TOO_LARGE) tooLarge.push(j);
    } else look.push(j);
  }
  return { look, tooLarge };
}
