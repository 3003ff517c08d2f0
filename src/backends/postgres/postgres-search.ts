// PostgreSQL's side of the full-text index: each document's words as a tsvector (the 'simple'
// configuration: no stemming, no stop words — identifiers and error strings stay whole) under
// a GIN index, matched by a tsquery whose prefix words end in `:*` and whose phrases use `<->`,
// ranked by ts_rank normalised by document length. No extension is needed: prefix matching
// finds identifiers and error codes (pg_trgm would add substrings inside a word, and needs
// CREATE on the database — see docs/ARCHITECTURE.md, Search).
import type { QueryPlan } from "../search/search-index.js";
import type { SearchSql } from "../sql/sql-search.js";
import { docKey } from "../sql/sql-search.js";

/** Rows per INSERT: each parameter array stays a few megabytes at most. */
const BATCH = 200;

/** The tsquery text of a plan (the words are letters and digits only: nothing to escape). */
export function tsQuery(plan: QueryPlan): string {
  return plan.groups.map((g) => `(${g.tokens.map((t, i) => (g.prefix && i === g.tokens.length - 1 ? `${t}:*` : t)).join(" <-> ")})`).join(" & ");
}

/** PostgreSQL's `SearchSql`: tsvector documents, unnest batches, tsquery matching. */
export const postgresSearch: SearchSql = Object.freeze({
  engine: "postgres-tsvector",
  tables: Object.freeze({ docs: "forge_search_docs", postings: "forge_search_postings", marks: "forge_search_marks", pending: "forge_search_pending" }),
  pendingWrites: "with",
  async insertDocs(db, docs) {
    const ids = new Map<string, number>();
    for (let i = 0; i < docs.length; i += BATCH) {
      const part = docs.slice(i, i + BATCH);
      const rows = await db.all<{ id: string; key: Buffer }>(
        `INSERT INTO forge_search_docs (key, source, place, words)
         SELECT k, s, p::jsonb, to_tsvector('simple', w) FROM unnest($1::bytea[], $2::text[], $3::text[], $4::text[]) AS t (k, s, p, w)
         ON CONFLICT (key) DO NOTHING RETURNING id, key`,
        [part.map((d) => docKey(d.key)), part.map((d) => d.source), part.map((d) => JSON.stringify(d.place)), part.map((d) => d.words)],
      );
      for (const r of rows) ids.set(r.key.toString("hex"), Number(r.id));
    }
    return ids;
  },
  async insertPostings(db, checkpointId, postings) {
    for (let i = 0; i < postings.length; i += 5000) {
      const part = postings.slice(i, i + 5000);
      await db.run("INSERT INTO forge_search_postings (checkpoint, doc, delta) SELECT $1::text, d, x FROM unnest($2::bigint[], $3::smallint[]) AS t (d, x)", [
        checkpointId,
        part.map((p) => p.doc),
        part.map((p) => p.delta),
      ]);
    }
  },
  matching: (plan) => ({
    from: ", to_tsquery('simple', ?) q",
    where: "d.words @@ q",
    params: [tsQuery(plan)],
    score: "ts_rank(d.words, q, 1)",
  }),
  docIn: (column) => `${column} = ANY(?::bigint[])`,
  docList: (ids) => ids,
  distinct: "IS DISTINCT FROM",
  clear: [
    "DELETE FROM forge_search_postings",
    "DELETE FROM forge_search_marks",
    "DELETE FROM forge_search_docs",
    // Every checkpoint is to be indexed again.
    "INSERT INTO forge_search_pending (checkpoint) SELECT id FROM forge_checkpoints ON CONFLICT (checkpoint) DO NOTHING",
  ],
} satisfies SearchSql);
