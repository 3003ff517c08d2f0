// The run store (flowgraph ADR-015) over every backend: ADR-015's own test case, ported
// as it is, then what Forge adds — history of overwritten nodes, listRuns, prune — and
// the errors. Run by the contract.*.test.ts files next to the backend contract.
import { describe, expect, it, onTestFinished } from "vitest";
import { CheckpointNotFoundError, ManualClock, RunStore, Store } from "../../src/index.js";
import { rejectsWith } from "../support/errors.js";
import type { MakeStore } from "./backend-contract.js";
import { backendOf } from "../../src/timeline/store-internals.js";

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

export function runRunStoreContract(name: string, makeStore: MakeStore): void {
  describe(`run store contract: ${name}`, () => {
    async function open(): Promise<RunStore> {
      const { store, cleanup } = await makeStore();
      onTestFinished(() => cleanup());
      return new RunStore(store);
    }

    it("ADR-015's test case: save, load, not found, list of two, delete, deleteRun, empty list", async () => {
      const store = await open();
      await store.save("run-1", "node-a", bytes("data-a"));
      expect(text(await store.load("run-1", "node-a"))).toBe("data-a");
      await expect(store.load("run-1", "node-x")).rejects.toBeInstanceOf(CheckpointNotFoundError);
      await store.save("run-1", "node-b", bytes("data-b"));
      expect(await store.list("run-1")).toHaveLength(2);
      await store.delete("run-1", "node-a");
      await expect(store.load("run-1", "node-a")).rejects.toBeInstanceOf(CheckpointNotFoundError);
      await store.deleteRun("run-1");
      expect(await store.list("run-1")).toEqual([]);
    });

    it("list gives runId, nodeId, sequence, timestamp and size, ordered by sequence, without data", async () => {
      const store = await open();
      const before = Date.now();
      await store.save("r", "fetch", bytes("x".repeat(10)));
      await store.save("r", "parse", bytes("é")); // 2 bytes in UTF-8
      const infos = await store.list("r");
      expect(infos.map((i) => [i.runId, i.nodeId, i.sequence, i.size])).toEqual([
        ["r", "fetch", 1, 10],
        ["r", "parse", 2, 2],
      ]);
      for (const i of infos) expect(i.timestamp.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(Object.keys(infos[0] ?? {})).not.toContain("data");
    });

    it("save overwrites (run, node): load gives the new bytes, its sequence becomes max+1, the old one stays in history", async () => {
      const store = await open();
      await store.save("loop", "a", bytes("a1"));
      await store.save("loop", "b", bytes("b1"));
      const again = await store.save("loop", "a", bytes("a2"));
      expect(again.sequence).toBe(3);
      expect(text(await store.load("loop", "a"))).toBe("a2");
      expect((await store.list("loop")).map((i) => [i.nodeId, i.sequence])).toEqual([
        ["b", 2],
        ["a", 3],
      ]);
      const history = await store.history("loop", "a");
      expect(history.map((h) => h.sequence)).toEqual([1, 3]);
      expect(text(await store.loadSequence("loop", 1))).toBe("a1");
      expect((await store.history("loop")).map((h) => h.nodeId)).toEqual(["a", "b", "a"]);
    });

    it("delete removes the node's whole history and leaves the other nodes and runs", async () => {
      const store = await open();
      await store.save("r", "a", bytes("1"));
      await store.save("r", "b", bytes("2"));
      await store.save("r", "a", bytes("3"));
      await store.save("other", "a", bytes("4"));
      expect(await store.delete("r", "a")).toBe(2);
      expect(await store.history("r")).toHaveLength(1);
      expect(text(await store.load("r", "b"))).toBe("2");
      expect(text(await store.load("other", "a"))).toBe("4");
      expect(await store.delete("r", "a")).toBe(0);
      expect(await store.delete("nope", "a")).toBe(0);
      // The run's timeline is still whole: the next save continues it.
      const next = await store.save("r", "c", bytes("5"));
      expect(next.sequence).toBe(4);
      expect(await store.store.fsck().then((r) => r.ok)).toBe(true);
    });

    it("bytes round-trip exactly: empty, binary, and large enough to be chunked", async () => {
      const store = await open();
      const big = new Uint8Array(3 * 1024 * 1024);
      for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
      const binary = Uint8Array.from([0, 255, 1, 254, 0, 0]);
      await store.save("r", "empty", new Uint8Array(0));
      await store.save("r", "binary", binary);
      await store.save("r", "big", big);
      expect(await store.load("r", "empty")).toEqual(new Uint8Array(0));
      expect(await store.load("r", "binary")).toEqual(binary);
      expect(Buffer.compare(Buffer.from(await store.load("r", "big")), Buffer.from(big))).toBe(0);
      expect((await store.list("r")).map((i) => i.size)).toEqual([0, 6, big.length]);
    });

    it("saving the same bytes again adds no stored data (content addressing)", async () => {
      const store = await open();
      const payload = bytes(JSON.stringify({ rows: Array.from({ length: 2000 }, (_, i) => ({ i, name: `row ${i}` })) }));
      await store.save("a", "n", payload);
      const before = await backendOf(store.store).countObjects();
      await store.save("b", "n", payload);
      await store.save("a", "n", payload);
      // Only the small per-checkpoint state objects are new, never the payload's.
      const after = await backendOf(store.store).countObjects();
      expect(after - before).toBeLessThanOrEqual(2);
    });

    it("run and node ids of any characters work, each run apart from the others", async () => {
      const store = await open();
      const odd = "run: ü/ñ with spaces & slashes/..";
      await store.save(odd, "node with spaces/and:colons", bytes("x"));
      await store.save("plain-run", "n", bytes("y"));
      expect(text(await store.load(odd, "node with spaces/and:colons"))).toBe("x");
      expect((await store.listRuns()).map((r) => r.runId).sort()).toEqual([odd, "plain-run"].sort());
      expect(await store.deleteRun(odd)).toBe(true);
      expect(await store.deleteRun(odd)).toBe(false);
      expect((await store.listRuns()).map((r) => r.runId)).toEqual(["plain-run"]);
    });

    it("listRuns counts nodes and saves and filters by olderThan", async () => {
      const { store: s, cleanup } = await makeStore();
      onTestFinished(() => cleanup());
      const clock = new ManualClock(Date.UTC(2025, 0, 20, 12));
      const store = new RunStore(Store.fromBackend(backendOf(s), { clock }));
      await store.save("old", "a", bytes("1"));
      await store.save("old", "a", bytes("2"));
      clock.advance(3 * 24 * 3_600_000);
      await store.save("new", "a", bytes("3"));
      await store.save("new", "b", bytes("4"));
      const runs = await store.listRuns();
      expect(runs.map((r) => [r.runId, r.nodes, r.saves])).toEqual([
        ["new", 2, 2],
        ["old", 1, 2],
      ]);
      expect((await store.listRuns({ olderThan: "2 days ago" })).map((r) => r.runId)).toEqual(["old"]);
      expect(await store.listRuns({ olderThan: new Date(Date.UTC(2025, 0, 1)) })).toEqual([]);
    });

    it("prune keeps each node's current save (and keepEarlier more), and gc then frees the rest", async () => {
      const store = await open();
      for (let i = 0; i < 5; i++) await store.save("loop", "step", bytes(`iteration ${i} `.repeat(200)));
      await store.save("loop", "other", bytes("o"));
      expect(await store.prune("loop", { keepEarlier: 1 })).toBe(3);
      expect((await store.history("loop")).map((h) => h.sequence)).toEqual([4, 5, 6]);
      expect(text(await store.load("loop", "step"))).toBe("iteration 4 ".repeat(200));
      const gc = await store.store.gc({ graceMs: 0 });
      expect(gc.deleted).toBeGreaterThan(0);
      expect(text(await store.loadSequence("loop", 4))).toBe("iteration 3 ".repeat(200));
    });

    it("bad input is refused by name and writes nothing", async () => {
      const store = await open();
      await rejectsWith(store.save("", "n", bytes("x")), "INVALID_ARGUMENT", /invalid run id ""/);
      await rejectsWith(store.save("r", "", bytes("x")), "INVALID_ARGUMENT", /invalid node id ""/);
      await rejectsWith(store.save("r", "n", "text" as unknown as Uint8Array), "INVALID_ARGUMENT", /must be a Uint8Array, not a string/);
      await rejectsWith(store.loadSequence("r", 0), "INVALID_ARGUMENT", /sequence must be a whole number/);
      await rejectsWith(store.load("r", "n"), "CHECKPOINT_NOT_FOUND", /no checkpoint of node "n" in run "r"/);
      expect(await store.listRuns()).toEqual([]);
    });

    it("a session of another kind under a run's name is not taken for a run", async () => {
      const store = await open();
      await store.store.session("runs/taken", { kind: "reasoning" });
      await rejectsWith(store.save("taken", "n", bytes("x")), "INVALID_ARGUMENT", /is a reasoning session, not a run/);
    });
  });
}
