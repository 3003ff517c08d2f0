// The walk preload's worker (walk-preload.ts): lists the folders the stat cache's paths name,
// the last one first, lstat's each entry and posts them in batches, claiming each folder
// before it lists it so that the walk, coming from the other end, never lists one twice.
import { readdirSync, readFileSync } from "node:fs";
import { workerData, type MessagePort } from "node:worker_threads";
import { statBuffer, walkLstat } from "./fast-stat.js";
import { walkOrder } from "./names.js";
import { cachedPaths } from "./stat-cache.js";
import {
  BY_MAIN,
  BY_WORKER,
  CTL_STATE,
  CTL_STOP,
  CTL_WANT,
  DONE,
  FAILED,
  FREE,
  GONE,
  STAT_WORDS,
  type PreloadBatch,
  type PreloadPlan,
} from "./walk-preload.js";

const { root, cacheFile, ctl, port } = workerData as { root: string; cacheFile: string; ctl: Int32Array; port: MessagePort };
/** A batch is posted once it holds this many entries (or the walk waits for one of its folders). */
const BATCH_ENTRIES = 2048;

/** Every folder on the way to a cached path, in walk order (a folder's content right after it). */
function plannedDirs(paths: readonly string[]): string[] {
  const dirs = new Set<string>([""]);
  for (const p of paths) {
    for (let slash = p.lastIndexOf("/"); slash > 0; slash = p.lastIndexOf("/", slash - 1)) {
      const d = p.slice(0, slash);
      if (dirs.has(d)) break;
      dirs.add(d);
    }
  }
  return [...dirs].sort(walkOrder);
}

function run(): void {
  Atomics.store(ctl, CTL_STATE, 1);
  let paths: string[] | undefined;
  try {
    paths = cachedPaths(readFileSync(cacheFile));
  } catch {
    paths = undefined;
  }
  const dirs = paths === undefined ? [] : plannedDirs(paths);
  const claims = new Int32Array(new SharedArrayBuffer(4 * Math.max(dirs.length, 1)));
  port.postMessage({ dirs, claims } satisfies PreloadPlan);
  Atomics.store(ctl, CTL_STATE, 2);
  Atomics.notify(ctl, CTL_STATE);
  const lstat = walkLstat(root);
  const st = statBuffer();
  let batchDirs: number[] = [];
  let counts: number[] = [];
  let names: string[] = [];
  let stats: number[] = [];
  const flush = () => {
    if (batchDirs.length === 0) return;
    const batch: PreloadBatch = { dirs: batchDirs, counts, names, stats: Float64Array.from(stats) };
    port.postMessage(batch, [batch.stats.buffer as ArrayBuffer]);
    for (const i of batchDirs) {
      Atomics.store(claims, i, DONE);
      Atomics.notify(claims, i);
    }
    batchDirs = [];
    counts = [];
    names = [];
    stats = [];
    Atomics.store(ctl, CTL_WANT, 0);
  };
  for (let i = dirs.length - 1; i >= 0; i--) {
    if (Atomics.load(ctl, CTL_STOP) !== 0) return;
    // The walk got here from the other end: everything before this folder is its own.
    const was = Atomics.compareExchange(claims, i, FREE, BY_WORKER);
    if (was === BY_MAIN) break;
    const dir = dirs[i] as string;
    const abs = dir === "" ? root : `${root}/${dir}`;
    let listed: string[] | undefined;
    try {
      listed = readdirSync(abs).sort();
    } catch {
      listed = undefined;
    }
    batchDirs.push(i);
    counts.push(listed === undefined ? -1 : listed.length);
    for (const name of listed ?? []) {
      names.push(name);
      let there: boolean;
      try {
        there = lstat(`${abs}/${name}`, st);
      } catch {
        stats.push(FAILED, 0, 0, 0, 0);
        continue;
      }
      if (!there) stats.push(GONE, 0, 0, 0, 0);
      else for (let k = 0; k < STAT_WORDS; k++) stats.push(st[k] as number);
    }
    if (names.length >= BATCH_ENTRIES || Atomics.load(ctl, CTL_WANT) !== 0) flush();
  }
  flush();
}

run();
port.close();
