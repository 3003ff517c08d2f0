// The compression worker: packs batches of objects off the main thread (see compress-pool.ts).
import { parentPort } from "node:worker_threads";
import { pack, type Effort } from "./codec.js";

interface Job {
  readonly id: number;
  readonly effort: Effort;
  /** The raw objects back to back; `ends[i]` is where object i ends. */
  readonly data: Uint8Array;
  readonly ends: readonly number[];
}

parentPort?.on("message", (job: Job) => {
  const packed: Uint8Array[] = [];
  let total = 0;
  let start = 0;
  for (const end of job.ends) {
    const p = pack(job.data.subarray(start, end), job.effort);
    packed.push(p);
    total += p.length;
    start = end;
  }
  // One buffer back, as one came: a single transfer instead of a clone per object.
  const data = Buffer.allocUnsafeSlow(total); // filled below: no zeroing; its own memory, so it can be transferred
  const ends: number[] = [];
  let at = 0;
  for (const p of packed) {
    data.set(p, at);
    at += p.length;
    ends.push(at);
  }
  parentPort?.postMessage({ id: job.id, data, ends }, [data.buffer]);
});
