// The in-process full-text index of the memory and file backends: an inverted list of word
// positions per document, BM25 ranking, and the postings and marks in maps. It lives as long
// as the process; a file store's index is rebuilt by the first search of each process (the
// marks are missing, so every checkpoint is stale), then kept up by the process's writes.
import type { CheckpointRow, MetaReader } from "../backend.js";
import type {
  DocHit,
  DocPlace,
  DocSource,
  IndexStats,
  NewDoc,
  Posting,
  PostingRow,
  QueryGroup,
  QueryPlan,
  SearchFilter,
  SearchIndexReader,
  SearchIndexWriter,
} from "./search-index.js";

interface Doc {
  readonly id: number;
  readonly key: string;
  readonly source: DocSource;
  readonly place: DocPlace;
  readonly length: number;
}

/** BM25's usual constants. */
const K1 = 1.2;
const B = 0.75;

/** The in-process index: the reads here, the writes through `writer()` (on a transaction's undo log). */
export class MemoryTextIndex implements SearchIndexReader {
  readonly engine = "in-process";
  readonly #meta: () => MetaReader;
  readonly #docs = new Map<number, Doc>();
  readonly #byKey = new Map<string, number>();
  /** word → document → positions */
  readonly #words = new Map<string, Map<number, number[]>>();
  /** Every word, sorted, for prefix lookups; rebuilt when words were added. */
  #sorted: string[] | null = null;
  #totalLength = 0;
  /** document → checkpoint → delta */
  readonly #byDoc = new Map<number, Map<string, 1 | -1>>();
  /** checkpoint → its postings */
  readonly #byCheckpoint = new Map<string, readonly Posting[]>();
  /** checkpoint → the parent its postings were made against */
  readonly #marks = new Map<string, string | null>();
  #nextId = 1;

  /** `meta` reads the store's metadata as it is now (a file store's is refreshed from disk). */
  constructor(meta: () => MetaReader) {
    this.#meta = meta;
  }

  async docIds(keys: readonly string[]): Promise<Map<string, number>> {
    return this.#ids(keys);
  }

  /** A writer; with `undo`, each change records how to take it back (the transaction's log). */
  writer(undo?: (() => void)[]): SearchIndexWriter {
    return {
      docIds: async (keys) => this.#ids(keys),
      addDocs: async (docs) => this.#add(docs),
      setPostings: async (checkpointId, parentId, postings) => {
        const had = this.#marks.has(checkpointId);
        const oldParent = this.#marks.get(checkpointId) ?? null;
        const old = this.#byCheckpoint.get(checkpointId) ?? [];
        this.#setPostings(checkpointId, postings);
        this.#marks.set(checkpointId, parentId);
        undo?.push(() => {
          this.#setPostings(checkpointId, old);
          if (had) this.#marks.set(checkpointId, oldParent);
          else this.#marks.delete(checkpointId);
        });
      },
      clear: async () => {
        // A rebuild is not undone: the marks are gone, so everything is indexed again anyway.
        this.#docs.clear();
        this.#byKey.clear();
        this.#words.clear();
        this.#sorted = null;
        this.#totalLength = 0;
        this.#byDoc.clear();
        this.#byCheckpoint.clear();
        this.#marks.clear();
      },
    };
  }

  #ids(keys: readonly string[]): Map<string, number> {
    const out = new Map<string, number>();
    for (const k of keys) {
      const id = this.#byKey.get(k);
      if (id !== undefined) out.set(k, id);
    }
    return out;
  }

  #add(docs: readonly NewDoc[]): Map<string, number> {
    const out = new Map<string, number>();
    for (const d of docs) {
      let id = this.#byKey.get(d.key);
      if (id === undefined) {
        id = this.#nextId++;
        const words = d.words === "" ? [] : d.words.split(" ");
        this.#docs.set(id, { id, key: d.key, source: d.source, place: d.place, length: words.length });
        this.#byKey.set(d.key, id);
        this.#totalLength += words.length;
        words.forEach((w, pos) => {
          let docs = this.#words.get(w);
          if (!docs) {
            this.#words.set(w, (docs = new Map()));
            this.#sorted = null;
          }
          const at = docs.get(id as number);
          if (at) at.push(pos);
          else docs.set(id as number, [pos]);
        });
      }
      out.set(d.key, id);
    }
    return out;
  }

  #setPostings(checkpointId: string, postings: readonly Posting[]): void {
    for (const p of this.#byCheckpoint.get(checkpointId) ?? []) this.#byDoc.get(p.doc)?.delete(checkpointId);
    if (postings.length === 0) this.#byCheckpoint.delete(checkpointId);
    else this.#byCheckpoint.set(checkpointId, postings);
    for (const p of postings) {
      let m = this.#byDoc.get(p.doc);
      if (!m) this.#byDoc.set(p.doc, (m = new Map()));
      m.set(checkpointId, p.delta);
    }
  }

  async match(plan: QueryPlan, filter: SearchFilter, order: "rank" | "first", limit: number): Promise<DocHit[]> {
    let candidates: Map<number, number> | null = null; // document → summed score parts
    const n = this.#docs.size;
    const avg = n === 0 ? 1 : this.#totalLength / n;
    for (const g of plan.groups) {
      const tf = this.#groupCounts(g);
      const idf = Math.log(1 + (n - tf.size + 0.5) / (tf.size + 0.5));
      const next = new Map<number, number>();
      for (const [doc, count] of tf) {
        if (candidates !== null && !candidates.has(doc)) continue;
        const len = this.#docs.get(doc)?.length ?? 0;
        const part = (idf * count * (K1 + 1)) / (count + K1 * (1 - B + (B * len) / avg));
        next.set(doc, (candidates?.get(doc) ?? 0) + part);
      }
      candidates = next;
      if (candidates.size === 0) break;
    }
    const meta = this.#meta();
    const kinds = new Map<string, string | undefined>();
    const hits: DocHit[] = [];
    for (const [id, score] of candidates ?? []) {
      const doc = this.#docs.get(id) as Doc;
      let firstAt = Number.POSITIVE_INFINITY;
      for (const [cpId, delta] of this.#byDoc.get(id) ?? []) {
        if (delta !== 1) continue;
        const cp = await meta.getCheckpoint(cpId);
        if (!cp || (filter.sessionId !== undefined && cp.sessionId !== filter.sessionId) || (filter.until !== undefined && cp.createdAt > filter.until))
          continue;
        if (filter.kinds !== undefined) {
          if (!kinds.has(cp.sessionId)) kinds.set(cp.sessionId, (await meta.getSessionById(cp.sessionId))?.kind);
          const kind = kinds.get(cp.sessionId) ?? "";
          if (
            !filter.kinds.some(
              (k) =>
                (k.source === undefined || k.source === doc.source) &&
                (k.sessionKind === undefined || k.sessionKind === kind) &&
                (k.notSessionKind === undefined || k.notSessionKind !== kind),
            )
          )
            continue;
        }
        firstAt = Math.min(firstAt, cp.createdAt);
      }
      if (firstAt !== Number.POSITIVE_INFINITY) hits.push({ id, key: doc.key, source: doc.source, place: doc.place, score, firstAt });
    }
    hits.sort(order === "first" ? (a, b) => a.firstAt - b.firstAt || b.score - a.score : (a, b) => b.score - a.score || a.firstAt - b.firstAt);
    return hits.slice(0, limit);
  }

  /** For one group: each document it occurs in, and how often. */
  #groupCounts(g: QueryGroup): Map<number, number> {
    const lists = g.tokens.map((t, i) => (g.prefix && i === g.tokens.length - 1 ? this.#prefixed(t) : (this.#words.get(t) ?? new Map<number, number[]>())));
    const out = new Map<number, number>();
    const [first, ...rest] = lists;
    if (!first) return out;
    for (const [doc, starts] of first) {
      let count = 0;
      for (const s of starts) if (rest.every((l, k) => l.get(doc)?.includes(s + k + 1) === true)) count++;
      if (count > 0) out.set(doc, count);
    }
    return out;
  }

  /** Positions of every word starting with `prefix`, merged per document. */
  #prefixed(prefix: string): Map<number, number[]> {
    this.#sorted ??= [...this.#words.keys()].sort();
    const sorted = this.#sorted;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((sorted[mid] as string) < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out = new Map<number, number[]>();
    for (let i = lo; i < sorted.length && (sorted[i] as string).startsWith(prefix); i++) {
      for (const [doc, at] of this.#words.get(sorted[i] as string) ?? []) {
        const list = out.get(doc);
        if (list) list.push(...at);
        else out.set(doc, [...at]);
      }
    }
    return out;
  }

  async postings(docs: readonly number[]): Promise<PostingRow[]> {
    const meta = this.#meta();
    const out: PostingRow[] = [];
    for (const doc of docs) {
      for (const [cpId, delta] of this.#byDoc.get(doc) ?? []) {
        const checkpoint = await meta.getCheckpoint(cpId);
        if (checkpoint) out.push({ doc, delta, checkpoint });
      }
    }
    return out;
  }

  async stale(): Promise<CheckpointRow[]> {
    const all = await this.#meta().listCheckpoints({});
    const live = new Set(all.map((c) => c.id));
    // Checkpoints deleted (here or by another process) take their postings with them, as a foreign key would.
    for (const id of [...this.#marks.keys()]) {
      if (!live.has(id)) {
        this.#setPostings(id, []);
        this.#marks.delete(id);
      }
    }
    return all.filter((c) => !this.#marks.has(c.id) || this.#marks.get(c.id) !== c.parentId);
  }

  async stats(): Promise<IndexStats> {
    let postings = 0;
    for (const p of this.#byCheckpoint.values()) postings += p.length;
    return { engine: this.engine, docs: this.#docs.size, postings, checkpoints: this.#marks.size };
  }
}
