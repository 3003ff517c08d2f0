// The detector's keyword finder (keyword-finder.ts) finds what the regex it replaced found:
// one alternation of every rule keyword, longest first, tried at each place of the
// lower-cased text — every place where a keyword starts, with the longest one there.
import { describe, expect, it } from "vitest";
import { buildRuleSet } from "../../src/core/redact/detect.js";
import { KeywordFinder } from "../../src/core/redact/keyword-finder.js";
import { ALPHABET as LETTERS, rng } from "./random-text.js";

const set = buildRuleSet();
const words = [...set.byKeyword.keys()];
const regex = new RegExp(
  [...words]
    .sort((a, b) => b.length - a.length)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&"))
    .join("|"),
  "g",
);

/** What the regex finds in `lower`, as [keyword, place] pairs. */
function byRegex(lower: string): [string, number][] {
  const out: [string, number][] = [];
  regex.lastIndex = 0;
  for (let m = regex.exec(lower); m !== null; m = regex.exec(lower)) {
    out.push([m[0], m.index]);
    regex.lastIndex = m.index + 1;
  }
  return out;
}

function byFinder(finder: KeywordFinder, lower: string): [string, number][] {
  const out: [string, number][] = [];
  finder.find(lower, (k, at) => out.push([k, at]));
  return out;
}

const ALPHABET = `${LETTERS}\0\u0130`;

describe("the detector's keyword finder", () => {
  const finder = set.keywords;

  it("is the table finder for today's keywords, two of which are two characters long", () => {
    expect(words.length).toBeGreaterThan(200);
    expect(words.filter((w) => w.length === 2).sort()).toEqual(["ey", "q~", "s.", "sk"]);
  });

  it("finds each keyword at the start, inside, at the end and overlapping others", () => {
    for (const w of words) {
      for (const s of [w, `${w} tail`, `head ${w}`, `a${w}b`, `${w}${w}`, `x ${w.slice(0, -1)}`, `${w.slice(1)}`, `"${w}":"sk-${w}"`]) {
        const lower = s.toLowerCase();
        expect(byFinder(finder, lower), s).toEqual(byRegex(lower));
      }
    }
  });

  it("finds what the regex finds in random text, after lower-casing it as the detector does", () => {
    const next = rng(7);
    for (let n = 0; n < 3000; n++) {
      let s = "";
      const len = Math.floor(next() * 120);
      for (let i = 0; i < len; i++) {
        // Mostly pieces of keywords, so that near misses are common.
        if (next() < 0.3) {
          const w = words[Math.floor(next() * words.length)] as string;
          s += next() < 0.5 ? w.slice(0, 1 + Math.floor(next() * w.length)) : w.toUpperCase();
        } else s += [...ALPHABET][Math.floor(next() * [...ALPHABET].length)];
      }
      const lower = s.toLowerCase();
      expect(byFinder(finder, lower), JSON.stringify(s)).toEqual(byRegex(lower));
    }
  });

  it("falls back to a regex for keywords its tables do not hold, finding the same", () => {
    const odd = new KeywordFinder(["é-key", "k", "kk", "kkey", "sk"]);
    const oddRegex = /é-key|kkey|kk|sk|k/g;
    for (const s of ["kkkey é-key sk", "", "k", "askkkeyk"]) {
      const got: [string, number][] = [];
      odd.find(s, (w, at) => got.push([w, at]));
      const want: [string, number][] = [];
      oddRegex.lastIndex = 0;
      for (let m = oddRegex.exec(s); m !== null; m = oddRegex.exec(s)) {
        want.push([m[0], m.index]);
        oddRegex.lastIndex = m.index + 1;
      }
      expect(got, s).toEqual(want);
    }
  });
});
