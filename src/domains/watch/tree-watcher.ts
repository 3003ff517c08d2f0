// Follows file changes under a workspace folder: one inotify watch (fs.watch) per folder
// the workspace's ignore rules let in, never inside ignored ones (.git, .forge,
// node_modules, what .gitignore excludes). Node 20's `recursive: true` on Linux walks the
// whole tree and adds a watch for every file and folder, ignored ones included, and stats
// each file at start — 10,000 files cost 10,000 watches; a folder's watch already reports
// changes to the files in it, so one per folder is enough.
//
// Each change is reported with whether the path alone says what changed (`sure`), so that
// a snapshot may list only the folders holding the paths reported. It does not when the
// set of watches may no longer match the folders: a watched folder gone (deleted, or
// renamed: its watch follows it and would report its events under the old path) or
// replaced, an ignore file changed, an event without a name.
import { lstatSync, readdirSync, readFileSync, watch, type FSWatcher, type Dirent, type Stats } from "node:fs";
import { basename, join } from "node:path";
import { IgnoreRules } from "../workspace/ignore-rules.js";

const IGNORE_FILES = new Set([".gitignore", ".forgeignore"]);

/**
 * How many events the kernel queues for one inotify instance before it drops the rest
 * (`fs.inotify.max_queued_events`). libuv reads the queue-overflow event and drops it, so
 * an overflow cannot be seen from Node: what can be seen is that many events came at once.
 */
export function inotifyQueueLimit(): number {
  try {
    const n = Number(readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8").trim());
    return Number.isInteger(n) && n > 0 ? n : 16384;
  } catch {
    return 16384;
  }
}

export interface TreeWatcherOptions {
  readonly root: string;
  /** Extra ignore patterns (the workspace's configured ones). */
  readonly ignore?: readonly string[];
  /**
   * A path (relative, "/"-separated; "" for the root) changed. `sure`: that path is all
   * that changed (a folder reported may be new, so everything under it may have too); when
   * false, anything may have (a full walk is due).
   */
  readonly onChange: (path: string, sure: boolean) => void;
  /** A folder could not be watched (changes there are found by the next full scan only). */
  readonly onError: (error: Error, dir: string) => void;
  /** Whether the watches keep the process alive (default true; false for a process that ends when its other work does). */
  readonly persistent?: boolean;
}

export class TreeWatcher {
  readonly #root: string;
  readonly #extra: readonly string[];
  readonly #onChange: (path: string, sure: boolean) => void;
  readonly #onError: (error: Error, dir: string) => void;
  /** Watched folder (relative) → its watch, and the folder's inode when the watch was set. */
  readonly #watches = new Map<string, { readonly watcher: FSWatcher; readonly ino: number }>();
  /** Folder → the ignore rules that apply to its entries (its own ignore files and its ancestors'). */
  #rules = new Map<string, IgnoreRules>();
  #closed = false;
  /** Folders that could not be watched, by error code: reported once each. */
  readonly #failed = new Set<string>();
  /** Folders the rules let in that have no watch (it failed), until the next `sync`. */
  readonly #missing = new Set<string>();
  #events = 0;
  #failures = 0;

  readonly #persistent: boolean;

  constructor(options: TreeWatcherOptions) {
    this.#persistent = options.persistent ?? true;
    this.#root = options.root;
    this.#extra = options.ignore ?? [];
    this.#onChange = options.onChange;
    this.#onError = options.onError;
  }

  /** How many folders are watched. */
  get size(): number {
    return this.#watches.size;
  }

  /** Whether folder `dir` (relative, "" for the root) has its watch. */
  watches(dir: string): boolean {
    return this.#watches.has(dir);
  }

  /** Every event the watches delivered (relevant or not), since the start. */
  get events(): number {
    return this.#events;
  }

  /**
   * Bumped whenever changes may have gone unseen: a folder could not be watched, a watch
   * failed, or `sync` found a watch that no longer followed its folder.
   */
  get failures(): number {
    return this.#failures;
  }

  /** Whether every folder the rules let in, as of the last `sync` and since, has its watch. */
  get complete(): boolean {
    return this.#missing.size === 0;
  }

  /**
   * Walks the folders and makes the set of watches match them: new folders (and folders
   * an ignore file no longer excludes) get one, vanished or now-ignored ones lose theirs.
   * Returns the folders that were added.
   */
  sync(): string[] {
    if (this.#closed) return [];
    this.#rules = new Map();
    this.#missing.clear();
    const seen = new Set<string>();
    const added: string[] = [];
    const rules = new IgnoreRules(this.#root, this.#extra);
    const walk = (dir: string) => {
      let entries: Dirent[];
      try {
        entries = readdirSync(dir === "" ? this.#root : join(this.#root, dir), { withFileTypes: true });
      } catch {
        return; // vanished or unreadable: the snapshot's own walk reports it
      }
      seen.add(dir);
      const known = this.#watches.get(dir);
      if (known !== undefined && known.ino !== inodeIfAny(join(this.#root, dir))) {
        // Another folder than the one watched (replaced unseen): what happened in it was not reported.
        this.#failures++;
        this.#unwatch(dir);
      }
      if (!this.#watches.has(dir) && this.#watch(dir)) added.push(dir);
      if (dir !== "")
        rules.enter(
          dir,
          entries.map((e) => e.name),
        );
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
    for (const w of this.#watches.values()) w.watcher.close();
    this.#watches.clear();
  }

  #watch(dir: string): boolean {
    const abs = dir === "" ? this.#root : join(this.#root, dir);
    let w: FSWatcher;
    let ino: number;
    try {
      ino = inode(abs);
      w = watch(abs, { persistent: this.#persistent }, (event, name) => this.#event(dir, event, name));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? "";
      // A folder removed while we walked needs no watch; running out of watches is worth saying, once.
      if (code !== "ENOENT" && code !== "ENOTDIR") {
        this.#failures++;
        this.#missing.add(dir);
        if (!this.#failed.has(code)) {
          this.#failed.add(code);
          this.#onError(e as Error, dir);
        }
      }
      return false;
    }
    w.on("error", (e: NodeJS.ErrnoException) => {
      // A watched folder that goes away ends its watch; anything else is reported.
      this.#failures++;
      this.#unwatch(dir);
      if (e.code !== "ENOENT" && e.code !== "EPERM") {
        this.#missing.add(dir);
        this.#onError(e, dir);
      }
    });
    this.#watches.set(dir, { watcher: w, ino });
    return true;
  }

  /** Drops the watch of `dir` and of every folder under it. */
  #unwatch(dir: string): void {
    const prefix = `${dir}/`;
    for (const [d, w] of this.#watches) {
      if (d === dir || (dir === "" ? true : d.startsWith(prefix))) {
        w.watcher.close();
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

  #event(dir: string, event: string, name: string | Buffer | null): void {
    if (this.#closed) return;
    this.#events++;
    if (name === null) {
      // The kernel did not say which entry: the folder as a whole may have changed.
      this.#onChange(dir, false);
      return;
    }
    const entry = String(name);
    const path = dir === "" ? entry : `${dir}/${entry}`;
    if (event === "rename" && entry === basename(dir === "" ? this.#root : dir) && !exists(join(this.#root, path))) {
      // An event about the watched folder itself (libuv names it by the folder's own name):
      // deleted or moved away, its watch now dead or following it elsewhere. (Or an entry of
      // the same name gone, which this takes for the same, to be safe.) Its inode cannot
      // tell: a folder made at once in its place may get the same number.
      if (dir !== "") {
        this.#unwatch(dir);
        if (isFolder(join(this.#root, dir))) this.#watchTree(dir);
      }
      this.#onChange(dir, false);
      return;
    }
    if (IGNORE_FILES.has(entry)) {
      // What is ignored may have changed: rebuild the rules and the set of watched folders.
      this.sync();
      this.#onChange(path, false);
      return;
    }
    let st: Stats | undefined;
    try {
      st = lstatSync(join(this.#root, path));
    } catch {
      // Gone: if it was a watched folder (deleted, or renamed away), so are the watches under it.
      const wasDir = this.#watches.has(path);
      if (wasDir) this.#unwatch(path);
      if (wasDir || !this.#rulesFor(dir).ignores(path, false)) this.#onChange(path, !wasDir);
      return;
    }
    const isDir = st.isDirectory();
    const watched = this.#watches.get(path);
    if (watched !== undefined && (!isDir || watched.ino !== st.ino)) {
      // A watched folder replaced (by a file, or by another folder made or moved to its
      // place): its old watch is dropped, the new folder gets its own.
      this.#unwatch(path);
      if (isDir && !this.#rulesFor(dir).ignores(path, true)) this.#watchTree(path);
      this.#onChange(path, false);
      return;
    }
    if (this.#rulesFor(dir).ignores(path, isDir)) return;
    if (isDir && watched === undefined) {
      // A new folder (or one moved in from outside): watch it and everything under it. Files
      // written into it before its watch existed are found by the snapshot's walk, which
      // walks a folder reported whole.
      this.#watchTree(path);
    }
    this.#onChange(path, true);
  }

  /** Watches `dir` and the folders under it that the rules let in. */
  #watchTree(dir: string): void {
    if (!this.#watch(dir)) return;
    let entries: Dirent[];
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

function exists(abs: string): boolean {
  try {
    lstatSync(abs);
    return true;
  } catch {
    return false;
  }
}

function isFolder(abs: string): boolean {
  try {
    return lstatSync(abs).isDirectory();
  } catch {
    return false;
  }
}

function inode(abs: string): number {
  return lstatSync(abs).ino;
}

function inodeIfAny(abs: string): number | undefined {
  try {
    return inode(abs);
  } catch {
    return undefined;
  }
}
