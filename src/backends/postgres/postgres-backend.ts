// `postgres://…` — one store shared by many processes on many machines, through `pg`.
//
// Every metadata write transaction first takes a transaction-level advisory lock (one per
// store), so writers are serialised across machines as SQLite's BEGIN IMMEDIATE serialises
// them on one: seq allocation, branch moves and gc's sweep can never interleave. Objects
// are inserted idempotently (ON CONFLICT DO NOTHING) outside that lock. Connection failures
// become STORE_UNAVAILABLE naming host and port; transient ones before a transaction commits
// are retried with bounded backoff, and a transaction either commits whole or not at all.
// The SQL itself is the shared layer's (../sql/); this file opens the pool, writes objects
// and holds transactions.
import { createHash } from "node:crypto";
import pg from "pg";
import { parse, toClientConfig } from "pg-connection-string";
import { ForgeError } from "../../core/errors.js";
import type { MetaWriter, StoredObject } from "../backend.js";
import { hashKey } from "../sql/rows.js";
import { SqlBackend } from "../sql/sql-backend.js";
import { AmbiguousCommit, PgConnection, isTransient, pgError, retryConnection } from "./postgres-connection.js";
import { postgresDialect } from "./postgres-dialect.js";
import { migrate } from "./postgres-schema.js";

/** bigint columns (OID 20) as numbers: Forge's are milliseconds and byte counts, far below 2^53. */
const TYPES = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format ?? "text")) as typeof pg.types.getTypeParser,
};

export class PostgresBackend extends SqlBackend {
  readonly url: string;
  readonly #pool: pg.Pool;
  /** The pool as a connection: each statement on a free client, retried when the connection failed. */
  readonly #db: PgConnection;
  readonly #where: string;
  readonly #lockKey: string;

  private constructor(url: string, pool: pg.Pool, where: string, lockKey: string) {
    const db = new PgConnection(pool, where, { retry: true });
    super(postgresDialect, db);
    this.url = url;
    this.#pool = pool;
    this.#db = db;
    this.#where = where;
    this.#lockKey = lockKey;
  }

  /** Connects, creates the schema if needed and applies migrations. */
  /** Opens (and migrates) the store in the URL's schema; with `create: false` a schema without Forge's tables is NO_STORE, and nothing is made. */
  static async open(url: string, options: { readonly create?: boolean } = {}): Promise<PostgresBackend> {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(url);
    } catch (e) {
      throw new ForgeError("INVALID_STORE_URL", `cannot parse the PostgreSQL store URL: ${(e as Error).message}`, {
        hint: "postgres://user:password@host:5432/database?schema=forge",
      });
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
      await retryConnection(() => backend.#withClient((client) => migrate(client, schema, lockKey, options.create ?? true, redact(url))));
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw pgError(e, where);
    }
    return backend;
  }

  async putObjects(objects: readonly StoredObject[]): Promise<number> {
    let bytes = 0;
    const now = Date.now();
    for (let i = 0; i < objects.length; i += postgresDialect.maxListLength) {
      const part = objects.slice(i, i + postgresDialect.maxListLength);
      const r = await this.#db.query<{ size: number }>(
        `INSERT INTO forge_objects (hash, data, created_at)
         SELECT h, d, $3 FROM unnest($1::bytea[], $2::bytea[]) AS t (h, d)
         ON CONFLICT (hash) DO NOTHING RETURNING length(data) AS size`,
        [part.map((o) => hashKey(o.hash)), part.map((o) => Buffer.from(o.data.buffer, o.data.byteOffset, o.data.length)), now],
      );
      for (const row of r.rows) bytes += row.size;
    }
    return bytes;
  }

  async transaction<T>(fn: (tx: MetaWriter) => Promise<T>): Promise<T> {
    try {
      return await retryConnection(async () => {
        let committing = false;
        return this.#withClient(async (client) => {
          try {
            await client.query("BEGIN");
            await client.query("SELECT pg_advisory_xact_lock($1)", [this.#lockKey]);
            const tx = this.writer(new PgConnection(client, this.#where, { retry: false }));
            const result = await fn(tx);
            await tx.settle();
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
      throw pgError(e, this.#where);
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
      if (code === undefined || isTransient(e)) broken ??= e as Error;
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

/** The URL without its password, for messages. */
function redact(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/?#]*):[^@/?#]*@/, "$1:***@");
}
