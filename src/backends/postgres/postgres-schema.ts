// The PostgreSQL schema and its migrations, applied in order under an advisory lock and
// recorded in forge_migrations. A store is made only in a schema that is new, empty or
// already Forge's (one with forge_migrations); tables are prefixed so an application's own
// tables added to that schema later never clash with them.

/** The marker row migration 3 puts in forge_meta: this schema is a Forge store. */
const STORE_MARKER = { key: "store", value: "forge" } as const;

export const MIGRATIONS: readonly string[] = [
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
];
