// `file:DIR` — plain files, easy to inspect and sync: one file per object under
// objects/xx/, metadata in meta.json. Every file is written to a temp name, fsynced and
// renamed into place, so a crash leaves the old or the new file, never half of one.
// Transactions hold a lock file, so several processes may share the directory.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
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
import { MetaModel, type MetaDoc } from "../meta-model.js";
import { noStoreAt } from "../no-store.js";
import { MemoryTextIndex } from "../search/memory-index.js";
import { FileLock } from "../../core/file-lock.js";

const HASH = /^[0-9a-f]{64}$/;

export class FileBackend implements Backend {
  readonly url: string;
  readonly meta: MetaReader;
  /** The in-process full-text index: built by the first search of a process, kept up by its writes. */
  readonly search: MemoryTextIndex;
  readonly #dir: string;
  readonly #objects: string;
  readonly #metaPath: string;
  readonly #lock: FileLock;
  readonly #mutex = new Mutex();
  #model = new MetaModel();
  #signature = "";
  #tmpSeq = 0;

  private constructor(dir: string) {
    this.url = `file:${dir}`;
    this.#dir = dir;
    this.#objects = join(dir, "objects");
    this.#metaPath = join(dir, "meta.json");
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
        // The index is in process: its changes are undone with the transaction's but do not make meta.json change.
        const indexUndo: (() => void)[] = [];
        let result: T;
        try {
          result = await fn(this.#model.view(undo, async (hashes, before) => this.#delete(hashes, before), this.search.writer(indexUndo)));
        } catch (e) {
          for (let i = undo.length - 1; i >= 0; i--) (undo[i] as () => void)();
          for (let i = indexUndo.length - 1; i >= 0; i--) (indexUndo[i] as () => void)();
          throw e;
        }
        if (undo.length > 0) {
          this.#writeAtomic(this.#metaPath, JSON.stringify(this.#model.toDoc()));
          fsyncDir(this.#dir);
          this.#signature = signatureOf(statSync(this.#metaPath));
        }
        return result;
      } finally {
        this.#lock.release();
      }
    });
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

  /** Reloads meta.json if it changed since this process last read or wrote it. */
  #refresh(): void {
    let st: Stats;
    try {
      st = statSync(this.#metaPath);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      return; // a new store: the empty model stands
    }
    const sig = signatureOf(st);
    if (sig === this.#signature) return;
    let doc: MetaDoc;
    try {
      doc = JSON.parse(readFileSync(this.#metaPath, "utf8")) as MetaDoc;
    } catch (e) {
      throw new ForgeError("STORE_UNAVAILABLE", `cannot read ${this.#metaPath}: ${(e as Error).message}`, { cause: e });
    }
    if (doc.version !== 1) throw new ForgeError("STORE_UNAVAILABLE", `${this.#metaPath} has unknown version ${String(doc.version)}`);
    this.#model = MetaModel.fromDoc(doc);
    this.#signature = sig;
  }

  async close(): Promise<void> {
    await this.#mutex.run(async () => undefined);
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
