// lstat for the walk, without a Stats object per call.
//
// A walk of 10,000 files makes 10,000 lstat calls. Node 20's `lstatSync` builds a Stats
// object for each (eighteen fields and four Date objects, made eagerly): ~3 µs a call here,
// against ~1 µs for the system call itself, and the garbage of it all costs scavenges on
// top. Node's own fs binding (the one `lstatSync` calls) fills a shared Float64Array
// instead; read at once, it costs ~1.8 µs a call. It is not a public API (process.binding is
// deprecated for userland), so it is used only after checking, once per process, that it
// answers exactly what `lstatSync` answers on a real folder and on a missing path, and never
// when Node is asked to warn about pending deprecations. Anything else — another Node, a
// changed signature, an error — falls back to `lstatSync`, which is also what reports every
// error: the fast path is only ever asked "what is there", never "why not".
import { lstatSync } from "node:fs";
import { processOwned } from "../../core/cli-process.js";

/** What the walk needs of a stat, filled in place: [mode, size, ino, mtimeMs, ctimeMs]. */
export type StatBuffer = Float64Array;
export const ST_MODE = 0;
export const ST_SIZE = 1;
export const ST_INO = 2;
export const ST_MTIME = 3;
export const ST_CTIME = 4;

export const S_IFMT = 0o170000;
export const S_IFDIR = 0o040000;
export const S_IFREG = 0o100000;
export const S_IFLNK = 0o120000;

export function statBuffer(): StatBuffer {
  return new Float64Array(5);
}

/** Fills `out` with the lstat of `path`; false when nothing is there. Throws what `lstatSync` throws. */
export type Lstat = (path: string, out: StatBuffer) => boolean;

const viaStats: Lstat = (path, out) => {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st === undefined) return false;
  out[ST_MODE] = st.mode;
  out[ST_SIZE] = st.size;
  out[ST_INO] = st.ino;
  out[ST_MTIME] = st.mtimeMs;
  out[ST_CTIME] = st.ctimeMs;
  return true;
};

interface FsBinding {
  lstat(path: string, bigint: boolean, req: undefined, throwIfNoEntry: boolean): Float64Array | undefined;
}

// Node's layout of a stat in the binding's array (lib/internal/fs/utils.js, getStatsFromBinding).
const B_MODE = 1;
const B_INO = 7;
const B_SIZE = 8;
const B_MTIME_S = 12;
const B_MTIME_NS = 13;
const B_CTIME_S = 14;
const B_CTIME_NS = 15;

/** Milliseconds as Node computes `mtimeMs` (seconds × 1000 + nanoseconds / 1e6): the stat cache compares them exactly. */
const msOf = (s: number, ns: number) => s * 1e3 + ns / 1e6;

function viaBinding(b: FsBinding): Lstat {
  return (path, out) => {
    let a: Float64Array | undefined;
    try {
      a = b.lstat(path, false, undefined, false);
    } catch {
      return viaStats(path, out); // the public call says why, with Node's own error
    }
    if (a === undefined) return false;
    out[ST_MODE] = a[B_MODE] as number;
    out[ST_SIZE] = a[B_SIZE] as number;
    out[ST_INO] = a[B_INO] as number;
    out[ST_MTIME] = msOf(a[B_MTIME_S] as number, a[B_MTIME_NS] as number);
    out[ST_CTIME] = msOf(a[B_CTIME_S] as number, a[B_CTIME_NS] as number);
    return true;
  };
}

let chosen: Lstat | undefined;

/** The lstat the walk uses: the binding's when it proves equal to `lstatSync` on `probeDir`, else `lstatSync`'s. */
export function walkLstat(probeDir: string): Lstat {
  if (chosen === undefined) chosen = choose(probeDir);
  return chosen;
}

function choose(probeDir: string): Lstat {
  if (process.env["FORGE_PLAIN_LSTAT"] === "1" || wantsDeprecationWarnings()) return viaStats;
  let b: FsBinding | undefined;
  try {
    const binding = (process as unknown as { binding?: (name: string) => unknown }).binding;
    b = typeof binding === "function" ? (binding.call(process, "fs") as FsBinding) : undefined;
  } catch {
    return viaStats;
  }
  if (b === undefined || typeof b.lstat !== "function") return viaStats;
  const fast = viaBinding(b);
  try {
    const want = statBuffer();
    const got = statBuffer();
    if (!viaStats(probeDir, want) || !fast(probeDir, got)) return viaStats;
    for (let i = 0; i < want.length; i++) if (want[i] !== got[i]) return viaStats;
    const raw = b.lstat(probeDir, false, undefined, false);
    if (!(raw instanceof Float64Array) || raw.length < 18) return viaStats;
    if (b.lstat(`${probeDir}/.forge-no-such-file-${process.pid}`, false, undefined, false) !== undefined) return viaStats;
  } catch {
    return viaStats;
  }
  return fast;
}

function wantsDeprecationWarnings(): boolean {
  const flags = [...process.execArgv, ...(process.env["NODE_OPTIONS"] ?? "").split(/\s+/)];
  return (
    flags.some((f) => f === "--pending-deprecation" || f === "--throw-deprecation" || f === "--trace-deprecation") ||
    process.env["NODE_PENDING_DEPRECATION"] === "1"
  );
}

/**
 * Runs `fn` with the prefix its lstat paths take: "" with the working folder moved to `root`
 * (a path of two components resolves ~20% faster in the kernel than one of five or more),
 * in the CLI's own process (`processOwned`: its main thread); else `root` + "/". Synchronous: nothing
 * else runs on this thread while the folder is moved, and it is moved back whatever happens.
 */
export function inRoot<T>(root: string, fn: (prefix: string) => T): T {
  if (processOwned()) {
    let back: string | undefined;
    try {
      back = process.cwd();
      process.chdir(root);
    } catch {
      back = undefined;
    }
    if (back !== undefined) {
      try {
        return fn("");
      } finally {
        process.chdir(back);
      }
    }
  }
  return fn(`${root}/`);
}
