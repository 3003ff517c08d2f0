// Full-text search over everything a store's checkpoints hold. The index is brought up to
// date first (search-indexer.ts), the backend finds the matching documents (ranked, or by
// first appearance), their postings say which checkpoints held them (search-spans.ts), and
// each is read back to say where it matched and to cut a snippet. Documents that are one
// string at one place — a small state's root is a new object at every checkpoint — merge into
// one hit spanning all of them, so a hit reads "this text, here, from #3 to #5".
import { ForgeError, InvalidArgumentError } from "../core/errors.js";
import type { ProgressListener } from "../core/progress.js";
import { parsePastTime, parseTime, type TimeInput } from "../core/time.js";
import type { CheckpointRow, SessionRow } from "../backends/backend.js";
import type { DocHit, DocSource, KindCondition, PostingRow, QueryPlan, SearchFilter } from "../backends/search/search-index.js";
import { parseQuery } from "../backends/search/tokenize.js";
import { readFileObject } from "../objects/file-tree.js";
import { formatPath } from "../objects/tree-diff.js";
import { catchUp } from "./search-indexer.js";
import { joinPath } from "./search-diff.js";
import { bestMatch, linesOf, snippet } from "./search-snippet.js";
import { earlier, SpanReader, spansOf, type Span } from "./search-spans.js";
import { fileText, stringsOf } from "./search-text.js";
import type { StoreContext } from "./store-context.js";
import { SEARCH_KINDS } from "./search-kinds.js";

/** How results are ordered: best match first, earliest appearance first, or latest presence first. */
export type SearchOrder = "relevance" | "first" | "last";

/** The kinds a hit can have besides a session's own kind. */
export { SEARCH_KINDS };

/** What to search and how to order the hits (`Store.search`). */
export interface SearchOptions {
  /** Only this session's checkpoints (default: every session). */
  readonly session?: string;
  /** Only hits of these kinds (see SEARCH_KINDS; a session's own kind works too). */
  readonly kind?: string | readonly string[];
  /** Only checkpoints made at or after this time ("2 hours ago", ISO, a Date). */
  readonly since?: TimeInput;
  /** Only checkpoints made at or before this time. */
  readonly until?: TimeInput;
  readonly order?: SearchOrder;
  /** At most this many hits (default 20). */
  readonly limit?: number;
  readonly onProgress?: ProgressListener;
}

/** A checkpoint as a hit names it. */
export interface HitCheckpoint {
  readonly id: string;
  readonly seq: number;
  readonly session: string;
  readonly time: Date;
}

/** One text at one place in one session, with the checkpoints that held it. */
export interface SearchHit {
  /** The checkpoint this hit stands for: `first`, or `last` when ordered by last presence. */
  readonly checkpoint: HitCheckpoint;
  /** The first checkpoint (within the filters) that held the text. */
  readonly first: HitCheckpoint;
  /** The last checkpoint (within the filters) that held it. */
  readonly last: HitCheckpoint;
  readonly sessionKind: string;
  /** reasoning, conversation, files, runs, messages, or another session kind. */
  readonly kind: string;
  /** Where: a JSON path in the state, `path:line` in the files, or "message". */
  readonly where: string;
  /** The matching text around the first match, on one line. */
  readonly snippet: string;
  /** [start, end) offsets of the matches in `snippet`. */
  readonly highlights: readonly (readonly [number, number])[];
  /** Relevance (higher is better; comparable within one search only). */
  readonly score: number;
}

/** What a search found, in the order asked for. */
export interface SearchResult {
  readonly query: string;
  readonly order: SearchOrder;
  readonly results: readonly SearchHit[];
  /** Checkpoints this search had to index first. */
  readonly indexed: number;
}

/** The kind a hit has, from where its document came from and its session's kind. */
export function hitKind(source: DocSource, sessionKind: string): string {
  return source === "message" ? "messages" : sessionKind === "run" ? "runs" : source === "files" ? "files" : sessionKind;
}

function kindConditions(kind: string): KindCondition[] {
  if (kind === "messages") return [{ source: "message" }];
  if (kind === "runs")
    return [
      { source: "state", sessionKind: "run" },
      { source: "files", sessionKind: "run" },
    ];
  if (kind === "files") return [{ source: "files", notSessionKind: "run" }];
  return [{ source: "state", sessionKind: kind }];
}

/** One document's hit before merging: where it matched and when it was there. */
interface Found {
  readonly hit: DocHit;
  readonly session: SessionRow;
  readonly span: Span;
  readonly where: string;
  readonly mergeKey: string;
  readonly text: string;
}

/** Runs a search over the store (see the file's head); `Store.search` is the public door. */
export async function searchStore(ctx: StoreContext, query: string, options: SearchOptions = {}): Promise<SearchResult> {
  const plan = parseQuery(query);
  const order = options.order ?? "relevance";
  const limit = options.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new InvalidArgumentError(`limit must be a whole number from 1 to 1000, not ${limit}`);
  const indexed = await catchUp(ctx, options.onProgress);
  const sessions = new Map((await ctx.backend.meta.listSessions()).map((s) => [s.id, s]));
  const filter = checkFilter(options, [...sessions.values()]);
  const now = new Date(ctx.clock.now());
  const window = {
    since: options.since === undefined ? undefined : parsePastTime(options.since, now).getTime(),
    until: options.until === undefined ? undefined : parseTime(options.until, now).getTime(),
  };
  const cap = order === "last" ? Math.max(500, limit * 20) : limit * 5 + 20;
  const docs = await ctx.backend.search.match(
    plan,
    { ...filter, ...(window.until !== undefined && { until: window.until }) },
    order === "first" ? "first" : "rank",
    cap,
  );
  const bySession = groupPostings(await ctx.backend.search.postings(docs.map((d) => d.id)));
  const reader = new SpanReader(ctx.backend.meta);
  const found: Found[] = [];
  for (const doc of docs) {
    for (const [sessionId, postings] of bySession.get(doc.id) ?? []) {
      const session = sessions.get(sessionId);
      if (!session || (filter.sessionId !== undefined && sessionId !== filter.sessionId)) continue;
      if (filter.kinds && !filter.kinds.some((k) => passes(k, doc.source, session.kind))) continue;
      const spans = await spansOf(postings, window, reader);
      if (spans.length === 0) continue;
      const span = spans.reduce((a, b) => ({ first: earlier(b.first, a.first) ? b.first : a.first, last: earlier(a.last, b.last) ? b.last : a.last }));
      const at = await locate(ctx, doc, postings, plan);
      if (at) found.push({ hit: doc, session, span, ...at, mergeKey: `${sessionId}\n${doc.source}\n${at.base}\n${at.text}` });
    }
  }
  return { query, order, results: rank(merge(found, plan), order).slice(0, limit), indexed };
}

function passes(k: KindCondition, source: DocSource, kind: string): boolean {
  return (
    (k.source === undefined || k.source === source) &&
    (k.sessionKind === undefined || k.sessionKind === kind) &&
    (k.notSessionKind === undefined || k.notSessionKind !== kind)
  );
}

/** The session and kind filters, checked against what the store holds. */
function checkFilter(options: SearchOptions, sessions: readonly SessionRow[]): SearchFilter {
  let sessionId: string | undefined;
  if (options.session !== undefined) {
    sessionId = sessions.find((s) => s.name === options.session)?.id;
    if (sessionId === undefined) {
      throw new ForgeError("SESSION_NOT_FOUND", `no session named "${options.session}"`, { hint: "run `forge session list` to see the sessions" });
    }
  }
  const asked = options.kind === undefined ? [] : typeof options.kind === "string" ? [options.kind] : [...options.kind];
  const known = new Set<string>([...SEARCH_KINDS, ...sessions.map((s) => s.kind)]);
  const unknown = asked.find((k) => !known.has(k));
  if (unknown !== undefined) throw new InvalidArgumentError(`there is no kind "${unknown}" to search`, `use one of ${[...known].sort().join(", ")}`);
  return { ...(sessionId !== undefined && { sessionId }), ...(asked.length > 0 && { kinds: asked.flatMap(kindConditions) }) };
}

/** Postings by document, then by session. */
function groupPostings(rows: readonly PostingRow[]): Map<number, Map<string, PostingRow[]>> {
  const out = new Map<number, Map<string, PostingRow[]>>();
  for (const r of rows) {
    let bySession = out.get(r.doc);
    if (!bySession) out.set(r.doc, (bySession = new Map()));
    const list = bySession.get(r.checkpoint.sessionId);
    if (list) list.push(r);
    else bySession.set(r.checkpoint.sessionId, [r]);
  }
  return out;
}

/** Where in a document the query matched: its place (`base`), the full `where`, and the matching string or line. */
async function locate(
  ctx: StoreContext,
  doc: DocHit,
  postings: readonly PostingRow[],
  plan: QueryPlan,
): Promise<{ base: string; where: string; text: string } | null> {
  if (doc.source === "message") {
    const message = postings.find((p) => p.delta > 0)?.checkpoint.message ?? "";
    return bestMatch([message], (m) => m, plan) ? { base: "message", where: "message", text: message } : null;
  }
  if (doc.source === "files") {
    const text = fileText(await readFileObject(ctx.objects, doc.key));
    const best = text === null ? null : bestMatch(linesOf(text), (l) => l.text, plan);
    const path = String(doc.place.path[0] ?? "");
    return best ? { base: path, where: `${path}:${best.item.path[0]}`, text: best.item.text } : null;
  }
  const node = await ctx.objects.getNode(doc.key);
  if (node.kind !== "j") return null;
  const best = bestMatch(stringsOf(JSON.parse(node.body) as unknown), (s) => s.text, plan);
  if (!best) return null;
  const where = formatPath(joinPath(doc.place, best.item.path));
  return { base: where, where, text: best.item.text };
}

/** Hits of one text at one place in one session, merged: the earliest first, the latest last, the best score. */
function merge(found: readonly Found[], plan: QueryPlan): SearchHit[] {
  const groups = new Map<string, Found[]>();
  for (const f of found) {
    const g = groups.get(f.mergeKey);
    if (g) g.push(f);
    else groups.set(f.mergeKey, [f]);
  }
  return [...groups.values()].map((g) => {
    const top = g[0] as Found;
    let first = top;
    let last = top;
    for (const f of g) {
      if (earlier(f.span.first, first.span.first)) first = f;
      if (earlier(last.span.last, f.span.last)) last = f;
    }
    const cut = snippet(first.text, plan);
    const ref = (row: CheckpointRow): HitCheckpoint => ({ id: row.id, seq: row.seq, session: top.session.name, time: new Date(row.createdAt) });
    return {
      checkpoint: ref(first.span.first),
      first: ref(first.span.first),
      last: ref(last.span.last),
      sessionKind: top.session.kind,
      kind: hitKind(top.hit.source, top.session.kind),
      where: first.where,
      snippet: cut.text,
      highlights: cut.highlights,
      score: Math.max(...g.map((f) => f.hit.score)),
    };
  });
}

function rank(hits: SearchHit[], order: SearchOrder): SearchHit[] {
  const t = (c: HitCheckpoint) => c.time.getTime();
  if (order === "first") return hits.sort((a, b) => t(a.first) - t(b.first) || a.first.seq - b.first.seq || b.score - a.score);
  if (order === "last")
    return hits.sort((a, b) => t(b.last) - t(a.last) || b.last.seq - a.last.seq || b.score - a.score).map((h) => ({ ...h, checkpoint: h.last }));
  return hits.sort((a, b) => b.score - a.score || t(a.first) - t(b.first));
}
