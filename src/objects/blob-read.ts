// Reading a file straight into a blob object (`b`, then the bytes): shared by the walk's own
// hashing and the worker that reads, hashes and packs files beside it (compress-worker.ts).
import { closeSync, openSync, readSync } from "node:fs";

/**
 * A file's bytes read straight into a blob object, so the blob costs no second copy.
 * `expected` is the size the walk saw; the file is read to its end whatever its size is now.
 */
export function readBlob(abs: string, expected: number): Buffer {
  const fd = openSync(abs, "r");
  try {
    // Room for one byte more than expected: filling it means the file grew since the walk.
    let buf = Buffer.allocUnsafe(Math.max(expected, 0) + 2);
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
