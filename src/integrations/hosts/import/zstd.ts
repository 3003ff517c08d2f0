// Reading a zstd-compressed transcript (Codex's rollouts may be `.jsonl.zst`). Node 20's zlib
// has no zstd, so fzstd (pure JavaScript, MIT, no dependencies) decodes it, loaded only when a
// compressed file is read. A file still being written ends mid-block: its streaming decoder
// gives what decoded before the cut, and the rest is read once it is there.
import { closeSync, fstatSync, readSync } from "node:fs";
import { createRequire } from "node:module";
import type * as Fzstd from "fzstd";
import { ForgeError } from "../../../core/errors.js";
import { openTranscript } from "../capture/jsonl.js";

let fzstd: typeof Fzstd | undefined;
// require, not import(): the bundled CLI loads its external packages this way (see bin/code-cache.js).
const load = () => (fzstd ??= createRequire(import.meta.url)("fzstd") as typeof Fzstd);

/** The decompressed bytes of `path` (at most `limit` of them, when given) and the file's inode. */
export function readZstd(path: string, label: string, limit?: number): { data: Buffer; ino: number } {
  const fd = openTranscript(path, label);
  const chunks: Uint8Array[] = [];
  let size = 0;
  let ino: number;
  try {
    ino = Number(fstatSync(fd).ino);
    const decoder = new (load().Decompress)((chunk) => {
      chunks.push(chunk.slice()); // the decoder may reuse its window for what follows
      size += chunk.length;
    });
    for (let pos = 0; ; ) {
      const buf = Buffer.alloc(256 * 1024); // a new one each time: the decoder may hold on to the last block's bytes
      const n = readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) break;
      pos += n;
      decoder.push(buf.subarray(0, n));
      if (limit !== undefined && size >= limit) break;
    }
  } catch (e) {
    if (e instanceof ForgeError) throw e;
    throw new ForgeError("INVALID_ARGUMENT", `cannot decompress the ${label} transcript ${path}: ${(e as Error).message}`, {
      hint: "the file is not zstd data, or it is damaged; it was left out",
      data: { path },
      cause: e,
    });
  } finally {
    closeSync(fd);
  }
  return { data: Buffer.concat(chunks, size), ino };
}
