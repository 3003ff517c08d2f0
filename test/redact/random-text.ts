// Random text for holding the redaction scanners to the regexes they stand for.

/** A small deterministic generator, so a failure can be run again. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/** Characters keywords are made of, in both cases, and some that fold onto ASCII letters when lower-cased (ſ, K, ı). */
export const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-~:/ "{}\n\u017f\u212a\u0131é😀';
