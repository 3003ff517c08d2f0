// The files' lstat, done on the second core by GNU find while the CLI loads.
//
// A status or a hook on 10,000 files whose folders are as they were (quick-status.ts) lstat's
// every file against the stats kept beside the tree: ~25–35 ms on the main thread, most of it
// in the kernel, after ~40 ms of loading the CLI, opening the store and reading the tree cache
// while the other core idles. git spreads the same lstats over threads (core.preloadIndex).
// A Node worker could not do it here: its own start and first calls slowed the main thread's
// load as much as it saved (docs/ARCHITECTURE.md). So bin/forge.js, before it loads the CLI,
// hands the kept files' paths to `find` (stat-preload-start.ts), a process of its own that
// starts in ~1 ms, and asks it only one thing per file: has its inode changed (ctime) since
// the kept stats were taken? Every change to a file — content, mode, times set by hand, a
// rename or link over it — sets its ctime to the time of the change, which no process can set
// back; so a file whose ctime is older than the snapshot's walk (less the racy second), and
// whose kept stats are themselves older than that, has the stats kept for it. find prints
// only the paths of the others, and a marker after every CHUNK paths; `statCompare` lstat's
// what find has not reached yet from the last file back, and the files find listed, itself.
//
// It only ever narrows which files the main thread lstat's: folders are compared by the main
// thread as before (so files come and gone are found by their folders' times), every file it
// names is looked at as without it, and anything unexpected in its output — a path that is
// not where it should be — makes the main thread look at every file itself. Without GNU find
// 4.9 (-files0-from), on another system, or with FORGE_NO_PRELOAD=1 nothing starts.
import { closeSync, fstatSync, readSync } from "node:fs";
import { PreloadSlot } from "./preload-slot.js";

/** Files between two markers in find's input and output. */
export const CHUNK = 256;
/** What find prints at each marker (the start point "." after every CHUNK paths): a name no relative path has. */
export const MARKER = "/";

/** A started stat preload, as bin/forge.js hands it to the CLI. */
export interface StatPreloadHandle {
  readonly kind: "stat";
  /** The workspace root find runs in. */
  readonly root: string;
  /** Date.now() before find started: no stat it judged is older. */
  readonly startedAt: number;
  /** The tree cache's files root (hex) and file count that the paths given to find came from. */
  readonly treeRoot: string;
  readonly nFiles: number;
  /** find lists a file whose ctime is after this (ms since the epoch). */
  readonly since: number;
  /** An unlinked file find writes to. */
  readonly outFd: number;
  /** Stops find (it is done with, or no longer needed). */
  stop(): void;
}

/** What find has judged so far: the files before `judged` are unchanged but for those in `listed`. */
export interface StatJudged {
  readonly judged: number;
  readonly listed: ReadonlySet<number>;
}

export class StatPreload {
  readonly #h: StatPreloadHandle;
  readonly #listed = new Set<number>();
  #chunks = 0;
  #read = 0;
  #rest: Buffer = Buffer.alloc(0);
  #broken = false;
  #closed = false;

  constructor(handle: StatPreloadHandle) {
    this.#h = handle;
  }

  get root(): string {
    return this.#h.root;
  }

  get startedAt(): number {
    return this.#h.startedAt;
  }

  /**
   * Whether find judged the files of the tree `treeRoot` with `nFiles` files, and listed at
   * least every file whose ctime is from `racyFrom` on (the kept stats' racy bound).
   */
  fits(treeRoot: string, nFiles: number, racyFrom: number): boolean {
    return !this.#broken && this.#h.treeRoot === treeRoot && this.#h.nFiles === nFiles && this.#h.since < racyFrom;
  }

  /** What find has judged by now, reading what it wrote since the last call; `paths(j)`: file j's path. Undefined once its output made no sense. */
  judged(paths: (j: number) => string): StatJudged | undefined {
    if (this.#broken) return undefined;
    if (this.#closed) return { judged: this.#judgedFiles(), listed: this.#listed };
    let size: number;
    try {
      size = fstatSync(this.#h.outFd).size;
    } catch {
      this.#broken = true;
      return undefined;
    }
    if (size > this.#read) {
      const fresh = Buffer.allocUnsafe(size - this.#read);
      const got = readSync(this.#h.outFd, fresh, 0, fresh.length, this.#read);
      this.#read += got;
      const buf = this.#rest.length > 0 ? Buffer.concat([this.#rest, fresh.subarray(0, got)]) : fresh.subarray(0, got);
      let at = 0;
      for (let nul = buf.indexOf(0, at); nul !== -1; nul = buf.indexOf(0, at)) {
        const entry = buf.toString("utf8", at, nul);
        at = nul + 1;
        if (entry === MARKER) this.#chunks++;
        else if (!this.#place(entry, paths)) {
          this.#broken = true;
          return undefined;
        }
      }
      this.#rest = Buffer.from(buf.subarray(at));
    }
    return { judged: this.#judgedFiles(), listed: this.#listed };
  }

  #judgedFiles(): number {
    return Math.min(this.#chunks * CHUNK, this.#h.nFiles);
  }

  /** Takes a path find listed: it must be one of the files of the chunk find is in. */
  #place(path: string, paths: (j: number) => string): boolean {
    const from = this.#chunks * CHUNK;
    const to = Math.min(from + CHUNK, this.#h.nFiles);
    for (let j = from; j < to; j++) {
      if (paths(j) === path) {
        this.#listed.add(j);
        return true;
      }
    }
    return false;
  }

  /** Stops find and lets go of its output. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#h.stop();
    try {
      closeSync(this.#h.outFd);
    } catch {
      // Closed already: nothing to let go of.
    }
  }
}

const slot = new PreloadSlot<StatPreload>();

/** Called by the CLI with what bin/forge.js started (stat-preload-start.ts). */
export function adoptStatPreload(handle: StatPreloadHandle | undefined): void {
  const preload = handle === undefined ? undefined : new StatPreload(handle);
  // find must not outlive the command, whichever way it ends.
  if (preload !== undefined) process.once("exit", () => preload.close());
  slot.adopt(preload);
}

/** The stat preload for a comparison of `root`, once: the first comparison of the process takes it. */
export function takeStatPreload(root: string): StatPreload | undefined {
  return slot.take(root);
}
