// The PostgreSQL schema and its migrations, applied in order under an advisory lock and
// recorded in forge_migrations. A store is made only in a schema that is new, empty or
// already Forge's (one with forge_migrations); tables are prefixed so an application's own
// tables added to that schema later never clash with them.
import { ForgeError } from "../../core/errors.js";
import { sessionFactsSql } from "../sql/statements.js";
import type { Queryable } from "./postgres-connection.js";

/** The marker row migration 3 puts in forge_meta: this schema is a Forge store. */
const STORE_MARKER = { key: "store", value: "forge" } as const;

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE forge_meta (key text PRIMARY KEY, value text NOT NULL);
   CREATE TABLE forge_objects (
     hash bytea PRIMARY KEY,
     data bytea NOT NULL,
     created_at bigint NOT NULL
   );
   CREATE TABLE forge_sessions (
     id text PRIMARY KEY,
     name text NOT NULL UNIQUE,
     kind text NOT NULL,
     created_at bigint NOT NULL,
     metadata jsonb NOT NULL,
     next_seq integer NOT NULL,
     head_branch text,
     head_checkpoint text,
     work_root text,
     work_version integer NOT NULL DEFAULT 0
   );
   CREATE TABLE forge_checkpoints (
     id text PRIMARY KEY,
     session_id text NOT NULL REFERENCES forge_sessions (id) ON DELETE CASCADE,
     seq integer NOT NULL,
     parent_id text,
     branch text NOT NULL,
     created_at bigint NOT NULL,
     message text NOT NULL,
     tags jsonb NOT NULL,
     trigger text NOT NULL,
     metadata jsonb NOT NULL,
     state_root text NOT NULL,
     files_root text,
     logical_bytes bigint NOT NULL,
     new_bytes bigint NOT NULL,
     UNIQUE (session_id, seq)
   );
   CREATE INDEX forge_checkpoints_by_time ON forge_checkpoints (session_id, created_at);
   CREATE TABLE forge_refs (
     session_id text NOT NULL REFERENCES forge_sessions (id) ON DELETE CASCADE,
     name text NOT NULL,
     checkpoint_id text NOT NULL,
     PRIMARY KEY (session_id, name)
   );`,
  // 2: milestones, named stretches of a session's timeline.
  `CREATE TABLE forge_milestones (
     session_id text NOT NULL REFERENCES forge_sessions (id) ON DELETE CASCADE,
     name text NOT NULL,
     from_id text NOT NULL,
     to_id text NOT NULL,
     description text NOT NULL,
     created_at bigint NOT NULL,
     PRIMARY KEY (session_id, name)
   );`,
  // 3: the schema says it is a Forge store, as a SQLite store's application_id does.
  `INSERT INTO forge_meta (key, value) VALUES ('${STORE_MARKER.key}', '${STORE_MARKER.value}') ON CONFLICT (key) DO NOTHING;`,
  // 4: the full-text index (docs/ARCHITECTURE.md, Search). Empty here: a store written before
  // it is indexed by its first search, or by `forge search --reindex`. IF NOT EXISTS: a
  // store taken back to an older schema by hand (the tests do) keeps its index tables.
  `CREATE TABLE IF NOT EXISTS forge_search_docs (
     id bigserial PRIMARY KEY,
     key bytea NOT NULL UNIQUE,
     source text NOT NULL,
     place jsonb NOT NULL,
     words tsvector NOT NULL
   );
   CREATE INDEX IF NOT EXISTS forge_search_docs_words ON forge_search_docs USING gin (words);
   CREATE TABLE IF NOT EXISTS forge_search_postings (
     checkpoint text NOT NULL REFERENCES forge_checkpoints (id) ON DELETE CASCADE,
     doc bigint NOT NULL,
     delta smallint NOT NULL,
     PRIMARY KEY (checkpoint, doc)
   );
   CREATE INDEX IF NOT EXISTS forge_search_postings_by_doc ON forge_search_postings (doc, delta);
   CREATE TABLE IF NOT EXISTS forge_search_marks (
     checkpoint text PRIMARY KEY REFERENCES forge_checkpoints (id) ON DELETE CASCADE,
     parent text
   );`,
  // 5: costs that grow with the change, not with history (bench/history.ts): a session counts
  // its checkpoints, keeps its latest time and notes whether its times ever went back in seq
  // order; the time index ends in seq, so "the last checkpoint at or before t" is one index
  // probe; and the checkpoints search has yet to index are listed (forge_search_pending)
  // rather than found by reading every checkpoint.
  `ALTER TABLE forge_sessions ADD COLUMN IF NOT EXISTS checkpoint_count integer NOT NULL DEFAULT 0;
   ALTER TABLE forge_sessions ADD COLUMN IF NOT EXISTS times_unordered integer NOT NULL DEFAULT 0;
   ALTER TABLE forge_sessions ADD COLUMN IF NOT EXISTS max_created_at bigint NOT NULL DEFAULT 0;
   ${sessionFactsSql("forge_sessions", "forge_checkpoints")};
   DROP INDEX IF EXISTS forge_checkpoints_by_time;
   CREATE INDEX IF NOT EXISTS forge_checkpoints_by_time_seq ON forge_checkpoints (session_id, created_at, seq);
   CREATE TABLE IF NOT EXISTS forge_search_pending (
     checkpoint text PRIMARY KEY REFERENCES forge_checkpoints (id) ON DELETE CASCADE
   );
   INSERT INTO forge_search_pending (checkpoint)
     SELECT c.id FROM forge_checkpoints c LEFT JOIN forge_search_marks m ON m.checkpoint = c.id
     WHERE m.checkpoint IS NULL OR m.parent IS DISTINCT FROM c.parent_id
     ON CONFLICT (checkpoint) DO NOTHING;`,
  // 6: side records, small keyed records an integration keeps beside a session's checkpoints
  // (ForgeSaver's LangGraph pending writes: a row each instead of a checkpoint each).
  `CREATE TABLE IF NOT EXISTS forge_side_records (
     session_id text NOT NULL REFERENCES forge_sessions (id) ON DELETE CASCADE,
     scope text NOT NULL,
     key text NOT NULL,
     value bytea NOT NULL,
     UNIQUE (session_id, scope, key)
   );`,
];

/**
 * Makes `schema` a Forge store of the current version: refuses another program's schema,
 * then creates what is missing and applies the migrations not yet applied, all in one
 * transaction under the store's advisory lock `lockKey`. Statement failures come out raw,
 * for the caller's retry to judge.
 */
/** Brings the schema to the latest migration under the store's lock; with `create` false it must hold a Forge store already. */
export async function migrate(client: Queryable, schema: string, lockKey: string, create = true, url = ""): Promise<void> {
  try {
    // Under the store's lock: two processes opening a new store at once would
    // otherwise race on CREATE SCHEMA / CREATE TABLE IF NOT EXISTS.
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [lockKey]);
    // Before anything is created: never add Forge's tables to another program's schema.
    await requireForgeSchema(client, schema);
    if (!create && (await client.query<{ t: string | null }>("SELECT to_regclass($1) AS t", [`"${schema}".forge_migrations`])).rows[0]?.t == null) {
      throw new ForgeError("NO_STORE", `there is no Forge store in schema "${schema}"`, {
        hint: `create one with \`forge init --store ${url}\`; nothing was created`,
        data: { schema },
      });
    }
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query("CREATE TABLE IF NOT EXISTS forge_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)");
    const done = (await client.query<{ v: number | null }>("SELECT max(version) AS v FROM forge_migrations")).rows[0]?.v ?? 0;
    if (done > MIGRATIONS.length) {
      throw new ForgeError("STORE_UNAVAILABLE", `the store's schema (version ${done}) is newer than this Forge knows (${MIGRATIONS.length})`, {
        hint: "upgrade forge-reasoning",
      });
    }
    for (let v = done; v < MIGRATIONS.length; v++) {
      await client.query(MIGRATIONS[v] as string);
      await client.query("INSERT INTO forge_migrations (version, applied_at) VALUES ($1, $2)", [v + 1, Date.now()]);
    }
    await client.query("COMMIT");
  } catch (e) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw e;
  }
}

/**
 * Refuses (NOT_A_STORE) a schema that holds tables or views but no forge_migrations: it
 * belongs to another program. A new or empty schema, or one any Forge version made, passes.
 */
async function requireForgeSchema(client: Queryable, schema: string): Promise<void> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'f', 'v', 'm') ORDER BY c.relname`,
    [schema],
  );
  const names = rows.map((r) => r.name);
  if (names.length === 0 || names.includes("forge_migrations")) return;
  throw new ForgeError(
    "NOT_A_STORE",
    `schema "${schema}" is not a Forge store (it holds ${names.length} table${names.length === 1 ? "" : "s"}, e.g. ${names.slice(0, 3).join(", ")}, and no forge_migrations)`,
    { hint: "nothing was created; name a schema of Forge's own with ?schema=NAME in the store URL", data: { schema, tables: names.slice(0, 10) } },
  );
}
