// Content-defined chunking of big files (FastCDC's normalized gear hash): boundaries come
// from the bytes themselves, so an edit in the middle of a large file changes only the
// chunks around it, and the rest keep their hashes.
//
// The gear table is fixed forever (it defines where chunks are cut, and so which chunks
// earlier snapshots can share): 256 values from a xorshift32 generator seeded with
// 0x9e3779b9.

export const MIN_CHUNK = 16 * 1024;
export const AVG_CHUNK = 64 * 1024;
export const MAX_CHUNK = 256 * 1024;

const GEAR = (() => {
  const t = new Uint32Array(256);
  let x = 0x9e3779b9;
  for (let i = 0; i < 256; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    t[i] = x;
  }
  return t;
})();

// Harder to cut before the average size (18 bits must be zero), easier after (14 bits):
// sizes cluster around the average. High bits, because with a shift-left gear hash bit k
// depends on the last k + 1 bytes only.
const MASK_S = 0xffffc000 >>> 0;
const MASK_L = 0xfffc0000 >>> 0;

/** The end offsets of the chunks of `data` (the last one is data.length). */
export function chunkBoundaries(data: Uint8Array): number[] {
  const cuts: number[] = [];
  let start = 0;
  const n = data.length;
  while (start < n) {
    const remaining = n - start;
    if (remaining <= MIN_CHUNK) {
      cuts.push(n);
      break;
    }
    const max = Math.min(remaining, MAX_CHUNK);
    const normal = Math.min(max, AVG_CHUNK);
    let fp = 0;
    let i = MIN_CHUNK;
    let cut = max;
    for (; i < normal; i++) {
      fp = ((fp << 1) + (GEAR[data[start + i] as number] as number)) >>> 0;
      if ((fp & MASK_S) === 0) {
        cut = i + 1;
        break;
      }
    }
    if (cut === max && i >= normal) {
      for (; i < max; i++) {
        fp = ((fp << 1) + (GEAR[data[start + i] as number] as number)) >>> 0;
        if ((fp & MASK_L) === 0) {
          cut = i + 1;
          break;
        }
      }
    }
    start += cut;
    cuts.push(start);
  }
  return cuts;
}
