// Which paths a snapshot leaves out: the defaults (.git/, .forge/, node_modules/ at any
// depth), every .gitignore in the tree with git's semantics (a deeper file's patterns
// override a shallower one's, `!` re-includes, an excluded directory is not entered), a
// .forgeignore beside each in the same syntax, and extra configured patterns.
import { lstatSync, readFileSync, type Stats } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import type { Ignore } from "ignore";

type IgnoreFactory = () => Ignore;
// Loaded on first use: only commands that walk a workspace need it.
let factory: IgnoreFactory | undefined;
const ignore = (): Ignore => (factory ??= createRequire(import.meta.url)("ignore") as IgnoreFactory)();

export const DEFAULT_IGNORES = [".git/", ".forge/", "node_modules/"] as const;
const FILES = [".gitignore", ".forgeignore"] as const;

interface Level {
  /** The directory the patterns are relative to ("" for the root), with a trailing "/". */
  readonly prefix: string;
  readonly rules: Ignore;
}

export class IgnoreRules {
  readonly #root: string;
  /** Rules of the directories from the root down to the one being walked (extra patterns first). */
  readonly #levels: Level[];

  constructor(root: string, extra: readonly string[] = []) {
    this.#root = root;
    this.#levels = rootLevels(root, extra);
  }

  /**
   * Loads the ignore files of directory `dir` (relative, "" for the root) as the walk enters
   * it. `names`, the folder's listing when the caller has it, saves trying to read files
   * that are not there.
   */
  enter(dir: string, names?: readonly string[]): void {
    const level = loadLevel(this.#root, dir, names);
    if (level) this.#levels.push(level);
  }

  /** Drops the rules of directories the walk has left (call with the directory being left). */
  leave(dir: string): void {
    if (dir === "") return;
    const prefix = `${dir}/`;
    while (this.#levels.length > 0 && (this.#levels[this.#levels.length - 1] as Level).prefix === prefix) this.#levels.pop();
  }

  /** Whether the walk should skip `path` (relative, "/"-separated; `isDir` for directories). */
  ignores(path: string, isDir: boolean): boolean {
    return verdict(this.#levels, path, isDir);
  }
}

/**
 * Whether paths the walk did not see (a restore's targets) are ignored by the rules on disk
 * now. Each folder's rules are read once however many paths are asked about; rules are read
 * only from real folders, never through a symlink or a file.
 */
export function ignoredOnDisk(root: string, extra: readonly string[] = []): (path: string, isDir?: boolean) => boolean {
  // Per folder on the way: the rules in force inside it, or null if the folder is ignored.
  // Folders that are missing or not real folders are not cached: a path below one is
  // judged by the rules above it.
  const inside = new Map<string, Level[] | null>([["", rootLevels(root, extra)]]);
  const rulesIn = (dir: string): Level[] | null | undefined => {
    const known = inside.get(dir);
    if (known !== undefined) return known;
    const slash = dir.lastIndexOf("/");
    const parent = rulesIn(slash < 0 ? "" : dir.slice(0, slash));
    if (parent == null) return parent;
    if (verdict(parent, dir, true)) {
      inside.set(dir, null);
      return null;
    }
    // Missing, or not a folder we can look into: paths below it are judged by the rules above.
    let st: Stats | undefined;
    try {
      st = lstatSync(join(root, dir), { throwIfNoEntry: false });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EACCES" || code === "EPERM" || code === "ENOTDIR" || code === "ELOOP" || code === "ENAMETOOLONG") return undefined;
      throw e;
    }
    if (st === undefined || !st.isDirectory()) return undefined;
    const level = loadLevel(root, dir);
    const levels = level ? [...parent, level] : parent;
    inside.set(dir, levels);
    return levels;
  };
  return (path, isDir = false) => {
    const parts = path.split("/");
    // The deepest existing real folder above `path` holds the rules that judge it.
    let levels: Level[] | undefined = inside.get("") as Level[];
    for (let i = 1; i < parts.length; i++) {
      const r = rulesIn(parts.slice(0, i).join("/"));
      if (r === null) return true;
      if (r === undefined) break;
      levels = r;
    }
    return verdict(levels, path, isDir);
  };
}

function rootLevels(root: string, extra: readonly string[]): Level[] {
  const levels: Level[] = [];
  if (extra.length > 0) levels.push({ prefix: "", rules: ignore().add([...extra]) });
  const level = loadLevel(root, "");
  if (level) levels.push(level);
  return levels;
}

/** The rules of directory `dir`'s ignore files, if it has any. */
function loadLevel(root: string, dir: string, names?: readonly string[]): Level | undefined {
  let rules: Ignore | undefined;
  for (const name of FILES) {
    if (names !== undefined && !names.includes(name)) continue;
    let text: string;
    try {
      text = readFileSync(join(root, dir, name), "utf8");
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // No file, or a folder we cannot read (the walk reports that folder as unreadable).
      if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR" || code === "EACCES" || code === "EPERM" || code === "ELOOP") continue;
      throw e;
    }
    (rules ??= ignore()).add(text);
  }
  return rules ? { prefix: dir === "" ? "" : `${dir}/`, rules } : undefined;
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
    const rel = path.slice(level.prefix.length) + (isDir ? "/" : "");
    // The deepest file with an opinion decides, as in git.
    const r = level.rules.test(rel);
    if (r.ignored) ignored = true;
    else if (r.unignored) ignored = false;
  }
  return ignored;
}

const DEFAULT_NAMES = new Set(DEFAULT_IGNORES.map((p) => p.slice(0, -1)));
