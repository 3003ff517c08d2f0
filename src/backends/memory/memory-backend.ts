// `memory:` — everything in process maps; for tests and short-lived processes.
import { ForgeError } from "../../core/errors.js";
import { Mutex } from "../../core/mutex.js";
import type { Backend, DeletedObjects, MetaReader, MetaWriter, ObjectInfo, StoredObject } from "../backend.js";
import { MetaModel } from "../meta-model.js";
import { MemoryTextIndex } from "../search/memory-index.js";

interface Entry {
  data: Uint8Array;
  createdAt: number;
}

export class MemoryBackend implements Backend {
  readonly url = "memory:";
  readonly #objects = new Map<string, Entry>();
  readonly #model = new MetaModel();
  readonly #lock = new Mutex();
  readonly meta: MetaReader = this.#model.view();
  /** The in-process full-text index. */
  readonly search = new MemoryTextIndex(() => this.meta);
  #closed = false;

  async putObjects(objects: readonly StoredObject[]): Promise<number> {
    this.#open();
    let bytes = 0;
    const now = Date.now();
    for (const o of objects) {
      if (this.#objects.has(o.hash)) continue;
      this.#objects.set(o.hash, { data: Uint8Array.from(o.data), createdAt: now });
      bytes += o.data.length;
    }
    return bytes;
  }

  async getObjects(hashes: readonly string[]): Promise<Map<string, Uint8Array>> {
    this.#open();
    const out = new Map<string, Uint8Array>();
    for (const h of hashes) {
      const e = this.#objects.get(h);
      if (e) out.set(h, Uint8Array.from(e.data)); // a copy, as the other backends give: callers may change it
    }
    return out;
  }

  async hasObjects(hashes: readonly string[]): Promise<Set<string>> {
    this.#open();
    return new Set(hashes.filter((h) => this.#objects.has(h)));
  }

  async *listObjects(): AsyncIterable<ObjectInfo> {
    this.#open();
    for (const [hash, e] of [...this.#objects]) yield { hash, size: e.data.length, createdAt: e.createdAt };
  }

  async countObjects(): Promise<number> {
    return this.#objects.size;
  }

  async corruptObjectForTesting(hash: string, data: Uint8Array): Promise<void> {
    const e = this.#objects.get(hash);
    if (e) e.data = Uint8Array.from(data);
  }

  transaction<T>(fn: (tx: MetaWriter) => Promise<T>): Promise<T> {
    this.#open();
    return this.#lock.run(async () => {
      const undo: (() => void)[] = [];
      try {
        return await fn(this.#model.view(undo, async (hashes, before) => this.#delete(hashes, before), this.search.writer(undo)));
      } catch (e) {
        for (let i = undo.length - 1; i >= 0; i--) (undo[i] as () => void)();
        throw e;
      }
    });
  }

  #delete(hashes: readonly string[], createdBefore: number): DeletedObjects {
    let count = 0;
    let bytes = 0;
    for (const h of hashes) {
      const e = this.#objects.get(h);
      if (e && e.createdAt < createdBefore) {
        this.#objects.delete(h);
        count++;
        bytes += e.data.length;
      }
    }
    return { count, bytes };
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #open(): void {
    if (this.#closed) throw new ForgeError("CLOSED", "the store is closed");
  }
}
