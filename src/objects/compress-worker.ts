// The compression worker (see compress-pool.ts). Two kinds of job:
// - "pack": a batch of raw objects back to back, packed and sent back in one buffer;
// - "files": files of a walk read, hashed into their blob objects and packed here, so that
//   a big snapshot reads, hashes and compresses on both cores (the main thread does the
//   same for its share of the files).
import { parentPort } from "node:worker_threads";
import { pack, type Effort } from "./codec.js";
import { readAndPack } from "./read-pack.js";

interface PackJob {
  readonly kind?: "pack";
  readonly id: number;
  readonly effort: Effort;
  /** The raw objects back to back; `ends[i]` is where object i ends. */
  readonly data: Uint8Array;
  readonly ends: readonly number[];
}

interface FilesJob {
  readonly kind: "files";
  readonly id: number;
  /** Absolute paths, and the size each had when the walk saw it. */
  readonly paths: readonly string[];
  readonly sizes: readonly number[];
}

/** Packed objects back to back in one buffer: one transfer instead of a clone per object. */
function concat(parts: readonly Uint8Array[]): { data: Buffer; ends: number[] } {
  let total = 0;
  for (const p of parts) total += p.length;
  const data = Buffer.allocUnsafeSlow(total); // filled below: no zeroing; its own memory, so it can be transferred
  const ends: number[] = [];
  let at = 0;
  for (const p of parts) {
    data.set(p, at);
    at += p.length;
    ends.push(at);
  }
  return { data, ends };
}

function packJob(job: PackJob): void {
  const packed: Uint8Array[] = [];
  let start = 0;
  for (const end of job.ends) {
    packed.push(pack(job.data.subarray(start, end), job.effort));
    start = end;
  }
  const { data, ends } = concat(packed);
  parentPort?.postMessage({ id: job.id, data, ends }, [data.buffer as ArrayBuffer]);
}

function filesJob(job: FilesJob): void {
  const { files, objects } = readAndPack(job.paths, job.sizes);
  // Per file: [hash, size] once read, or [null, error code].
  const rows = files.map((f) => ("error" in f ? [null, f.error] : [f.hash, f.size]));
  const { data, ends } = concat(objects.map((o) => o.data));
  parentPort?.postMessage({ id: job.id, files: rows, hashes: objects.map((o) => o.hash), data, ends }, [data.buffer as ArrayBuffer]);
}

parentPort?.on("message", (job: PackJob | FilesJob) => {
  try {
    if (job.kind === "files") filesJob(job);
    else packJob(job);
  } catch (e) {
    parentPort?.postMessage({ id: job.id, error: e instanceof Error ? e.message : String(e) });
  }
});
