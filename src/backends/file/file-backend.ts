// `file:DIR` — plain files, easy to inspect and sync: one file per object under
// objects/xx/, metadata in meta.json and meta.log. Every object and every meta.json is
// written to a temp name, fsynced and renamed into place, so a crash leaves the old or the
// new file, never half of one. Transactions hold a lock file, so several processes may share
// the directory.
//
// The metadata's journal: a transaction appends one line to meta.log — the rows it changed,
// their values now — instead of rewriting meta.json, so a commit costs what it changed, not
// the store's history (meta.json of 100,000 checkpoints is ~45 MB). A transaction that
// changes or deletes a row written before (a tag, a prune, a redaction) rewrites meta.json
// instead, so no old content of a row stays on disk. Each line carries the id
// of the meta.json it follows and a hash of itself: a line cut short by a crash fails its
// hash and was never committed (the next writer cuts it off), and lines of an older meta.json
// are skipped. When meta.log outgrows meta.json (and 256 KiB), the writer folds everything
// into a new meta.json under a new id and empties meta.log — rewriting meta.json only after
// as many bytes were appended, so commits stay O(change) on average. A store written before
// the journal (meta.json version 1) is rewritten as version 2 by its first transaction; a
// Forge that knows only version 1 then refuses it instead of missing meta.log's commits.
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from "node:fs";
import { join } from "node:path";
import { ForgeError } from "../../core/errors.js";
import { Mutex } from "../../core/mutex.js";
import type {
  Backend,
  CheckpointQuery,
  CheckpointRow,
  DeletedObjects,
  MetaReader,
  MetaWriter,
  MilestoneRow,
  ObjectInfo,
  RefRow,
  SessionRow,
  StoredObject,
} from "../backend.js";
import { ChangeSet, MetaModel, type JournalRecord, type MetaDoc } from "../meta-model.js";
import { noStoreAt } from "../no-store.js";
import { MemoryTextIndex } from "../search/memory-index.js";
import { FileLock } from "../../core/file-lock.js";

const HASH = /^[0-9a-f]{64}$/;
/** meta.log is folded into meta.json once it is bigger than this and than meta.json. */
const COMPACT_MIN_BYTES = 256 * 1024;

export class FileBackend implements Backend {
  readonly url: string;
  readonly meta: MetaReader;
  /** The in-process full-text index: built by the first search of a process, kept up by its writes. */
  readonly search: MemoryTextIndex;
  readonly #dir: string;
  readonly #objects: string;
  readonly #metaPath: string;
  readonly #logPath: string;
  readonly #lock: FileLock;
  readonly #mutex = new Mutex();
  #model = new MetaModel();
  /** meta.json as last read or written (inode, size, times); "" before there is one. */
  #signature = "";
  /** The journal id of that meta.json; undefined for a version-1 document (no journal) or none. */
  #journal: string | undefined;
  #baseBytes = 0;
  /** How much of meta.log the model holds: the end of the last whole line read. */
  #logOffset = 0;
  /** meta.log holds only lines of an older meta.json (a crash between a fold and emptying the log). */
  #logStale = false;
  #tmpSeq = 0;

  private constructor(dir: string) {
    this.url = `file:${dir}`;
    this.#dir = dir;
    this.#objects = join(dir, "objects");
    this.#metaPath = join(dir, "meta.json");
    this.#logPath = join(dir, "meta.log");
    this.#lock = new FileLock(join(dir, "meta.lock"));
    this.meta = new RefreshingReader(() => {
      this.#refresh();
      return this.#model.view();
    });
    this.search = new MemoryTextIndex(() => this.meta);
  }

  /** Opens the file store in `dir`; with `create: false` a folder that is not one yet is NO_STORE, and nothing is made. */
  static open(dir: string, options: { readonly create?: boolean } = {}): FileBackend {
    if (options.create === false && !existsSync(join(dir, "objects"))) throw noStoreAt(`file:${dir}`, join(dir, "objects"));
    try {
      mkdirSync(join(dir, "objects"), { recursive: true });
      mkdirSync(join(dir, "tmp"), { recursive: true });
    } catch (e) {
      throw new ForgeError("STORE_UNAVAILABLE", `cannot open file store at ${dir}: ${(e as Error).message}`, {
        hint: "check that the directory is writable",
        cause: e,
      });
    }
    const b = new FileBackend(dir);
    b.#refresh();
    return b;
  }

  #objectPath(hash: string): string {
    return join(this.#objects, hash.slice(0, 2), hash.slice(2));
  }

  /** Writes `data` to `path` atomically: temp file, fsync, rename. */
  #writeAtomic(path: string, data: Uint8Array | string): void {
    const tmp = join(this.#dir, "tmp", `${process.pid}-${++this.#tmpSeq}`);
    const fd = openSync(tmp, "w");
    try {
      writeSync(fd, typeof data === "string" ? Buffer.from(data) : data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  }

  async putObjects(objects: readonly StoredObject[]): Promise<number> {
    let bytes = 0;
    const dirs = new Set<string>();
    for (const o of objects) {
      const path = this.#objectPath(o.hash);
      if (existsSync(path)) continue;
      const dir = join(this.#objects, o.hash.slice(0, 2));
      if (!dirs.has(dir)) mkdirSync(dir, { recursive: true });
      dirs.add(dir);
      this.#writeAtomic(path, o.data);
      bytes += o.data.length;
    }
    for (const d of dirs) fsyncDir(d);
    return bytes;
  }

  async getObjects(hashes: readonly string[]): Promise<Map<string, Uint8Array>> {
    const out = new Map<string, Uint8Array>();
    for (const h of hashes) {
      try {
        out.set(h, readFileSync(this.#objectPath(h)));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      }
    }
    return out;
  }

  async hasObjects(hashes: readonly string[]): Promise<Set<string>> {
    return new Set(hashes.filter((h) => existsSync(this.#objectPath(h))));
  }

  async *listObjects(): AsyncIterable<ObjectInfo> {
    for (const prefix of readdirSync(this.#objects)) {
      const dir = join(this.#objects, prefix);
      for (const rest of readdirSync(dir)) {
        const hash = prefix + rest;
        if (!HASH.test(hash)) continue;
        let st: Stats;
        try {
          st = statSync(join(dir, rest));
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === "ENOENT") continue; // deleted by a gc meanwhile
          throw e;
        }
        yield { hash, size: st.size, createdAt: st.mtimeMs };
      }
    }
  }

  async countObjects(): Promise<number> {
    let n = 0;
    for (const prefix of readdirSync(this.#objects)) n += readdirSync(join(this.#objects, prefix)).filter((f) => HASH.test(prefix + f)).length;
    return n;
  }

  async corruptObjectForTesting(hash: string, data: Uint8Array): Promise<void> {
    this.#writeAtomic(this.#objectPath(hash), data);
  }

  transaction<T>(fn: (tx: MetaWriter) => Promise<T>): Promise<T> {
    return this.#mutex.run(async () => {
      await this.#lock.acquire();
      try {
        this.#refresh();
        const undo: (() => void)[] = [];
        // The index is in process: its changes are undone with the transaction's but are not journalled.
        const indexUndo: (() => void)[] = [];
        const changes = new ChangeSet();
        let result: T;
        try {
          result = await fn(this.#model.view(undo, async (hashes, before) => this.#delete(hashes, before), this.search.writer(indexUndo), changes));
        } catch (e) {
          for (let i = undo.length - 1; i >= 0; i--) (undo[i] as () => void)();
          for (let i = indexUndo.length - 1; i >= 0; i--) (indexUndo[i] as () => void)();
          throw e;
        }
        if (!changes.empty) this.#commit(changes);
        return result;
      } finally {
        this.#lock.release();
      }
    });
  }

  /** Makes a transaction's changes durable (under the lock, the model already holding them). */
  #commit(changes: ChangeSet): void {
    const logBytes = this.#logOffset;
    if (changes.rewritten || this.#journal === undefined || (logBytes > COMPACT_MIN_BYTES && logBytes > this.#baseBytes)) {
      this.#writeBase();
      return;
    }
    const json = JSON.stringify(this.#model.record(changes, this.#journal));
    const line = Buffer.from(`${json}\t${lineHash(json)}\n`);
    const created = !existsSync(this.#logPath);
    const fd = openSync(this.#logPath, "a");
    try {
      // Whatever follows the last whole line read (a line a crash cut short) was never committed.
      const size = fstatSync(fd).size;
      if (this.#logStale || size !== this.#logOffset) {
        ftruncateSync(fd, this.#logStale ? 0 : this.#logOffset);
        if (this.#logStale) this.#logOffset = 0;
        this.#logStale = false;
      }
      writeSync(fd, line);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (created) fsyncDir(this.#dir);
    this.#logOffset += line.length;
  }

  /** Writes the whole model as a new meta.json (a new journal id), then empties meta.log, whose lines it holds. */
  #writeBase(): void {
    const journal = randomBytes(8).toString("hex");
    const text = JSON.stringify(this.#model.toDoc(journal));
    this.#writeAtomic(this.#metaPath, text);
    fsyncDir(this.#dir);
    // A crash here leaves lines of the old id in meta.log: skipped, and cut off by the next writer.
    if (existsSync(this.#logPath)) {
      const fd = openSync(this.#logPath, "r+");
      try {
        ftruncateSync(fd, 0);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    this.#signature = signatureOf(statSync(this.#metaPath));
    this.#journal = journal;
    this.#baseBytes = Buffer.byteLength(text);
    this.#logOffset = 0;
    this.#logStale = false;
  }

  #delete(hashes: readonly string[], createdBefore: number): DeletedObjects {
    let count = 0;
    let bytes = 0;
    for (const h of hashes) {
      const path = this.#objectPath(h);
      try {
        const st = statSync(path);
        if (st.mtimeMs < createdBefore) {
          unlinkSync(path);
          count++;
          bytes += st.size;
        }
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      }
    }
    return { count, bytes };
  }

  /**
   * Brings the model up to what is committed: reads meta.json again if it changed (another
   * process folded the journal), else only the lines appended to meta.log since last time.
   */
  #refresh(): void {
    let st: Stats;
    try {
      st = statSync(this.#metaPath);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      return; // a new store: the empty model stands
    }
    if (signatureOf(st) !== this.#signature) {
      this.#reload();
      return;
    }
    if (this.#journal === undefined) return;
    const size = fileSize(this.#logPath);
    if (size === this.#logOffset) return;
    if (size < this.#logOffset || !this.#readLog(false)) this.#reload();
  }

  /** Reads meta.json and then all of meta.log. */
  #reload(): void {
    let doc: MetaDoc;
    let st: Stats;
    try {
      // The file read is the file stated: a rename in between cannot pair one's contents with the other's signature.
      const fd = openSync(this.#metaPath, "r");
      try {
        st = fstatSync(fd);
        doc = JSON.parse(readFileSync(fd, "utf8")) as MetaDoc;
      } finally {
        closeSync(fd);
      }
    } catch (e) {
      throw new ForgeError("STORE_UNAVAILABLE", `cannot read ${this.#metaPath}: ${(e as Error).message}`, { cause: e });
    }
    if (doc.version !== 1 && !(doc.version === 2 && typeof doc.journal === "string")) {
      throw new ForgeError("STORE_UNAVAILABLE", `${this.#metaPath} has unknown version ${String(doc.version)}`, { hint: "upgrade forge-reasoning" });
    }
    this.#model = MetaModel.fromDoc(doc);
    this.#signature = signatureOf(st);
    this.#journal = doc.version === 2 ? doc.journal : undefined;
    this.#baseBytes = st.size;
    this.#logOffset = 0;
    this.#logStale = false;
    if (this.#journal !== undefined) this.#readLog(true);
  }

  /**
   * Applies the whole lines of meta.log from `#logOffset` on, stopping at a line that is not
   * whole or fails its hash (being written, or cut short by a crash). A line of another journal
   * id means meta.json changed under this reader: false, unless `fresh` (meta.json was just read,
   * so such lines are older than it and are skipped).
   */
  #readLog(fresh: boolean): boolean {
    let fd: number;
    try {
      fd = openSync(this.#logPath, "r");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return true;
      throw e;
    }
    let data: Buffer;
    try {
      const size = fstatSync(fd).size;
      data = Buffer.alloc(Math.max(0, size - this.#logOffset));
      let got = 0;
      while (got < data.length) {
        const n = readSync(fd, data, got, data.length - got, this.#logOffset + got);
        if (n === 0) break;
        got += n;
      }
      data = data.subarray(0, got);
    } finally {
      closeSync(fd);
    }
    let at = 0;
    let own = false;
    let foreign = false;
    for (;;) {
      const end = data.indexOf(10, at);
      if (end < 0) break;
      const line = data.toString("utf8", at, end);
      const tab = line.lastIndexOf("\t");
      const json = tab < 0 ? "" : line.slice(0, tab);
      if (tab < 0 || lineHash(json) !== line.slice(tab + 1)) break;
      const rec = JSON.parse(json) as JournalRecord;
      if (rec.j !== this.#journal) {
        if (!fresh) return false;
        foreign = true;
      } else {
        this.#model.apply(rec);
        own = true;
      }
      at = end + 1;
    }
    this.#logOffset += at;
    // Only lines of an older meta.json: the next writer empties the log before it appends.
    if (fresh) this.#logStale = foreign && !own;
    return true;
  }

  async close(): Promise<void> {
    await this.#mutex.run(async () => undefined);
  }
}

/** A journal line's check: the first 16 hex digits of the SHA-256 of its JSON. */
function lineHash(json: string): string {
  return createHash("sha256").update(json).digest("hex").slice(0, 16);
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw e;
  }
}

function signatureOf(st: Stats): string {
  return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Metadata reads that first pick up what other processes committed. */
class RefreshingReader implements MetaReader {
  readonly #view: () => MetaReader;
  constructor(view: () => MetaReader) {
    this.#view = view;
  }
  getSessionById(id: string): Promise<SessionRow | undefined> {
    return this.#view().getSessionById(id);
  }
  getSessionByName(name: string): Promise<SessionRow | undefined> {
    return this.#view().getSessionByName(name);
  }
  listSessions(): Promise<SessionRow[]> {
    return this.#view().listSessions();
  }
  getCheckpoint(id: string): Promise<CheckpointRow | undefined> {
    return this.#view().getCheckpoint(id);
  }
  findCheckpointsByPrefix(prefix: string, limit: number, sessionId?: string): Promise<CheckpointRow[]> {
    return this.#view().findCheckpointsByPrefix(prefix, limit, sessionId);
  }
  getCheckpointBySeq(sessionId: string, seq: number): Promise<CheckpointRow | undefined> {
    return this.#view().getCheckpointBySeq(sessionId, seq);
  }
  listCheckpoints(query: CheckpointQuery): Promise<CheckpointRow[]> {
    return this.#view().listCheckpoints(query);
  }
  countCheckpoints(sessionId?: string): Promise<number> {
    return this.#view().countCheckpoints(sessionId);
  }
  listRefs(sessionId: string): Promise<RefRow[]> {
    return this.#view().listRefs(sessionId);
  }
  getRef(sessionId: string, name: string): Promise<RefRow | undefined> {
    return this.#view().getRef(sessionId, name);
  }
  listMilestones(sessionId: string): Promise<MilestoneRow[]> {
    return this.#view().listMilestones(sessionId);
  }
  getMilestone(sessionId: string, name: string): Promise<MilestoneRow | undefined> {
    return this.#view().getMilestone(sessionId, name);
  }
  listRoots(): Promise<string[]> {
    return this.#view().listRoots();
  }
  getGcEpoch(): Promise<number> {
    return this.#view().getGcEpoch();
  }
}
