// The stat cache: path → (size, mtime, ctime, inode, mode) → content hash, so a file whose
// stat is unchanged is not read again. Kept beside the store in .forge/ (stat data is only
// meaningful on the machine that took it), written atomically, and only when it changed.
//
// Git's racy-timestamp rule: a file modified within a second of the moment the cache was
// written may have changed again within the same timestamp tick, so its entry is not
// trusted and the file is hashed again.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Hash } from "../../objects/hash.js";

export interface StatSignature {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
  readonly mode: number;
}

// The file, in columns so that loading it is a few bulk copies rather than 10,000 small
// reads (it is read by every status and snapshot):
//   header (24 bytes): "FSC2", entry count (u32), write time (f64), path bytes (u32), 0 (u32)
//   count × 5 f64: size, mtimeMs, ctimeMs, ino, mode (native byte order: this machine's file)
//   count × 32 bytes: the content hashes
//   the paths in UTF-8, each followed by a NUL (which no file name holds)
const MAGIC = 0x32435346; // "FSC2" little-endian
const HEADER = 24;
const NUMS = 5;

/** [size, mtimeMs, ctimeMs, ino, mode, hash] */
export type CacheEntry = [number, number, number, number, number, Hash];
type Entry = CacheEntry;

/** The entries as loaded: parallel columns and an index by path. */
interface Columns {
  readonly paths: string[];
  readonly nums: Float64Array;
  /** All hashes as one hex string: entry i is characters 64·i to 64·i + 64. */
  readonly hex: string;
  readonly index: Map<string, number>;
}

const EMPTY: Columns = { paths: [], nums: new Float64Array(0), hex: "", index: new Map() };

function encode(writtenAt: number, paths: readonly string[], nums: Float64Array, hashes: readonly Hash[]): Buffer {
  const text = Buffer.from(paths.length === 0 ? "" : `${paths.join("\0")}\0`, "utf8");
  const count = paths.length;
  const buf = Buffer.alloc(HEADER + count * NUMS * 8 + count * 32 + text.length);
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeUInt32LE(count, 4);
  buf.writeDoubleLE(writtenAt, 8);
  buf.writeUInt32LE(text.length, 16);
  Buffer.from(nums.buffer, nums.byteOffset, count * NUMS * 8).copy(buf, HEADER);
  const hashAt = HEADER + count * NUMS * 8;
  // One hex decode for all of them (each hash is 64 hex digits): ~10× faster than one write each.
  if (count > 0 && buf.write(hashes.join(""), hashAt, count * 32, "hex") !== count * 32) throw new Error("stat cache: a hash is not hex");
  text.copy(buf, hashAt + count * 32);
  return buf;
}

function decode(buf: Buffer): { writtenAt: number; columns: Columns } | undefined {
  if (buf.length < HEADER || buf.readUInt32LE(0) !== MAGIC) return undefined;
  const count = buf.readUInt32LE(4);
  const writtenAt = buf.readDoubleLE(8);
  const textBytes = buf.readUInt32LE(16);
  const hashAt = HEADER + count * NUMS * 8;
  const textAt = hashAt + count * 32;
  if (buf.length !== textAt + textBytes) return undefined;
  // A copy, so the numbers are aligned for the typed array whatever the buffer's offset.
  const nums = new Float64Array(buf.buffer.slice(buf.byteOffset + HEADER, buf.byteOffset + hashAt));
  const paths = buf.toString("utf8", textAt, textAt + textBytes).split("\0");
  if (paths.pop() !== "" || paths.length !== count) return undefined;
  const index = new Map<string, number>();
  for (let i = 0; i < count; i++) index.set(paths[i] as string, i);
  if (index.size !== count) return undefined;
  return { writtenAt, columns: { paths, nums, hex: buf.toString("hex", hashAt, textAt), index } };
}

/** The paths a cache file holds (its last section alone), or undefined if it is not one: what the walk preload lists. */
export function cachedPaths(buf: Buffer): string[] | undefined {
  if (buf.length < HEADER || buf.readUInt32LE(0) !== MAGIC) return undefined;
  const count = buf.readUInt32LE(4);
  const textAt = HEADER + count * NUMS * 8 + count * 32;
  if (buf.length !== textAt + buf.readUInt32LE(16)) return undefined;
  const paths = buf.toString("utf8", textAt).split("\0");
  return paths.pop() === "" && paths.length === count ? paths : undefined;
}

/** The cache file's contents, for tools and tests; undefined if it is missing or damaged. */
export function readCacheFile(path: string): { writtenAt: number; entries: Map<string, Entry> } | undefined {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
  const doc = decode(buf);
  if (!doc) return undefined;
  const { paths, nums, hex } = doc.columns;
  const entries = new Map<string, Entry>();
  for (let i = 0; i < paths.length; i++) {
    const n = i * NUMS;
    entries.set(paths[i] as string, [
      nums[n] as number,
      nums[n + 1] as number,
      nums[n + 2] as number,
      nums[n + 3] as number,
      nums[n + 4] as number,
      hex.slice(64 * i, 64 * i + 64),
    ]);
  }
  return { writtenAt: doc.writtenAt, entries };
}

/** Writes a cache file as `StatCache.save` would (for tools and tests). */
export function writeCacheFile(path: string, writtenAt: number, entries: Map<string, Entry>): void {
  const nums = new Float64Array(entries.size * NUMS);
  const hashes: Hash[] = [];
  let i = 0;
  for (const e of entries.values()) {
    for (let k = 0; k < NUMS; k++) nums[i * NUMS + k] = e[k] as number;
    hashes.push(e[5]);
    i++;
  }
  writeFileSync(path, encode(writtenAt, [...entries.keys()], nums, hashes));
}

/** A file modified this close to the cache write (or after it) is re-hashed. */
const RACY_MS = 1000;
/** See StatCache.save: a cache this small is written whenever it changed. */
const SMALL_CACHE = 2048;

export class StatCache {
  readonly #path: string;
  #loaded: Columns;
  /** Loaded entries no longer valid: replaced by `#changed` or dropped by `retain`. */
  #stale: Uint8Array;
  /** Entries set since the load. */
  #changed = new Map<string, Entry>();
  #writtenAt: number;
  #dirty = false;
  /** The paths of the last walk, when `retain` left the pass to `save`. */
  #keep: { has(path: string): boolean } | null = null;

  private constructor(path: string, loaded: Columns, writtenAt: number) {
    this.#path = path;
    this.#loaded = loaded;
    this.#stale = new Uint8Array(loaded.paths.length);
    this.#writtenAt = writtenAt;
  }

  /** An empty cache never written anywhere: what records the stats of files read outside a walk. */
  static empty(): StatCache {
    return new StatCache("", EMPTY, 0);
  }

  /** Loads the cache at `path`; a missing or damaged cache is an empty one (it is only a cache). */
  static load(path: string): StatCache {
    let buf: Buffer;
    try {
      buf = readFileSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      return new StatCache(path, EMPTY, 0);
    }
    const doc = decode(buf);
    // A cache we cannot read costs re-hashing, never correctness.
    return doc ? new StatCache(path, doc.columns, doc.writtenAt) : new StatCache(path, EMPTY, 0);
  }

  /** The content hash recorded for `path` if its stat is unchanged and not racy. */
  get(path: string, st: StatSignature): Hash | undefined {
    return this.lookup(path, st.size, st.mtimeMs, st.ctimeMs, st.ino, st.mode);
  }

  /** `get` with the stat's fields as arguments: the walk calls it for every file without building an object. */
  lookup(path: string, size: number, mtimeMs: number, ctimeMs: number, ino: number, mode: number): Hash | undefined {
    if (mtimeMs >= this.#writtenAt - RACY_MS) return undefined;
    const i = this.#loaded.index.get(path);
    if (i !== undefined && this.#stale[i] === 0) {
      const nums = this.#loaded.nums;
      const n = i * NUMS;
      if (nums[n] !== size || nums[n + 1] !== mtimeMs || nums[n + 2] !== ctimeMs || nums[n + 3] !== ino || nums[n + 4] !== mode) return undefined;
      return this.#loaded.hex.slice(64 * i, 64 * i + 64);
    }
    const e = this.#changed.get(path);
    if (!e || e[0] !== size || e[1] !== mtimeMs || e[2] !== ctimeMs || e[3] !== ino || e[4] !== mode) return undefined;
    return e[5];
  }

  /**
   * Writes `path`'s [mtimeMs, ctimeMs, ino, mode] at `out[at]` if its entry holds `hash` and
   * `size`, whatever its age; false (nothing written) if not. No array made: a snapshot asks it of every file.
   */
  statInto(path: string, hash: Hash, size: number, out: Float64Array, at: number): boolean {
    const i = this.#loaded.index.get(path);
    if (i !== undefined && this.#stale[i] === 0) {
      const nums = this.#loaded.nums;
      const n = i * NUMS;
      if (nums[n] !== size || !this.#loaded.hex.startsWith(hash, 64 * i)) return false;
      for (let k = 0; k < 4; k++) out[at + k] = nums[n + 1 + k] as number;
      return true;
    }
    const e = this.#changed.get(path);
    if (e === undefined || e[5] !== hash || e[0] !== size) return false;
    for (let k = 0; k < 4; k++) out[at + k] = e[1 + k] as number;
    return true;
  }

  set(path: string, st: StatSignature, hash: Hash): void {
    const i = this.#loaded.index.get(path);
    if (i !== undefined && this.#stale[i] === 0) {
      const nums = this.#loaded.nums;
      const n = i * NUMS;
      const same = nums[n] === st.size && nums[n + 1] === st.mtimeMs && nums[n + 2] === st.ctimeMs && nums[n + 3] === st.ino && nums[n + 4] === st.mode;
      if (same && this.#loaded.hex.startsWith(hash, 64 * i)) return;
      this.#stale[i] = 1;
    } else {
      const e = this.#changed.get(path);
      if (e && e[0] === st.size && e[1] === st.mtimeMs && e[2] === st.ctimeMs && e[3] === st.ino && e[4] === st.mode && e[5] === hash) return;
    }
    this.#changed.set(path, [st.size, st.mtimeMs, st.ctimeMs, st.ino, st.mode, hash]);
    this.#dirty = true;
  }

  /**
   * Keeps only the paths seen in the latest walk. A pass over every entry, so for a big
   * cache it is done by `save`, and only when it writes: entries of deleted files cost
   * nothing but their bytes until then.
   */
  retain(paths: { has(path: string): boolean }): void {
    if (this.#loaded.paths.length + this.#changed.size <= SMALL_CACHE) this.#retainNow(paths);
    else this.#keep = paths;
  }

  #retainNow(paths: { has(path: string): boolean }): void {
    const loaded = this.#loaded.paths;
    for (let i = 0; i < loaded.length; i++) {
      if (this.#stale[i] === 0 && !paths.has(loaded[i] as string)) {
        this.#stale[i] = 1;
        this.#dirty = true;
      }
    }
    for (const p of this.#changed.keys()) {
      if (!paths.has(p)) {
        this.#changed.delete(p);
        this.#dirty = true;
      }
    }
  }

  /**
   * Writes the cache if it changed (or racy entries could become trusted by a newer write
   * time) — and, for a big cache, only when that saves later walks more than it costs.
   * Writing is a pass over every entry (~1 µs each: 7–13 ms on 10,000 files in a fresh
   * process); not writing costs the next walk re-reading the files hashed since the last
   * write (~20 µs each, plus ~2 ns a byte). So a status or snapshot after a few edits in a
   * big tree writes nothing, and the next one hashes those few files again. An entry
   * modified within a second of `now` is racy even in a new write: it counts for nothing.
   * A walk that found nothing new writes nothing.
   */
  save(now: number = Date.now(), force = false): void {
    const racyFrom = this.#writtenAt - RACY_MS;
    const trustedBefore = now - RACY_MS;
    const { paths, nums } = this.#loaded;
    let racy = false;
    let files = 0;
    let bytes = 0;
    let stale = 0;
    for (let i = 0; i < paths.length; i++) {
      if (this.#stale[i] !== 0) {
        stale++;
        continue;
      }
      const mtime = nums[i * NUMS + 1] as number;
      if (mtime < racyFrom) continue;
      racy = true;
      if (mtime < trustedBefore) {
        files++;
        bytes += nums[i * NUMS] as number;
      }
    }
    for (const e of this.#changed.values()) {
      if (e[1] >= racyFrom) racy = true;
      if (e[1] < trustedBefore) {
        files++;
        bytes += e[0];
      }
    }
    if (!this.#dirty && !racy) return;
    const entries = paths.length - stale + this.#changed.size;
    const worth = entries <= SMALL_CACHE || files * 20 + bytes / 500 >= entries || stale >= Math.max(SMALL_CACHE, entries / 10);
    if (!force && !worth) return;
    if (this.#keep !== null) {
      this.#retainNow(this.#keep);
      this.#keep = null;
    }
    const { hex } = this.#loaded;
    const outPaths: string[] = [];
    const outHashes: Hash[] = [];
    const outNums = new Float64Array((paths.length + this.#changed.size) * NUMS);
    for (let i = 0; i < paths.length; i++) {
      if (this.#stale[i] !== 0) continue;
      outNums.set(nums.subarray(i * NUMS, i * NUMS + NUMS), outPaths.length * NUMS);
      outPaths.push(paths[i] as string);
      outHashes.push(hex.slice(64 * i, 64 * i + 64));
    }
    for (const [p, e] of this.#changed) {
      for (let k = 0; k < NUMS; k++) outNums[outPaths.length * NUMS + k] = e[k] as number;
      outPaths.push(p);
      outHashes.push(e[5]);
    }
    mkdirSync(dirname(this.#path), { recursive: true });
    const tmp = `${this.#path}.${process.pid}.tmp`;
    writeFileSync(tmp, encode(now, outPaths, outNums, outHashes));
    renameSync(tmp, this.#path);
    this.#writtenAt = now;
    this.#dirty = false;
  }
}

/**
 * The stat cache file of a workspace, and the copy this object last loaded or saved, used
 * again while the file is as it left it (same inode, size and times): ~10k entries not
 * decoded for every snapshot of a watcher. A copy gone stale (another process saved
 * meanwhile) could only cost re-reading files: every entry is checked against the file's stat.
 */
export class StatCacheFile {
  readonly #path: string;
  #held: { cache: StatCache; stamp: string } | null = null;

  constructor(path: string) {
    this.#path = path;
  }

  get(): StatCache {
    const stamp = fileStamp(this.#path);
    if (this.#held !== null && this.#held.stamp === stamp) return this.#held.cache;
    const cache = StatCache.load(this.#path);
    this.#held = { cache, stamp };
    return cache;
  }

  save(cache: StatCache): void {
    cache.save();
    if (this.#held?.cache === cache) this.#held = { cache, stamp: fileStamp(this.#path) };
  }
}

/** What tells a file's versions apart: its inode, size and times ("" if it is missing). */
export function fileStamp(path: string): string {
  const st = statSync(path, { throwIfNoEntry: false });
  return st ? `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : "";
}
