// Big object batches written on a thread of their own. Inserting ~10 MB into SQLite costs
// the inserting thread ~100 ms, and every WAL checkpoint (each ~4 MB of WAL) adds an fsync
// of the database file: on a first snapshot of 40 MB that was ~0.4 s of the main thread's
// time, spent waiting while no file was read. The writer thread has its own connection to
// the same file and takes the same write lock, so what it writes and when it is visible
// are exactly as if the main connection had written it.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { ForgeError } from "../../core/errors.js";
import type { StoredObject } from "../backend.js";

const WORKER_FILE = new URL("./sqlite-writer-worker.js", import.meta.url);
/** The worker runs compiled JavaScript; run from TypeScript sources (tests), writes stay on the calling thread. */
export const WRITER_AVAILABLE = existsSync(fileURLToPath(WORKER_FILE));

export class SqliteWriter {
  readonly #path: string;
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { resolve: (bytes: number) => void; reject: (e: unknown) => void }>();
  #nextId = 0;
  #failed: unknown;

  constructor(path: string, timeoutMs: number) {
    this.#path = path;
    this.#worker = new Worker(WORKER_FILE, { workerData: { path, timeoutMs } });
    this.#worker.unref(); // a job in flight refs it; an idle writer never keeps the process alive
    this.#worker.on("message", (m: { id: number; bytes?: number; error?: { message: string; code?: unknown } }) => {
      const job = this.#waiting.get(m.id);
      this.#waiting.delete(m.id);
      if (this.#waiting.size === 0) this.#worker.unref();
      if (m.error) job?.reject(this.#error(m.error.message, m.error));
      else job?.resolve(m.bytes as number);
    });
    this.#worker.on("error", (e) => this.#fail(e));
    this.#worker.on("exit", (code) => {
      if (this.#waiting.size > 0) this.#fail(new Error(`the writer thread exited (code ${code})`));
    });
  }

  /** Inserts the objects the store lacks in one transaction; resolves to the bytes added. */
  put(objects: readonly StoredObject[], now: number): Promise<number> {
    if (this.#failed !== undefined) return Promise.reject(this.#error("the writer thread failed earlier", this.#failed));
    let total = 0;
    for (const o of objects) total += o.data.length;
    // One buffer each for hashes and data: a single transfer instead of a clone per object.
    const hashes = new Uint8Array(32 * objects.length);
    const data = Buffer.allocUnsafeSlow(total); // filled below: no zeroing; its own memory, so it can be transferred
    const ends: number[] = [];
    let at = 0;
    objects.forEach((o, i) => {
      hashes.set(Buffer.from(o.hash, "hex"), 32 * i);
      data.set(o.data, at);
      at += o.data.length;
      ends.push(at);
    });
    const id = this.#nextId++;
    this.#worker.ref();
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#worker.postMessage({ id, hashes, data, ends, now }, [hashes.buffer, data.buffer]);
    });
  }

  /** Closes the writer's connection and ends the thread. */
  async close(): Promise<void> {
    if (this.#failed !== undefined) {
      await this.#worker.terminate();
      return;
    }
    const exited = new Promise<void>((resolve) => this.#worker.once("exit", () => resolve()));
    this.#worker.ref();
    this.#worker.postMessage("close");
    await exited;
  }

  #fail(e: unknown): void {
    this.#failed = e;
    for (const job of this.#waiting.values()) job.reject(this.#error((e as Error).message ?? String(e), e));
    this.#waiting.clear();
  }

  #error(message: string, cause: unknown): ForgeError {
    return new ForgeError("STORE_UNAVAILABLE", `cannot write objects to the SQLite store at ${this.#path}: ${message}`, { cause });
  }
}
