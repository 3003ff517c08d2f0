// The full-text index of the SQL backends, written once: documents (key, source, place) with
// their words in the dialect's text index (SQLite FTS5, PostgreSQL tsvector), postings and
// marks in plain tables whose rows go with their checkpoint (ON DELETE CASCADE). What differs
// between the two — how words are stored and matched and ranked — is the dialect's `SearchSql`.
import type { CheckpointRow } from "../backend.js";
import type {
  DocHit,
  DocPlace,
  DocSource,
  IndexStats,
  NewDoc,
  Posting,
  PostingRow,
  QueryPlan,
  SearchFilter,
  SearchIndexReader,
  SearchIndexWriter,
} from "../search/search-index.js";
import type { SqlConnection } from "./connection.js";
import { listParts, type SqlDialect } from "./dialect.js";
import { hashKey, toCheckpoint, type CheckpointRecord } from "./rows.js";

/** What one SQL database does its own way in the full-text index. */
export interface SearchSql {
  /** The engine, for reports: "sqlite-fts5", "postgres-tsvector". */
  readonly engine: string;
  /**
   * `pending`: the checkpoints that may need indexing — each new or re-linked checkpoint until
   * its mark is written for its parent — so finding them costs what is pending, not every
   * checkpoint (a search looks before each query).
   */
  readonly tables: { readonly docs: string; readonly postings: string; readonly marks: string; readonly pending: string };
  /**
   * How the write paths keep `pending`: "statement" (statements of their own beside the
   * checkpoint's insert and the mark's write), or "with" (inside those very statements, as
   * data-modifying WITH clauses — on a database across a network, two round trips fewer per
   * checkpoint).
   */
  readonly pendingWrites: "statement" | "with";
  /** Adds the documents not indexed yet; returns the ids of those it added (by key). */
  insertDocs(db: SqlConnection, docs: readonly NewDoc[]): Promise<Map<string, number>>;
  /** Writes a checkpoint's postings (its old ones are already deleted). */
  insertPostings(db: SqlConnection, checkpointId: string, postings: readonly Posting[]): Promise<void>;
  /**
   * The text index's part of a match: what to join `d` (the documents) with, the condition,
   * the parameters of both in order, and the score (higher is better; no parameters of its own).
   */
  matching(plan: QueryPlan): { readonly from: string; readonly where: string; readonly params: readonly unknown[]; readonly score: string };
  /** A condition: `column` (a document id) is one of the list parameter's. */
  docIn(column: string): string;
  docList(ids: readonly number[]): unknown;
  /** "IS NOT" or "IS DISTINCT FROM": inequality where NULL equals NULL. */
  readonly distinct: string;
  /** Statements that empty the index, in order. */
  readonly clear: readonly string[];
}

/** A matching document as its row reads. */
interface DocRecord {
  id: number | string;
  key: Buffer;
  source: DocSource;
  place: unknown;
  score: number;
  first_at: number | string | null;
}

/** The index over one connection: the backend's (reads) or a transaction's (writes, committed with it). */
export class SqlSearch implements SearchIndexReader, SearchIndexWriter {
  readonly engine: string;
  readonly #d: SqlDialect;
  readonly #s: SearchSql;
  readonly #db: SqlConnection;

  constructor(dialect: SqlDialect, search: SearchSql, db: SqlConnection) {
    this.#d = dialect;
    this.#s = search;
    this.#db = db;
    this.engine = search.engine;
  }

  async docIds(keys: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const part of listParts(this.#d, keys)) {
      const rows = await this.#db.all<{ id: number | string; key: Buffer }>(
        this.#d.placeholders(`SELECT id, key FROM ${this.#s.tables.docs} WHERE ${this.#d.inList("key", "hash")}`),
        [this.#d.listParam(part, "hash")],
      );
      for (const r of rows) out.set(r.key.toString("hex"), Number(r.id));
    }
    return out;
  }

  async addDocs(docs: readonly NewDoc[]): Promise<Map<string, number>> {
    const unique = new Map<string, NewDoc>();
    for (const d of docs) unique.set(d.key, d);
    if (unique.size === 0) return new Map();
    const ids = await this.#s.insertDocs(this.#db, [...unique.values()]);
    // The ones another writer (or an earlier batch) had added already.
    const taken = [...unique.keys()].filter((k) => !ids.has(k));
    if (taken.length > 0) for (const [k, id] of await this.docIds(taken)) ids.set(k, id);
    return ids;
  }

  async setPostings(checkpointId: string, parentId: string | null, postings: readonly Posting[]): Promise<void> {
    const { postings: table, marks, pending } = this.#s.tables;
    await this.#db.run(this.#d.placeholders(`DELETE FROM ${table} WHERE checkpoint = ?`), [checkpointId]);
    if (postings.length > 0) await this.#s.insertPostings(this.#db, checkpointId, postings);
    // The mark; and the checkpoint is no longer pending, unless it was re-linked to another parent since its diff was taken.
    const mark = `INSERT INTO ${marks} (checkpoint, parent) VALUES (?, ?) ON CONFLICT (checkpoint) DO UPDATE SET parent = excluded.parent`;
    const done = `DELETE FROM ${pending} WHERE checkpoint = ? AND NOT EXISTS (SELECT 1 FROM ${this.#d.tables.checkpoints} c WHERE c.id = ? AND c.parent_id ${this.#s.distinct} ?)`;
    if (this.#s.pendingWrites === "with") {
      await this.#db.run(this.#d.placeholders(`WITH done AS (${done}) ${mark}`), [checkpointId, checkpointId, parentId, checkpointId, parentId]);
    } else {
      await this.#db.run(this.#d.placeholders(mark), [checkpointId, parentId]);
      await this.#db.run(this.#d.placeholders(done), [checkpointId, checkpointId, parentId]);
    }
  }

  async clear(): Promise<void> {
    for (const sql of this.#s.clear) await this.#db.run(sql);
  }

  async match(plan: QueryPlan, filter: SearchFilter, order: "rank" | "first", limit: number): Promise<DocHit[]> {
    const m = this.#s.matching(plan);
    const first = this.#firstAt(filter);
    const inner = `SELECT d.id, d.key, d.source, d.place, ${m.score} AS score FROM ${this.#s.tables.docs} d ${m.from} WHERE ${m.where}`;
    if (order === "first") {
      const sql = `SELECT * FROM (SELECT x.*, (${first.sql}) AS first_at FROM (${inner}) x) y WHERE first_at IS NOT NULL ORDER BY first_at, score DESC LIMIT ?`;
      return this.#hits(await this.#db.all<DocRecord>(this.#d.placeholders(sql), [...first.params, ...m.params, limit]));
    }
    // Ranked: pages of the best matches, each kept if a checkpoint passing the filter holds it,
    // until `limit` are kept — the text index orders; no first appearance is computed for the rest.
    const page = Math.max(limit * 4, 200);
    const sql = `SELECT x.*, (${first.sql}) AS first_at FROM (${inner} ORDER BY score DESC, d.id LIMIT ? OFFSET ?) x`;
    const out: DocHit[] = [];
    for (let offset = 0; ; offset += page) {
      const rows = await this.#db.all<DocRecord>(this.#d.placeholders(sql), [...first.params, ...m.params, page, offset]);
      out.push(...this.#hits(rows.filter((r) => r.first_at !== null)));
      if (out.length >= limit || rows.length < page) return out.slice(0, limit);
    }
  }

  /** The subquery giving a document's first appearance in a checkpoint that passes `filter` (null: none). */
  #firstAt(filter: SearchFilter): { sql: string; params: unknown[] } {
    const { checkpoints, sessions } = this.#d.tables;
    const where = ["p.doc = x.id", "p.delta = 1"];
    const params: unknown[] = [];
    if (filter.sessionId !== undefined) where.push("c.session_id = ?"), params.push(filter.sessionId);
    if (filter.until !== undefined) where.push("c.created_at <= ?"), params.push(filter.until);
    let join = "";
    if (filter.kinds !== undefined) {
      join = ` JOIN ${sessions} s ON s.id = c.session_id`;
      const any = filter.kinds.map((k) => {
        const all: string[] = [];
        if (k.source !== undefined) all.push("x.source = ?"), params.push(k.source);
        if (k.sessionKind !== undefined) all.push("s.kind = ?"), params.push(k.sessionKind);
        if (k.notSessionKind !== undefined) all.push("s.kind <> ?"), params.push(k.notSessionKind);
        return all.length === 0 ? "1 = 1" : `(${all.join(" AND ")})`;
      });
      where.push(any.length === 0 ? "1 = 0" : `(${any.join(" OR ")})`);
    }
    return {
      sql: `SELECT min(c.created_at) FROM ${this.#s.tables.postings} p JOIN ${checkpoints} c ON c.id = p.checkpoint${join} WHERE ${where.join(" AND ")}`,
      params,
    };
  }

  #hits(rows: readonly DocRecord[]): DocHit[] {
    return rows.map((r) => ({
      id: Number(r.id),
      key: r.key.toString("hex"),
      source: r.source,
      place: this.#d.readJson(r.place) as DocPlace,
      score: Number(r.score),
      firstAt: Number(r.first_at),
    }));
  }

  async postings(docs: readonly number[]): Promise<PostingRow[]> {
    const out: PostingRow[] = [];
    const sql = this.#d.placeholders(
      `SELECT p.doc AS search_doc, p.delta AS search_delta, c.* FROM ${this.#s.tables.postings} p
       JOIN ${this.#d.tables.checkpoints} c ON c.id = p.checkpoint WHERE ${this.#s.docIn("p.doc")}`,
    );
    for (let i = 0; i < docs.length; i += 500) {
      const rows = await this.#db.all<CheckpointRecord & { search_doc: number | string; search_delta: number }>(sql, [this.#s.docList(docs.slice(i, i + 500))]);
      for (const r of rows) out.push({ doc: Number(r.search_doc), delta: r.search_delta > 0 ? 1 : -1, checkpoint: toCheckpoint(this.#d, r) });
    }
    return out;
  }

  async stale(): Promise<CheckpointRow[]> {
    // Only the pending checkpoints are looked at: their ids first (few, usually none), then
    // their rows by id — a plan no table statistics can turn into a scan of every checkpoint.
    // The mark decides, as a pending row may be one indexed meanwhile.
    const pending = await this.#db.all<{ checkpoint: string }>(`SELECT checkpoint FROM ${this.#s.tables.pending}`);
    if (pending.length === 0) return [];
    const sql = this.#d.placeholders(
      `SELECT c.* FROM ${this.#d.tables.checkpoints} c LEFT JOIN ${this.#s.tables.marks} m ON m.checkpoint = c.id
       WHERE ${this.#d.inList("c.id", "text")} AND (m.checkpoint IS NULL OR m.parent ${this.#s.distinct} c.parent_id)`,
    );
    const ids = pending.map((p) => p.checkpoint);
    const rows: CheckpointRecord[] = [];
    for (const part of listParts(this.#d, ids)) rows.push(...(await this.#db.all<CheckpointRecord>(sql, [this.#d.listParam(part, "text")])));
    return rows.map((r) => toCheckpoint(this.#d, r)).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async stats(): Promise<IndexStats> {
    const count = async (table: string) => Number((await this.#db.get<{ n: number | string }>(`SELECT count(*) AS n FROM ${table}`))?.n ?? 0);
    const { docs, postings, marks } = this.#s.tables;
    return { engine: this.engine, docs: await count(docs), postings: await count(postings), checkpoints: await count(marks) };
  }
}

/** A document key as the SQL backends store it (32 bytes). */
export function docKey(hex: string): Buffer {
  return hashKey(hex);
}
