// Every fixed statement of the shared SQL layer, written once and rendered once per dialect
// (table names, placeholders), so a call never builds SQL text: a SQLite connection finds
// its prepared statement by this very string.
import type { SqlDialect } from "./dialect.js";
import { CHECKPOINT_COLUMNS, SESSION_COLUMNS } from "./rows.js";

export type Statements = ReturnType<typeof render>;

/** How many objects `listObjects` reads per statement: no cursor stays open while the caller works. */
export const OBJECT_PAGE = 1000;

const rendered = new WeakMap<SqlDialect, Statements>();
/** The two shapes of `owedFacts`, for statements rendered once. */
const APPENDED = { appended: true } as Owed;
const INSERTED = { appended: false } as Owed;

/** The dialect's statements, rendered on first use. */
export function statementsFor(d: SqlDialect): Statements {
  let s = rendered.get(d);
  if (!s) rendered.set(d, (s = render(d)));
  return s;
}

function render(d: SqlDialect) {
  const { meta, objects, sessions, checkpoints, refs, milestones, sideRecords } = d.tables;
  const sql = (text: string) => d.placeholders(text);
  return {
    // objects
    getObjects: sql(`SELECT hash, data FROM ${objects} WHERE ${d.inList("hash", "hash")}`),
    hasObjects: sql(`SELECT hash FROM ${objects} WHERE ${d.inList("hash", "hash")}`),
    insertObject: sql(`INSERT INTO ${objects} (hash, data, created_at) VALUES (?, ?, ?) ON CONFLICT (hash) DO NOTHING`),
    listObjects: sql(`SELECT hash, length(data) AS size, created_at FROM ${objects} WHERE hash > ? ORDER BY hash LIMIT ${OBJECT_PAGE}`),
    countObjects: sql(`SELECT count(*) AS n FROM ${objects}`),
    corruptObject: sql(`UPDATE ${objects} SET data = ? WHERE hash = ?`),
    // The age check is in the statement itself: an object a writer just (re)wrote stays.
    deleteObjects: sql(`DELETE FROM ${objects} WHERE ${d.inList("hash", "hash")} AND created_at < ? RETURNING length(data) AS size`),

    // sessions
    sessionById: sql(`SELECT * FROM ${sessions} WHERE id = ?`),
    sessionByName: sql(`SELECT * FROM ${sessions} WHERE name = ?`),
    sessions: sql(`SELECT * FROM ${sessions} ORDER BY created_at, id`),
    insertSession: sql(`INSERT INTO ${sessions} (${SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    deleteSession: sql(`DELETE FROM ${sessions} WHERE id = ?`),
    // One statement: the row lock makes concurrent writers take turns, and no seq repeats.
    allocateSeq: sql(`UPDATE ${sessions} SET next_seq = next_seq + 1 WHERE id = ? RETURNING next_seq - 1 AS seq`),
    // What the checkpoint rows a transaction inserted owe their session's row (`owedFacts`), in one
    // update: SqlMeta's `settle`, or its `updateSession` with the other changes.
    appendedCheckpoints: sql(`UPDATE ${sessions} SET ${owedFacts(checkpoints, APPENDED)} WHERE id = ?`),
    insertedCheckpoints: sql(`UPDATE ${sessions} SET ${owedFacts(checkpoints, INSERTED)} WHERE id = ?`),
    // Before checkpoint rows go: each session they belong to stops counting them.
    uncountCheckpoints: sql(
      `UPDATE ${sessions} SET checkpoint_count = checkpoint_count
         - (SELECT count(*) FROM ${checkpoints} c WHERE c.session_id = ${sessions}.id AND ${d.inList("c.id", "text")})
       WHERE id IN (SELECT session_id FROM ${checkpoints} WHERE ${d.inList("id", "text")})`,
    ),
    // A new or re-linked checkpoint is to be indexed for search (sql-search.ts: pending).
    searchPending: sql(`INSERT INTO ${d.search.tables.pending} (checkpoint) VALUES (?) ON CONFLICT (checkpoint) DO NOTHING`),
    checkpointCount: sql(`SELECT checkpoint_count AS n FROM ${sessions} WHERE id = ?`),
    timesUnordered: sql(`SELECT times_unordered AS u FROM ${sessions} WHERE id = ?`),

    // checkpoints
    checkpoint: sql(`SELECT * FROM ${checkpoints} WHERE id = ?`),
    checkpointBySeq: sql(`SELECT * FROM ${checkpoints} WHERE session_id = ? AND seq = ?`),
    // A range scan on the primary key: ids are upper-case ASCII, so prefix + "\x7f" bounds it.
    checkpointsByPrefix: sql(`SELECT * FROM ${checkpoints} WHERE id >= ? AND id < ? ORDER BY id LIMIT ?`),
    checkpointsByPrefixInSession: sql(`SELECT * FROM ${checkpoints} WHERE id >= ? AND id < ? AND session_id = ? ORDER BY id LIMIT ?`),
    countCheckpoints: sql(`SELECT count(*) AS n FROM ${checkpoints}`),
    // With the row, search has it to index (sql-search.ts: pending) — in the same statement where the database allows.
    insertCheckpoint: sql(
      d.search.pendingWrites === "with"
        ? `WITH c AS (INSERT INTO ${checkpoints} (${CHECKPOINT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id)
           INSERT INTO ${d.search.tables.pending} (checkpoint) SELECT id FROM c`
        : `INSERT INTO ${checkpoints} (${CHECKPOINT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    deleteCheckpoints: sql(`DELETE FROM ${checkpoints} WHERE ${d.inList("id", "text")}`),
    roots: sql(
      `SELECT state_root AS h FROM ${checkpoints}
       UNION SELECT files_root FROM ${checkpoints} WHERE files_root IS NOT NULL
       UNION SELECT work_root FROM ${sessions} WHERE work_root IS NOT NULL`,
    ),

    // refs
    refs: sql(`SELECT session_id, name, checkpoint_id FROM ${refs} WHERE session_id = ? ORDER BY name`),
    ref: sql(`SELECT session_id, name, checkpoint_id FROM ${refs} WHERE session_id = ? AND name = ?`),
    setRef: sql(
      `INSERT INTO ${refs} (session_id, name, checkpoint_id) VALUES (?, ?, ?)
       ON CONFLICT (session_id, name) DO UPDATE SET checkpoint_id = excluded.checkpoint_id`,
    ),
    deleteRef: sql(`DELETE FROM ${refs} WHERE session_id = ? AND name = ?`),

    // milestones
    milestones: sql(`SELECT * FROM ${milestones} WHERE session_id = ? ORDER BY created_at, name`),
    milestone: sql(`SELECT * FROM ${milestones} WHERE session_id = ? AND name = ?`),
    setMilestone: sql(
      `INSERT INTO ${milestones} (session_id, name, from_id, to_id, description, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id, name) DO UPDATE SET from_id = excluded.from_id, to_id = excluded.to_id,
         description = excluded.description, created_at = excluded.created_at`,
    ),
    deleteMilestone: sql(`DELETE FROM ${milestones} WHERE session_id = ? AND name = ?`),

    // side records (backend.ts: SideRecord)
    sideRecords: sql(`SELECT scope, key, value FROM ${sideRecords} WHERE session_id = ? ORDER BY scope, key`),
    sideRecordsOfScope: sql(`SELECT scope, key, value FROM ${sideRecords} WHERE session_id = ? AND scope = ? ORDER BY key`),
    keepSideRecord: sql(`INSERT INTO ${sideRecords} (session_id, scope, key, value) VALUES (?, ?, ?, ?) ON CONFLICT (session_id, scope, key) DO NOTHING`),
    replaceSideRecord: sql(
      `INSERT INTO ${sideRecords} (session_id, scope, key, value) VALUES (?, ?, ?, ?) ON CONFLICT (session_id, scope, key) DO UPDATE SET value = excluded.value`,
    ),

    // the store's own values (text)
    getMeta: sql(`SELECT value FROM ${meta} WHERE key = ?`),
    bumpCounter: sql(
      `INSERT INTO ${meta} (key, value) VALUES (?, '1')
       ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(${meta}.value AS bigint) + 1 AS text) RETURNING value`,
    ),
  };
}

/** What checkpoint rows inserted in one transaction owe their session's row (SqlMeta's `settle`). */
export interface Owed {
  added: number;
  /** The lowest and highest seq inserted. */
  low: number;
  high: number;
  /** The latest time of a row inserted. */
  latest: number;
  /**
   * Every row was appended: its seq was handed out by `allocateSeq` in this transaction (so
   * above every seq the session had), each later-seq row no earlier than the one before. Then
   * the session's times stay in order if the earliest of them is no earlier than the latest
   * time the session ever had (`max_created_at`), with no subquery.
   */
  appended: boolean;
  /** The earliest time of a row inserted. */
  earliest: number;
}

/**
 * The SET clauses that settle what inserted checkpoints owe a session row (parameters:
 * `owedParams`): the count, the counter past the highest seq, the latest time, and whether
 * times went back in seq order. For appended rows, one comparison with the latest time the
 * session had (conservative: a deleted checkpoint's time still counts). Otherwise times are
 * out of order when, from the row before the lowest inserted seq to the row after the highest,
 * some checkpoint was made before the one before it — a pair of neighbours none of them
 * inserted was in order already (or the session noted otherwise): index probes and a range
 * over what was inserted. Either way in the statement that writes the session row anyway.
 */
export function owedFacts(checkpoints: string, o: Owed): string {
  const common = `checkpoint_count = checkpoint_count + ?, next_seq = CASE WHEN next_seq <= ? THEN ? + 1 ELSE next_seq END,
    max_created_at = CASE WHEN max_created_at < ? THEN ? ELSE max_created_at END`;
  if (o.appended) return `${common}, times_unordered = CASE WHEN max_created_at > ? THEN 1 ELSE times_unordered END`;
  const bound = (cmp: "<" | ">", dir: "DESC" | "ASC") =>
    `COALESCE((SELECT seq FROM ${checkpoints} WHERE session_id = ? AND seq ${cmp} ? ORDER BY seq ${dir} LIMIT 1), ?)`;
  return `${common},
    times_unordered = CASE WHEN times_unordered = 1 OR EXISTS (
      SELECT 1 FROM (
        SELECT created_at, lag(created_at) OVER (ORDER BY seq) AS prev FROM ${checkpoints}
        WHERE session_id = ? AND seq >= ${bound("<", "DESC")} AND seq <= ${bound(">", "ASC")}
      ) w WHERE w.created_at < w.prev
    ) THEN 1 ELSE 0 END`;
}

/** The parameters of `owedFacts`. */
export function owedParams(sessionId: string, o: Owed): unknown[] {
  const common = [o.added, o.high, o.high, o.latest, o.latest];
  return o.appended ? [...common, o.earliest] : [...common, sessionId, sessionId, o.low, o.low, sessionId, o.high, o.high];
}

/**
 * Works out each session's kept facts from its checkpoints (the migration that added them
 * runs it): how many it has, the latest time, and whether a time ever goes back as seq goes
 * up (then some pair of neighbours by seq is out of order).
 */
export function sessionFactsSql(sessions: string, checkpoints: string): string {
  return `UPDATE ${sessions} SET
    checkpoint_count = (SELECT count(*) FROM ${checkpoints} c WHERE c.session_id = ${sessions}.id),
    max_created_at = COALESCE((SELECT max(created_at) FROM ${checkpoints} c WHERE c.session_id = ${sessions}.id), 0),
    times_unordered = CASE WHEN id IN (
      SELECT w.session_id FROM (
        SELECT session_id, created_at, lag(created_at) OVER (PARTITION BY session_id ORDER BY seq) AS prev FROM ${checkpoints}
      ) w WHERE w.created_at < w.prev
    ) THEN 1 ELSE 0 END`;
}
