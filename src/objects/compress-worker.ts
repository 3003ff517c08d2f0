// The compression worker (see compress-pool.ts). Two kinds of job:
// - "pack": a batch of raw objects back to back, packed and sent back in one buffer;
// - "files": files of a walk read, hashed into their blob objects and packed here, so that
//   a big snapshot reads, hashes and compresses on both cores (the main thread does the
//   same for its share of the files).
import { parentPort } from "node:worker_threads";
import { readBlob } from "./blob-read.js";
import { pack, type Effort } from "./codec.js";
import { blobObjects } from "./file-tree.js";
import { nodeLimitProblem } from "./limits.js";

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
  // Per file: [hash, size] once read, or [null, error code].
  const files: [string | null, number | string][] = [];
  const hashes: string[] = [];
  const packed: Uint8Array[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < job.paths.length; i++) {
    let blob: Buffer;
    try {
      blob = readBlob(job.paths[i] as string, job.sizes[i] as number);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      files.push([null, err.code ?? err.message]);
      continue;
    }
    const { hash, objects } = blobObjects(blob);
    files.push([hash, blob.length - 1]);
    for (const [h, raw] of objects) {
      if (seen.has(h)) continue;
      seen.add(h);
      const problem = nodeLimitProblem(raw);
      if (problem !== null) throw new Error(`object ${h} cannot be stored: ${problem}`);
      hashes.push(h);
      packed.push(pack(raw, "fast"));
    }
  }
  const { data, ends } = concat(packed);
  parentPort?.postMessage({ id: job.id, files, hashes, data, ends }, [data.buffer as ArrayBuffer]);
}

parentPort?.on("message", (job: PackJob | FilesJob) => {
  try {
    if (job.kind === "files") filesJob(job);
    else packJob(job);
  } catch (e) {
    parentPort?.postMessage({ id: job.id, error: e instanceof Error ? e.message : String(e) });
  }
});
