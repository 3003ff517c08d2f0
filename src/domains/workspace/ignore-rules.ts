// Which paths a snapshot leaves out: the defaults (.git/, .forge/, node_modules/ at any
// depth), every .gitignore in the tree with git's semantics (a deeper file's patterns
// override a shallower one's, `!` re-includes, an excluded directory is not entered), a
// .forgeignore beside each in the same syntax, and extra configured patterns.
//
// Inside a git work tree (git-view.ts), git's rules are git's: they are for untracked files.
// A file git tracks is kept whatever the defaults and the .gitignore files say, and a folder
// they exclude is entered when git tracks something in it — for those files only. Untracked
// files also follow info/exclude, core.excludesFile and the .gitignore files between the work
// tree's root and the workspace's. .forgeignore files and configured patterns are Forge's own:
// they exclude tracked files too (a user who writes one means it). .git/ and .forge/ are
// never entered.
//
// Secret files (secret-files.ts: `.env`, private keys, credential stores) are left out too,
// after every other rule let them in — unless git tracks them or the configuration keeps
// them — and the walk's IgnoreRules lists which (`secretFiles`) for status and snapshots.
import { lstatSync, readFileSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import type { Ignore } from "ignore";
import { gitView, type GitView } from "./git-view.js";
import { isSecretFile, keptSecretFile, secretByContent, type SecretFilesOption } from "./secret-files.js";

type IgnoreFactory = () => Ignore;
// Loaded on first use: only commands that walk a workspace need it.
let factory: IgnoreFactory | undefined;
const ignore = (): Ignore => (factory ??= createRequire(import.meta.url)("ignore") as IgnoreFactory)();

export const DEFAULT_IGNORES = [".git/", ".forge/", "node_modules/"] as const;
const FILES = [".gitignore", ".forgeignore"] as const;
/** Git's and Forge's own folders: never part of a snapshot, tracked or not. */
const NEVER = new Set([".git", ".forge"]);

/** Whether a folder of this name is left out wherever it is, whatever the rules say (git's and Forge's own). */
export function neverTaken(name: string): boolean {
  return NEVER.has(name);
}

/** Whether a file of this name holds ignore rules (for the folder it is in and those below). */
export function isIgnoreFile(name: string): boolean {
  return (FILES as readonly string[]).includes(name);
}

interface Level {
  /** The directory the patterns are relative to ("" for the root and above), with a trailing "/". */
  readonly prefix: string;
  /** For a level above the workspace root (git's): the root as seen from the level's folder, with "/"; else "". */
  readonly base: string;
  /** All its patterns: .gitignore, then .forgeignore (or git's excludes files, or the configured patterns). */
  readonly rules: Ignore;
  /** Forge's own patterns alone (.forgeignore, configured), which judge tracked files too; only inside a git work tree. */
  readonly forge?: Ignore;
}

export class IgnoreRules {
  readonly #root: string;
  /** Rules of the directories from the root down to the one being walked (git's excludes files and configured patterns first). */
  readonly #levels: Level[];
  readonly #git: GitView | null;
  /** The folder being walked (with "/") that git's rules exclude: entered only for the files git tracks in it. */
  #excluded: string | null = null;
  /** How many of the levels hold Forge's own patterns (most trees: none, and every tracked file is kept at once). */
  #forgeLevels: number;
  readonly #keepSecret: (path: string) => boolean;
  /** The secret files this walk left out (relative paths), for status and snapshots to say so. */
  readonly secretFiles = new Set<string>();
  /**
   * Every ignore file these rules tried to read (absolute path) with `ignoreFileKey` of it then,
   * there or not, and every file left out as secret for what it holds. With the listings of the folders walked and git's key, it says whether the
   * rules would judge the same names the same way again (quick-status.ts).
   */
  readonly sources: [string, string][] = [];

  /** `secretFiles`: which secret files to keep anyway (default none; git-tracked ones always are). */
  constructor(root: string, extra: readonly string[] = [], secretFiles?: SecretFilesOption) {
    this.#root = root;
    this.#git = gitView(root);
    this.#levels = rootLevels(root, extra, this.#git, this.sources);
    this.#forgeLevels = this.#levels.filter((l) => l.forge !== undefined).length;
    this.#keepSecret = keptSecretFile(secretFiles);
  }

  /** Changes when what git says may have (its index or an excludes file was rewritten); "" outside a git work tree. */
  get gitKey(): string {
    return this.#git?.key ?? "";
  }

  /**
   * What of git these rules' answers so far depended on: its excludes files, and its index
   * only if a path was asked about it (the rules would have left it out); null outside a work tree.
   */
  get gitDepends(): { readonly index: string | null; readonly excludes: string } | null {
    const git = this.#git;
    return git === null ? null : { index: git.asked ? git.indexKey : null, excludes: git.excludesKey };
  }

  /**
   * Loads the ignore files of directory `dir` (relative, "" for the root) as the walk enters
   * it. `names`, the folder's listing when the caller has it, saves trying to read files
   * that are not there.
   */
  enter(dir: string, names?: readonly string[]): void {
    // Judged by the rules above it, before its own are added.
    if (this.#git !== null && this.#excluded === null && dir !== "" && verdict(this.#levels, dir, true)) this.#excluded = `${dir}/`;
    const level = loadLevel(this.#root, dir, this.#git !== null, names, this.sources);
    if (level) this.#levels.push(level);
    if (level?.forge) this.#forgeLevels++;
  }

  /** Drops the rules of directories the walk has left (call with the directory being left). */
  leave(dir: string): void {
    if (dir === "") return;
    const prefix = `${dir}/`;
    if (this.#excluded === prefix) this.#excluded = null;
    while (this.#levels.length > 0 && (this.#levels[this.#levels.length - 1] as Level).prefix === prefix) {
      if ((this.#levels.pop() as Level).forge) this.#forgeLevels--;
    }
  }

  /** Whether the walk should skip `path` (relative, "/"-separated; `isDir` for directories). */
  ignores(path: string, isDir: boolean): boolean {
    const git = this.#git;
    const ignored =
      git === null
        ? verdict(this.#levels, path, isDir)
        : judge(git, this.#levels, path, isDir, this.#excluded !== null && path.startsWith(this.#excluded), this.#forgeLevels > 0);
    if (ignored || isDir || !leftOutSecret(this.#root, git, path, this.#keepSecret)) return ignored;
    this.secretFiles.add(path);
    // Left out for what it holds: new content could let it in, with no name changed.
    if (secretByContent(path)) this.sources.push([join(this.#root, path), ignoreFileKey(join(this.#root, path))]);
    return true;
  }
}

/**
 * Inside a git work tree: Forge's rules for what git tracks, all rules for the rest.
 * `excluded`: a folder above is excluded by git's rules; `forge`: some level holds Forge's own patterns.
 */
function judge(git: GitView, levels: readonly Level[], path: string, isDir: boolean, excluded: boolean, forge: boolean): boolean {
  if (isDir && NEVER.has(path.slice(path.lastIndexOf("/") + 1))) return true;
  const tracked = () => (isDir ? git.tracksUnder(path) : git.tracks(path));
  // Without Forge's own patterns, a path the rules keep is kept, tracked or not: git's index
  // is read only for paths the rules would leave out (most walks: the defaults' folders).
  if (!forge) return (excluded || verdict(levels, path, isDir)) && !tracked();
  if (tracked()) return forgeVerdict(levels, path, isDir);
  return excluded || verdict(levels, path, isDir);
}

/** Whether some of `levels` holds Forge's own patterns, as the walk counts them: else git's index is asked only about paths the rules leave out. */
function holdsForge(levels: readonly Level[]): boolean {
  return levels.some((l) => l.forge !== undefined);
}

/** What the rules on the way to a folder say about what is inside it. */
interface Inside {
  readonly levels: Level[];
  /** The folder or one above it is excluded by git's rules (entered for tracked files only). */
  readonly excluded: boolean;
  /** A real folder, and every folder above it: its ignore files are read. */
  readonly real: boolean;
}

/**
 * Whether paths the walk did not see (a restore's targets) are ignored by the rules on disk
 * now — the walk's judgement, git's tracked files included. Each folder's rules are read once
 * however many paths are asked about; rules are read only from real folders, never through a
 * symlink or a file; a missing folder on the way is judged by the rules above it.
 */
export function ignoredOnDisk(root: string, extra: readonly string[] = [], secretFiles?: SecretFilesOption): (path: string, isDir?: boolean) => boolean {
  const git = gitView(root);
  const keepSecret = keptSecretFile(secretFiles);
  // Per folder on the way: the rules in force inside it, or null if the folder is ignored.
  const inside = new Map<string, Inside | null>([["", { levels: rootLevels(root, extra, git), excluded: false, real: true }]]);
  const rulesIn = (dir: string): Inside | null => {
    const known = inside.get(dir);
    if (known !== undefined) return known;
    const slash = dir.lastIndexOf("/");
    const parent = rulesIn(slash < 0 ? "" : dir.slice(0, slash));
    let here: Inside | null = null;
    if (
      parent !== null &&
      !(git === null ? verdict(parent.levels, dir, true) : judge(git, parent.levels, dir, true, parent.excluded, holdsForge(parent.levels)))
    ) {
      const excluded = git !== null && (parent.excluded || verdict(parent.levels, dir, true));
      const real = parent.real && isRealFolder(join(root, dir));
      const level = real ? loadLevel(root, dir, git !== null) : undefined;
      here = { levels: level ? [...parent.levels, level] : parent.levels, excluded, real };
    }
    inside.set(dir, here);
    return here;
  };
  return (path, isDir = false) => {
    const slash = path.lastIndexOf("/");
    const at = rulesIn(slash < 0 ? "" : path.slice(0, slash));
    if (at === null) return true;
    const ignored = git === null ? verdict(at.levels, path, isDir) : judge(git, at.levels, path, isDir, at.excluded, holdsForge(at.levels));
    return ignored || (!isDir && leftOutSecret(root, git, path, keepSecret));
  };
}

/** Whether a file the other rules let in is a secret file that snapshots leave out (not tracked by git, not kept by the configuration). */
function leftOutSecret(root: string, git: GitView | null, path: string, keep: (path: string) => boolean): boolean {
  return isSecretFile(root, path) && !(git?.tracks(path) ?? false) && !keep(path);
}

/** Whether `abs` is a folder (not a link to one) that can be looked into. */
function isRealFolder(abs: string): boolean {
  let st: Stats | undefined;
  try {
    st = lstatSync(abs, { throwIfNoEntry: false });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM" || code === "ENOTDIR" || code === "ELOOP" || code === "ENAMETOOLONG") return false;
    throw e;
  }
  return st?.isDirectory() === true;
}

function rootLevels(root: string, extra: readonly string[], git: GitView | null, sources?: [string, string][]): Level[] {
  const levels: Level[] = [];
  if (git !== null) {
    // core.excludesFile, info/exclude, then the .gitignore files of the folders above the root: relative to their folders.
    for (const text of git.excludes) levels.push({ prefix: "", base: git.prefix, rules: ignore().add(text) });
    const parts = git.prefix === "" ? [] : git.prefix.slice(0, -1).split("/");
    for (let i = 0; i < parts.length; i++) {
      const text = readIgnoreFile(join(git.top, ...parts.slice(0, i), ".gitignore"), sources);
      if (text !== undefined) levels.push({ prefix: "", base: `${parts.slice(i).join("/")}/`, rules: ignore().add(text) });
    }
  }
  if (extra.length > 0) {
    const rules = ignore().add([...extra]);
    levels.push({ prefix: "", base: "", rules, ...(git !== null && { forge: rules }) });
  }
  const level = loadLevel(root, "", git !== null, undefined, sources);
  if (level) levels.push(level);
  return levels;
}

/**
 * The rules of directory `dir`'s ignore files, if it has any; with `split`, its .forgeignore
 * patterns also on their own.
 */
function loadLevel(root: string, dir: string, split: boolean, names?: readonly string[], sources?: [string, string][]): Level | undefined {
  let rules: Ignore | undefined;
  let forge: Ignore | undefined;
  for (const name of FILES) {
    if (names !== undefined && !names.includes(name)) continue;
    const text = readIgnoreFile(join(root, dir, name), sources);
    if (text === undefined) continue;
    (rules ??= ignore()).add(text);
    if (split && name === ".forgeignore") forge = ignore().add(text);
  }
  return rules ? { prefix: dir === "" ? "" : `${dir}/`, base: "", rules, ...(forge && { forge }) } : undefined;
}

/** What tells an ignore file's versions apart: inode, size and times; "-" when there is none, "!CODE" when it cannot be looked at. */
export function ignoreFileKey(path: string): string {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st === undefined ? "-" : `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch (e) {
    return `!${(e as NodeJS.ErrnoException).code ?? "?"}`;
  }
}

/** The file's text (undefined when there is none); `sources` gets its key, taken before it is read. */
function readIgnoreFile(path: string, sources?: [string, string][]): string | undefined {
  sources?.push([path, ignoreFileKey(path)]);
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // No file, or a folder we cannot read (the walk reports that folder as unreadable).
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR" || code === "EACCES" || code === "EPERM" || code === "ELOOP") return undefined;
    throw e;
  }
}

function verdict(levels: readonly Level[], path: string, isDir: boolean): boolean {
  // The defaults are folder names anywhere: a cheap test before any pattern matching.
  if (isDir) {
    const slash = path.lastIndexOf("/");
    if (DEFAULT_NAMES.has(slash < 0 ? path : path.slice(slash + 1))) return true;
  }
  let ignored = false;
  for (const level of levels) {
    if (level.prefix !== "" && !path.startsWith(level.prefix)) continue;
    const rel = level.base + path.slice(level.prefix.length) + (isDir ? "/" : "");
    // The deepest file with an opinion decides, as in git.
    const r = level.rules.test(rel);
    if (r.ignored) ignored = true;
    else if (r.unignored) ignored = false;
  }
  return ignored;
}

/** `verdict` by Forge's own patterns alone: what may exclude a file git tracks. */
function forgeVerdict(levels: readonly Level[], path: string, isDir: boolean): boolean {
  let ignored = false;
  for (const level of levels) {
    if (level.forge === undefined || (level.prefix !== "" && !path.startsWith(level.prefix))) continue;
    const r = level.forge.test(path.slice(level.prefix.length) + (isDir ? "/" : ""));
    if (r.ignored) ignored = true;
    else if (r.unignored) ignored = false;
  }
  return ignored;
}

const DEFAULT_NAMES = new Set(DEFAULT_IGNORES.map((p) => p.slice(0, -1)));
