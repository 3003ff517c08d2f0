// Where in a document a query matched, and the words around it: the string of a state node
// (or the line of a file) that holds the most of the query's words and phrases, and a
// one-line snippet of it with the matches' offsets, so each interface highlights them its
// own way (colour on a terminal, <mark> on the page, offsets in JSON).
import { occurrences, spans } from "../backends/search/tokenize.js";
import type { QueryPlan } from "../backends/search/search-index.js";
import type { FoundString } from "./search-text.js";

/** Characters of context a snippet shows at most. */
const WIDTH = 160;
/** Of which before the first match, at most. */
const BEFORE = 50;

/** A piece of text and how well it matches: how many of the query's groups occur in it. */
export interface Matched<T> {
  readonly item: T;
  readonly groups: number;
}

/** The item whose text matches the most groups (the first of equals); null when none matches any. */
export function bestMatch<T>(items: readonly T[], text: (item: T) => string, plan: QueryPlan): Matched<T> | null {
  let best: Matched<T> | null = null;
  // A text none of whose groups' first words occurs even as a substring cannot match: skip cutting it into words.
  const firsts = plan.groups.map((g) => g.tokens[0] as string);
  for (const item of items) {
    const t = text(item);
    const lower = t.toLowerCase();
    if (!firsts.some((w) => lower.includes(w))) continue;
    const groups = new Set(occurrences(spans(t), plan).map((o) => o[0])).size;
    if (groups > (best?.groups ?? 0)) best = { item, groups };
    if (groups === plan.groups.length) break;
  }
  return best;
}

/** A file's lines with their numbers (1-based), for `bestMatch`. */
export function linesOf(text: string): FoundString[] {
  return text.split("\n").map((line, i) => ({ path: [i + 1], text: line }));
}

/** One line around the first match in `text`, whitespace runs folded, with the matches' [start, end) offsets in it. */
export function snippet(text: string, plan: QueryPlan): { text: string; highlights: [number, number][] } {
  const words = spans(text);
  const found = occurrences(words, plan).sort((a, b) => a[1] - b[1]);
  const firstAt = found.length > 0 ? (words[(found[0] as [number, number, number])[1]]?.start ?? 0) : 0;
  let start = Math.max(0, firstAt - BEFORE);
  // Start on a word's beginning, not in its middle.
  while (start > 0 && start < firstAt && /[\p{L}\p{N}]/u.test(text[start - 1] as string)) start++;
  const end = Math.min(text.length, start + WIDTH);
  // Raw offsets → offsets in the folded text.
  const map = new Array<number>(end - start + 1);
  let out = start > 0 ? "…" : "";
  let space = false;
  for (let i = start; i < end; i++) {
    map[i - start] = out.length;
    const ch = text[i] as string;
    if (/\s/.test(ch)) {
      if (!space) out += " ";
      space = true;
    } else {
      out += ch;
      space = false;
    }
  }
  map[end - start] = out.length;
  const highlights: [number, number][] = [];
  for (const [, first, count] of found) {
    const a = (words[first] as { start: number }).start;
    const b = (words[first + count - 1] as { end: number }).end;
    if (a >= start && b <= end) highlights.push([map[a - start] as number, map[b - start] as number]);
  }
  if (end < text.length) out += "…";
  return { text: out, highlights };
}
