// Reading a file straight into a blob object (`b`, then the bytes): shared by the walk's own
// hashing and the worker that reads, hashes and packs files beside it (compress-worker.ts).
import { closeSync, openSync, readSync } from "node:fs";

/**
 * A buffer reads can go into when what they give is used and dropped before the next read
 * (`readAndPack` packs each file, and keeps only the packed copy): a fresh buffer per file
 * cost a first snapshot of 10,000 files ~3 µs each in allocation and page faults, and its
 * garbage. Grown as needed, never past SCRATCH_MAX (a bigger file gets a buffer of its own).
 */
export interface ReadScratch {
  buf: Buffer | undefined;
}
const SCRATCH_MAX = 4 * 1024 * 1024;

/**
 * A file's bytes read straight into a blob object, so the blob costs no second copy.
 * `expected` is the size the walk saw; the file is read to its end whatever its size is now.
 * With `scratch`, the blob may be a view of its buffer: valid until the next read into it.
 */
export function readBlob(abs: string, expected: number, scratch?: ReadScratch): Buffer {
  const fd = openSync(abs, "r");
  try {
    // Room for one byte more than expected: filling it means the file grew since the walk.
    const room = Math.max(expected, 0) + 2;
    let buf: Buffer;
    if (scratch === undefined || room > SCRATCH_MAX) buf = Buffer.allocUnsafe(room);
    else {
      if (scratch.buf === undefined || scratch.buf.length < room) scratch.buf = Buffer.allocUnsafeSlow(Math.min(SCRATCH_MAX, Math.max(room, 64 * 1024)));
      buf = scratch.buf;
    }
    buf[0] = 0x62; // "b"
    let len = 1;
    for (;;) {
      if (len === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, len);
        buf = bigger;
      }
      const n = readSync(fd, buf, len, buf.length - len, null);
      if (n === 0) break;
      len += n;
      // Exactly the size the walk saw, and the extra byte not filled: the file ended there.
      if (len === expected + 1) break;
    }
    return buf.subarray(0, len);
  } finally {
    closeSync(fd);
  }
}
