// SQLite's side of the full-text index: words in an FTS5 table without content of its own
// (contentless: the text is in the objects; snippets are made from them), ranked by FTS5's
// BM25, one document per row whose rowid is the document's id.
import type { QueryPlan } from "../search/search-index.js";
import type { SearchSql } from "../sql/sql-search.js";
import { docKey } from "../sql/sql-search.js";

const INSERT_DOC = "INSERT INTO search_docs (key, source, place) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING RETURNING id";
const INSERT_WORDS = "INSERT INTO search_words (rowid, words) VALUES (?, ?)";
const INSERT_POSTING = "INSERT INTO search_postings (checkpoint, doc, delta) VALUES (?, ?, ?)";

/** The FTS5 query of a plan: each group a quoted phrase, the last word of a prefix group starred. */
export function fts5Query(plan: QueryPlan): string {
  return plan.groups.map((g) => `"${g.tokens.join(" ")}"${g.prefix ? "*" : ""}`).join(" ");
}

/** SQLite's `SearchSql`: a contentless FTS5 table beside the documents, BM25 ranking. */
export const sqliteSearch: SearchSql = Object.freeze({
  engine: "sqlite-fts5",
  tables: Object.freeze({ docs: "search_docs", postings: "search_postings", marks: "search_marks", pending: "search_pending" }),
  // SQLite's WITH holds no INSERT or DELETE; a statement costs it microseconds anyway.
  pendingWrites: "statement",
  async insertDocs(db, docs) {
    const ids = new Map<string, number>();
    for (const d of docs) {
      const row = await db.get<{ id: number }>(INSERT_DOC, [docKey(d.key), d.source, JSON.stringify(d.place)]);
      if (row) {
        await db.run(INSERT_WORDS, [row.id, d.words]);
        ids.set(d.key, row.id);
      }
    }
    return ids;
  },
  async insertPostings(db, checkpointId, postings) {
    for (const p of postings) await db.run(INSERT_POSTING, [checkpointId, p.doc, p.delta]);
  },
  matching: (plan) => ({
    from: "JOIN search_words ON search_words.rowid = d.id",
    where: "search_words MATCH ?",
    params: [fts5Query(plan)],
    score: "-bm25(search_words)",
  }),
  docIn: (column) => `${column} IN (SELECT value FROM json_each(?))`,
  docList: (ids) => JSON.stringify(ids),
  distinct: "IS NOT",
  // 'delete-all' empties a contentless FTS5 table.
  clear: [
    "DELETE FROM search_postings",
    "DELETE FROM search_marks",
    "INSERT INTO search_words (search_words) VALUES ('delete-all')",
    "DELETE FROM search_docs",
    // Every checkpoint is to be indexed again.
    "INSERT INTO search_pending (checkpoint) SELECT id FROM checkpoints WHERE true ON CONFLICT (checkpoint) DO NOTHING",
  ],
} satisfies SearchSql);
