// pg as the shared SQL layer's `SqlConnection`, and what PostgreSQL's driver knows of
// failures: which errors are the connection's (worth another try), how they read as Forge
// errors naming host and port, and the rule that a COMMIT of unknown outcome is never replayed.
import type pg from "pg";
import { ForgeError } from "../../core/errors.js";
import type { SqlConnection } from "../sql/connection.js";

/** What a connection needs of a pg client or pool. */
export interface Queryable {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

const RETRIES = 4;
/** Error codes worth another try: the connection, not the statement, failed. */
const TRANSIENT = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08003",
  "08006",
  "08001",
  "08004",
  "40001",
  "40P01",
]);

/** Whether `e` is a failure of the connection rather than of the statement. */
export function isTransient(e: unknown): boolean {
  return TRANSIENT.has((e as { code?: string }).code ?? "");
}

/** A COMMIT that failed on the wire: it may have happened, so it is never retried. */
export class AmbiguousCommit extends Error {
  constructor(override readonly cause: unknown) {
    super("commit outcome unknown");
  }
}

/** Runs `op`, again after a short growing wait when the connection (not the statement) failed. */
export async function retryConnection<T>(op: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (e) {
      if (!isTransient(e) || attempt >= RETRIES || e instanceof AmbiguousCommit) throw e instanceof AmbiguousCommit ? e.cause : e;
      await new Promise((r) => setTimeout(r, 50 * 2 ** attempt + Math.random() * 50));
    }
  }
}

/** A pg or network error as a Forge error naming the server at `where`; Forge's own errors and statement errors pass through. */
export function pgError(e: unknown, where: string): unknown {
  if (e instanceof ForgeError) return e;
  const code = (e as { code?: string }).code ?? "";
  if (
    code === "ECONNREFUSED" ||
    code === "ENOENT" ||
    code === "EHOSTUNREACH" ||
    code === "ETIMEDOUT" ||
    code === "ENOTFOUND" ||
    /timeout/i.test((e as Error).message ?? "")
  ) {
    return new ForgeError("STORE_UNAVAILABLE", `cannot reach PostgreSQL at ${where}`, { hint: "is the server running?", cause: e });
  }
  if (code === "28P01" || code === "28000" || code === "3D000") {
    return new ForgeError("STORE_UNAVAILABLE", `PostgreSQL at ${where} refused the connection: ${(e as Error).message}`, {
      hint: "check the user, password and database in the store URL",
      cause: e,
    });
  }
  if (TRANSIENT.has(code)) {
    return new ForgeError("STORE_UNAVAILABLE", `lost the connection to PostgreSQL at ${where}: ${(e as Error).message}`, { hint: "try again", cause: e });
  }
  return e;
}

/**
 * Statements on a pool (each on whichever client is free, retried when the connection
 * failed) or on one client holding a transaction (never retried alone: the transaction is).
 * Failures come out as `pgError` makes them.
 */
export class PgConnection implements SqlConnection {
  readonly #db: Queryable;
  readonly #where: string;
  readonly #retry: boolean;

  constructor(db: Queryable, where: string, options: { retry: boolean }) {
    this.#db = db;
    this.#where = where;
    this.#retry = options.retry;
  }

  async all<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return (await this.query(sql, params)).rows as R[];
  }

  async get<R>(sql: string, params: readonly unknown[] = []): Promise<R | undefined> {
    return (await this.query(sql, params)).rows[0] as R | undefined;
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return (await this.query(sql, params)).rowCount ?? 0;
  }

  /** Runs one statement (for the driver's own, PostgreSQL-only statements). */
  async query<R extends pg.QueryResultRow>(sql: string, params: readonly unknown[] = []): Promise<pg.QueryResult<R>> {
    const values = params as unknown[];
    try {
      return await (this.#retry ? retryConnection(() => this.#db.query<R>(sql, values)) : this.#db.query<R>(sql, values));
    } catch (e) {
      throw pgError(e, this.#where);
    }
  }
}
