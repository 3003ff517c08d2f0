// A better-sqlite3 connection as the shared SQL layer's `SqlConnection`: synchronous calls
// behind resolved promises, and every statement prepared once per connection, found again
// by its text (the shared layer's statements are fixed strings, rendered once).
import type Database from "better-sqlite3";
import type { SqlConnection } from "../sql/connection.js";

export class SqliteConnection implements SqlConnection {
  readonly db: Database.Database;
  readonly #prepared = new Map<string, Database.Statement>();

  constructor(db: Database.Database) {
    this.db = db;
  }

  /** The statement prepared for `sql` on this connection (prepared on first use). */
  prepared(sql: string): Database.Statement {
    let st = this.#prepared.get(sql);
    if (!st) this.#prepared.set(sql, (st = this.db.prepare(sql)));
    return st;
  }

  async all<R>(sql: string, params: readonly unknown[] = NONE): Promise<R[]> {
    return this.prepared(sql).all(...params) as R[];
  }

  async get<R>(sql: string, params: readonly unknown[] = NONE): Promise<R | undefined> {
    return this.prepared(sql).get(...params) as R | undefined;
  }

  async run(sql: string, params: readonly unknown[] = NONE): Promise<number> {
    return this.prepared(sql).run(...params).changes;
  }
}

const NONE: readonly unknown[] = [];
