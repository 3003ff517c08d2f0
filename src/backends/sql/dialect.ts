// What differs between the SQL databases Forge stores in, and nothing else: the shared SQL
// layer (sql-meta.ts, sql-backend.ts) writes each statement once with `?` marks and asks
// the dialect for the few fragments and encodings that are not the same on both.
import type { SearchSql } from "./sql-search.js";

/** The relations every SQL store has, by role. */
export type TableRole = "meta" | "objects" | "sessions" | "checkpoints" | "refs" | "milestones" | "sideRecords";

/** What a list parameter holds: text values, or object hashes (hex in, stored as bytes). */
export type ListKind = "text" | "hash";

/** One database's SQL, as far as it is not shared. */
export interface SqlDialect {
  /** Each relation's table name in this dialect's schema. */
  readonly tables: Readonly<Record<TableRole, string>>;

  /**
   * The statement with its `?` parameter marks in the driver's own form (`$1`, `$2`, … for
   * PostgreSQL). Called once per static statement, and per call for the few built from a filter.
   */
  placeholders(sql: string): string;

  /** A JSON column's value as the driver returns it (text in SQLite, parsed jsonb in PostgreSQL), parsed. */
  readJson(value: unknown): unknown;

  /** A condition: the JSON array of strings in `column` holds the string parameter `?`. */
  jsonArrayHas(column: string): string;

  /** A condition: `column` equals one of the values of the single list parameter `?`. */
  inList(column: string, kind: ListKind): string;

  /**
   * A statement reading the objects whose hashes the single list parameter `?` holds: columns
   * `i`, the hash's position in the list (from 0), and `data`. Positions rather than hashes
   * come back: no hash is sent back and turned into text again per row.
   */
  objectsAt(objectsTable: string): string;

  /** The values as the list parameter that `inList` reads (hashes given as hex). */
  listParam(values: readonly string[], kind: ListKind): unknown;

  /** At most this many values go in one list parameter; longer lists are sent in parts. */
  readonly maxListLength: number;

  /**
   * The constraint a failed statement broke: "unique" (a duplicate primary or unique key),
   * "other" (another constraint, such as a foreign key), or undefined when it broke none.
   */
  constraintViolation(error: unknown): "unique" | "other" | undefined;

  /** How this database keeps and matches the full-text index's words. */
  readonly search: SearchSql;
}

/** `values` cut into lists of at most the dialect's `maxListLength` (itself when it fits). */
export function* listParts(dialect: SqlDialect, values: readonly string[]): Iterable<readonly string[]> {
  const max = dialect.maxListLength;
  if (values.length <= max) {
    if (values.length > 0) yield values;
    return;
  }
  for (let i = 0; i < values.length; i += max) yield values.slice(i, i + max);
}
