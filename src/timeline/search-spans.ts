// When a document was in the history: from its postings (appeared at A, went at D) each
// session gives runs of checkpoints that held it — from A to D's parent, or to the session's
// newest checkpoint while it has not gone. Runs are cut to a time window, and the first and
// last checkpoint holding the document inside it are what a hit reports. Runs pair postings
// in seq order, which is exact on a linear timeline; across branches a run may reach into a
// sibling branch (see docs/ARCHITECTURE.md, Search).
import type { CheckpointRow, MetaReader } from "../backends/backend.js";
import type { PostingRow } from "../backends/search/search-index.js";

/** The first and last checkpoint that held a document, within the window. */
export interface Span {
  readonly first: CheckpointRow;
  readonly last: CheckpointRow;
}

/** Epoch-ms bounds, both inclusive; undefined is open. */
export interface Window {
  readonly since: number | undefined;
  readonly until: number | undefined;
}

/** Metadata reads for spans, each asked once per search. */
export class SpanReader {
  readonly #meta: MetaReader;
  readonly #rows = new Map<string, Promise<CheckpointRow | undefined>>();
  readonly #bounds = new Map<string, Promise<CheckpointRow | undefined>>();

  constructor(meta: MetaReader) {
    this.#meta = meta;
  }

  row(id: string): Promise<CheckpointRow | undefined> {
    let r = this.#rows.get(id);
    if (!r) this.#rows.set(id, (r = this.#meta.getCheckpoint(id)));
    return r;
  }

  /** The session's first checkpoint at or after `since`. */
  firstFrom(sessionId: string, since: number): Promise<CheckpointRow | undefined> {
    return this.#bound(`f:${sessionId}:${since}`, () => this.#meta.listCheckpoints({ sessionId, since, order: "asc", limit: 1 }));
  }

  /** The session's last checkpoint at or before `until` (its newest when undefined). */
  lastUntil(sessionId: string, until: number | undefined): Promise<CheckpointRow | undefined> {
    return this.#bound(`l:${sessionId}:${until ?? ""}`, () =>
      this.#meta.listCheckpoints({ sessionId, order: "desc", limit: 1, ...(until !== undefined && { until }) }),
    );
  }

  #bound(key: string, read: () => Promise<CheckpointRow[]>): Promise<CheckpointRow | undefined> {
    let r = this.#bounds.get(key);
    if (!r) this.#bounds.set(key, (r = read().then((rows) => rows[0])));
    return r;
  }
}

/** The spans of one document in one session (its postings there, in any order), within the window. */
export async function spansOf(postings: readonly PostingRow[], window: Window, reader: SpanReader): Promise<Span[]> {
  const sorted = [...postings].sort((a, b) => a.checkpoint.seq - b.checkpoint.seq);
  const runs: [CheckpointRow, CheckpointRow | null][] = [];
  let open: CheckpointRow | null = null;
  for (const p of sorted) {
    if (p.delta > 0) open ??= p.checkpoint;
    else if (open !== null) {
      // It went at this checkpoint: its parent was the last to hold it.
      const parent = p.checkpoint.parentId === null ? undefined : await reader.row(p.checkpoint.parentId);
      runs.push([open, parent ?? open]);
      open = null;
    }
  }
  if (open !== null) runs.push([open, null]);
  const out: Span[] = [];
  for (const [start, end] of runs) {
    if (window.until !== undefined && start.createdAt > window.until) continue;
    const last = end !== null && (window.until === undefined || end.createdAt <= window.until) ? end : await reader.lastUntil(start.sessionId, window.until);
    if (!last || last.seq < start.seq) continue;
    if (window.since !== undefined && last.createdAt < window.since) continue;
    const first = window.since === undefined || start.createdAt >= window.since ? start : await reader.firstFrom(start.sessionId, window.since);
    if (first && first.seq <= last.seq) out.push({ first, last });
  }
  return out;
}

/** Whether checkpoint `a` comes before `b` (by time, then seq, then id). */
export function earlier(a: CheckpointRow, b: CheckpointRow): boolean {
  return a.createdAt !== b.createdAt ? a.createdAt < b.createdAt : a.seq !== b.seq ? a.seq < b.seq : a.id < b.id;
}
