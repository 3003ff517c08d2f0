// The stat cache: path → (size, mtime, ctime, inode, mode) → content hash, so a file whose
// stat is unchanged is not read again. Kept beside the store in .forge/ (stat data is only
// meaningful on the machine that took it), written atomically.
//
// Git's racy-timestamp rule: a file modified within a second of the moment the cache was
// written may have changed again within the same timestamp tick, so its entry is not
// trusted and the file is hashed again.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Hash } from "../../objects/hash.js";

export interface StatSignature {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
  readonly mode: number;
}

// The file: "FSC1", the write time (f64), the entry count (u32), then per entry: the path's
// UTF-8 length (u32) and bytes, size, mtimeMs, ctimeMs, ino, mode (five f64) and the
// 32-byte hash. Binary because it is read by every status and snapshot: for 10,000 files it
// loads in a few milliseconds, where JSON took tens.
const MAGIC = 0x31435346; // "FSC1" little-endian

/** [size, mtimeMs, ctimeMs, ino, mode, hash] */
export type CacheEntry = [number, number, number, number, number, Hash];
type Entry = CacheEntry;

function encode(writtenAt: number, entries: Map<string, Entry>): Buffer {
  const paths = [...entries.keys()].map((p) => Buffer.from(p, "utf8"));
  let size = 16;
  for (const p of paths) size += 4 + p.length + 40 + 32;
  const buf = Buffer.allocUnsafe(size);
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeDoubleLE(writtenAt, 4);
  buf.writeUInt32LE(entries.size, 12);
  let at = 16;
  let i = 0;
  for (const e of entries.values()) {
    const p = paths[i++] as Buffer;
    buf.writeUInt32LE(p.length, at);
    p.copy(buf, at + 4);
    at += 4 + p.length;
    for (let k = 0; k < 5; k++) buf.writeDoubleLE(e[k] as number, at + 8 * k);
    buf.write(e[5], at + 40, 32, "hex");
    at += 72;
  }
  return buf;
}

/** The cache file's contents, for tools and tests; undefined if it is missing or damaged. */
export function readCacheFile(path: string): { writtenAt: number; entries: Map<string, Entry> } | undefined {
  try {
    return decode(readFileSync(path));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/** Writes a cache file as `StatCache.save` would (for tools and tests). */
export function writeCacheFile(path: string, writtenAt: number, entries: Map<string, Entry>): void {
  writeFileSync(path, encode(writtenAt, entries));
}

function decode(buf: Buffer): { writtenAt: number; entries: Map<string, Entry> } | undefined {
  if (buf.length < 16 || buf.readUInt32LE(0) !== MAGIC) return undefined;
  const writtenAt = buf.readDoubleLE(4);
  const count = buf.readUInt32LE(12);
  const entries = new Map<string, Entry>();
  let at = 16;
  for (let i = 0; i < count; i++) {
    if (at + 4 > buf.length) return undefined;
    const len = buf.readUInt32LE(at);
    if (at + 4 + len + 72 > buf.length) return undefined;
    const path = buf.toString("utf8", at + 4, at + 4 + len);
    at += 4 + len;
    entries.set(path, [buf.readDoubleLE(at), buf.readDoubleLE(at + 8), buf.readDoubleLE(at + 16), buf.readDoubleLE(at + 24), buf.readDoubleLE(at + 32), buf.toString("hex", at + 40, at + 72)]);
    at += 72;
  }
  return { writtenAt, entries };
}

/** A file modified this close to the cache write (or after it) is re-hashed. */
const RACY_MS = 1000;

export class StatCache {
  readonly #path: string;
  #entries: Map<string, Entry>;
  #writtenAt: number;
  #dirty = false;

  private constructor(path: string, entries: Map<string, Entry>, writtenAt: number) {
    this.#path = path;
    this.#entries = entries;
    this.#writtenAt = writtenAt;
  }

  /** Loads the cache at `path`; a missing or damaged cache is an empty one (it is only a cache). */
  static load(path: string): StatCache {
    let buf: Buffer;
    try {
      buf = readFileSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      return new StatCache(path, new Map(), 0);
    }
    const doc = decode(buf);
    // A cache we cannot read costs re-hashing, never correctness.
    return doc ? new StatCache(path, doc.entries, doc.writtenAt) : new StatCache(path, new Map(), 0);
  }

  /** The content hash recorded for `path` if its stat is unchanged and not racy. */
  get(path: string, st: StatSignature): Hash | undefined {
    const e = this.#entries.get(path);
    if (!e) return undefined;
    if (e[0] !== st.size || e[1] !== st.mtimeMs || e[2] !== st.ctimeMs || e[3] !== st.ino || e[4] !== st.mode) return undefined;
    if (st.mtimeMs >= this.#writtenAt - RACY_MS) return undefined;
    return e[5];
  }

  set(path: string, st: StatSignature, hash: Hash): void {
    const e = this.#entries.get(path);
    if (e && e[0] === st.size && e[1] === st.mtimeMs && e[2] === st.ctimeMs && e[3] === st.ino && e[4] === st.mode && e[5] === hash) return;
    this.#entries.set(path, [st.size, st.mtimeMs, st.ctimeMs, st.ino, st.mode, hash]);
    this.#dirty = true;
  }

  /** Keeps only the paths seen in the latest walk. */
  retain(paths: ReadonlySet<string>): void {
    for (const p of this.#entries.keys()) {
      if (!paths.has(p)) {
        this.#entries.delete(p);
        this.#dirty = true;
      }
    }
  }

  /**
   * Writes the cache if it changed — or if racy entries could become trusted by a newer
   * write time.
   */
  save(now: number = Date.now()): void {
    const racy = [...this.#entries.values()].some((e) => e[1] >= this.#writtenAt - RACY_MS);
    if (!this.#dirty && !racy) return;
    mkdirSync(dirname(this.#path), { recursive: true });
    const tmp = `${this.#path}.${process.pid}.tmp`;
    writeFileSync(tmp, encode(now, this.#entries));
    renameSync(tmp, this.#path);
    this.#writtenAt = now;
    this.#dirty = false;
  }
}
