// The SQLite schema and its migrations, applied in order; PRAGMA user_version records how far.
import type Database from "better-sqlite3";
import { ForgeError } from "../../core/errors.js";

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
   CREATE TABLE objects (
     hash BLOB PRIMARY KEY,
     data BLOB NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE sessions (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     kind TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     metadata TEXT NOT NULL,
     next_seq INTEGER NOT NULL,
     head_branch TEXT,
     head_checkpoint TEXT
   );
   CREATE TABLE checkpoints (
     id TEXT PRIMARY KEY,
     session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     parent_id TEXT,
     branch TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     message TEXT NOT NULL,
     tags TEXT NOT NULL,
     trigger TEXT NOT NULL,
     metadata TEXT NOT NULL,
     state_root TEXT NOT NULL,
     files_root TEXT,
     logical_bytes INTEGER NOT NULL,
     new_bytes INTEGER NOT NULL,
     UNIQUE (session_id, seq)
   );
   CREATE INDEX checkpoints_by_time ON checkpoints (session_id, created_at);
   CREATE TABLE refs (
     session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
     name TEXT NOT NULL,
     checkpoint_id TEXT NOT NULL,
     PRIMARY KEY (session_id, name)
   ) WITHOUT ROWID;`,
  // 2: a session's working state, between checkpoints.
  `ALTER TABLE sessions ADD COLUMN work_root TEXT;
   ALTER TABLE sessions ADD COLUMN work_version INTEGER NOT NULL DEFAULT 0;`,
  // 3: milestones, named stretches of a session's timeline.
  `CREATE TABLE milestones (
     session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
     name TEXT NOT NULL,
     from_id TEXT NOT NULL,
     to_id TEXT NOT NULL,
     description TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (session_id, name)
   ) WITHOUT ROWID;`,
];

export function migrate(db: Database.Database): void {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    throw new ForgeError("STORE_UNAVAILABLE", `the store's schema (version ${version}) is newer than this Forge knows (${MIGRATIONS.length})`, {
      hint: "upgrade forge-reasoning",
    });
  }
  if (version === MIGRATIONS.length) return;
  db.transaction(() => {
    // Another process may have migrated while this one waited for the lock.
    const now = db.pragma("user_version", { simple: true }) as number;
    for (let v = now; v < MIGRATIONS.length; v++) db.exec(MIGRATIONS[v] as string);
    db.pragma(`user_version = ${MIGRATIONS.length}`);
  }).immediate();
}
