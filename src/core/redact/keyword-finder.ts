// Where the rules' keywords are in a string, for the detector (detect.ts): at each place,
// the longest keyword that starts there. One regex alternation of every keyword, longest
// first, tried at each place (lastIndex one on after each match) finds the same; V8 runs it
// at ~15 ns a character, and a message of an agent's conversation holds a keyword more often
// than not (“key”, “api”, “auth” and “token” sit inside ordinary words), so it was most of what
// redacting one cost. This looks up each place's next three characters in a table of the
// keywords' first three, as the prefilter does (prefilter.ts), and compares the rest of a
// keyword only there. test/redact holds it to the regex.

/** The ASCII code of `s[i]`, or 0 outside ASCII (no keyword holds such a character). */
const codeAt = (s: string, i: number): number => {
  const c = s.charCodeAt(i);
  return c < 128 ? c : 0;
};

const trigram = (a: number, b: number, c: number): number => (a << 14) | (b << 7) | c;
const bitOf = (t: number): number => Math.imul(t, 0x9e3779b1) >>> 16;

export class KeywordFinder {
  /** A bit per hashed trigram that starts a keyword: most places are ruled out by one look here. */
  readonly #bits = new Uint32Array(1 << 11);
  /** Keywords of three characters or more by their first three, longest first. */
  readonly #byTrigram = new Map<number, string[]>();
  /** Keywords of two characters by their pair's code (a 14-bit index: both characters are ASCII). */
  readonly #pairs: (string | undefined)[] = new Array<string | undefined>(1 << 14).fill(undefined);
  /** Set when a keyword does not fit the tables (not lower-case ASCII, or one character): a regex finds them instead. */
  readonly #fallback: RegExp | undefined;

  /** `words`: lower-case keywords, found in lower-cased text. */
  constructor(words: readonly string[]) {
    const sorted = [...new Set(words)].sort((a, b) => b.length - a.length);
    const fits = (w: string) => w.length >= 2 && w === w.toLowerCase() && [...w].every((ch) => codeAt(ch, 0) !== 0);
    if (!sorted.every(fits)) {
      this.#fallback = new RegExp(sorted.map((w) => w.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")).join("|"), "g");
      return;
    }
    for (const w of sorted) {
      if (w.length === 2) {
        this.#pairs[(w.charCodeAt(0) << 7) | w.charCodeAt(1)] = w;
        continue;
      }
      const t = trigram(w.charCodeAt(0), w.charCodeAt(1), w.charCodeAt(2));
      const b = bitOf(t);
      this.#bits[b >>> 5] = (this.#bits[b >>> 5] as number) | (1 << (b & 31));
      const list = this.#byTrigram.get(t);
      if (list) list.push(w);
      else this.#byTrigram.set(t, [w]);
    }
  }

  /** Calls `found` for each place of `lower` where a keyword starts, in order, with the longest one there. */
  find(lower: string, found: (keyword: string, at: number) => void): void {
    const fallback = this.#fallback;
    if (fallback !== undefined) {
      fallback.lastIndex = 0;
      for (let m = fallback.exec(lower); m !== null; m = fallback.exec(lower)) {
        found(m[0], m.index);
        fallback.lastIndex = m.index + 1;
      }
      return;
    }
    const bits = this.#bits;
    const byTrigram = this.#byTrigram;
    const pairs = this.#pairs;
    const n = lower.length;
    if (n < 2) return;
    let b = codeAt(lower, 0);
    let c = codeAt(lower, 1);
    for (let i = 0; i + 1 < n; i++) {
      const a = b;
      b = c;
      c = i + 2 < n ? codeAt(lower, i + 2) : 0;
      if (a === 0 || b === 0) continue;
      let hit: string | undefined;
      if (c !== 0) {
        const t = trigram(a, b, c);
        const h = bitOf(t);
        if (((bits[h >>> 5] as number) & (1 << (h & 31))) !== 0) {
          for (const w of byTrigram.get(t) ?? []) {
            if (lower.startsWith(w, i)) {
              hit = w;
              break;
            }
          }
        }
      }
      hit ??= pairs[(a << 7) | b];
      if (hit !== undefined) found(hit, i);
    }
  }
}
