// On SQLite a small change's new objects are written in the transaction that commits the
// checkpoint or working state referring to them (Backend.objectsInTransaction), and the object
// store counts on them only once that transaction committed. So a write refused inside its
// transaction (a stale version, a gc in between) leaves none of its objects behind and none
// believed stored: the next write stores what it needs, and a fresh reader reads every state.
import { describe, expect, it } from "vitest";
import { openStore, type Store } from "../src/timeline/store.js";
import { makeTempDir } from "./support/temp.js";

async function objectCount(store: Store): Promise<number> {
  return (await store.fsck()).objects;
}

describe("objects written with their commit", () => {
  it("are neither stored nor counted on when the commit is refused", async () => {
    const dir = makeTempDir("objects-in-tx");
    const url = `sqlite:${dir.path}/forge.db`;
    const store = await openStore(url);
    try {
      const s = await store.session("s");
      const list = Array.from({ length: 40 }, (_, i) => ({ i, text: `item ${i} `.repeat(30) }));
      const first = await s.setWorking({ list }, { checkpoint: { message: "first", trigger: "test" } });
      const before = await objectCount(store);
      list.push({ i: 40, text: "a new item ".repeat(30) });
      // A stale version: refused inside the transaction, after its objects were packed for it.
      await expect(s.setWorking({ list }, { expectedVersion: first.version - 1, checkpoint: { message: "stale", trigger: "test" } })).rejects.toMatchObject({
        code: "CONFLICT",
      });
      expect(await objectCount(store)).toBe(before);
      // The same state again, at the right version: its objects are written now.
      const second = await s.setWorking({ list }, { expectedVersion: first.version, checkpoint: { message: "second", trigger: "test" } });
      expect(second.checkpoint?.sizes.newBytes).toBeGreaterThan(0);
      expect(await objectCount(store)).toBeGreaterThan(before);
      const reader = await openStore(url);
      try {
        const r = await reader.getSession("s");
        expect((await r.working())?.state).toEqual({ list });
        expect(await reader.fsck()).toMatchObject({ missing: [], corrupt: [] });
        expect((await reader.fsck()).ok).toBe(true);
      } finally {
        await reader.close();
      }
    } finally {
      await store.close();
      dir.remove();
    }
  });

  it("are written again when another process's gc deleted objects this one believed stored", async () => {
    const dir = makeTempDir("objects-in-tx");
    const url = `sqlite:${dir.path}/forge.db`;
    const store = await openStore(url);
    const other = await openStore(url);
    try {
      const s = await store.session("s");
      const x = { notes: Array.from({ length: 30 }, (_, i) => `note ${i} `.repeat(40)) };
      const y = { notes: ["something else entirely"] };
      // x's objects stored, then garbage once y replaces it (no checkpoint holds x).
      await s.setWorking(x);
      await s.setWorking(y);
      expect((await other.gc({ graceMs: 0 })).deleted).toBeGreaterThan(0);
      // This process still believes x's objects stored: its first attempt is refused and the next writes them.
      await s.setWorking(x, { checkpoint: { message: "x again", trigger: "test" } });
      const reader = await openStore(url);
      try {
        expect((await (await reader.getSession("s")).working())?.state).toEqual(x);
        expect(await reader.fsck()).toMatchObject({ ok: true, missing: [] });
      } finally {
        await reader.close();
      }
    } finally {
      await other.close();
      await store.close();
      dir.remove();
    }
  });
});
