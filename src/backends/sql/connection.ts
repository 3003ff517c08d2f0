// The one thing the shared SQL layer needs of a driver: run a statement on a connection.
// Async so a network driver fits; a synchronous one (better-sqlite3) resolves at once.

/**
 * A connection (or a pool that hands one out per statement) on which statements run in
 * order. Statements come in the dialect's placeholder form; parameters are bound by position.
 */
export interface SqlConnection {
  /** Runs a statement and returns every row it produced (a SELECT, or a write with RETURNING). */
  all<R>(sql: string, params?: readonly unknown[]): Promise<R[]>;

  /** Runs a statement and returns its first row, or undefined when it produced none. */
  get<R>(sql: string, params?: readonly unknown[]): Promise<R | undefined>;

  /** Runs a statement that returns no rows; resolves to how many rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}
