// `forge` against a PostgreSQL store, as a team sharing one server uses it: `forge init
// --store postgres://…` applies the schema and remembers the URL; another folder pointed at
// the same URL sees the same checkpoints; an unreachable server is one clear line.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { parse, toClientConfig } from "pg-connection-string";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forge } from "./support/cli.js";
import { dropSchema, pgStoreUrl } from "./support/postgres.js";

describe("forge CLI on a PostgreSQL store", () => {
  let url: string;
  const a = mkdtempSync(join(tmpdir(), "forge-pgcli-a-"));
  const b = mkdtempSync(join(tmpdir(), "forge-pgcli-b-"));

  beforeAll(() => {
    url = pgStoreUrl("cli");
  });
  afterAll(async () => {
    if (url) await dropSchema(url);
  });

  it("init --store applies the migrations and writes the URL into .forge/config.json, keeping other settings", async () => {
    const cfgDir = join(a, ".forge");
    mkdirSync(cfgDir, { recursive: true });
    writeFileSync(join(cfgDir, "config.json"), JSON.stringify({ workspace: { keepLast: 7 } }));
    const r = forge(a, ["init", "--store", url]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/Forge store .*\(postgres\)/);
    expect(JSON.parse(readFileSync(join(cfgDir, "config.json"), "utf8"))).toEqual({ workspace: { keepLast: 7 }, store: url });

    const config = parse(url);
    const schema = String(config.schema);
    delete config.schema;
    const client = new pg.Client(toClientConfig(config));
    await client.connect();
    try {
      const versions = await client.query(`SELECT version FROM "${schema}".forge_migrations ORDER BY version`);
      expect(versions.rows.length).toBeGreaterThan(0);
      const tables = await client.query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name", [schema]);
      expect(tables.rows.map((t: { table_name: string }) => t.table_name)).toEqual(
        expect.arrayContaining(["forge_checkpoints", "forge_objects", "forge_sessions"]),
      );
    } finally {
      await client.end();
    }
  });

  it("a checkpoint made in one folder is listed and restored from another folder on the same URL", () => {
    writeFileSync(join(a, "s.json"), JSON.stringify({ plan: ["é", 2, { deep: true }] }));
    const made = forge(a, ["checkpoint", "create", "shared", "--state", "s.json", "--json"]);
    expect(made.stderr).toBe("");
    const id = (JSON.parse(made.stdout) as { checkpoint: { id: string } }).checkpoint.id;
    const listed = forge(b, ["checkpoint", "list", "--json"], { env: { FORGE_STORE: url } });
    expect((JSON.parse(listed.stdout) as { checkpoints: { id: string }[] }).checkpoints.map((c) => c.id)).toEqual([id]);
    const out = forge(b, ["checkpoint", "restore", id, "--output", "o.json"], { env: { FORGE_STORE: url } });
    expect(out.stderr).toBe("");
    expect(JSON.parse(readFileSync(join(b, "o.json"), "utf8"))).toEqual({ plan: ["é", 2, { deep: true }] });
  });

  it("an unreachable server is one line naming host and port, and init leaves no .forge behind", () => {
    const dir = mkdtempSync(join(tmpdir(), "forge-pgcli-c-"));
    const r = forge(dir, ["init", "--store", "postgres://forge@127.0.0.1:1/none"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^forge: cannot reach PostgreSQL at 127\.0\.0\.1:1 \(is the server running\?\)/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, ".forge"))).toBe(false);
  });

  it("a bad schema name in the URL is refused by name", () => {
    const r = forge(b, ["checkpoint", "list"], { env: { FORGE_STORE: `${url.replace(/schema=[^&]+/, "schema=bad-name;drop")}` } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/invalid schema "bad-name;drop"/);
  });
});
