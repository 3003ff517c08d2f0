// Words, as every index sees them: runs of letters and digits (Unicode, after NFC), lower-cased,
// at most MAX_TOKEN characters (longer runs — base64, minified code — are left out). Each
// backend is handed text already cut this way, so SQLite's FTS5, PostgreSQL's tsvector and
// the in-process index agree on what a word is. Also the query syntax: words ANDed, a word of
// three characters or more matching the words it starts, "quoted phrases" matching their
// words in order, and `snake_case` or `a.b` read as the phrase of their parts.
import { InvalidArgumentError } from "../../core/errors.js";
import type { QueryGroup, QueryPlan } from "./search-index.js";

/** Longer runs of letters and digits are not words anyone types. */
export const MAX_TOKEN = 80;
/** Shorter words match only themselves: a one-letter prefix would match half the dictionary. */
export const MIN_PREFIX = 3;
/** A query of more groups than this is refused. */
const MAX_GROUPS = 32;

const WORD = /[\p{L}\p{N}]+/gu;

/** A word of a text and where it is (UTF-16 offsets into the text as given). */
export interface Span {
  readonly token: string;
  readonly start: number;
  readonly end: number;
}

/** The words of `text`, lower-cased. */
export function tokens(text: string): string[] {
  // One pass over the text lower-cased whole: a call per word costs twice as much.
  const words = text.normalize("NFC").toLowerCase().match(WORD);
  if (words === null) return [];
  return words.some((w) => w.length > MAX_TOKEN) ? words.filter((w) => w.length <= MAX_TOKEN) : words;
}

/** `text` as the indexes take it: its words, separated by one space. */
export function wordsOf(text: string): string {
  return tokens(text).join(" ");
}

/** The words of `text` with their places in it (for snippets: no normalisation that moves offsets). */
export function spans(text: string): Span[] {
  const out: Span[] = [];
  for (const m of text.matchAll(WORD)) {
    if (m[0].length <= MAX_TOKEN) out.push({ token: m[0].normalize("NFC").toLowerCase(), start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/**
 * Parses a query: bare words (each must occur; one of MIN_PREFIX or more characters also
 * matches words it starts), and "quoted phrases" (their words in that order). A bare word
 * holding punctuation (`tensor_shape`, `pool.max`) is the phrase of its parts, the last a prefix.
 */
export function parseQuery(query: string): QueryPlan {
  const groups: QueryGroup[] = [];
  const add = (words: string[], prefix: boolean) => {
    if (words.length > 0) groups.push({ tokens: words, prefix: prefix && (words.at(-1)?.length ?? 0) >= MIN_PREFIX });
  };
  let rest = query;
  for (;;) {
    const open = rest.indexOf('"');
    const bare = open < 0 ? rest : rest.slice(0, open);
    for (const word of bare.split(/\s+/)) add(tokens(word), true);
    if (open < 0) break;
    const close = rest.indexOf('"', open + 1);
    add(tokens(close < 0 ? rest.slice(open + 1) : rest.slice(open + 1, close)), false);
    if (close < 0) break;
    rest = rest.slice(close + 1);
  }
  if (groups.length === 0) {
    throw new InvalidArgumentError(
      `the query ${JSON.stringify(query)} has no words to search for`,
      'search for letters or digits: words, or a "quoted phrase"',
    );
  }
  if (groups.length > MAX_GROUPS) throw new InvalidArgumentError(`the query has ${groups.length} words and phrases`, `use at most ${MAX_GROUPS}`);
  return { groups };
}

/** Whether `word` (a text's) matches `want` (a query's), as the last word of a prefix group or exactly. */
export function wordMatches(word: string, want: string, prefix: boolean): boolean {
  return prefix ? word.startsWith(want) : word === want;
}

/** Where each group of `plan` occurs among `words`: [group index, first word index, word count]. */
export function occurrences(words: readonly { readonly token: string }[], plan: QueryPlan): [number, number, number][] {
  const out: [number, number, number][] = [];
  plan.groups.forEach((g, gi) => {
    const n = g.tokens.length;
    for (let i = 0; i + n <= words.length; i++) {
      let ok = true;
      for (let k = 0; k < n && ok; k++) ok = wordMatches((words[i + k] as { token: string }).token, g.tokens[k] as string, g.prefix && k === n - 1);
      if (ok) out.push([gi, i, n]);
    }
  });
  return out;
}
