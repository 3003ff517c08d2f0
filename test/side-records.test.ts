// Side records of a session (Session.putSideRecords, SQLite: written in one synchronous
// transaction): read back by scope then key; a record marked `replace` overwrites, any other
// leaves a stored one; every string of a record passes redaction; long values come back
// whole; a deleted session's records are refused with SESSION_NOT_FOUND and nothing is
// written; a store that keeps none says so.
import { describe, expect, it } from "vitest";
import { openStore, type Store } from "../src/timeline/store.js";
import { makeTempDir } from "./support/temp.js";

async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const dir = makeTempDir("side-records");
  const store = await openStore(`sqlite:${dir.path}/forge.db`);
  try {
    return await fn(store);
  } finally {
    await store.close();
    dir.remove();
  }
}

const TOKEN = `ghp_${"aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY2zA4"}`;

describe("side records", () => {
  it("come back by scope then key, of one scope or all", async () => {
    await withStore(async (store) => {
      const s = await store.session("s");
      await s.putSideRecords([
        { scope: "b", key: "2", value: { n: 2 } },
        { scope: "a", key: "9", value: [1, "x", null] },
      ]);
      await s.putSideRecords([{ scope: "b", key: "1", value: "one" }]);
      expect(await s.sideRecords()).toEqual([
        { scope: "a", key: "9", value: [1, "x", null] },
        { scope: "b", key: "1", value: "one" },
        { scope: "b", key: "2", value: { n: 2 } },
      ]);
      expect((await s.sideRecords("b")).map((r) => r.key)).toEqual(["1", "2"]);
      // Another session's records are its own.
      const t = await store.session("t");
      expect(await t.sideRecords()).toEqual([]);
    });
  });

  it("keep a stored record unless the new one replaces", async () => {
    await withStore(async (store) => {
      const s = await store.session("s");
      await s.putSideRecords([{ scope: "w", key: "k", value: "first" }]);
      await s.putSideRecords([{ scope: "w", key: "k", value: "second" }]);
      expect((await s.sideRecords("w"))[0]?.value).toBe("first");
      await s.putSideRecords([{ scope: "w", key: "k", value: "third", replace: true }]);
      expect((await s.sideRecords("w"))[0]?.value).toBe("third");
    });
  });

  it("are redacted in their value, scope and key", async () => {
    await withStore(async (store) => {
      const s = await store.session("s");
      await s.putSideRecords([{ scope: `scope ${TOKEN}`, key: `key ${TOKEN}`, value: { text: `use ${TOKEN} here`, [TOKEN]: 1 } }]);
      const [r] = await s.sideRecords();
      expect(JSON.stringify(r)).not.toContain(TOKEN);
      expect(r?.scope).toBe("scope [REDACTED:github-pat]");
      expect(r?.value).toEqual({ text: "use [REDACTED:github-pat] here", "[REDACTED:github-pat]": 1 });
    });
  });

  it("hold long values whole", async () => {
    await withStore(async (store) => {
      const s = await store.session("s");
      const long = { text: "long value ".repeat(2_000), list: Array.from({ length: 500 }, (_, i) => i) };
      await s.putSideRecords([{ scope: "x", key: "long", value: long }]);
      expect((await s.sideRecords("x"))[0]?.value).toEqual(long);
    });
  });

  it("of a deleted session are refused, and none of them is written", async () => {
    await withStore(async (store) => {
      const s = await store.session("gone");
      await store.deleteSession("gone");
      await expect(
        s.putSideRecords([
          { scope: "a", key: "1", value: 1 },
          { scope: "a", key: "2", value: 2 },
        ]),
      ).rejects.toMatchObject({ code: "SESSION_NOT_FOUND" });
      // The store takes writes as before.
      const again = await store.session("gone");
      await again.putSideRecords([{ scope: "a", key: "3", value: 3 }]);
      expect(await again.sideRecords()).toEqual([{ scope: "a", key: "3", value: 3 }]);
    });
  });

  it("are not kept by a memory store, which says so", async () => {
    const store = await openStore("memory:");
    try {
      const s = await store.session("s");
      expect(store.keepsSideRecords).toBe(false);
      await expect(s.putSideRecords([{ scope: "a", key: "1", value: 1 }])).rejects.toMatchObject({ code: "UNSUPPORTED" });
    } finally {
      await store.close();
    }
  });
});
