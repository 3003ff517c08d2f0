// Compression of big batches on a worker thread, so a first snapshot of a large tree reads
// and hashes files while the previous batch is being compressed. One worker (these
// machines have two cores: the main thread keeps the other); small batches stay on the
// main thread, where a worker's round trip would cost more than it saves.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { pack, type Effort } from "./codec.js";
import type { FileRead } from "./read-pack.js";

const WORKER_FILE = new URL("./compress-worker.js", import.meta.url);
/** The worker runs compiled JavaScript; run from TypeScript sources (tests), packing stays in place. */
const WORKER_AVAILABLE = existsSync(fileURLToPath(WORKER_FILE));

/** Batches smaller than this are packed in place. */
const MIN_BATCH_BYTES = 1024 * 1024;

let worker: Worker | undefined;
let nextId = 0;
/** What the worker sends back: packed objects back to back, and for a files job what each file was. */
interface Reply {
  readonly id: number;
  readonly error?: string;
  readonly data: Uint8Array;
  readonly ends: number[];
  readonly files?: [string | null, number | string][];
  readonly hashes?: string[];
}
const waiting = new Map<number, { resolve: (reply: Reply) => void; reject: (e: unknown) => void }>();

function getWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(WORKER_FILE);
  w.unref(); // never keeps the process alive on its own
  w.on("message", (m: Reply) => {
    const job = waiting.get(m.id);
    waiting.delete(m.id);
    if (waiting.size === 0) w.unref();
    if (m.error !== undefined) job?.reject(new Error(`compression worker: ${m.error}`));
    else job?.resolve(m);
  });
  w.on("error", (e) => {
    for (const job of waiting.values()) job.reject(e);
    waiting.clear();
    worker = undefined;
  });
  worker = w;
  return w;
}

/** The stored form of each raw object, in order. */
export async function packMany(items: readonly Uint8Array[], effort: Effort): Promise<Uint8Array[]> {
  let total = 0;
  for (const i of items) total += i.length;
  if (total < MIN_BATCH_BYTES || !WORKER_AVAILABLE) return items.map((raw) => pack(raw, effort));
  const w = getWorker();
  w.ref(); // a job in flight keeps the process alive until it returns
  const id = nextId++;
  // One copy of the batch goes to the worker, back to back (the caller keeps its raw bytes):
  // a single transfer, where a copy per object cost an allocation and a clone each.
  const data = Buffer.allocUnsafeSlow(total); // filled below: no zeroing; its own memory, so it can be transferred
  const ends: number[] = [];
  let at = 0;
  for (const i of items) {
    data.set(i, at);
    at += i.length;
    ends.push(at);
  }
  const reply = await new Promise<Reply>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    w.postMessage({ id, effort, data, ends }, [data.buffer]);
  });
  return split(reply.data, reply.ends);
}

/** Whether `readFiles` can run (the worker is compiled JavaScript: not from TypeScript sources). */
export const filesWorkerAvailable = WORKER_AVAILABLE;

/**
 * Reads `paths` (absolute, with the sizes the walk saw) on the worker thread: each file's
 * hash and size, and the packed objects of them all (deduplicated within the batch), ready
 * to be stored. The main thread meanwhile does the same for other files.
 */
export async function readFiles(
  paths: readonly string[],
  sizes: readonly number[],
): Promise<{ files: FileRead[]; objects: { hash: string; data: Uint8Array }[] }> {
  const w = getWorker();
  w.ref();
  const id = nextId++;
  const reply = await new Promise<Reply>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    w.postMessage({ kind: "files", id, paths, sizes });
  });
  const packed = split(reply.data, reply.ends);
  return {
    files: (reply.files ?? []).map(([hash, v]) => (hash === null ? { error: String(v) } : { hash, size: v as number })),
    objects: (reply.hashes ?? []).map((hash, i) => ({ hash, data: packed[i] as Uint8Array })),
  };
}

/** The objects of a batch that came back in one buffer, as views of it. */
function split(data: Uint8Array, ends: readonly number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  for (const end of ends) {
    out.push(data.subarray(start, end));
    start = end;
  }
  return out;
}
