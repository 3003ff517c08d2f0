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
  /** Rules of the directories from the root down to the one being walked. */
  readonly #levels: Level[] = [];

  constructor(root: string, extra: readonly string[] = []) {
    this.#root = root;
    const base = ignore().add([...DEFAULT_IGNORES]);
    if (extra.length > 0) base.add([...extra]);
    this.#levels.push({ prefix: "", rules: base });
    this.enter("");
  }

  /** Loads the ignore files of directory `dir` (relative, "" for the root) as the walk enters it. */
  enter(dir: string): void {
    const rules = ignore();
    let found = false;
    for (const name of FILES) {
      let text: string;
      try {
        text = readFileSync(join(this.#root, dir, name), "utf8");
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        // No file, or a folder we cannot read (the walk reports that folder as unreadable).
        if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR" || code === "EACCES" || code === "EPERM" || code === "ELOOP") continue;
        throw e;
      }
      rules.add(text);
      found = true;
    }
    if (found) this.#levels.push({ prefix: dir === "" ? "" : `${dir}/`, rules });
  }

  /** Drops the rules of directories the walk has left (call with the directory being left). */
  leave(dir: string): void {
    const prefix = dir === "" ? "" : `${dir}/`;
    while (this.#levels.length > 1 && (this.#levels[this.#levels.length - 1] as Level).prefix === prefix) this.#levels.pop();
  }

  /** Whether the walk should skip `path` (relative, "/"-separated; `isDir` for directories). */
  ignores(path: string, isDir: boolean): boolean {
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
