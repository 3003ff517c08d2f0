// A status by stats alone, as git's index makes `git status` cheap: the last snapshot's tree
// is kept with what its walk saw (tree-cache.ts), and while every folder it listed is as it
// was — same times and inode, so no name was added, removed or renamed in it — and nothing
// that decides what is ignored changed (the ignore settings, every ignore file read, git's
// index and excludes files), the files are the same names judged the same way. Only the
// files themselves are then looked at: one lstat each, against the stats kept beside the
// tree, and only a file whose stats differ is read and hashed. No ignore rules, no tree
// built. A folder whose times moved is listed again (relist.ts): the same names go on by
// stats, and — for a caller that records them — new and gone files, folders and symlinks
// are taken in too.
//
// Anything else — an ignore file or a secret file come or gone, an unknown stat, a file that
// is now something else, more changed files than is worth it — answers undefined, and the
// caller walks as before. Racy entries (modified within a second of the walk) are hashed,
// never trusted: a quick status says what a full walk would.
import { readlinkSync } from "node:fs";
import { mark } from "../../core/trace.js";
import { readBlob } from "../../objects/blob-read.js";
import { blobObjects, type FileInfo } from "../../objects/file-tree.js";
import { S_IFDIR, S_IFLNK, S_IFMT, S_IFREG, ST_CTIME, ST_INO, ST_MODE, ST_MTIME, ST_SIZE, inRoot, statBuffer, walkLstat } from "./fast-stat.js";
import { gitView } from "./git-view.js";
import { ignoreFileKey } from "./ignore-rules.js";
import { compareFiles, keptAsIs, type StatChange } from "./quick-files.js";
import { MAX_READS, relisted, type IgnoredNow, type NewFolder } from "./relist.js";
export type { IgnoredNow, NewFolder } from "./relist.js";
import { walkOrder } from "./names.js";
import type { SecretFilesOption } from "./secret-files.js";
import type { StatSignature } from "./stat-cache.js";
import { takeStatPreload } from "./stat-preload.js";
import { DIR_STAT, FILE_STAT, fileEntry, linkTargets, type TreeColumns } from "./tree-cache.js";
import type { CachePatch } from "./tree-cache-write.js";
import { withRenames, type FileChange } from "./tree-compare.js";

/** A file modified this close to the walk (or after it) may have changed again unseen: hashed. */
const RACY_MS = 1000;
const KEY_VERSION = 1;

/** The settings that decide which files a walk takes. */
export interface WalkSettings {
  readonly ignore: readonly string[];
  readonly secretFiles: SecretFilesOption | undefined;
  readonly maxFileBytes: number;
}

/** What of git a walk depended on (`IgnoreRules.gitDepends`). */
type GitDepends = { readonly index: string | null; readonly excludes: string } | null;

/**
 * The key a walk's stats are written with: its settings, what of git it depended on and the
 * ignore files it read (`IgnoreRules.sources`). git's index is in it only if the walk asked
 * it about a path: a commit then does not send the next status to a walk.
 */
export function walkKey(settings: WalkSettings, git: GitDepends, sources: readonly (readonly [string, string])[]): string {
  return JSON.stringify({ v: KEY_VERSION, settings: settingsText(settings), git, sources });
}

const settingsText = (s: WalkSettings) => JSON.stringify([s.ignore, s.secretFiles ?? null, s.maxFileBytes]);

/**
 * The key of a tree made by a walk limited to what changed (`changedSince`), from the key of
 * the walk it started from (which held) and what this one depended on: the ignore files of
 * both (this walk's stats where both read one), git's index if either asked it. The folders
 * it did not enter keep the earlier walk's names, and so the ignore files that decided them.
 */
export function mergedKey(priorKey: string, settings: WalkSettings, git: GitDepends, sources: readonly (readonly [string, string])[]): string | undefined {
  const k = readKey(priorKey);
  if (k === undefined) return undefined;
  const merged = new Map<string, string>(k.sources);
  for (const [path, key] of sources) merged.set(path, key);
  // Both walks saw the same git (the earlier key held): this one's keys, and the index if either asked it.
  const both = git === null || k.git === null ? null : { index: git.index ?? k.git.index, excludes: git.excludes };
  return walkKey(settings, both, [...merged]);
}

/** The ignore files a key names, with the stat each had ("-": none). */
export function keySources(key: string): Map<string, string> {
  return new Map(readKey(key)?.sources ?? []);
}

/** A walk key's parts, if it is one this version wrote. */
function readKey(key: string): { settings: unknown; git: GitDepends; sources: [string, string][] } | undefined {
  let k: { v?: unknown; settings?: unknown; git?: unknown; sources?: unknown };
  try {
    k = JSON.parse(key) as typeof k;
  } catch {
    return undefined;
  }
  if (k.v !== KEY_VERSION || !Array.isArray(k.sources) || k.git === undefined) return undefined;
  if (!(k.sources as unknown[]).every((s) => Array.isArray(s) && typeof s[0] === "string" && typeof s[1] === "string")) return undefined;
  return { settings: k.settings, git: k.git as GitDepends, sources: k.sources as [string, string][] };
}

/** Whether a walk now would take the same names as the one that wrote `key`, given the same listings. */
function keyHolds(key: string, root: string, settings: WalkSettings): boolean {
  const k = readKey(key);
  if (k === undefined || k.settings !== settingsText(settings)) return false;
  for (const [path, stat] of k.sources) if (ignoreFileKey(path) !== stat) return false;
  const was = k.git;
  const now = gitView(root);
  if (was === null || now === null) return was === null && now === null;
  return was.excludes === now.excludesKey && (was.index === null || was.index === now.indexKey);
}

/** What comparing stats found: the files to read; the tree is otherwise the kept one. */
export interface StatCompared {
  /** When the comparison began (ms): what the stats it took are racy against. */
  readonly takenAt: number;
  readonly reads: StatChange[];
  readonly tooLarge: string[];
  readonly secretFiles: readonly string[];
  /**
   * Every folder's stats to keep, when some were listed again (`IgnoredNow`): the kept ones
   * but for those, as just taken. Absent when every folder was as kept.
   */
  readonly dirStats?: Float64Array;
  /**
   * Regular files a folder listed again holds that the kept tree lacks, which the walk would
   * take (only when the caller allowed them: `allowNames`), in the walk's order, with their stats.
   */
  readonly added?: readonly { readonly path: string; readonly st: StatSignature }[];
  /** Files (not symlinks) of the kept tree gone from a folder listed again (`allowNames`), by place, in the columns' order. */
  readonly removed?: readonly number[];
  /** New folders (`allowNames`), each above those in it, the files in them among `added`. */
  readonly addedDirs?: readonly NewFolder[];
  /** New symlinks (`allowNames`), in the walk's order, with their targets and stats. */
  readonly addedLinks?: readonly { readonly path: string; readonly target: string; readonly st: StatSignature }[];
  /** Folders of the kept tree gone (`allowNames`), by place, those in them too; the files in them among `removed`. */
  readonly removedDirs?: readonly number[];
}

/** A comparison a quick walk can go by (scanner.ts): one that found no new files, which only a listing takes in. */
export function walkable(found: StatCompared | undefined): StatCompared | undefined {
  return found?.added === undefined &&
    found?.removed === undefined &&
    found?.addedDirs === undefined &&
    found?.removedDirs === undefined &&
    found?.addedLinks === undefined
    ? found
    : undefined;
}

/** Whether a comparison found nothing to read: the files are as the kept tree has them. */
export function nothingChanged(found: StatCompared): boolean {
  return found.reads.length === 0 && walkable(found) !== undefined;
}

/**
 * Compares every folder's and file's stats in `cols` with the disk's: the files whose stats
 * differ (racy ones included), or undefined when a walk must say (see the top of this file).
 *
 * With `ignoredNow`, a folder whose stats moved (or that is racy) is listed again rather
 * than sent to a walk: when it holds the names the kept tree has, of the same kinds (names
 * the walk leaves out aside) and its mode is the same, only file contents can have changed
 * in it — as after `git checkout` or an editor's save, which replace a file by a new one of
 * the same name — and the comparison goes on, its new stats in `dirStats`. With
 * `allowNames` too, new regular files there (a host's Write of a new file) are taken in,
 * lstat'ed, as `added`, and files gone from there (`rm`) as `removed` — not both at once,
 * as they may be renames — for a caller that records them; else they leave it to a walk.
 */
export function statCompare(
  root: string,
  cols: TreeColumns,
  settings: WalkSettings,
  foldersSame?: () => void,
  ignoredNow?: () => IgnoredNow,
  allowNames = false,
  hint?: ReadonlySet<string>,
): StatCompared | undefined {
  let takenAt = Date.now();
  const stats = cols.stats;
  if (stats === undefined || !keyHolds(stats.key, root, settings)) return undefined;
  const { nDirs, nFiles, strings } = cols;
  const racyFrom = stats.takenAt - RACY_MS;
  const lstat = walkLstat(root);
  const st = statBuffer();
  const prefix = `${root}/`;
  const moved: number[] = [];
  const goneDirs: number[] = [];
  let dirStats: Float64Array | undefined;
  for (let i = 0; i < nDirs; i++) {
    const s = i * DIR_STAT;
    const mtime = stats.dirs[s] as number;
    if (Number.isNaN(mtime) || (!(mtime < racyFrom) && ignoredNow === undefined)) return undefined; // racy, or not stat'ed
    try {
      const dir = strings[i] as string;
      if (!lstat(dir === "" ? root : prefix + dir, st)) {
        // Gone: taken out whole, for a caller that records it, when the folder above was listed again (relist.ts checks).
        if (!allowNames || ignoredNow === undefined || dir === "") return undefined;
        goneDirs.push(i);
        continue;
      }
    } catch {
      return undefined;
    }
    if (((st[ST_MODE] as number) & S_IFMT) !== S_IFDIR) return undefined;
    if (mtime < racyFrom && st[ST_MTIME] === mtime && st[ST_CTIME] === stats.dirs[s + 1] && st[ST_INO] === stats.dirs[s + 2]) continue;
    // Moved or racy: listed again below, if its mode is the kept one and not too many did.
    if (ignoredNow === undefined || ((st[ST_MODE] as number) & 0o777) !== cols.nums[i] || moved.length >= Math.max(64, nDirs / 4)) return undefined;
    moved.push(i);
    dirStats ??= stats.dirs.slice();
    dirStats[s] = st[ST_MTIME] as number;
    dirStats[s + 1] = st[ST_CTIME] as number;
    dirStats[s + 2] = st[ST_INO] as number;
  }
  const names =
    moved.length > 0 && ignoredNow ? relisted(root, cols, moved, ignoredNow, allowNames, goneDirs) : { added: [], links: [], removed: [], dirs: [] };
  if (names === undefined) return undefined;
  const addedPaths = names.added;
  const gone = new Uint8Array(names.removed.length > 0 ? nFiles : 0);
  for (const j of names.removed) gone[j] = 1;
  // No folder changed: only the files' stats are left to compare (the caller stops the walk preload).
  foldersSame?.();
  const added: { path: string; st: StatSignature }[] = [];
  for (const path of addedPaths) {
    try {
      if (!lstat(`${prefix}${path}`, st)) return undefined; // gone again since listed
    } catch {
      return undefined;
    }
    const mode = st[ST_MODE] as number;
    const size = st[ST_SIZE] as number;
    // A file too large to read is listed without content by the walk: it says.
    if ((mode & S_IFMT) !== S_IFREG || size > settings.maxFileBytes) return undefined;
    added.push({ path, st: { size, mtimeMs: st[ST_MTIME] as number, ctimeMs: st[ST_CTIME] as number, ino: st[ST_INO] as number, mode } });
  }
  const links: { path: string; target: string; st: StatSignature }[] = [];
  for (const path of names.links) {
    let target: string;
    try {
      if (!lstat(`${prefix}${path}`, st)) return undefined;
      target = readlinkSync(`${prefix}${path}`);
    } catch {
      return undefined; // gone or changed since listed, or unreadable: the walk says
    }
    const mode = st[ST_MODE] as number;
    if ((mode & S_IFMT) !== S_IFLNK) return undefined;
    links.push({
      path,
      target,
      st: { size: st[ST_SIZE] as number, mtimeMs: st[ST_MTIME] as number, ctimeMs: st[ST_CTIME] as number, ino: st[ST_INO] as number, mode },
    });
  }
  // A watcher's word on the paths changed (watch-hint.ts) spares the other files' lstat but racy ones; not if it names a kept folder.
  const hinted = hint && !strings.slice(0, nDirs).some((d) => hint.has(d)) ? hint : undefined;
  // Else what find judged on the other core since the process started (stat-preload.ts): no stat it judged is older than that.
  let preload = hinted === undefined ? takeStatPreload(root) : undefined;
  if (preload !== undefined && !preload.fits(cols.root, nFiles, racyFrom)) preload = void preload.close();
  if (preload !== undefined) takenAt = Math.min(takenAt, preload.startedAt);
  const addedBytes = added.reduce((sum, a) => sum + a.st.size, 0);
  const compared = compareFiles({ root, cols, maxFileBytes: settings.maxFileBytes, racyFrom, gone, hinted, added: added.length, addedBytes, preload });
  if (compared === undefined) return undefined;
  const { reads, tooLarge } = compared;
  return {
    takenAt,
    reads,
    tooLarge: tooLarge.sort(walkOrder),
    secretFiles: stats.secretFiles,
    ...(dirStats && { dirStats }),
    ...(added.length > 0 && { added: added.sort((x, y) => walkOrder(x.path, y.path)) }),
    ...(names.dirs.length > 0 && { addedDirs: names.dirs }),
    ...(links.length > 0 && { addedLinks: links.sort((x, y) => walkOrder(x.path, y.path)) }),
    ...(goneDirs.length > 0 && { removedDirs: goneDirs }),
    ...(names.removed.length > 0 && { removed: names.removed.sort((x, y) => x - y) }),
  };
}

/** What changed since the walk that kept `cols`' stats, for a walk limited to it (walk.ts `scanTreeFrom`). */
export interface ChangedSince {
  /** Folders whose entries may have changed (their stats moved, or they are racy; the root may be one): listed again. */
  readonly folders: string[];
  /** Files, symlinks and the like whose stats moved (or are racy): looked at again. */
  readonly paths: string[];
  /** The stats of those folders as just taken ([mtimeMs, ctimeMs, ino]), to keep with the tree the walk makes. */
  readonly folderStats: ReadonlyMap<string, readonly number[]>;
}

/**
 * The folders and entries whose stats differ from those `cols` keeps, when a comparison by
 * stats found a folder changed: a walk then lists only those folders again and looks only at
 * those entries (everything else is the kept tree), as git's untracked cache does. Complete
 * by the same rules as `statCompare`: a name added, removed or renamed moves its folder's
 * times, a content change moves the file's; racy ones are taken as changed. Undefined when
 * the key does not hold (a walk must say) or too many entries changed for it to pay.
 */
export function changedSince(root: string, cols: TreeColumns, settings: WalkSettings): ChangedSince | undefined {
  const stats = cols.stats;
  if (stats === undefined || !keyHolds(stats.key, root, settings)) return undefined;
  const { nDirs, nFiles, strings } = cols;
  const racyFrom = stats.takenAt - RACY_MS;
  const lstat = walkLstat(root);
  const st = statBuffer();
  const folders = new Set<string>();
  const folderStats = new Map<string, number[]>();
  const paths: string[] = [];
  const parentOf = (p: string) => p.slice(0, Math.max(0, p.lastIndexOf("/")));
  for (let i = 0; i < nDirs; i++) {
    const dir = strings[i] as string;
    const s = i * DIR_STAT;
    let there: boolean;
    try {
      there = lstat(dir === "" ? root : `${root}/${dir}`, st);
    } catch {
      return undefined;
    }
    // Gone, or now something else: its parent's entries changed.
    if (!there || ((st[ST_MODE] as number) & S_IFMT) !== S_IFDIR) folders.add(parentOf(dir));
    else if (
      !((stats.dirs[s] as number) < racyFrom) ||
      st[ST_MTIME] !== stats.dirs[s] ||
      st[ST_CTIME] !== stats.dirs[s + 1] ||
      st[ST_INO] !== stats.dirs[s + 2]
    ) {
      folders.add(dir);
      folderStats.set(dir, [st[ST_MTIME] as number, st[ST_CTIME] as number, st[ST_INO] as number]);
    }
  }
  // Most folders changed (a branch checked out, or all racy just after a walk): the whole walk is as cheap, and the files need no lstat here.
  const most = Math.max(64, nDirs / 4);
  if (folders.size > most) return undefined;
  const _files = stats.files;
  const whole = inRoot(root, (base) => {
    for (let j = 0; j < nFiles; j++) {
      const path = strings[nDirs + j] as string;
      const _s = j * FILE_STAT;
      let there: boolean;
      try {
        there = lstat(base + path, st);
      } catch (e) {
        // A folder on its way is now something else (ENOTDIR): gone too. Any other error: the walk reports it.
        if ((e as NodeJS.ErrnoException).code !== "ENOTDIR") return false;
        there = false;
      }
      if (!there) {
        folders.add(parentOf(path)); // gone: its folder is listed again
        continue;
      }
      if (keptAsIs(st, cols, j, racyFrom)) continue;
      paths.push(path);
      if (paths.length > MAX_READS) return false;
    }
    return true;
  });
  if (!whole || folders.size > most) return undefined;
  return { folders: [...folders], paths, folderStats };
}

export interface QuickStatus {
  /** Files whose content, type or mode differs from the tree's ("modified"), and new files in folders listed again ("created"), in path order. */
  readonly changes: FileChange[];
  readonly tooLarge: string[];
  readonly secretFiles: readonly string[];
  /** Files read whose content turned out unchanged: a fresh write of the stats would spare reading them again. */
  readonly stale: number;
  /** The kept stats brought up to date (`refreshedStats`), for the caller to write over the cache the columns came from. */
  readonly refresh?: CachePatch;
}

/** The status of the files under `root` against the tree in `cols`, by stats; undefined when a walk must say. */
export function quickStatus(
  root: string,
  cols: TreeColumns,
  settings: WalkSettings,
  foldersSame?: () => void,
  ignoredNow?: () => IgnoredNow,
  hint?: ReadonlySet<string>,
): QuickStatus | undefined {
  const found = statCompare(root, cols, settings, foldersSame, ignoredNow, true, hint);
  mark("quick: files stat'ed");
  if (found === undefined) return undefined;
  const changes: FileChange[] = [];
  const same: StatChange[] = [];
  const differ: StatChange[] = [];
  for (const read of found.reads) {
    const { j, path, st } = read;
    let blob: Buffer;
    try {
      blob = readBlob(`${root}/${path}`, st.size);
    } catch {
      return undefined; // gone or unreadable since: the walk reports it as it does
    }
    const before = fileEntry(cols, j);
    const after: FileInfo = { type: "f", mode: st.mode & 0o777, size: blob.length - 1, hash: blobObjects(blob).hash };
    if (after.hash === before.hash && after.mode === before.mode && after.size === before.size) same.push(read);
    else {
      differ.push(read);
      changes.push({ path, kind: "modified", before, after });
    }
  }
  // New files and files gone, paired into renames as a walk pairs them (`withRenames`).
  const created: FileChange[] = [];
  for (const { path, st } of found.added ?? []) {
    let blob: Buffer;
    try {
      blob = readBlob(`${root}/${path}`, st.size);
    } catch {
      return undefined;
    }
    created.push({ path, kind: "created", before: null, after: { type: "f", mode: st.mode & 0o777, size: blob.length - 1, hash: blobObjects(blob).hash } });
  }
  for (const { path, target, st } of found.addedLinks ?? []) created.push({ path, kind: "created", before: null, after: linkInfo(target, st) });
  const deleted = (found.removed ?? []).map(
    (j): FileChange => ({ path: cols.strings[cols.nDirs + j] as string, kind: "deleted", before: fileEntry(cols, j, linkTargets(cols).get(j)), after: null }),
  );
  const refresh = refreshedStats(cols, found, same, differ);
  return {
    changes: withRenames(changes, created, deleted),
    tooLarge: found.tooLarge,
    secretFiles: found.secretFiles,
    stale: same.length,
    ...(refresh && { refresh }),
  };
}

/**
 * The kept stats brought up to date by a status that found, where it looked again, the tree
 * as kept, as `git status` refreshes its index: a folder listed again holding the same names
 * and a file read with the kept content take their stats now, racy against this comparison's
 * time, so what was racy against the snapshot (`.forge` made just before the first) is not
 * listed or read by every status until the next. A file found changed keeps NaN, whether
 * its stats moved or it was racy: no kept stat may be older than the time the cache says they
 * were taken at (against the later time a racy file's unchanged stats would pass for the kept
 * content, and the stat preload trusts a file whose inode did not change since a second
 * before that time: stat-preload.ts). Undefined when nothing is out of date, or names came or
 * went (their folders' old stats keep them listed again).
 */
function refreshedStats(cols: TreeColumns, found: StatCompared, same: readonly StatChange[], differ: readonly StatChange[]): CachePatch | undefined {
  const stats = cols.stats;
  if (stats === undefined || found.added || found.addedLinks || found.addedDirs || found.removed || found.removedDirs) return undefined;
  if (found.dirStats === undefined && same.length === 0) return undefined;
  const fileStats = stats.files.slice();
  const files: { j: number; info: FileInfo }[] = [];
  for (const { j, st } of same) {
    fileStats.set([st.mtimeMs, st.ctimeMs, st.ino, st.mode], j * FILE_STAT);
    files.push({ j, info: fileEntry(cols, j) });
  }
  for (const { j } of differ) {
    fileStats.fill(Number.NaN, j * FILE_STAT, (j + 1) * FILE_STAT);
    files.push({ j, info: fileEntry(cols, j) });
  }
  const dirHashes = Array.from({ length: cols.nDirs }, (_, i) => cols.hashOf(i));
  return { root: cols.root, dirHashes, files, takenAt: found.takenAt, dirStats: found.dirStats ?? stats.dirs, fileStats };
}

/** A symlink's entry as the walk makes it: its target, no hash. */
export function linkInfo(target: string, st: StatSignature): FileInfo {
  return { type: "l", mode: st.mode & 0o777, size: st.size, hash: "", target };
}
