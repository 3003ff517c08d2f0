// The full-text index every backend keeps beside its objects, by content: a document is one
// object's text (a node of a state, a text file) or one checkpoint message, indexed once
// however many checkpoints hold it; postings say at which checkpoints a document appeared
// (it was not in the parent) or went (it was in the parent, no longer), so a checkpoint costs
// rows for what changed, not for everything it holds. Marks say which checkpoints have their
// postings, and against which parent (a re-linked checkpoint is indexed again).
import type { CheckpointRow } from "../backend.js";

/** Where a document's text comes from. */
export type DocSource = "state" | "files" | "message";

/** Where a document was in the checkpoint that first gave it to the index. */
export interface DocPlace {
  /** Path from the state's root to the node's value, or a file's path as one string. */
  readonly path: readonly (string | number)[];
  /** For a chunk of a long array (the node's value is a run of its items): the index of the first one. */
  readonly offset?: number;
}

/** A document to add: a key (hex SHA-256), its source, where it was, and its words. */
export interface NewDoc {
  /** The object's hash; for a message, the SHA-256 of "message\n" + its text. */
  readonly key: string;
  readonly source: DocSource;
  readonly place: DocPlace;
  /** The text as `tokenize` gives it: lower-case words separated by one space each. */
  readonly words: string;
}

/** One group of a query: words that follow one another; the last one may match as a prefix. */
export interface QueryGroup {
  readonly tokens: readonly string[];
  /** Whether the last token matches every word it starts. */
  readonly prefix: boolean;
}

/** A parsed query: every group must match (AND). */
export interface QueryPlan {
  readonly groups: readonly QueryGroup[];
}

/** Which hits a kind filter keeps: any of these conditions on the document and its session. */
export interface KindCondition {
  readonly source?: DocSource;
  /** The session's kind is this. */
  readonly sessionKind?: string;
  /** The session's kind is not this. */
  readonly notSessionKind?: string;
}

/** What `match` keeps: documents that appeared in at least one checkpoint passing all of it. */
export interface SearchFilter {
  readonly sessionId?: string;
  /** The checkpoint was made at or before this time (epoch ms). */
  readonly until?: number;
  /** Any of these (absent: every kind). */
  readonly kinds?: readonly KindCondition[];
}

/** A document that matched, with its relevance (higher is better) and first appearance under the filter. */
export interface DocHit {
  readonly id: number;
  readonly key: string;
  readonly source: DocSource;
  readonly place: DocPlace;
  readonly score: number;
  /** The earliest time (epoch ms) it appeared in a checkpoint passing the filter. */
  readonly firstAt: number;
}

/** A posting read back with the facts of its checkpoint. */
export interface PostingRow {
  readonly doc: number;
  readonly delta: 1 | -1;
  readonly checkpoint: CheckpointRow;
}

/** A document change at one checkpoint: it appeared (+1) or went (−1) against the parent. */
export interface Posting {
  readonly doc: number;
  readonly delta: 1 | -1;
}

/** How big the index is. */
export interface IndexStats {
  /** The engine: "sqlite-fts5", "postgres-tsvector" or "in-process". */
  readonly engine: string;
  readonly docs: number;
  readonly postings: number;
  /** Checkpoints whose postings are written. */
  readonly checkpoints: number;
}

/** The reads of the index (outside a transaction). */
export interface SearchIndexReader {
  readonly engine: string;
  /** The ids of the documents with these keys that are indexed. */
  docIds(keys: readonly string[]): Promise<Map<string, number>>;
  /**
   * Documents matching `plan` that appeared in a checkpoint passing `filter`, best first
   * ("rank") or earliest appearance first ("first"), at most `limit`.
   */
  match(plan: QueryPlan, filter: SearchFilter, order: "rank" | "first", limit: number): Promise<DocHit[]>;
  /** Every posting of these documents, with its checkpoint. */
  postings(docs: readonly number[]): Promise<PostingRow[]>;
  /** Checkpoints without postings, or whose postings were made against a parent they no longer have. */
  stale(): Promise<CheckpointRow[]>;
  stats(): Promise<IndexStats>;
}

/** The writes of the index, inside a metadata transaction. */
export interface SearchIndexWriter {
  /** The ids of the documents with these keys that are indexed. */
  docIds(keys: readonly string[]): Promise<Map<string, number>>;
  /** Adds documents (one already there is left as it is); returns every key's id. */
  addDocs(docs: readonly NewDoc[]): Promise<Map<string, number>>;
  /** Replaces a checkpoint's postings and marks it indexed against `parentId`. */
  setPostings(checkpointId: string, parentId: string | null, postings: readonly Posting[]): Promise<void>;
  /** Empties the index (for a rebuild). */
  clear(): Promise<void>;
}
