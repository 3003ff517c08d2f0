// Every fixed statement of the shared SQL layer, written once and rendered once per dialect
// (table names, placeholders), so a call never builds SQL text: a SQLite connection finds
// its prepared statement by this very string.
import type { SqlDialect } from "./dialect.js";
import { CHECKPOINT_COLUMNS, SESSION_COLUMNS } from "./rows.js";

export type Statements = ReturnType<typeof render>;

/** How many objects `listObjects` reads per statement: no cursor stays open while the caller works. */
export const OBJECT_PAGE = 1000;

const rendered = new WeakMap<SqlDialect, Statements>();

/** The dialect's statements, rendered on first use. */
export function statementsFor(d: SqlDialect): Statements {
  let s = rendered.get(d);
  if (!s) rendered.set(d, (s = render(d)));
  return s;
}

function render(d: SqlDialect) {
  const { meta, objects, sessions, checkpoints, refs, milestones } = d.tables;
  const sql = (text: string) => d.placeholders(text);
  return {
    // objects
    getObjects: sql(`SELECT hash, data FROM ${objects} WHERE ${d.inList("hash", "hash")}`),
    hasObjects: sql(`SELECT hash FROM ${objects} WHERE ${d.inList("hash", "hash")}`),
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
    raiseSeq: sql(`UPDATE ${sessions} SET next_seq = ? WHERE id = ? AND next_seq < ?`),

    // checkpoints
    checkpoint: sql(`SELECT * FROM ${checkpoints} WHERE id = ?`),
    checkpointBySeq: sql(`SELECT * FROM ${checkpoints} WHERE session_id = ? AND seq = ?`),
    // A range scan on the primary key: ids are upper-case ASCII, so prefix + "\x7f" bounds it.
    checkpointsByPrefix: sql(`SELECT * FROM ${checkpoints} WHERE id >= ? AND id < ? ORDER BY id LIMIT ?`),
    checkpointsByPrefixInSession: sql(`SELECT * FROM ${checkpoints} WHERE id >= ? AND id < ? AND session_id = ? ORDER BY id LIMIT ?`),
    countCheckpoints: sql(`SELECT count(*) AS n FROM ${checkpoints}`),
    countCheckpointsInSession: sql(`SELECT count(*) AS n FROM ${checkpoints} WHERE session_id = ?`),
    insertCheckpoint: sql(`INSERT INTO ${checkpoints} (${CHECKPOINT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
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

    // the store's own values (text)
    getMeta: sql(`SELECT value FROM ${meta} WHERE key = ?`),
    bumpCounter: sql(
      `INSERT INTO ${meta} (key, value) VALUES (?, '1')
       ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(${meta}.value AS bigint) + 1 AS text) RETURNING value`,
    ),
  };
}
