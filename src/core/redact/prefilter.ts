// The test every string passes before any rule is loaded: does it hold a keyword of any rule
// (gitleaks' own prefilter)? Most strings do not, and cost one pass over their characters;
// the rules (tens of KB of regex sources) load only for text that does.
//
// The pass is a scanner of its own rather than one case-insensitive regex of the ~220
// keywords: V8 tries that alternation at every position (~10 ns a character), where this
// looks up each position's next three characters, lower-cased, in a table of the keywords'
// first three (~2–4 ns), and compares the rest of a keyword only where they match. It finds
// exactly what that regex finds (`keywordRegex`; test/redact holds the two to it), and the
// keywords stay the only thing this module holds.
import { FORGE_RULES } from "./forge-rules.js";
import { GITLEAKS_KEYWORDS } from "./gitleaks-keywords.js";

/**
 * Keywords that hold no other keyword: finding any keyword means finding one of these. Each
 * word is looked for only among the kept keywords that start with a pair of its characters
 * (against every kept one, the ~220 keywords cost each hook ~1.5 ms).
 */
function minimal(words: readonly string[]): string[] {
  const sorted = [...new Set(words)].sort((a, b) => a.length - b.length);
  const out: string[] = [];
  const short: string[] = []; // kept keywords under two characters
  const byPair = new Map<string, string[]>(); // the others, by their first two characters
  const holdsKept = (w: string): boolean => {
    if (short.some((k) => w.includes(k))) return true;
    for (let i = 0; i + 2 <= w.length; i++) if (byPair.get(w.slice(i, i + 2))?.some((k) => w.startsWith(k, i))) return true;
    return false;
  };
  for (const w of sorted) {
    if (holdsKept(w)) continue;
    out.push(w);
    if (w.length < 2) short.push(w);
    else {
      const pair = w.slice(0, 2);
      const list = byPair.get(pair);
      if (list) list.push(w);
      else byPair.set(pair, [w]);
    }
  }
  return out;
}

const ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789";
const HEX = "0123456789abcdef";

/**
 * Two-letter keywords are in every other word ("they", "task", "uses."): for them the
 * prefilter looks for what their rule's regex needs right after them (jwt: `ey` + 17
 * alphanumerics; twilio-api-key: `SK` + 32 hex digits; vault-service-token: `s.` + 24
 * alphanumerics), so plain prose does not load the rules. test/redact holds each rule's
 * sample to passing it.
 */
const SHARPER: Readonly<Record<string, { readonly chars: string; readonly count: number }>> = {
  ey: { chars: ALNUM, count: 17 },
  sk: { chars: HEX, count: 32 },
  "s.": { chars: ALNUM, count: 24 },
};

const escapeRegex = (k: string) => k.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/** The keywords the prefilter looks for as they are (lower case), the sharpened ones left out. */
function plainKeywords(): string[] {
  return minimal([...GITLEAKS_KEYWORDS, ...FORGE_RULES.flatMap((r) => r.keywords)].filter((k) => !(k in SHARPER))).map((k) => k.toLowerCase());
}

/**
 * The regex the scanner stands for: any keyword, case-insensitively, or a sharpened one with
 * what must follow it. `mayHoldSecret(t)` is `keywordRegex().test(t)` for every string.
 */
export function keywordRegex(): RegExp {
  const sharp = Object.entries(SHARPER).map(([k, s]) => `${escapeRegex(k)}[${s.chars === HEX ? "0-9a-f" : "a-z0-9"}]{${s.count}}`);
  return new RegExp([...plainKeywords().map(escapeRegex), ...sharp].join("|"), "i");
}

/** What may start at a place whose next three characters are a table entry's. */
type Candidate = { readonly rest: string } | { readonly chars: Uint8Array; readonly count: number };

interface Scanner {
  /** Which three-character starts occur, a bit per hashed trigram (8 KB): most places are ruled out by one look here. */
  readonly bits: Uint32Array;
  /** The candidates by exact trigram. */
  readonly byTrigram: Map<number, Candidate[]>;
  /** Keywords of two characters in each way of writing them (`q~`, `Q~`): found by indexOf, which is native. */
  readonly pairs: readonly string[];
  /** Set when a keyword does not fit the tables (one character long, or not ASCII; none is today): the regex answers instead. */
  readonly fallback: RegExp | undefined;
}

/** An ASCII character's code lower-cased; 0 for anything outside ASCII (no keyword holds it, and the regex's `i` never folds such a character onto an ASCII one). */
const LOWER = new Uint8Array(128);
for (let c = 1; c < 128; c++) LOWER[c] = c >= 65 && c <= 90 ? c + 32 : c;

const lowerAt = (s: string, i: number): number => {
  const c = s.charCodeAt(i);
  return c < 128 ? (LOWER[c] as number) : 0;
};

const trigram = (a: number, b: number, c: number): number => (a << 14) | (b << 7) | c;
const bitOf = (t: number): number => Math.imul(t, 0x9e3779b1) >>> 16;

function buildScanner(): Scanner {
  const bits = new Uint32Array(1 << 11);
  const byTrigram = new Map<number, Candidate[]>();
  const pairs: string[] = [];
  const add = (t: number, c: Candidate): void => {
    const b = bitOf(t);
    bits[b >>> 5] = (bits[b >>> 5] as number) | (1 << (b & 31));
    const list = byTrigram.get(t);
    if (list) list.push(c);
    else byTrigram.set(t, [c]);
  };
  let fallback: RegExp | undefined;
  for (const k of plainKeywords()) {
    const codes = [...k].map((ch) => ch.charCodeAt(0));
    if (codes.some((c) => c === 0 || c >= 128) || codes.length < 2) fallback = keywordRegex();
    else if (codes.length === 2) pairs.push(...casings(k));
    else add(trigram(codes[0] as number, codes[1] as number, codes[2] as number), { rest: k.slice(3) });
  }
  for (const [k, s] of Object.entries(SHARPER)) {
    const chars = new Uint8Array(128);
    for (const ch of s.chars) chars[ch.charCodeAt(0)] = 1;
    // The pair, then one of its characters: the trigram; the other count - 1 are checked after it.
    for (const ch of s.chars) add(trigram(k.charCodeAt(0), k.charCodeAt(1), ch.charCodeAt(0)), { chars, count: s.count - 1 });
  }
  return { bits, byTrigram, pairs, fallback };
}

/** Every way of writing an ASCII word in upper and lower case letters. */
function casings(word: string): string[] {
  let out = [""];
  for (const ch of word)
    out = ch.toLowerCase() === ch.toUpperCase() ? out.map((w) => w + ch) : out.flatMap((w) => [w + ch.toLowerCase(), w + ch.toUpperCase()]);
  return out;
}

/** Built with the first string tested (~1 ms): a process that only reads never builds it. */
let scanner: Scanner | undefined;

/** Whether a candidate found at `at` (its first three characters matched) matches whole. */
function matchesAt(s: string, at: number, c: Candidate): boolean {
  if ("rest" in c) {
    const { rest } = c;
    if (at + 3 + rest.length > s.length) return false;
    for (let j = 0; j < rest.length; j++) if (lowerAt(s, at + 3 + j) !== rest.charCodeAt(j)) return false;
    return true;
  }
  if (at + 3 + c.count > s.length) return false;
  for (let j = 0; j < c.count; j++) if (c.chars[lowerAt(s, at + 3 + j)] !== 1) return false;
  return true;
}

/** Whether `text` holds a keyword of some rule, i.e. whether any rule could find a secret in it. */
export function mayHoldSecret(text: string): boolean {
  const sc = (scanner ??= buildScanner());
  if (sc.fallback !== undefined) return sc.fallback.test(text);
  const { bits, byTrigram, pairs } = sc;
  const n = text.length;
  if (n < 2) return false;
  for (const p of pairs) if (text.includes(p)) return true;
  // The trigram ending at i, rolled along: 7 bits a character.
  let t = (lowerAt(text, 0) << 7) | lowerAt(text, 1);
  for (let i = 2; i < n; i++) {
    t = ((t << 7) | lowerAt(text, i)) & 0x1fffff;
    const h = bitOf(t);
    if (((bits[h >>> 5] as number) & (1 << (h & 31))) !== 0) {
      const list = byTrigram.get(t);
      if (list !== undefined) for (const cand of list) if (matchesAt(text, i - 2, cand)) return true;
    }
  }
  return false;
}
