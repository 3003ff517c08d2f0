// Store.importHistory, the store's one way to write a history made elsewhere (the
// conversation importer's): every checkpoint keeps its seq, time, parent and branch under a
// new id, HEAD and the working state are set, and it is all or nothing — bad links and a
// taken name write nothing, and a gc that runs while the states are written makes it start
// again rather than commit checkpoints whose objects the gc may have swept.
import { describe, expect, it, onTestFinished } from "vitest";
import { ManualClock, openStore, Store, type Backend } from "../../src/index.js";
import type { ImportedHistory } from "../../src/timeline/history-import.js";
import { rejectsWith } from "../support/errors.js";
import { backendOf } from "../../src/timeline/store-internals.js";

const T0 = Date.UTC(2025, 0, 20, 9, 0, 0);

async function memoryStore(): Promise<Store> {
  const store = await openStore("memory:", { clock: new ManualClock(T0 + 3_600_000) });
  onTestFinished(() => store.close());
  return store;
}

/** #1 → #2 on main, #5 forked from #1 on "alt"; HEAD on alt. */
function history(name = "copy"): ImportedHistory {
  const cp = (key: string, seq: number, parent: string | null, branch: string, value: number) => ({
    key,
    seq,
    parent,
    branch,
    createdAt: T0 + seq * 60_000,
    message: `step ${seq}`,
    tags: seq === 2 ? ["done"] : [],
    trigger: "manual",
    metadata: { value },
    state: { value, list: Array.from({ length: value }, (_, i) => i) },
  });
  return {
    name,
    kind: "generic",
    metadata: { from: "elsewhere" },
    checkpoints: [cp("a", 1, null, "main", 1), cp("b", 2, "a", "main", 2), cp("c", 5, "a", "alt", 3)],
    branches: [
      { name: "main", checkpoint: "b" },
      { name: "alt", checkpoint: "c" },
    ],
    head: { branch: "alt" },
  };
}

/** Binds a method read from `target` to it, so a Proxy can hand out the original's methods. */
function passThrough<T extends object>(target: T, overrides: Partial<Record<PropertyKey, unknown>>): T {
  return new Proxy(target, {
    get(t, key) {
      if (Object.hasOwn(overrides, key)) return overrides[key as keyof typeof overrides];
      const value: unknown = Reflect.get(t, key, t);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(t) : value;
    },
  });
}

/** A backend on which a gc finishes (bumps the epoch) right after a writer reads the epoch, `times` times. */
function gcAfterEpochReads(base: Backend, times: number): Backend {
  let left = times;
  const getGcEpoch = async (): Promise<number> => {
    const epoch = await base.meta.getGcEpoch();
    if (left-- > 0) await base.transaction((tx) => tx.bumpGcEpoch());
    return epoch;
  };
  return passThrough(base, { meta: passThrough(base.meta, { getGcEpoch }) });
}

describe("Store.importHistory", () => {
  it("writes every checkpoint with its own seq, time, parent, branch and state, under new ids", async () => {
    const store = await memoryStore();
    const session = await store.importHistory(history());
    const list = await session.list();
    expect(list.map((c) => [c.seq, c.branch, c.createdAt.getTime() - T0, c.message, c.tags, c.metadata])).toEqual([
      [1, "main", 60_000, "step 1", [], { value: 1 }],
      [2, "main", 120_000, "step 2", ["done"], { value: 2 }],
      [5, "alt", 300_000, "step 5", [], { value: 3 }],
    ]);
    const bySeq = new Map(list.map((c) => [c.seq, c]));
    expect([bySeq.get(2)?.parentId, bySeq.get(5)?.parentId]).toEqual([bySeq.get(1)?.id, bySeq.get(1)?.id]);
    expect(list.some((c) => ["a", "b", "c"].includes(c.id))).toBe(false);
    expect(await session.state("#5")).toEqual({ value: 3, list: [0, 1, 2] });
    expect((await session.branches()).map((b) => [b.name, b.head.seq])).toEqual([
      ["alt", 5],
      ["main", 2],
    ]);
    const info = await session.info();
    expect([info.kind, info.metadata, info.createdAt.getTime()]).toEqual(["generic", { from: "elsewhere" }, T0 + 3_600_000]);
  });

  it("HEAD as given, the working state HEAD's unless one is given, and the next checkpoint after the highest seq", async () => {
    const store = await memoryStore();
    const onBranch = await store.importHistory(history("on-branch"));
    expect((await onBranch.head()).checkpoint?.seq).toBe(5);
    expect((await onBranch.working())?.state).toEqual({ value: 3, list: [0, 1, 2] });
    expect((await onBranch.checkpoint({ next: true })).seq).toBe(6);

    const detached = await store.importHistory({ ...history("detached"), head: { checkpoint: "a" }, working: { mine: true } });
    const head = await detached.head();
    expect([head.branch, head.checkpoint?.seq]).toEqual([null, 1]);
    expect(await detached.working()).toMatchObject({ state: { mine: true }, version: 1 });

    const empty = await store.importHistory({ name: "empty", kind: "generic", checkpoints: [], branches: [], head: { branch: "main" } });
    expect([await empty.working(), await empty.workVersion(), (await empty.head()).checkpoint]).toEqual([undefined, 0, null]);
  });

  it("refuses broken links and a taken name, writing nothing", async () => {
    const store = await memoryStore();
    const h = history();
    const [a, b, c] = h.checkpoints as [ImportedHistory["checkpoints"][number], ImportedHistory["checkpoints"][number], ImportedHistory["checkpoints"][number]];
    await rejectsWith(store.importHistory({ ...h, checkpoints: [b, a, c] }), "INVALID_ARGUMENT", /parent a is not an earlier checkpoint/);
    await rejectsWith(store.importHistory({ ...h, checkpoints: [a, { ...b, seq: 1 }, c] }), "INVALID_ARGUMENT", /seq 1 is not a whole number ≥ 1 of its own/);
    await rejectsWith(store.importHistory({ ...h, branches: [{ name: "main", checkpoint: "zz" }] }), "INVALID_ARGUMENT", /branch "main" points at zz/);
    await rejectsWith(store.importHistory({ ...h, head: { checkpoint: "zz" } }), "INVALID_ARGUMENT", /HEAD is detached at zz/);
    await rejectsWith(store.importHistory({ ...h, name: "../x" }), "INVALID_ARGUMENT", /invalid session name/);
    expect(await store.listSessions()).toEqual([]);
    expect(await store.usage()).toEqual({ objects: 0, bytes: 0 });

    await store.importHistory(h);
    const before = await store.usage();
    await rejectsWith(
      store.importHistory({ ...h, checkpoints: [{ ...a, state: { other: "content" } }], branches: [], head: { branch: "main" } }),
      "IMPORT_CONFLICT",
      /already has a session named "copy"/,
    );
    expect(await store.usage()).toEqual(before);
    expect((await store.listSessions()).map((s) => [s.name, s.checkpoints])).toEqual([["copy", 3]]);
  });

  it("a gc that runs while the states are written makes it start again, then commit", async () => {
    const base = backendOf(await memoryStore());
    const store = Store.fromBackend(gcAfterEpochReads(base, 1));
    const session = await store.importHistory(history());
    expect((await session.list()).map((c) => c.seq)).toEqual([1, 2, 5]);
    expect((await store.fsck()).ok).toBe(true);
  });

  it("a gc that keeps running is CONFLICT, and no session is written", async () => {
    const base = backendOf(await memoryStore());
    const store = Store.fromBackend(gcAfterEpochReads(base, Infinity));
    await rejectsWith(store.importHistory(history()), "CONFLICT", /garbage collection kept running/);
    expect(await store.listSessions()).toEqual([]);
  });
});
