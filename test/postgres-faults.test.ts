// PostgreSQL connection faults, made real on the test server: the server terminates
// Forge's connections (pg_terminate_backend, as a failover or an admin would) while
// they are idle and while a write transaction is in flight. Forge retries what failed
// before COMMIT, and the store ends with every checkpoint exactly once, seqs gapless.
import pg from "pg";
import { parse, toClientConfig } from "pg-connection-string";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type Store } from "../src/index.js";
import { dropSchema, pgStoreUrl } from "./support/postgres.js";

const opened: { store: Store; url: string }[] = [];
afterEach(async () => {
  for (const { store, url } of opened.splice(0)) {
    await store.close().catch(() => undefined);
    await dropSchema(url);
  }
});

async function open(label: string): Promise<Store> {
  const url = pgStoreUrl(label);
  const store = await openStore(url);
  opened.push({ store, url });
  return store;
}

/** A plain client on the test server (not through Forge). */
async function admin(url: string): Promise<pg.Client> {
  const config = parse(url);
  delete config.schema;
  const client = new pg.Client({ ...toClientConfig(config), application_name: "forge-test-admin" });
  await client.connect();
  return client;
}

/** Terminates the connections of the store at `url` (Forge names them forge:<schema>), and no others. */
async function terminateStore(client: pg.Client, url: string): Promise<number> {
  const r = await client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [`forge:${String(parse(url).schema)}`]);
  return r.rowCount ?? 0;
}

describe("postgres connection faults", () => {
  it("connections the server terminated while idle are replaced: the next checkpoints just work", async () => {
    const store = await open("faults");
    const session = await store.session("s");
    for (let i = 1; i <= 3; i++) await session.checkpoint({ i });
    const url = opened[0]?.url ?? "";
    const client = await admin(url);
    try {
      expect(await terminateStore(client, url)).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
    for (let i = 4; i <= 6; i++) await session.checkpoint({ i });
    const list = await session.list();
    expect(list.map((c) => c.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await session.state("HEAD")).toEqual({ i: 6 });
  });

  it("a write transaction whose connection is terminated before COMMIT is retried and commits exactly once", async () => {
    const store = await open("faults_tx");
    const session = await store.session("s");
    await session.checkpoint({ i: 1 });
    const url = opened[0]?.url ?? "";
    const client = await admin(url);
    try {
      // Hold the store's advisory lock, so Forge's next write waits inside its transaction.
      const schema = String(parse(url).schema);
      const { createHash } = await import("node:crypto");
      const key = BigInt.asIntN(64, BigInt("0x" + createHash("sha256").update(`forge:${schema}`).digest("hex").slice(0, 16))).toString();
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock($1)", [key]);
      const write = session.checkpoint({ i: 2 });
      // Wait until Forge's connection is blocked on the lock, then kill it.
      for (let tries = 0; ; tries++) {
        const waiting = await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = $1", [
          `forge:${schema}`,
        ]);
        if ((waiting.rows[0] as { n: number }).n > 0) break;
        if (tries > 200) throw new Error("Forge's write never waited for the lock");
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(await terminateStore(client, url)).toBeGreaterThan(0);
      await client.query("COMMIT"); // release the lock: the retry can go through
      const cp = await write;
      expect(cp.seq).toBe(2);
    } finally {
      await client.end();
    }
    const list = await session.list();
    expect(list.map((c) => [c.seq, c.parentId])).toEqual([
      [1, null],
      [2, list[0]?.id],
    ]);
    expect((await store.fsck()).ok).toBe(true);
  });

  it("eight stores opening one new schema at once all create it together, without a race", async () => {
    const url = pgStoreUrl("race");
    const stores = await Promise.all(Array.from({ length: 8 }, () => openStore(url)));
    try {
      await Promise.all(stores.map(async (s, i) => (await s.session("s")).checkpoint({ i })));
      const seqs = (await (await stores[0]!.getSession("s")).list()).map((c) => c.seq);
      expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await dropSchema(url);
    }
  });

  it("a server that goes away for good is STORE_UNAVAILABLE naming host and port, not a hang", async () => {
    const store = await openStore("postgres://forge@127.0.0.1:1/none").catch((e: unknown) => e);
    expect(store).toMatchObject({ code: "STORE_UNAVAILABLE", message: "cannot reach PostgreSQL at 127.0.0.1:1" });
  });
});
