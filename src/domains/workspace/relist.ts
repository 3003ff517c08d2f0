// Listing again the folders whose stats moved since the kept tree's walk (quick-status.ts
// `statCompare`): whether they hold the names the kept tree has there, judged as the walk
// judges them, and — for a caller that can record them — which files and folders are new in
// them and which files are gone, so that a status or snapshot stays a comparison by stats.
import { type Dirent, readdirSync } from "node:fs";
import { S_IFDIR, S_IFMT, ST_CTIME, ST_INO, ST_MODE, ST_MTIME, statBuffer, walkLstat } from "./fast-stat.js";
import { isIgnoreFile, neverTaken } from "./ignore-rules.js";
import { isSecretFile, secretByContent } from "./secret-files.js";
import { entriesIn, nameAt, parentsOf, type TreeColumns } from "./tree-cache.js";

/** Past this many files to read (or bytes), the walk with its stat cache is the better way. */
export const MAX_READS = 1000;

/** Whether the walk leaves `path` out now (ignore-rules.ts `ignoredOnDisk`): names a folder listed again has and the kept tree lacks. */
export type IgnoredNow = (path: string, isDir: boolean) => boolean;

/**
 * Whether folders `moved` (places in `cols`) hold the names the kept tree has in them, each
 * of the same kind (a folder, a regular file, a symlink), and nothing else the walk would
 * take — but, with `allowNames`, new regular files and folders, or without some of their
 * files, or of their folders found gone (`goneDirs`, taken out whole): the new files and
 * folders and the places of the files gone (none: only file contents can differ), or
 * undefined when a walk must say. The rules that judge a name the kept tree lacks are read
 * only when one is met: `.git` and `.forge` folders need none. Symlinks new or gone are
 * taken in or out as files are. An ignore file new or gone, or a file whose name or content
 * makes it a secret file, is left to the walk, and so is a secret file the walk left out
 * that is gone (it names those it finds).
 */
export function relisted(
  root: string,
  cols: TreeColumns,
  moved: readonly number[],
  ignoredNow: () => IgnoredNow,
  allowNames: boolean,
  goneDirs: readonly number[] = [],
): Relisted | undefined {
  const { strings, types } = cols;
  const gone = new Set(goneDirs);
  let judge: IgnoredNow | undefined;
  const added: string[] = [];
  const links: string[] = [];
  const removed: number[] = [];
  const dirs: NewFolder[] = [];
  const lstat = walkLstat(root);
  const st = statBuffer();
  /**
   * A new folder the walk would take, taken in whole (its stats first, as the walk takes them
   * before it lists): false when it holds anything but new folders, regular files and
   * symlinks the walk would take — an ignore file (its rules), a secret file (named by the walk).
   */
  const newFolder = (path: string, judged: IgnoredNow): boolean => {
    try {
      if (!lstat(`${root}/${path}`, st) || ((st[ST_MODE] as number) & S_IFMT) !== S_IFDIR) return false;
    } catch {
      return false;
    }
    dirs.push({ path, mode: (st[ST_MODE] as number) & 0o777, stats: [st[ST_MTIME] as number, st[ST_CTIME] as number, st[ST_INO] as number] });
    let listed: Dirent[];
    try {
      listed = readdirSync(`${root}/${path}`, { withFileTypes: true });
    } catch {
      return false;
    }
    for (const d of listed) {
      const sub = `${path}/${d.name}`;
      const isDir = d.isDirectory();
      if (isDir && neverTaken(d.name)) continue;
      if (!isDir && (isIgnoreFile(d.name) || isSecretFile(root, sub))) return false;
      if (judged(sub, isDir)) continue;
      if (isDir) {
        if (!newFolder(sub, judged)) return false;
      } else if (d.isFile() && !secretByContent(sub)) added.push(sub);
      else if (d.isSymbolicLink()) links.push(sub);
      else return false;
      if (added.length + links.length + dirs.length > MAX_READS) return false;
    }
    return true;
  };
  // The secret files the walk left out, by folder: each must still be there (the walk names those it finds).
  const secrets = new Map<string, string[]>();
  for (const path of cols.stats?.secretFiles ?? []) {
    const slash = path.lastIndexOf("/");
    const dir = slash < 0 ? "" : path.slice(0, slash);
    secrets.set(dir, [...(secrets.get(dir) ?? []), path.slice(slash + 1)]);
  }
  // The kept entries of each folder listed again: name → place (a folder's is negative).
  for (const [i, names] of entriesIn(cols, moved)) {
    const dir = strings[i] as string;
    let listed: Dirent[];
    try {
      listed = readdirSync(dir === "" ? root : `${root}/${dir}`, { withFileTypes: true });
    } catch {
      return undefined;
    }
    const secretsHere = secrets.get(dir);
    if (secretsHere && !secretsHere.every((name) => listed.some((d) => d.name === name && !d.isDirectory()))) return undefined; // one gone
    let found = 0;
    const seen = new Set<number>();
    for (const d of listed) {
      const at = names.get(d.name);
      if (at === undefined) {
        if (d.isDirectory() && neverTaken(d.name)) continue; // git's and Forge's own folders: no rules to read
        const path = dir === "" ? d.name : `${dir}/${d.name}`;
        // A secret file is left out, and the walk names it (`secretFiles`): one already named is as kept; a new one, the walk says.
        if (!d.isDirectory() && isSecretFile(root, path)) {
          if (secretsHere?.includes(d.name)) continue;
          return undefined;
        }
        judge ??= ignoredNow();
        if (judge(path, d.isDirectory())) continue;
        if (allowNames && d.isFile() && !isIgnoreFile(d.name) && !secretByContent(path)) {
          added.push(path);
          continue;
        }
        if (allowNames && d.isSymbolicLink()) {
          links.push(path);
          continue;
        }
        if (allowNames && d.isDirectory() && newFolder(path, judge)) continue;
        return undefined; // a name the walk would take: a socket or the like, a folder holding one
      }
      found++;
      const kind = at < 0 ? 0x64 /* d */ : (types[at] as number);
      const same =
        kind === 0x64 ? d.isDirectory() : kind === 0x6c /* l */ ? d.isSymbolicLink() : (kind === 0x66 /* f */ || kind === 0x78) /* x */ && d.isFile();
      if (!same) return undefined;
      seen.add(at);
    }
    if (found === names.size) continue;
    // Names gone, when allowed: files and symlinks (not ignore files), and folders found gone.
    if (!allowNames) return undefined;
    for (const [name, at] of names) {
      if (seen.has(at)) continue;
      if (at < 0 ? !gone.has(-1 - at) : isIgnoreFile(name)) return undefined;
      if (at >= 0) removed.push(at);
    }
  }
  if (gone.size > 0 && !goneWhole(cols, gone, new Set(moved), removed)) return undefined;
  return { added, links, removed, dirs };
}

/**
 * Whether the folders `gone` (places: every folder found missing) are gone whole, each from
 * a folder listed again or from one gone too, and hold no ignore file or secret file (the
 * walk named it): their files and symlinks are then added to `removed`.
 */
function goneWhole(cols: TreeColumns, gone: ReadonlySet<number>, moved: ReadonlySet<number>, removed: number[]): boolean {
  const { nDirs, nFiles, strings } = cols;
  const parents = parentsOf(cols);
  for (const i of gone) {
    const up = parents[i] as number;
    if (!(gone.has(up) || moved.has(up))) return false;
  }
  for (let j = 0; j < nFiles; j++) {
    if (!gone.has(parents[nDirs + j] as number)) continue;
    if (isIgnoreFile(nameAt(cols, nDirs + j))) return false;
    removed.push(j);
  }
  const goneFolders = [...gone].map((i) => `${strings[i] as string}/`);
  return !(cols.stats?.secretFiles ?? []).some((path) => goneFolders.some((dir) => path.startsWith(dir)));
}

/** A new folder a folder listed again holds: its mode and stats ([mtimeMs, ctimeMs, ino]) as lstat'ed before it was listed. */
export interface NewFolder {
  readonly path: string;
  readonly mode: number;
  readonly stats: readonly number[];
}

/** What listing the moved folders again found beyond the kept names: new files and folders (parents first), and files gone (places, those of folders gone too). */
export interface Relisted {
  readonly added: string[];
  /** New symlinks (in folders listed again, or new ones). */
  readonly links: string[];
  readonly removed: number[];
  readonly dirs: NewFolder[];
}
