// `postgres://…` — one store shared by many processes on many machines, through `pg`.
//
// Every metadata write transaction first takes a transaction-level advisory lock (one per
// store), so writers are serialised across machines as SQLite's BEGIN IMMEDIATE serialises
// them on one: seq allocation, branch moves and gc's sweep can never interleave. Objects
// are inserted idempotently (ON CONFLICT DO NOTHING) outside that lock. Connection failures
// become STORE_UNAVAILABLE naming host and port; transient ones before a transaction commits
// are retried with bounded backoff, and a transaction either commits whole or not at all.
import { createHash } from "node:crypto";
import pg from "pg";
import { parse, toClientConfig } from "pg-connection-string";
import { ForgeError } from "../../core/errors.js";
import type {
  Backend,
  CheckpointQuery,
  CheckpointRow,
  DeletedObjects,
  MetaReader,
  MetaWriter,
  MilestoneRow,
  ObjectInfo,
  RefRow,
  SessionPatch,
  SessionRow,
  StoredObject,
} from "../backend.js";
import { MIGRATIONS } from "./postgres-schema.js";

/** What MetaWriter needs of a pg client or pool. */
interface Queryable {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

interface SessionRecord {
  id: string;
  name: string;
  kind: string;
  created_at: number;
  metadata: Record<string, unknown>;
  next_seq: number;
  head_branch: string | null;
  head_checkpoint: string | null;
  work_root: string | null;
  work_version: number;
}

interface CheckpointRecord {
  id: string;
  session_id: string;
  seq: number;
  parent_id: string | null;
  branch: string;
  created_at: number;
  message: string;
  tags: string[];
  trigger: string;
  metadata: Record<string, unknown>;
  state_root: string;
  files_root: string | null;
  logical_bytes: number;
  new_bytes: number;
}

const BATCH = 500;
const RETRIES = 4;
/** Error codes worth another try: the connection, not the statement, failed. */
const TRANSIENT = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "57P01", "57P02", "57P03", "08000", "08003", "08006", "08001", "08004", "40001", "40P01"]);

/** bigint columns (OID 20) as numbers: Forge's are milliseconds and byte counts, far below 2^53. */
const TYPES = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format ?? "text")) as typeof pg.types.getTypeParser,
};

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

export class PostgresBackend implements Backend {
  readonly url: string;
  readonly capabilities = { persistent: true, multiProcess: true } as const;
  readonly meta: MetaReader;
  readonly #pool: pg.Pool;
  readonly #where: string;
  readonly #lockKey: string;

  private constructor(url: string, pool: pg.Pool, where: string, lockKey: string) {
    this.url = url;
    this.#pool = pool;
    this.#where = where;
    this.#lockKey = lockKey;
    this.meta = new PgMeta(pool, this);
  }

  /** Connects, creates the schema if needed and applies migrations. */
  static async open(url: string): Promise<PostgresBackend> {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(url);
    } catch (e) {
      throw new ForgeError("INVALID_STORE_URL", `cannot parse the PostgreSQL store URL: ${(e as Error).message}`, { hint: "postgres://user:password@host:5432/database?schema=forge" });
    }
    const schema = typeof parsed.schema === "string" && parsed.schema !== "" ? parsed.schema : "public";
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
      throw new ForgeError("INVALID_STORE_URL", `invalid schema "${schema}" in the store URL`, { hint: "use letters, digits and _" });
    }
    delete parsed.schema;
    const where = `${parsed.host || "localhost"}:${parsed.port || "5432"}`;
    const pool = new pg.Pool({
      // Named so a DBA (and our fault tests) can tell Forge's connections, and whose, apart.
      application_name: `forge:${schema}`.slice(0, 63),
      ...toClientConfig(parsed),
      options: `-c search_path=${schema}`,
      types: TYPES,
      max: 8,
      connectionTimeoutMillis: 10_000,
    });
    // An idle client's connection dropping must not crash the process: the next query reports it.
    pool.on("error", () => undefined);
    const lockKey = BigInt.asIntN(64, BigInt("0x" + createHash("sha256").update(`forge:${schema}`).digest("hex").slice(0, 16))).toString();
    const backend = new PostgresBackend(redact(url), pool, where, lockKey);
    try {
      await backend.#retry(() =>
        backend.#withClient(async (client) => {
          try {
            // Under the store's lock: two processes opening a new store at once would
            // otherwise race on CREATE SCHEMA / CREATE TABLE IF NOT EXISTS.
            await client.query("BEGIN");
            await client.query("SELECT pg_advisory_xact_lock($1)", [lockKey]);
            // Before anything is created: never add Forge's tables to another program's schema.
            await requireForgeSchema(client, schema);
            await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
            await client.query("CREATE TABLE IF NOT EXISTS forge_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)");
            const done = (await client.query<{ v: number | null }>("SELECT max(version) AS v FROM forge_migrations")).rows[0]?.v ?? 0;
            if (done > MIGRATIONS.length) {
              throw new ForgeError("STORE_UNAVAILABLE", `the store's schema (version ${done}) is newer than this Forge knows (${MIGRATIONS.length})`, { hint: "upgrade forge-reasoning" });
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
        }),
      );
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw backend.wrap(e);
    }
    return backend;
  }

  /** A pg or network error as a Forge error; Forge's own errors pass through. */
  wrap(e: unknown): unknown {
    if (e instanceof ForgeError) return e;
    const code = (e as { code?: string }).code ?? "";
    if (code === "ECONNREFUSED" || code === "ENOENT" || code === "EHOSTUNREACH" || code === "ETIMEDOUT" || code === "ENOTFOUND" || /timeout/i.test((e as Error).message ?? "")) {
      return new ForgeError("STORE_UNAVAILABLE", `cannot reach PostgreSQL at ${this.#where}`, { hint: "is the server running?", cause: e });
    }
    if (code === "28P01" || code === "28000" || code === "3D000") {
      return new ForgeError("STORE_UNAVAILABLE", `PostgreSQL at ${this.#where} refused the connection: ${(e as Error).message}`, { hint: "check the user, password and database in the store URL", cause: e });
    }
    if (TRANSIENT.has(code)) {
      return new ForgeError("STORE_UNAVAILABLE", `lost the connection to PostgreSQL at ${this.#where}: ${(e as Error).message}`, { hint: "try again", cause: e });
    }
    return e;
  }

  /** Runs `op`, again after a short growing wait when the connection (not the statement) failed. */
  async #retry<T>(op: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await op();
      } catch (e) {
        const code = (e as { code?: string }).code ?? "";
        if (!TRANSIENT.has(code) || attempt >= RETRIES || e instanceof AmbiguousCommit) throw e instanceof AmbiguousCommit ? e.cause : e;
        await new Promise((r) => setTimeout(r, 50 * 2 ** attempt + Math.random() * 50));
      }
    }
  }

  async #query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.#retry(() => this.#pool.query<R>(text, values));
    } catch (e) {
      throw this.wrap(e);
    }
  }

  async putObjects(objects: readonly StoredObject[]): Promise<number> {
    let bytes = 0;
    const now = Date.now();
    for (let i = 0; i < objects.length; i += BATCH) {
      const part = objects.slice(i, i + BATCH);
      const r = await this.#query<{ size: number }>(
        `INSERT INTO forge_objects (hash, data, created_at)
         SELECT h, d, $3 FROM unnest($1::bytea[], $2::bytea[]) AS t (h, d)
         ON CONFLICT (hash) DO NOTHING RETURNING length(data) AS size`,
        [part.map((o) => Buffer.from(o.hash, "hex")), part.map((o) => Buffer.from(o.data.buffer, o.data.byteOffset, o.data.length)), now],
      );
      for (const row of r.rows) bytes += row.size;
    }
    return bytes;
  }

  async getObjects(hashes: readonly string[]): Promise<Map<string, Uint8Array>> {
    const out = new Map<string, Uint8Array>();
    for (let i = 0; i < hashes.length; i += BATCH) {
      const part = hashes.slice(i, i + BATCH);
      const r = await this.#query<{ hash: Buffer; data: Buffer }>("SELECT hash, data FROM forge_objects WHERE hash = ANY($1::bytea[])", [part.map((h) => Buffer.from(h, "hex"))]);
      for (const row of r.rows) out.set(row.hash.toString("hex"), row.data);
    }
    return out;
  }

  async hasObjects(hashes: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < hashes.length; i += BATCH) {
      const part = hashes.slice(i, i + BATCH);
      const r = await this.#query<{ hash: Buffer }>("SELECT hash FROM forge_objects WHERE hash = ANY($1::bytea[])", [part.map((h) => Buffer.from(h, "hex"))]);
      for (const row of r.rows) out.add(row.hash.toString("hex"));
    }
    return out;
  }

  async *listObjects(): AsyncIterable<ObjectInfo> {
    let after: Buffer = Buffer.alloc(0);
    for (;;) {
      const r = await this.#query<{ hash: Buffer; size: number; created_at: number }>(
        "SELECT hash, length(data) AS size, created_at FROM forge_objects WHERE hash > $1 ORDER BY hash LIMIT 1000",
        [after],
      );
      for (const row of r.rows) yield { hash: row.hash.toString("hex"), size: row.size, createdAt: row.created_at };
      const last = r.rows[r.rows.length - 1];
      if (!last || r.rows.length < 1000) return;
      after = last.hash;
    }
  }

  async countObjects(): Promise<number> {
    return (await this.#query<{ n: number }>("SELECT count(*)::bigint AS n FROM forge_objects")).rows[0]?.n ?? 0;
  }

  async corruptObjectForTesting(hash: string, data: Uint8Array): Promise<void> {
    await this.#query("UPDATE forge_objects SET data = $1 WHERE hash = $2", [Buffer.from(data), Buffer.from(hash, "hex")]);
  }

  async transaction<T>(fn: (tx: MetaWriter) => Promise<T>): Promise<T> {
    try {
      return await this.#retry(async () => {
        let committing = false;
        return this.#withClient(async (client) => {
          try {
            await client.query("BEGIN");
            await client.query("SELECT pg_advisory_xact_lock($1)", [this.#lockKey]);
            const result = await fn(new PgMeta(client, this));
            committing = true;
            await client.query("COMMIT");
            return result;
          } catch (e) {
            await client.query("ROLLBACK").catch(() => undefined);
            // A COMMIT that failed on the wire may have happened: never retried — unless
            // the write itself failed (EPIPE: the server had closed the connection before
            // it could receive the COMMIT, so it cannot have committed).
            throw committing && (e as { code?: string }).code !== "EPIPE" ? new AmbiguousCommit(e) : e;
          }
        });
      });
    } catch (e) {
      throw this.wrap(e);
    }
  }

  /**
   * Runs `fn` on a client of its own. A client whose connection failed is destroyed rather
   * than put back in the pool; and while checked out it has an "error" listener, because
   * an unheard "error" (the server ending the connection) would crash the process — the
   * query in flight rejects with it anyway.
   */
  async #withClient<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    const onError = (e: Error) => (broken = e);
    client.on("error", onError);
    try {
      return await fn(client);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === undefined || TRANSIENT.has(code)) broken ??= e as Error;
      throw e;
    } finally {
      client.off("error", onError);
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}

class AmbiguousCommit extends Error {
  constructor(override readonly cause: unknown) {
    super("commit outcome unknown");
  }
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/?#]*):[^@/?#]*@/, "$1:***@");
}

class PgMeta implements MetaWriter {
  readonly #db: Queryable;
  readonly #backend: PostgresBackend;

  constructor(db: Queryable, backend: PostgresBackend) {
    this.#db = db;
    this.#backend = backend;
  }

  async #q<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]> {
    try {
      return (await this.#db.query<R>(text, values)).rows;
    } catch (e) {
      throw this.#backend.wrap(e);
    }
  }

  async getSessionById(id: string): Promise<SessionRow | undefined> {
    return toSession((await this.#q<SessionRecord>("SELECT * FROM forge_sessions WHERE id = $1", [id]))[0]);
  }

  async getSessionByName(name: string): Promise<SessionRow | undefined> {
    return toSession((await this.#q<SessionRecord>("SELECT * FROM forge_sessions WHERE name = $1", [name]))[0]);
  }

  async listSessions(): Promise<SessionRow[]> {
    return (await this.#q<SessionRecord>("SELECT * FROM forge_sessions ORDER BY created_at, id")).map((r) => toSession(r) as SessionRow);
  }

  async getCheckpoint(id: string): Promise<CheckpointRow | undefined> {
    return toCheckpoint((await this.#q<CheckpointRecord>("SELECT * FROM forge_checkpoints WHERE id = $1", [id]))[0]);
  }

  async findCheckpointsByPrefix(prefix: string, limit: number, sessionId?: string): Promise<CheckpointRow[]> {
    const hi = prefix + "\x7f";
    const rows =
      sessionId === undefined
        ? await this.#q<CheckpointRecord>("SELECT * FROM forge_checkpoints WHERE id >= $1 AND id < $2 ORDER BY id LIMIT $3", [prefix, hi, limit])
        : await this.#q<CheckpointRecord>("SELECT * FROM forge_checkpoints WHERE id >= $1 AND id < $2 AND session_id = $3 ORDER BY id LIMIT $4", [prefix, hi, sessionId, limit]);
    return rows.map((r) => toCheckpoint(r) as CheckpointRow);
  }

  async getCheckpointBySeq(sessionId: string, seq: number): Promise<CheckpointRow | undefined> {
    return toCheckpoint((await this.#q<CheckpointRecord>("SELECT * FROM forge_checkpoints WHERE session_id = $1 AND seq = $2", [sessionId, seq]))[0]);
  }

  async listCheckpoints(q: CheckpointQuery): Promise<CheckpointRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const p = (v: unknown) => (params.push(v), `$${params.length}`);
    if (q.sessionId !== undefined) where.push(`session_id = ${p(q.sessionId)}`);
    if (q.branch !== undefined) where.push(`branch = ${p(q.branch)}`);
    if (q.tag !== undefined) where.push(`tags ? ${p(q.tag)}`);
    if (q.trigger !== undefined) where.push(`trigger = ${p(q.trigger)}`);
    if (q.since !== undefined) where.push(`created_at >= ${p(q.since)}`);
    if (q.until !== undefined) where.push(`created_at <= ${p(q.until)}`);
    const dir = q.order === "desc" ? "DESC" : "ASC";
    const order = q.sessionId === undefined ? `created_at ${dir}, id ${dir}` : `seq ${dir}`;
    let sql = `SELECT * FROM forge_checkpoints${where.length ? " WHERE " + where.join(" AND ") : ""} ORDER BY ${order}`;
    if (q.limit !== undefined) sql += ` LIMIT ${p(q.limit)}`;
    return (await this.#q<CheckpointRecord>(sql, params)).map((r) => toCheckpoint(r) as CheckpointRow);
  }

  async countCheckpoints(sessionId?: string): Promise<number> {
    const rows =
      sessionId === undefined
        ? await this.#q<{ n: number }>("SELECT count(*)::bigint AS n FROM forge_checkpoints")
        : await this.#q<{ n: number }>("SELECT count(*)::bigint AS n FROM forge_checkpoints WHERE session_id = $1", [sessionId]);
    return rows[0]?.n ?? 0;
  }

  async listRefs(sessionId: string): Promise<RefRow[]> {
    return (await this.#q<{ session_id: string; name: string; checkpoint_id: string }>("SELECT * FROM forge_refs WHERE session_id = $1 ORDER BY name", [sessionId])).map(
      (r) => ({ sessionId: r.session_id, name: r.name, checkpointId: r.checkpoint_id }),
    );
  }

  async getRef(sessionId: string, name: string): Promise<RefRow | undefined> {
    const r = (await this.#q<{ session_id: string; name: string; checkpoint_id: string }>("SELECT * FROM forge_refs WHERE session_id = $1 AND name = $2", [sessionId, name]))[0];
    return r ? { sessionId: r.session_id, name: r.name, checkpointId: r.checkpoint_id } : undefined;
  }

  async listMilestones(sessionId: string): Promise<MilestoneRow[]> {
    return (await this.#q<MilestoneRecord>("SELECT * FROM forge_milestones WHERE session_id = $1 ORDER BY created_at, name", [sessionId])).map(toMilestone);
  }

  async getMilestone(sessionId: string, name: string): Promise<MilestoneRow | undefined> {
    const r = (await this.#q<MilestoneRecord>("SELECT * FROM forge_milestones WHERE session_id = $1 AND name = $2", [sessionId, name]))[0];
    return r ? toMilestone(r) : undefined;
  }

  async listRoots(): Promise<string[]> {
    return (
      await this.#q<{ h: string }>(
        `SELECT state_root AS h FROM forge_checkpoints
         UNION SELECT files_root FROM forge_checkpoints WHERE files_root IS NOT NULL
         UNION SELECT work_root FROM forge_sessions WHERE work_root IS NOT NULL`,
      )
    ).map((r) => r.h);
  }

  async getGcEpoch(): Promise<number> {
    const r = (await this.#q<{ value: string }>("SELECT value FROM forge_meta WHERE key = 'gc_epoch'"))[0];
    return r ? Number(r.value) : 0;
  }

  async insertSession(row: SessionRow): Promise<void> {
    try {
      await this.#db.query(
        `INSERT INTO forge_sessions (id, name, kind, created_at, metadata, next_seq, head_branch, head_checkpoint, work_root, work_version)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [row.id, row.name, row.kind, row.createdAt, JSON.stringify(row.metadata), row.nextSeq, row.headBranch, row.headCheckpoint, row.workRoot, row.workVersion],
      );
    } catch (e) {
      if ((e as { code?: string }).code === "23505") throw new ForgeError("SESSION_EXISTS", `session "${row.name}" already exists`, { cause: e });
      throw this.#backend.wrap(e);
    }
  }

  async updateSession(id: string, patch: SessionPatch): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [];
    const p = (v: unknown) => (params.push(v), `$${params.length}`);
    if (patch.name !== undefined) sets.push(`name = ${p(patch.name)}`);
    if (patch.metadata !== undefined) sets.push(`metadata = ${p(JSON.stringify(patch.metadata))}`);
    if (patch.headBranch !== undefined) sets.push(`head_branch = ${p(patch.headBranch)}`);
    if (patch.headCheckpoint !== undefined) sets.push(`head_checkpoint = ${p(patch.headCheckpoint)}`);
    if (patch.workRoot !== undefined) sets.push(`work_root = ${p(patch.workRoot)}`);
    if (patch.workVersion !== undefined) sets.push(`work_version = ${p(patch.workVersion)}`);
    if (sets.length === 0) return;
    const r = await this.#q<{ id: string }>(`UPDATE forge_sessions SET ${sets.join(", ")} WHERE id = ${p(id)} RETURNING id`, params);
    if (r.length === 0) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${id}`);
  }

  async deleteSession(id: string): Promise<void> {
    await this.#q("DELETE FROM forge_sessions WHERE id = $1", [id]);
  }

  async allocateSeq(sessionId: string): Promise<number> {
    // One statement: the row lock makes concurrent writers take turns, and no seq repeats.
    const r = (await this.#q<{ seq: number }>("UPDATE forge_sessions SET next_seq = next_seq + 1 WHERE id = $1 RETURNING next_seq - 1 AS seq", [sessionId]))[0];
    if (!r) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${sessionId}`);
    return r.seq;
  }

  async insertCheckpoint(row: CheckpointRow): Promise<void> {
    try {
      await this.#db.query(
        `INSERT INTO forge_checkpoints (id, session_id, seq, parent_id, branch, created_at, message, tags, trigger, metadata,
           state_root, files_root, logical_bytes, new_bytes)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [
          row.id, row.sessionId, row.seq, row.parentId, row.branch, row.createdAt, row.message, JSON.stringify(row.tags), row.trigger,
          JSON.stringify(row.metadata), row.stateRoot, row.filesRoot, row.logicalBytes, row.newBytes,
        ],
      );
    } catch (e) {
      if ((e as { code?: string }).code === "23505") {
        throw new ForgeError("CONFLICT", `checkpoint ${row.id} (#${row.seq}) conflicts with one already stored: ${(e as Error).message}`, { cause: e });
      }
      throw this.#backend.wrap(e);
    }
    await this.#q("UPDATE forge_sessions SET next_seq = greatest(next_seq, $1) WHERE id = $2", [row.seq + 1, row.sessionId]);
  }

  async updateCheckpoint(id: string, patch: Partial<Pick<CheckpointRow, "tags" | "parentId" | "message" | "metadata">>): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [];
    const p = (v: unknown) => (params.push(v), `$${params.length}`);
    if (patch.tags !== undefined) sets.push(`tags = ${p(JSON.stringify(patch.tags))}`);
    if (patch.parentId !== undefined) sets.push(`parent_id = ${p(patch.parentId)}`);
    if (patch.message !== undefined) sets.push(`message = ${p(patch.message)}`);
    if (patch.metadata !== undefined) sets.push(`metadata = ${p(JSON.stringify(patch.metadata))}`);
    if (sets.length === 0) return;
    const r = await this.#q<{ id: string }>(`UPDATE forge_checkpoints SET ${sets.join(", ")} WHERE id = ${p(id)} RETURNING id`, params);
    if (r.length === 0) throw new ForgeError("CHECKPOINT_NOT_FOUND", `no checkpoint with id ${id}`);
  }

  async deleteCheckpoints(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.#q("DELETE FROM forge_checkpoints WHERE id = ANY($1::text[])", [ids]);
  }

  async setRef(sessionId: string, name: string, checkpointId: string): Promise<void> {
    await this.#q(
      "INSERT INTO forge_refs (session_id, name, checkpoint_id) VALUES ($1, $2, $3) ON CONFLICT (session_id, name) DO UPDATE SET checkpoint_id = excluded.checkpoint_id",
      [sessionId, name, checkpointId],
    );
  }

  async deleteRef(sessionId: string, name: string): Promise<void> {
    await this.#q("DELETE FROM forge_refs WHERE session_id = $1 AND name = $2", [sessionId, name]);
  }

  async setMilestone(row: MilestoneRow): Promise<void> {
    await this.#q(
      `INSERT INTO forge_milestones (session_id, name, from_id, to_id, description, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (session_id, name) DO UPDATE SET from_id = excluded.from_id, to_id = excluded.to_id,
         description = excluded.description, created_at = excluded.created_at`,
      [row.sessionId, row.name, row.fromId, row.toId, row.description, row.createdAt],
    );
  }

  async deleteMilestone(sessionId: string, name: string): Promise<void> {
    await this.#q("DELETE FROM forge_milestones WHERE session_id = $1 AND name = $2", [sessionId, name]);
  }

  async bumpGcEpoch(): Promise<number> {
    const r = await this.#q<{ value: string }>(
      `INSERT INTO forge_meta (key, value) VALUES ('gc_epoch', '1')
       ON CONFLICT (key) DO UPDATE SET value = (forge_meta.value::bigint + 1)::text RETURNING value`,
    );
    return Number(r[0]?.value ?? 1);
  }

  async deleteObjects(hashes: readonly string[], createdBefore: number): Promise<DeletedObjects> {
    let count = 0;
    let bytes = 0;
    for (let i = 0; i < hashes.length; i += BATCH) {
      // The age check is in the statement itself: an object a writer just (re)wrote stays.
      const r = await this.#q<{ size: number }>(
        "DELETE FROM forge_objects WHERE hash = ANY($1::bytea[]) AND created_at < $2 RETURNING length(data) AS size",
        [hashes.slice(i, i + BATCH).map((h) => Buffer.from(h, "hex")), createdBefore],
      );
      count += r.length;
      for (const row of r) bytes += row.size;
    }
    return { count, bytes };
  }
}

interface MilestoneRecord {
  session_id: string;
  name: string;
  from_id: string;
  to_id: string;
  description: string;
  created_at: number;
}

function toMilestone(r: MilestoneRecord): MilestoneRow {
  return { sessionId: r.session_id, name: r.name, fromId: r.from_id, toId: r.to_id, description: r.description, createdAt: r.created_at };
}

function toSession(r: SessionRecord | undefined): SessionRow | undefined {
  if (!r) return undefined;
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    createdAt: r.created_at,
    metadata: r.metadata,
    nextSeq: r.next_seq,
    headBranch: r.head_branch,
    headCheckpoint: r.head_checkpoint,
    workRoot: r.work_root,
    workVersion: r.work_version,
  };
}

function toCheckpoint(r: CheckpointRecord | undefined): CheckpointRow | undefined {
  if (!r) return undefined;
  return {
    id: r.id,
    sessionId: r.session_id,
    seq: r.seq,
    parentId: r.parent_id,
    branch: r.branch,
    createdAt: r.created_at,
    message: r.message,
    tags: r.tags,
    trigger: r.trigger,
    metadata: r.metadata,
    stateRoot: r.state_root,
    filesRoot: r.files_root,
    logicalBytes: r.logical_bytes,
    newBytes: r.new_bytes,
  };
}
