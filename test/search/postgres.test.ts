// Search on a PostgreSQL store: a schema written before migration 4 gains the index on open
// and is indexed by its first search; `forge search` against the server from the CLI.
import pg from "pg";
import { parse, toClientConfig } from "pg-connection-string";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/index.js";
import { forge, json } from "../support/cli.js";
import { dropSchema, pgStoreUrl } from "../support/postgres.js";
import { makeTempDir } from "../support/temp.js";

const urls: string[] = [];
afterAll(async () => {
  for (const url of urls) await dropSchema(url);
});

async function sql(url: string, text: string): Promise<void> {
  const config = parse(url);
  delete config.schema;
  const client = new pg.Client(toClientConfig(config));
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

describe("search on PostgreSQL", () => {
  it("a schema written before the index gets it on open, and its first search indexes every checkpoint", async () => {
    const url = pgStoreUrl("search");
    urls.push(url);
    const schema = String(parse(url).schema);
    const first = await openStore(url);
    const s = await first.session("s");
    await s.checkpoint({ log: "read ECONNRESET from 10.0.0.7" }, { message: "one" });
    await s.checkpoint({ log: "read ECONNRESET from 10.0.0.7", fix: "tensor shape mismatch in layer 12" }, { message: "two" });
    await first.close();
    await sql(
      url,
      `DROP TABLE "${schema}".forge_search_marks, "${schema}".forge_search_postings, "${schema}".forge_search_docs;
       DELETE FROM "${schema}".forge_migrations WHERE version > 3`,
    );
    const again = await openStore(url);
    try {
      const r = await again.search("econnreset", { order: "first" });
      expect(r.indexed).toBe(2);
      expect(r.results.map((h) => [h.first.seq, h.last.seq, h.where])).toEqual([[1, 2, "log"]]);
      expect((await again.search('"shape mismatch"')).results.map((h) => h.first.seq)).toEqual([2]);
      expect(await again.searchIndexStats()).toMatchObject({ engine: "postgres-tsvector", checkpoints: 2 });
    } finally {
      await again.close();
    }
  });

  it("forge search runs against the server", async () => {
    const url = pgStoreUrl("search");
    urls.push(url);
    const dir = makeTempDir("search-pg");
    try {
      expect(forge(dir.path, ["init", "--store", url]).code).toBe(0);
      expect(forge(dir.path, ["note", "the tensor shape mismatch is in layer 12"]).code).toBe(0);
      expect(forge(dir.path, ["checkpoint", "create", "noted"]).code).toBe(0);
      const r = json<{ results: { first: { seq: number }; kind: string }[] }>(forge(dir.path, ["search", "tensor shape", "--first", "--json"]));
      expect(r.results.map((h) => [h.first.seq, h.kind])).toEqual([[1, "reasoning"]]);
    } finally {
      dir.remove();
    }
  });
});
