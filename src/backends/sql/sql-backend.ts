// What every SQL backend does the same way over its dialect and connection: the object
// reads and the metadata reader. A backend adds its driver: opening, object writes and
// transactions (a `SqlMeta` over the connection holding the transaction), closing.
import type { Backend, MetaReader, MetaWriter, ObjectInfo, StoredObject } from "../backend.js";
import type { SqlConnection } from "./connection.js";
import { listParts, type SqlDialect } from "./dialect.js";
import { hashKey } from "./rows.js";
import { SqlMeta } from "./sql-meta.js";
import { SqlSearch } from "./sql-search.js";
import { OBJECT_PAGE, statementsFor, type Statements } from "./statements.js";

export abstract class SqlBackend implements Backend {
  abstract readonly url: string;
  readonly meta: MetaReader;
  readonly search: SqlSearch;
  readonly #d: SqlDialect;
  readonly #db: SqlConnection;
  readonly #s: Statements;
  /** The object read (the dialect's `objectsAt`), rendered once. */
  readonly #objectsAt: string;

  /** `db` runs the reads outside transactions. */
  protected constructor(dialect: SqlDialect, db: SqlConnection) {
    this.#d = dialect;
    this.#db = db;
    this.#s = statementsFor(dialect);
    this.#objectsAt = dialect.placeholders(dialect.objectsAt(dialect.tables.objects));
    this.meta = new SqlMeta(dialect, db);
    this.search = new SqlSearch(dialect, dialect.search, db);
  }

  abstract putObjects(objects: readonly StoredObject[]): Promise<number>;
  abstract transaction<T>(fn: (tx: MetaWriter) => Promise<T>): Promise<T>;
  abstract close(): Promise<void>;

  async getObjects(hashes: readonly string[]): Promise<Map<string, Uint8Array>> {
    const out = new Map<string, Uint8Array>();
    for (const part of listParts(this.#d, hashes)) {
      const rows = await this.#db.all<{ i: number; data: Buffer }>(this.#objectsAt, [this.#d.listParam(part, "hash")]);
      for (const r of rows) out.set(part[r.i] as string, r.data);
    }
    return out;
  }

  async hasObjects(hashes: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (const part of listParts(this.#d, hashes)) {
      const rows = await this.#db.all<{ hash: Buffer }>(this.#s.hasObjects, [this.#d.listParam(part, "hash")]);
      for (const r of rows) out.add(r.hash.toString("hex"));
    }
    return out;
  }

  async *listObjects(): AsyncIterable<ObjectInfo> {
    // Pages by key so no cursor stays open while the caller works.
    let after: Buffer = Buffer.alloc(0);
    for (;;) {
      const rows = await this.#db.all<{ hash: Buffer; size: number; created_at: number }>(this.#s.listObjects, [after]);
      for (const r of rows) yield { hash: r.hash.toString("hex"), size: r.size, createdAt: r.created_at };
      const last = rows[rows.length - 1];
      if (!last || rows.length < OBJECT_PAGE) return;
      after = last.hash;
    }
  }

  async countObjects(): Promise<number> {
    return (await this.#db.get<{ n: number }>(this.#s.countObjects))?.n ?? 0;
  }

  async corruptObjectForTesting(hash: string, data: Uint8Array): Promise<void> {
    await this.#db.run(this.#s.corruptObject, [Buffer.from(data), hashKey(hash)]);
  }

  /** The metadata writer of a transaction held on `db`; the driver calls its `settle()` before COMMIT and `discard()` after ROLLBACK. */
  protected writer(db: SqlConnection): SqlMeta {
    return new SqlMeta(this.#d, db);
  }
}
