// Which paths a snapshot leaves out: the defaults (.git/, .forge/, node_modules/ at any
// depth), every .gitignore in the tree with git's semantics (a deeper file's patterns
// override a shallower one's, `!` re-includes, an excluded directory is not entered), a
// .forgeignore beside each in the same syntax, and extra configured patterns.
import { readFileSync } from "node:fs";
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
  readonly #levels: Level[] = [];

  constructor(root: string, extra: readonly string[] = []) {
    this.#root = root;
    if (extra.length > 0) this.#levels.push({ prefix: "", rules: ignore().add([...extra]) });
    this.enter("");
  }

  /**
   * Loads the ignore files of directory `dir` (relative, "" for the root) as the walk enters
   * it. `names`, the folder's listing when the caller has it, saves trying to read files
   * that are not there.
   */
  enter(dir: string, names?: readonly string[]): void {
    let rules: Ignore | undefined;
    for (const name of FILES) {
      if (names !== undefined && !names.includes(name)) continue;
      let text: string;
      try {
        text = readFileSync(join(this.#root, dir, name), "utf8");
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        // No file, or a folder we cannot read (the walk reports that folder as unreadable).
        if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR" || code === "EACCES" || code === "EPERM" || code === "ELOOP") continue;
        throw e;
      }
      (rules ??= ignore()).add(text);
    }
    if (rules) this.#levels.push({ prefix: dir === "" ? "" : `${dir}/`, rules });
  }

  /** Drops the rules of directories the walk has left (call with the directory being left). */
  leave(dir: string): void {
    if (dir === "") return;
    const prefix = `${dir}/`;
    while (this.#levels.length > 0 && (this.#levels[this.#levels.length - 1] as Level).prefix === prefix) this.#levels.pop();
  }

  /** Whether the walk should skip `path` (relative, "/"-separated; `isDir` for directories). */
  ignores(path: string, isDir: boolean): boolean {
    // The defaults are folder names anywhere: a cheap test before any pattern matching.
    if (isDir) {
      const slash = path.lastIndexOf("/");
      if (DEFAULT_NAMES.has(slash < 0 ? path : path.slice(slash + 1))) return true;
    }
    let verdict = false;
    for (const level of this.#levels) {
      if (level.prefix !== "" && !path.startsWith(level.prefix)) continue;
      const rel = path.slice(level.prefix.length) + (isDir ? "/" : "");
      // The deepest file with an opinion decides, as in git.
      const r = level.rules.test(rel);
      if (r.ignored) verdict = true;
      else if (r.unignored) verdict = false;
    }
    return verdict;
  }
}

const DEFAULT_NAMES = new Set(DEFAULT_IGNORES.map((p) => p.slice(0, -1)));
