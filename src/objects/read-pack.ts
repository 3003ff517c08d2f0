// Reading files into their blob objects, hashed and packed for storing: what a big snapshot
// does on both cores (workspace/walk.ts `hashShared` on the main thread, compress-worker.ts
// on the worker), written once.
import { ForgeError } from "../core/errors.js";
import { readBlob, type ReadScratch } from "./blob-read.js";
import { pack } from "./codec.js";
import { blobObjects } from "./file-tree.js";
import type { Hash } from "./hash.js";
import { nodeLimitProblem } from "./limits.js";

/** What reading one file gave: its blob's hash and size, or why it could not be read (an errno code). */
export type FileRead = { readonly hash: Hash; readonly size: number } | { readonly error: string };

/**
 * Reads each of `paths` (absolute, with the size the walk saw) into its objects, packed
 * ("fast"), each object once however many files hold it. `names` label the files in an error:
 * an object past the node limits is refused, naming its file.
 */
export function readAndPack(
  paths: readonly string[],
  sizes: readonly number[],
  names: readonly string[] = paths,
): { files: FileRead[]; objects: { hash: Hash; data: Uint8Array }[] } {
  const files: FileRead[] = [];
  const objects: { hash: Hash; data: Uint8Array }[] = [];
  const seen = new Set<Hash>();
  // Each file's raw bytes are packed (copied) before the next is read: one buffer serves them all.
  const scratch: ReadScratch = { buf: undefined };
  for (const [i, path] of paths.entries()) {
    let blob: Buffer;
    try {
      blob = readBlob(path, sizes[i] as number, scratch);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      files.push({ error: err.code ?? err.message });
      continue;
    }
    const { hash, objects: raw } = blobObjects(blob);
    files.push({ hash, size: blob.length - 1 });
    for (const [h, bytes] of raw) {
      if (seen.has(h)) continue;
      seen.add(h);
      const problem = nodeLimitProblem(bytes);
      if (problem !== null) throw new ForgeError("INVALID_STATE", `file ${names[i]} cannot be stored: ${problem}`);
      objects.push({ hash: h, data: pack(bytes, "fast") });
    }
  }
  return { files, objects };
}
