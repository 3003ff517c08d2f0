// Follows file changes under a workspace folder: one inotify watch (fs.watch) per folder
// the workspace's ignore rules let in, never inside ignored ones (.git, .forge,
// node_modules, what .gitignore excludes). Node 20's `recursive: true` on Linux walks the
// whole tree and adds a watch for every file and folder, ignored ones included, and stats
// each file at start — 10,000 files cost 10,000 watches; a folder's watch already reports
// changes to the files in it, so one per folder is enough.
import { lstatSync, readdirSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import { IgnoreRules } from "../workspace/ignore-rules.js";

const IGNORE_FILES = new Set([".gitignore", ".forgeignore"]);

export interface TreeWatcherOptions {
  readonly root: string;
  /** Extra ignore patterns (the workspace's configured ones). */
  readonly ignore?: readonly string[];
  /** A path (relative, "/"-separated; "" for the root) changed. */
  readonly onChange: (path: string) => void;
  /** A folder could not be watched (changes there are found by the next full scan only). */
  readonly onError: (error: Error, dir: string) => void;
}

export class TreeWatcher {
  readonly #root: string;
  readonly #extra: readonly string[];
  readonly #onChange: (path: string) => void;
  readonly #onError: (error: Error, dir: string) => void;
  /** Watched folder (relative) → its watch. */
  readonly #watches = new Map<string, FSWatcher>();
  /** Folder → the ignore rules that apply to its entries (its own ignore files and its ancestors'). */
  #rules = new Map<string, IgnoreRules>();
  #closed = false;
  /** Folders that could not be watched, by error code: reported once each. */
  readonly #failed = new Set<string>();

  constructor(options: TreeWatcherOptions) {
    this.#root = options.root;
    this.#extra = options.ignore ?? [];
    this.#onChange = options.onChange;
    this.#onError = options.onError;
  }

  /** How many folders are watched. */
  get size(): number {
    return this.#watches.size;
  }

  /**
   * Walks the folders and makes the set of watches match them: new folders (and folders
   * an ignore file no longer excludes) get one, vanished or now-ignored ones lose theirs.
   * Returns the folders that were added.
   */
  sync(): string[] {
    if (this.#closed) return [];
    this.#rules = new Map();
    const seen = new Set<string>();
    const added: string[] = [];
    const rules = new IgnoreRules(this.#root, this.#extra);
    const walk = (dir: string) => {
      let entries;
      try {
        entries = readdirSync(dir === "" ? this.#root : join(this.#root, dir), { withFileTypes: true });
      } catch {
        return; // vanished or unreadable: the snapshot's own walk reports it
      }
      seen.add(dir);
      if (!this.#watches.has(dir) && this.#watch(dir)) added.push(dir);
      if (dir !== "") rules.enter(dir, entries.map((e) => e.name));
      for (const e of entries) {
        if (!e.isDirectory()) continue; // symlinks to folders are links in a snapshot, not folders
        const path = dir === "" ? e.name : `${dir}/${e.name}`;
        if (rules.ignores(path, true)) continue;
        walk(path);
        rules.leave(path);
      }
    };
    walk("");
    for (const dir of [...this.#watches.keys()]) if (!seen.has(dir)) this.#unwatch(dir);
    return added;
  }

  close(): void {
    this.#closed = true;
    for (const w of this.#watches.values()) w.close();
    this.#watches.clear();
  }

  #watch(dir: string): boolean {
    let w: FSWatcher;
    try {
      w = watch(dir === "" ? this.#root : join(this.#root, dir), { persistent: true }, (_event, name) => this.#event(dir, name));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? "";
      // A folder removed while we walked needs no watch; running out of watches is worth saying, once.
      if (code !== "ENOENT" && code !== "ENOTDIR" && !this.#failed.has(code)) {
        this.#failed.add(code);
        this.#onError(e as Error, dir);
      }
      return false;
    }
    w.on("error", (e: NodeJS.ErrnoException) => {
      // A watched folder that goes away ends its watch; anything else is reported.
      this.#unwatch(dir);
      if (e.code !== "ENOENT" && e.code !== "EPERM") this.#onError(e, dir);
    });
    this.#watches.set(dir, w);
    return true;
  }

  /** Drops the watch of `dir` and of every folder under it. */
  #unwatch(dir: string): void {
    const prefix = `${dir}/`;
    for (const [d, w] of this.#watches) {
      if (d === dir || (dir === "" ? true : d.startsWith(prefix))) {
        w.close();
        this.#watches.delete(d);
      }
    }
  }

  /** The rules for the entries of `dir`, built once per folder (and again after an ignore file changes). */
  #rulesFor(dir: string): IgnoreRules {
    let r = this.#rules.get(dir);
    if (r) return r;
    r = new IgnoreRules(this.#root, this.#extra);
    if (dir !== "") {
      const parts = dir.split("/");
      for (let i = 1; i <= parts.length; i++) r.enter(parts.slice(0, i).join("/"));
    }
    this.#rules.set(dir, r);
    return r;
  }

  #event(dir: string, name: string | Buffer | null): void {
    if (this.#closed) return;
    if (name === null) {
      // The kernel did not say which entry: the folder as a whole may have changed.
      this.#onChange(dir);
      return;
    }
    const entry = String(name);
    const path = dir === "" ? entry : `${dir}/${entry}`;
    if (IGNORE_FILES.has(entry)) {
      // What is ignored may have changed: rebuild the rules and the set of watched folders.
      this.sync();
      this.#onChange(path);
      return;
    }
    let isDir: boolean;
    try {
      isDir = lstatSync(join(this.#root, path)).isDirectory();
    } catch {
      // Gone: if it was a watched folder, so are the watches under it.
      const wasDir = this.#watches.has(path);
      if (wasDir) this.#unwatch(path);
      if (wasDir || !this.#rulesFor(dir).ignores(path, false)) this.#onChange(path);
      return;
    }
    if (this.#rulesFor(dir).ignores(path, isDir)) return;
    if (isDir && !this.#watches.has(path)) {
      // A new folder (or one moved in): watch it and everything under it. Files written into
      // it before its watch existed are found by the snapshot's walk, which this change starts.
      this.#watchTree(path);
    }
    this.#onChange(path);
  }

  /** Watches `dir` and the folders under it that the rules let in. */
  #watchTree(dir: string): void {
    if (!this.#watch(dir)) return;
    let entries;
    try {
      entries = readdirSync(join(this.#root, dir), { withFileTypes: true });
    } catch {
      return;
    }
    const rules = this.#rulesFor(dir);
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const path = `${dir}/${e.name}`;
      if (!this.#watches.has(path) && !rules.ignores(path, true)) this.#watchTree(path);
    }
  }
}
