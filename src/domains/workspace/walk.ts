// Walking a directory into a flat map of files (ignore rules, the stat cache, what could
// not be read) and hashing what changed; the tree the walk makes is stored by the files-tree
// codec of src/objects/file-tree.ts. Paths are relative to the root, "/"-separated.
import { lstatSync, readdirSync, readlinkSync, type Stats } from "node:fs";
import { readBlob } from "../../objects/blob-read.js";
import { filesWorkerAvailable, readFiles } from "../../objects/compress-pool.js";
import { readAndPack, type FileRead } from "../../objects/read-pack.js";
import { S_IFDIR, S_IFLNK, S_IFMT, S_IFREG, ST_CTIME, ST_INO, ST_MODE, ST_MTIME, ST_SIZE, statBuffer, walkLstat } from "./fast-stat.js";
import type { ProgressListener } from "../../core/progress.js";
import { ForgeError } from "../../core/errors.js";
import type { Hash } from "../../objects/hash.js";
import { blobObjects, type DirInfo, type FileInfo, type Tree } from "../../objects/file-tree.js";
import type { ObjectStore } from "../../objects/object-store.js";
import type { IgnoreRules } from "./ignore-rules.js";
import { FAILED, GONE, STAT_WORDS, type PreloadedDir, type WalkPreload } from "./walk-preload.js";
import type { StatCache, StatSignature } from "./stat-cache.js";
import { walkOrder } from "./names.js";

export { walkOrder };

export interface ScanOptions {
  readonly root: string;
  readonly ignore: IgnoreRules;
  readonly cache: StatCache;
  /** Files bigger than this are listed as too large, not stored. */
  readonly maxFileBytes: number;
  /** Folders already listed and lstat'ed on the other core (walk-preload.ts): a full walk takes them from it. */
  readonly preload?: WalkPreload;
}

/** A file the walk found whose content must be read (its stat is not in the cache). */
export interface Pending {
  readonly path: string;
  readonly st: StatSignature;
  readonly mode: number;
}

export interface Scan {
  readonly tree: Tree;
  /** Files to read and hash. */
  readonly pending: Pending[];
  /** Files that could not be read: path → why. */
  readonly unreadable: Map<string, string>;
  /** Files too large to store (type "x" in the tree), gathered as the walk meets them. */
  readonly large: string[];
  /**
   * What the walk saw beside the tree, written with it (tree-cache.ts) for a quick status:
   * each folder's [mtimeMs, ctimeMs, ino] and each symlink's and too-large file's [mtimeMs,
   * ctimeMs, ino, st_mode] (a file's stats are in the stat cache).
   */
  readonly seen?: { readonly dirs: Map<string, number[]>; readonly others: Map<string, number[]> };
}

const NAME_OK = (name: string) => name !== "" && name !== "." && name !== ".." && !name.includes("/") && !name.includes("\0");

/**
 * Walks the tree. Unchanged files (by the stat cache) get their hash at once; the others
 * are listed as pending. Directories and files that cannot be read are reported, not skipped.
 */
export function scanTree(options: ScanOptions): Scan {
  const w = walker(options);
  const st = lstatSync(options.root);
  w.scan.seen?.dirs.set("", [st.mtimeMs, st.ctimeMs, st.ino]);
  w.full("", st.mode & 0o777, 0);
  return w.scan;
}

/** An earlier walk of the same folder with the same rules: its tree and what it could not read. */
export interface PriorWalk {
  readonly tree: Tree;
  readonly unreadable: ReadonlyMap<string, string>;
  /** `IgnoreRules.gitKey` then: what git tracks decides what is walked, and no file event says it changed. */
  readonly gitKey: string;
  /** The secret files it left out. */
  readonly secretFiles: ReadonlySet<string>;
}

const IGNORE_FILE_NAMES = new Set([".gitignore", ".forgeignore"]);

/**
 * `scanTree` limited to what changed since `prior`. `changed` names every path (a file or a
 * folder, relative) that may have changed on disk since that walk began. The folders holding
 * those paths are listed again, their entries stat'ed as the full walk does; a named path
 * that is a folder is walked whole (it may be new, holding files written before anyone
 * watched it); every other folder and file is taken from `prior`. Given a complete `changed`,
 * the result is the full walk's.
 *
 * `relisted`: folders to list again without walking them whole (the root may be one): those
 * whose own entries may have changed, found by their stats (quick-status.ts).
 *
 * Undefined when the hint cannot be used, and the caller must walk everything: it names the
 * root, an ignore file (which can change what is ignored anywhere under its folder) or
 * something that is not a plain relative path; git's index or excludes files changed (what
 * git tracks is kept whatever the ignore rules say); or it contradicts `prior` — a folder on
 * the way to a named path that `prior` lacks, or that is gone though nothing said so.
 */
export function scanTreeFrom(options: ScanOptions, prior: PriorWalk, changed: Iterable<string>, relisted: Iterable<string> = []): Scan | undefined {
  if (options.ignore.gitKey !== prior.gitKey) return undefined;
  const named = new Set<string>();
  const relist = new Set<string>();
  // Folders whose own entries may have changed (a name added, removed or renamed in them): listed again, not walked whole.
  for (const dir of relisted) {
    if (dir !== "" && !dir.split("/").every(NAME_OK)) return undefined;
    relist.add(dir);
  }
  for (const path of changed) {
    if (named.has(path)) continue;
    const parts = path.split("/");
    if (path === "" || !parts.every(NAME_OK) || IGNORE_FILE_NAMES.has(parts[parts.length - 1] as string)) return undefined;
    named.add(path);
    relist.add(parentOf(path));
  }
  // The folders on the way from the root to each folder listed again, by parent.
  const onWay = new Set<string>();
  const wayChildren = new Map<string, string[]>();
  for (const r of relist) {
    for (let d = r; !onWay.has(d); ) {
      onWay.add(d);
      if (d === "") break;
      const p = parentOf(d);
      const kids = wayChildren.get(p);
      if (kids) kids.push(d);
      else wayChildren.set(p, [d]);
      d = p;
    }
  }

  const w = walker(options);
  const { tree, unreadable } = w.scan;
  // `fresh`: the folder's own entry was just read in its parent's listing (else `prior` vouches for it).
  const visit = (dir: string, mode: number, size: number, fresh: boolean): boolean => {
    if (relist.has(dir)) {
      let sure = true;
      const ok = w.list(
        dir,
        mode,
        size,
        (path, perm, sz) => {
          if (named.has(path) || !prior.tree.dirs.has(path))
            w.full(path, perm, sz); // changed, or new to us: whole
          else if (onWay.has(path)) sure = visit(path, perm, sz, true) && sure;
          else tree.dirs.set(path, { mode: perm }); // unchanged: its content comes from `prior` below
        },
        !fresh,
      );
      // A folder just seen in its parent may be unreadable (recorded as the full walk does);
      // one `prior` vouched for must be there.
      return ok ? sure : fresh;
    }
    if (dir !== "" && !prior.tree.dirs.has(dir)) return false;
    tree.dirs.set(dir, { mode });
    if (dir !== "") options.ignore.enter(dir);
    for (const child of wayChildren.get(dir) ?? []) {
      const d = prior.tree.dirs.get(child);
      if (d === undefined || !visit(child, d.mode, 0, false)) return false;
      options.ignore.leave(child);
    }
    return true;
  };
  if (!visit("", lstatSync(options.root).mode & 0o777, 0, true)) return undefined;

  // Everything in a folder not listed now is as `prior` has it, if that folder is still there.
  const listed = w.listed;
  const present = new Map<string, boolean>([["", true]]);
  const isPresent = (dir: string): boolean => {
    let known = present.get(dir);
    if (known === undefined) {
      const p = parentOf(dir);
      known = tree.dirs.has(dir) || (!listed.has(p) && isPresent(p));
      present.set(dir, known);
    }
    return known;
  };
  const kept = (path: string): boolean => {
    const p = parentOf(path);
    return !listed.has(p) && isPresent(p);
  };
  for (const [dir, d] of prior.tree.dirs) if (dir !== "" && !tree.dirs.has(dir) && kept(dir)) tree.dirs.set(dir, { mode: d.mode });
  for (const [path, f] of prior.tree.files) {
    if (!kept(path)) continue;
    tree.files.set(path, f);
    if (f.type === "x") w.scan.large.push(path);
  }
  for (const [path, why] of prior.unreadable) if (kept(path)) unreadable.set(path, why);
  for (const path of prior.secretFiles) if (kept(path)) options.ignore.secretFiles.add(path);
  return w.scan;
}

function parentOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/**
 * The walk's parts: `list` reads one folder (its files into the scan, each subfolder handed
 * to `descend`), `full` walks a folder and everything under it. `listed` collects the
 * folders whose entries were read (or found unreadable).
 */
function walker(options: ScanOptions): {
  scan: Scan;
  listed: Set<string>;
  list: (dir: string, mode: number, size: number, descend: (path: string, perm: number, size: number) => void, mustExist?: boolean) => boolean;
  full: (dir: string, mode: number, size: number) => void;
} {
  const { root, ignore, cache, maxFileBytes, preload } = options;
  const files = new Map<string, FileInfo>();
  const dirs = new Map<string, DirInfo>();
  const pending: Pending[] = [];
  const unreadable = new Map<string, string>();
  const listed = new Set<string>();
  const large: string[] = [];
  const stats = { dirs: new Map<string, number[]>(), others: new Map<string, number[]>() };
  const lstat = walkLstat(root);
  const st = statBuffer();
  // Synchronous on purpose: one lstat after another is ~3× faster in Node than the same
  // calls on the thread pool (measured on 10k files: 55 ms against 110–230 ms), because
  // each is a microsecond of kernel work and the promise or callback costs more.
  // Returns false if the folder could not be read; with `mustExist`, a folder that is not
  // there (or not a folder) is not recorded at all.
  const list = (dir: string, mode: number, size: number, descend: (path: string, perm: number, size: number) => void, mustExist = false): boolean => {
    const pre = preload?.take(dir);
    let names: readonly string[];
    try {
      names = pre !== undefined ? pre.names : readdirSync(dir === "" ? root : `${root}/${dir}`).sort();
    } catch (e) {
      const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      if (dir === "") throw new ForgeError("INVALID_ARGUMENT", `cannot read the workspace folder ${root}: ${why}`);
      if (mustExist) return false;
      // Recorded as unreadable, not as empty: a restore must leave whatever is in it alone.
      unreadable.set(dir, why);
      files.set(dir, { type: "u", mode, size, hash: "" });
      listed.add(dir);
      return false;
    }
    listed.add(dir);
    dirs.set(dir, { mode });
    if (dir !== "") ignore.enter(dir, names);
    const base = dir === "" ? `${root}/` : `${root}/${dir}/`;
    const prefix = dir === "" ? "" : `${dir}/`;
    for (let k = 0; k < names.length; k++) {
      const name = names[k] as string;
      const path = prefix + name;
      // The entry's stat: the preload's numbers where it has them (read in place), else lstat's.
      let sv: Float64Array = st;
      let at = 0;
      const seen = pre === undefined ? FAILED : (pre.stats[(at = (pre.at + k) * STAT_WORDS)] as number);
      if (seen === GONE) continue;
      if (seen !== FAILED) sv = (pre as PreloadedDir).stats;
      else {
        at = 0;
        try {
          if (!lstat(base + name, st)) continue; // removed while we walked
        } catch (e) {
          unreadable.set(path, (e as NodeJS.ErrnoException).code ?? (e as Error).message);
          continue;
        }
      }
      const mode = sv[at + ST_MODE] as number;
      const fmt = mode & S_IFMT;
      const isDir = fmt === S_IFDIR;
      if (ignore.ignores(path, isDir)) continue;
      const size = sv[at + ST_SIZE] as number;
      const perm = mode & 0o777;
      if (isDir) {
        stats.dirs.set(path, [sv[at + ST_MTIME] as number, sv[at + ST_CTIME] as number, sv[at + ST_INO] as number]);
        descend(path, perm, size);
        ignore.leave(path);
      } else if (fmt === S_IFLNK) {
        let target: string;
        try {
          target = readlinkSync(base + name);
        } catch (e) {
          unreadable.set(path, (e as NodeJS.ErrnoException).code ?? (e as Error).message);
          files.set(path, { type: "u", mode: perm, size, hash: "" });
          continue;
        }
        files.set(path, { type: "l", mode: perm, size, hash: "", target });
        stats.others.set(path, [sv[at + ST_MTIME] as number, sv[at + ST_CTIME] as number, sv[at + ST_INO] as number, mode]);
      } else if (fmt === S_IFREG) {
        if (size > maxFileBytes) {
          files.set(path, { type: "x", mode: perm, size, hash: "" });
          large.push(path);
          stats.others.set(path, [sv[at + ST_MTIME] as number, sv[at + ST_CTIME] as number, sv[at + ST_INO] as number, mode]);
          continue;
        }
        const mtimeMs = sv[at + ST_MTIME] as number;
        const ctimeMs = sv[at + ST_CTIME] as number;
        const ino = sv[at + ST_INO] as number;
        const cached = cache.lookup(path, size, mtimeMs, ctimeMs, ino, mode);
        if (cached !== undefined) files.set(path, { type: "f", mode: perm, size, hash: cached });
        else pending.push({ path, st: { size, mtimeMs, ctimeMs, ino, mode }, mode: perm });
      }
      // Sockets, FIFOs and devices are not files an agent edits: left out.
    }
    return true;
  };
  const full = (dir: string, mode: number, size: number): void => {
    list(dir, mode, size, full);
  };
  return { scan: { tree: { files, dirs }, pending, unreadable, large, seen: stats }, listed, list, full };
}

/** A change this big is read, hashed and packed on both cores (`hashShared`). */
const SHARED_MIN_FILES = 1000;
const SHARED_MIN_BYTES = 8 * 1024 * 1024;
/** What one side takes at a time: small enough that both finish together. */
const CHUNK_FILES = 200;
const CHUNK_BYTES = 2 * 1024 * 1024;

/** Records what reading `p` gave in the scan (and the stat cache), as `hashPending` does. */
function recordRead(scan: Scan, cache: StatCache, p: Pending, r: FileRead): void {
  if ("error" in r) {
    if (r.error === "ENOENT") return; // removed since the walk
    scan.unreadable.set(p.path, r.error);
    scan.tree.files.set(p.path, { type: "u", mode: p.mode, size: p.st.size, hash: "" });
    return;
  }
  scan.tree.files.set(p.path, { type: "f", mode: p.mode, size: r.size, hash: r.hash });
  // The stat read before the file; if it changed while we read, do not trust it next time.
  if (r.size === p.st.size) cache.set(p.path, p.st, r.hash);
}

/**
 * `hashPending` for a big change (a first snapshot): the files are cut into chunks that the
 * main thread and the compression worker take in turn, each reading, hashing and packing
 * its chunk (the worker sends back hashes and packed objects, which the main thread stores).
 * On these two-core machines reading, hashing and deflating 45 MB is ~0.6 s of CPU: shared,
 * the snapshot waits about half of it. A worker that fails leaves the rest to the main thread.
 */
async function hashShared(
  scan: Scan,
  root: string,
  cache: StatCache,
  store: ObjectStore,
  onProgress?: (done: number, total: number) => void,
): Promise<{ newBytes: number }> {
  const chunks: Pending[][] = [];
  let chunk: Pending[] = [];
  let bytes = 0;
  for (const p of scan.pending) {
    chunk.push(p);
    bytes += p.st.size;
    if (chunk.length >= CHUNK_FILES || bytes >= CHUNK_BYTES) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
  }
  if (chunk.length > 0) chunks.push(chunk);
  let next = 0;
  let done = 0;
  let newBytes = 0;
  const total = scan.pending.length;
  const put = async (objects: { hash: Hash; data: Uint8Array }[]) => {
    newBytes += (await store.putPacked(objects)).newBytes;
  };
  const here = async (c: readonly Pending[]) => {
    const got = readAndPack(
      c.map((p) => `${root}/${p.path}`),
      c.map((p) => p.st.size),
      c.map((p) => p.path),
    );
    for (const [i, p] of c.entries()) recordRead(scan, cache, p, got.files[i] as FileRead);
    await put(got.objects);
    done += c.length;
    onProgress?.(done, total);
  };
  let workerFailed = false;
  const worker = async () => {
    while (!workerFailed && next < chunks.length) {
      const c = chunks[next++] as Pending[];
      let got: Awaited<ReturnType<typeof readFiles>>;
      try {
        got = await readFiles(
          c.map((p) => `${root}/${p.path}`),
          c.map((p) => p.st.size),
        );
      } catch {
        workerFailed = true; // its chunk, and the rest, are read here
        await here(c);
        return;
      }
      for (const [i, p] of c.entries()) recordRead(scan, cache, p, got.files[i] as FileRead);
      await put(got.objects);
      done += c.length;
      onProgress?.(done, total);
    }
  };
  const main = async () => {
    while (next < chunks.length) {
      await here(chunks[next++] as Pending[]);
      // Storing is synchronous on SQLite: without a turn of the event loop the worker's
      // replies would wait, and this loop would take every chunk.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  // Two requests in flight, so that the worker finds its next chunk queued when it finishes one.
  await Promise.all([worker(), worker(), main()]);
  return { newBytes };
}

/** `onProgress` told of `hashPending`'s progress as the phase "hashing files". */
export function hashingProgress(onProgress?: ProgressListener): ((done: number, total: number) => void) | undefined {
  return onProgress && ((done, total) => onProgress({ phase: "hashing files", done, total }));
}

/**
 * Reads and hashes the pending files, in batches; `store`, if given, gets their objects
 * (only those it lacks are written). A file that vanished meanwhile is dropped; one that
 * cannot be read is recorded as unreadable.
 */
export async function hashPending(
  scan: Scan,
  root: string,
  cache: StatCache,
  store: ObjectStore | undefined,
  onProgress?: (done: number, total: number) => void,
): Promise<{ newBytes: number }> {
  if (store && filesWorkerAvailable && scan.pending.length >= SHARED_MIN_FILES) {
    let bytes = 0;
    for (const p of scan.pending) bytes += p.st.size;
    if (bytes >= SHARED_MIN_BYTES) return hashShared(scan, root, cache, store, onProgress);
  }
  let newBytes = 0;
  let batch = new Map<Hash, Buffer>();
  let batchBytes = 0;
  // Batches are compressed (on the thread pool) and stored while the next one is read and
  // hashed; at most two are in flight, so memory stays bounded.
  const inFlight: Promise<void>[] = [];
  const flush = async () => {
    if (store && batch.size > 0) {
      const full = batch;
      inFlight.push(
        store.putRaw(full, "fast").then((w) => {
          newBytes += w.newBytes;
        }),
      );
      if (inFlight.length >= 2) await inFlight.shift();
    }
    batch = new Map();
    batchBytes = 0;
  };
  let done = 0;
  for (const p of scan.pending) {
    let blob: Buffer;
    try {
      blob = readBlob(`${root}/${p.path}`, p.st.size);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT") continue;
      scan.unreadable.set(p.path, code ?? (e as Error).message);
      scan.tree.files.set(p.path, { type: "u", mode: p.mode, size: p.st.size, hash: "" });
      continue;
    }
    const size = blob.length - 1;
    const { hash, objects } = blobObjects(blob);
    scan.tree.files.set(p.path, { type: "f", mode: p.mode, size, hash });
    // The stat read before the file; if it changed while we read, do not trust it next time.
    if (size === p.st.size) cache.set(p.path, p.st, hash);
    if (store) {
      for (const [h, raw] of objects) {
        batch.set(h, raw);
        batchBytes += raw.length;
      }
      if (batchBytes > 8 * 1024 * 1024 || batch.size > 1000) await flush();
    }
    onProgress?.(++done, scan.pending.length);
  }
  await flush();
  await Promise.all(inFlight);
  return { newBytes };
}

/**
 * What `path` holds now: a file (hashed, or its hash taken from the stat cache when the file
 * is as the cache has it) or a symlink; null when nothing is there; undefined for anything
 * else (a folder, a socket).
 */
export async function fileNow(root: string, path: string, cache: StatCache): Promise<FileInfo | null | undefined> {
  let st: Stats | undefined;
  try {
    st = lstatSync(`${root}/${path}`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    return null;
  }
  if (st.isSymbolicLink()) return { type: "l", mode: st.mode & 0o777, size: st.size, hash: "", target: readlinkSync(`${root}/${path}`) };
  if (!st.isFile()) return undefined;
  const scan: Scan = {
    tree: { files: new Map(), dirs: new Map([["", { mode: 0o755 }]]) },
    pending: [{ path, st: { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, mode: st.mode }, mode: st.mode & 0o777 }],
    unreadable: new Map(),
    large: [],
  };
  await hashPending(scan, root, cache, undefined);
  return scan.tree.files.get(path);
}
