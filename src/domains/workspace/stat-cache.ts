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

interface CacheFile {
  readonly version: 1;
  /** When the cache was written (epoch ms). */
  readonly writtenAt: number;
  /** path → [size, mtimeMs, ctimeMs, ino, mode, hash] */
  readonly entries: Record<string, [number, number, number, number, number, Hash]>;
}

/** A file modified this close to the cache write (or after it) is re-hashed. */
const RACY_MS = 1000;

export class StatCache {
  readonly #path: string;
  #entries: Map<string, [number, number, number, number, number, Hash]>;
  #writtenAt: number;
  #dirty = false;

  private constructor(path: string, entries: Map<string, [number, number, number, number, number, Hash]>, writtenAt: number) {
    this.#path = path;
    this.#entries = entries;
    this.#writtenAt = writtenAt;
  }

  /** Loads the cache at `path`; a missing or unreadable cache is an empty one (it is only a cache). */
  static load(path: string): StatCache {
    try {
      const doc = JSON.parse(readFileSync(path, "utf8")) as CacheFile;
      if (doc.version === 1 && typeof doc.writtenAt === "number" && typeof doc.entries === "object" && doc.entries !== null) {
        return new StatCache(path, new Map(Object.entries(doc.entries)), doc.writtenAt);
      }
    } catch (e) {
      // A cache we cannot read costs re-hashing, never correctness.
      if ((e as NodeJS.ErrnoException).code !== "ENOENT" && !(e instanceof SyntaxError)) throw e;
    }
    return new StatCache(path, new Map(), 0);
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
    const doc: CacheFile = { version: 1, writtenAt: now, entries: Object.fromEntries(this.#entries) };
    mkdirSync(dirname(this.#path), { recursive: true });
    const tmp = `${this.#path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(doc));
    renameSync(tmp, this.#path);
    this.#writtenAt = now;
    this.#dirty = false;
  }
}
