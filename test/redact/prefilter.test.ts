// The prefilter's scanner finds exactly what one case-insensitive regex of the keywords finds
// (`keywordRegex`): every keyword in any case anywhere in a string, the sharpened two-letter
// ones only with what must follow them, and nothing for characters outside ASCII that fold
// onto a keyword's letters elsewhere (ſ, K, ı).
import { describe, expect, it } from "vitest";
import { ALPHABET, rng } from "./random-text.js";
import { keywordRegex, mayHoldSecret } from "../../src/core/redact/prefilter.js";

const re = keywordRegex();
/** The plain keywords, as the regex lists them (the sharpened ones hold a character class). */
const keywords = re.source
  .split("|")
  .filter((k) => !k.includes("["))
  .map((k) => k.replace(/\\(.)/g, "$1"));

describe("the prefilter", () => {
  it("lists keywords of three characters or more, and q~", () => {
    expect(keywords.length).toBeGreaterThan(200);
    expect(keywords.filter((k) => k.length < 3)).toEqual(["q~"]);
  });

  it("finds each keyword in any case, at the start, inside and at the end of a string", () => {
    for (const k of keywords) {
      const upper = k.toUpperCase();
      const mixed = [...k].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c)).join("");
      for (const s of [k, `${upper} tail`, `head ${mixed}`, `a${k}b`, `{"x":"${upper}"}`]) {
        expect(re.test(s), s).toBe(true);
        expect(mayHoldSecret(s), s).toBe(true);
      }
      // Cut short at the end, it is no keyword (unless what is left holds another).
      const cut = `xx ${k.slice(0, -1)}`;
      expect(mayHoldSecret(cut), cut).toBe(re.test(cut));
    }
  });

  it("finds the sharpened two-letter keywords only with what follows them", () => {
    const cases: [string, boolean][] = [
      ["they asked about the task", false],
      [`x ey${"a1".repeat(8)}b`, true], // 17 alphanumerics
      [`x ey${"a1".repeat(8)}`, false], // 16
      [`x EY${"A1".repeat(8)}B`, true],
      [`x ey${"a1".repeat(4)}-${"a1".repeat(4)}b`, false],
      [`SK${"0f".repeat(16)}`, true], // 32 hex digits
      [`SK${"0f".repeat(15)}0`, false], // 31
      [`sk${"0F".repeat(15)}0g`, false],
      [`s.${"ab12".repeat(6)}`, true], // 24
      [`s.${"ab12".repeat(5)}ab1`, false], // 23
      [`S.${"AB12".repeat(6)}`, true],
      [`ey${"a".repeat(16)}\u017f`, false], // ſ folds onto S only in the regex's unicode mode
    ];
    for (const [s, want] of cases) {
      expect(re.test(s), s).toBe(want);
      expect(mayHoldSecret(s), s).toBe(want);
    }
  });

  it("reads characters outside ASCII as no keyword's letters", () => {
    for (const s of ["\u212aey", "to\u212aen", "\u0131api", "ap\u0131", "tok\u00e9n", "😀key😀", "PWD\u0000", "\u017fecret"]) {
      expect(mayHoldSecret(s), s).toBe(re.test(s));
    }
  });

  it("agrees with the regex on 100,000 random strings", () => {
    const next = rng(20261126);
    let positives = 0;
    for (let t = 0; t < 100_000; t++) {
      let s = "";
      const n = Math.floor(next() * 60);
      for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
      const r = next();
      if (r < 0.3) {
        // A keyword (or all but its last character) in random case at a random place.
        const k = keywords[Math.floor(next() * keywords.length)] as string;
        const cased = [...k].map((c) => (next() < 0.5 ? c.toUpperCase() : c)).join("");
        const at = Math.floor(next() * (s.length + 1));
        s = s.slice(0, at) + (next() < 0.2 ? cased.slice(0, -1) : cased) + s.slice(at);
      } else if (r < 0.45) {
        // A sharpened keyword followed by 14–35 characters of hex or alphanumerics.
        const p = ["ey", "EY", "sk", "SK", "s.", "S."][Math.floor(next() * 6)] as string;
        const cls = next() < 0.5 ? "0123456789abcdefABCDEF" : "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        let tail = "";
        for (let i = 14 + Math.floor(next() * 22); i > 0; i--) tail += cls[Math.floor(next() * cls.length)];
        s = s.slice(0, 3) + p + tail + s.slice(3);
      }
      const want = re.test(s);
      if (want) positives++;
      if (mayHoldSecret(s) !== want) expect.fail(`prefilter and regex disagree on ${JSON.stringify(s)}: the regex says ${want}`);
    }
    expect(positives).toBeGreaterThan(20_000);
  });
});
