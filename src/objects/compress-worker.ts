// The compression worker: packs batches of objects off the main thread (see compress-pool.ts).
import { parentPort } from "node:worker_threads";
import { pack, type Effort } from "./codec.js";

interface Job {
  readonly id: number;
  readonly effort: Effort;
  readonly items: Uint8Array[];
}

parentPort?.on("message", (job: Job) => {
  const out = job.items.map((raw) => pack(raw, job.effort));
  parentPort?.postMessage({ id: job.id, items: out }, out.map((b) => b.buffer as ArrayBuffer));
});
