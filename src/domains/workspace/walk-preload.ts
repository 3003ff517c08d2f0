// The walk's system calls, started on the second core before the CLI has loaded.
//
// A `files status` or a hook on 10,000 files spends ~35 ms listing folders and lstat'ing
// every entry, and ~50 ms before that loading the CLI, opening the store and reading the
// caches — on one core while the other waits. git does the same (core.preloadIndex: threads
// lstat the index's entries). Here bin/forge.js, for a command that walks the work tree,
// starts a worker (walk-preload-worker.ts) at once: it lists the folders the last walk went
// through (the stat cache's paths name them), lstat's their entries and sends them over, the
// last folder first, while the main thread loads. The walk (walk.ts) then takes each folder
// from it instead of asking the system, and lists by itself any folder the worker has not
// claimed yet — walking forward while the worker walks backward, they meet in the middle,
// and a worker that is slow to start or gone only costs what it did not do.
//
// Only the first walk of the process uses it (`takeWalkPreload`): what it saw is the tree as
// the command started, before the command wrote anything. It never decides what a snapshot
// holds: the ignore rules, the stat cache and every read stay the walk's own; it only answers
// "what names are in this folder and what is their lstat" earlier than the walk would ask.
import { receiveMessageOnPort, type MessagePort, type Worker } from "node:worker_threads";
import { PreloadSlot } from "./preload-slot.js";

/** Control words shared with the worker (an Int32Array over a SharedArrayBuffer). */
export const CTL_STOP = 0;
/** Set by the main thread when it waits for a folder: the worker sends what it has at once. */
export const CTL_WANT = 1;
/** 1 once the worker's script runs, 2 once its plan is posted. */
export const CTL_STATE = 2;
export const CTL_WORDS = 3;

/** A folder's state in the claims array the worker makes. */
export const FREE = 0;
export const BY_WORKER = 1;
export const BY_MAIN = 2;
/** Listed by the worker, and the message holding it posted. */
export const DONE = 3;

/** Numbers per entry in a batch's `stats`: the walk's StatBuffer layout (fast-stat.ts). */
export const STAT_WORDS = 5;
/** `stats[mode]` of an entry that was gone when the worker looked. */
export const GONE = -1;
/** `stats[mode]` of an entry the worker could not lstat: the walk asks again (and reports why). */
export const FAILED = -2;

/** What the worker sends first: the folders it will list (walk order) and their claims. */
export interface PreloadPlan {
  readonly dirs: readonly string[];
  readonly claims: Int32Array;
}

/** A batch of listed folders: `counts[k]` names of `names` (sorted) and their stats belong to folder `dirs[k]`; -1: it could not be listed. */
export interface PreloadBatch {
  readonly dirs: readonly number[];
  readonly counts: readonly number[];
  readonly names: readonly string[];
  readonly stats: Float64Array;
}

/** A started preload, as bin/forge.js hands it to the CLI. */
export interface PreloadHandle {
  readonly root: string;
  /** Date.now() when it started. */
  readonly startedAt: number;
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly ctl: Int32Array;
}

/** A folder as the worker saw it: its names (sorted) and `stats` from `at` on, STAT_WORDS each. */
export interface PreloadedDir {
  readonly names: readonly string[];
  readonly stats: Float64Array;
  readonly at: number;
}

/** How long the walk waits for a folder the worker is in the middle of before listing it itself. */
const WAIT_MS = 2000;
/** How long it waits for a running worker's plan. */
const PLAN_WAIT_MS = 50;

export class WalkPreload {
  readonly #handle: PreloadHandle;
  #plan: { index: Map<string, number>; claims: Int32Array } | null | undefined;
  readonly #ready = new Map<number, PreloadedDir | null>();

  constructor(handle: PreloadHandle) {
    this.#handle = handle;
  }

  get root(): string {
    return this.#handle.root;
  }

  get startedAt(): number {
    return this.#handle.startedAt;
  }

  /**
   * Folder `dir` (relative, "" for the root) as the worker listed it, or undefined when the
   * walk must list it itself (the worker did not get to it, could not list it, or is gone).
   * Call it once per folder, in walk order.
   */
  take(dir: string): PreloadedDir | undefined {
    const plan = this.#planNow();
    const i = plan?.index.get(dir);
    if (plan == null || i === undefined) return undefined;
    const was = Atomics.compareExchange(plan.claims, i, FREE, BY_MAIN);
    if (was === FREE) return undefined;
    if (was === BY_WORKER) {
      Atomics.store(this.#handle.ctl, CTL_WANT, 1);
      Atomics.notify(this.#handle.ctl, CTL_WANT);
      if (Atomics.wait(plan.claims, i, BY_WORKER, WAIT_MS) === "timed-out") return undefined;
    }
    this.#drain();
    const got = this.#ready.get(i);
    this.#ready.delete(i);
    return got ?? undefined;
  }

  /** Stops the worker (the walk is over, or went without it). */
  close(): void {
    Atomics.store(this.#handle.ctl, CTL_STOP, 1);
    this.#ready.clear();
    this.#plan = null;
    this.#handle.port.close();
    void this.#handle.worker.terminate();
  }

  /**
   * The worker's plan. A worker still starting when the walk begins (a busy machine) is
   * stopped and the walk goes alone; one already running gets a moment to post its plan
   * (reading the stat cache's paths takes a few milliseconds).
   */
  #planNow(): { index: Map<string, number>; claims: Int32Array } | null {
    if (this.#plan !== undefined) return this.#plan;
    const { ctl } = this.#handle;
    if (Atomics.load(ctl, CTL_STATE) === 1) Atomics.wait(ctl, CTL_STATE, 1, PLAN_WAIT_MS);
    const first = receiveMessageOnPort(this.#handle.port);
    if (first === undefined) {
      this.close();
      return null;
    }
    const plan = first.message as PreloadPlan;
    const index = new Map<string, number>();
    for (let i = 0; i < plan.dirs.length; i++) index.set(plan.dirs[i] as string, i);
    this.#plan = { index, claims: plan.claims };
    return this.#plan;
  }

  #drain(): void {
    for (let m = receiveMessageOnPort(this.#handle.port); m !== undefined; m = receiveMessageOnPort(this.#handle.port)) {
      const batch = m.message as PreloadBatch;
      let name = 0;
      batch.dirs.forEach((dir, k) => {
        const count = batch.counts[k] as number;
        if (count < 0) {
          this.#ready.set(dir, null);
          return;
        }
        this.#ready.set(dir, { names: batch.names.slice(name, name + count), stats: batch.stats, at: name });
        name += count;
      });
    }
  }
}

const slot = new PreloadSlot<WalkPreload>();

/** Called by the CLI with what bin/forge.js started (walk-preload-start.ts). */
export function adoptWalkPreload(handle: PreloadHandle | undefined): void {
  slot.adopt(handle === undefined ? undefined : new WalkPreload(handle));
}

/** The preload for a walk of `root`, once: the first walk of the process takes it; later walks (and other roots) get none. */
export function takeWalkPreload(root: string): WalkPreload | undefined {
  return slot.take(root);
}
