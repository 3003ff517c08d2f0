// Starts the walk preload (walk-preload.ts) for bin/forge.js, before the CLI is loaded: a
// module of its own, bundled apart (scripts/bundle-cli.mjs), so that starting it costs only
// this and Node's worker_threads.
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { MessageChannel, Worker } from "node:worker_threads";
import { startStatPreload } from "./stat-preload-start.js";
import type { StatPreloadHandle } from "./stat-preload.js";
import { CTL_WORDS, type PreloadHandle } from "./walk-preload.js";

/**
 * Whether the last snapshot's tree was kept with its walk's stats ("FTC2", tree-cache.ts): a
 * status or snapshot then compares stats without listing a folder (quick-status.ts), and a
 * worker would only compete with it for the other core.
 */
function keepsStats(treeCache: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(treeCache, "r");
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.toString("latin1") === "FTC2";
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The folder holding the nearest .forge at or above `cwd`, as workspace roots are found; undefined when there is none. */
export function workspaceRoot(cwd: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".forge"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The stat preload (stat-preload.ts) for the workspace around `cwd`: bin/forge.js starts it
 * where it starts no walk preload, for a tree whose cache keeps stats.
 */
export function startStatPreloadIn(cwd: string): StatPreloadHandle | undefined {
  const root = workspaceRoot(cwd);
  return root === undefined ? undefined : startStatPreload(root);
}

/** A stat cache this small (~2,000 files: ~100 bytes an entry) means a tree not worth a worker. */
const MIN_CACHE_BYTES = 200 * 1024;
/**
 * A stat cache this big (~20,000 files) means a tree whose walk, when a quick status cannot
 * say (a folder changed), costs far more than the worker's start: the preload starts even
 * where the tree cache keeps stats (100,000 files: ~0.33 s saved against ~10 ms).
 */
const BIG_CACHE_BYTES = 2 * 1024 * 1024;

/** `forge files <these>` walk the work tree at once; every `forge hook …` may. */
const WALKING_FILES_COMMANDS = new Set(["status", "snapshot", "diff", "restore"]);

/** Whether the command line `args` (after `forge`) runs a command that walks the work tree. */
export function walksWorkTree(args: readonly string[]): boolean {
  const files = args.indexOf("files");
  return (files >= 0 && WALKING_FILES_COMMANDS.has(args[files + 1] ?? "")) || args.includes("hook");
}

/**
 * Starts the worker script `workerFile` on the workspace around `cwd` (the folder holding the
 * nearest .forge, as workspace roots are found), if the last walk there left a stat cache to
 * plan from, of at least `minCacheBytes`. Undefined when there is none, or the worker cannot
 * start (the walk then does everything itself).
 */
export function startWalkPreload(cwd: string, workerFile: string, minCacheBytes = MIN_CACHE_BYTES): PreloadHandle | undefined {
  const root = workspaceRoot(cwd);
  if (root === undefined) return undefined;
  const cacheFile = join(root, ".forge", "stat-cache.bin");
  // A tree the main thread walks in a few milliseconds is not worth a worker's start.
  const size = statSync(cacheFile, { throwIfNoEntry: false })?.size;
  if (size === undefined || size < minCacheBytes) return undefined;
  if (size < BIG_CACHE_BYTES && keepsStats(join(root, ".forge", "tree-cache.bin"))) return undefined;
  const startedAt = Date.now();
  try {
    const ctl = new Int32Array(new SharedArrayBuffer(4 * CTL_WORDS));
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(workerFile, { workerData: { root, cacheFile, ctl, port: port1 }, transferList: [port1], stdout: false, stderr: false });
    // It must never keep the process alive, nor fail it: a worker that errs only did not help.
    worker.on("error", () => {});
    worker.unref();
    port2.unref();
    return { root, startedAt, worker, port: port2, ctl };
  } catch {
    return undefined;
  }
}
