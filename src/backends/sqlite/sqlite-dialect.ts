// SQLite's side of the shared SQL layer: plain table names, `?` marks, JSON kept as text,
// lists passed as one JSON array and read back with json_each.
import type { ListKind, SqlDialect } from "../sql/dialect.js";
import { sqliteSearch } from "./sqlite-search.js";

export const sqliteDialect: SqlDialect = Object.freeze({
  tables: Object.freeze({
    meta: "meta",
    objects: "objects",
    sessions: "sessions",
    checkpoints: "checkpoints",
    refs: "refs",
    milestones: "milestones",
    sideRecords: "side_records",
  }),
  placeholders: (sql: string) => sql,
  readJson: (value: unknown) => JSON.parse(value as string) as unknown,
  jsonArrayHas: (column: string) => `EXISTS (SELECT 1 FROM json_each(${column}) WHERE value = ?)`,
  inList: (column: string, kind: ListKind) => `${column} IN (SELECT ${kind === "hash" ? "unhex(value)" : "value"} FROM json_each(?))`,
  objectsAt: (objects: string) => `SELECT l.key AS i, o.data AS data FROM json_each(?) AS l JOIN ${objects} AS o ON o.hash = unhex(l.value)`,
  listParam: (values: readonly string[]) => JSON.stringify(values),
  // One JSON text holds any number: a list is never cut.
  maxListLength: Number.POSITIVE_INFINITY,
  constraintViolation(error: unknown): "unique" | "other" | undefined {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== "string" || !code.startsWith("SQLITE_CONSTRAINT")) return undefined;
    return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" ? "unique" : "other";
  },
  search: sqliteSearch,
});
