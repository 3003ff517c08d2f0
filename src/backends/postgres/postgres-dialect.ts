// PostgreSQL's side of the shared SQL layer: forge_-prefixed tables, `$n` marks, jsonb
// columns (pg parses them on read), lists passed as arrays.
import type { ListKind, SqlDialect } from "../sql/dialect.js";
import { postgresSearch } from "./postgres-search.js";

export const postgresDialect: SqlDialect = Object.freeze({
  tables: Object.freeze({
    meta: "forge_meta",
    objects: "forge_objects",
    sessions: "forge_sessions",
    checkpoints: "forge_checkpoints",
    refs: "forge_refs",
    milestones: "forge_milestones",
    sideRecords: "forge_side_records",
  }),
  placeholders(sql: string): string {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  },
  readJson: (value: unknown) => value,
  // jsonb containment of the one string: the `?` operator would read as a parameter mark.
  jsonArrayHas: (column: string) => `${column} @> jsonb_build_array(?::text)`,
  inList: (column: string, kind: ListKind) => `${column} = ANY(?::${kind === "hash" ? "bytea" : "text"}[])`,
  objectsAt: (objects: string) =>
    `SELECT (l.i - 1)::int AS i, o.data AS data FROM unnest(?::bytea[]) WITH ORDINALITY AS l (hash, i) JOIN ${objects} AS o ON o.hash = l.hash`,
  listParam: (values: readonly string[], kind: ListKind) => (kind === "hash" ? values.map((h) => Buffer.from(h, "hex")) : values),
  // Keeps each statement's parameter to a few tens of kilobytes.
  maxListLength: 500,
  constraintViolation(error: unknown): "unique" | "other" | undefined {
    const code = (error as { code?: unknown }).code;
    // Class 23, integrity constraint violation; 23505 is unique_violation.
    if (typeof code !== "string" || !code.startsWith("23")) return undefined;
    return code === "23505" ? "unique" : "other";
  },
  search: postgresSearch,
});
