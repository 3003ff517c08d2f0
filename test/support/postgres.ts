// The PostgreSQL server of this test run (started by test/setup/postgres.global.ts), and a
// fresh schema per store so tests never see each other's data.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { parse, toClientConfig } from "pg-connection-string";
import { inject } from "vitest";

/** The server URL; throws (failing the test, never skipping it) when the server did not start. */
export function pgUrl(): string {
  const error = inject("pgError");
  if (error) throw new Error(`the test PostgreSQL server did not start: ${error}`);
  return inject("pgUrl");
}

/** A store URL on the test server in a schema of its own. */
export function pgStoreUrl(label = "t"): string {
  const url = pgUrl();
  return `${url}${url.includes("?") ? "&" : "?"}schema=${label}_${randomBytes(6).toString("hex")}`;
}

/** Drops the schema a store URL names (tests clean up after themselves). */
export async function dropSchema(storeUrl: string): Promise<void> {
  const config = parse(storeUrl);
  const schema = config.schema;
  if (typeof schema !== "string" || schema === "") return;
  delete config.schema;
  const client = new pg.Client(toClientConfig(config));
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
