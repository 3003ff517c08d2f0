// Object reads every backend must give the same way: a tree read level by level in batches
// (objects/batch-read.ts) is exactly the tree read one object at a time, and damage in a
// batch is reported for the object it is in. Run by the contract.*.test.ts files.
import { isDeepStrictEqual } from "node:util";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { Store, type Backend } from "../../src/index.js";
import { useSharedInflater } from "../../src/objects/batch-read.js";
import { unpack } from "../../src/objects/codec.js";
import { fileObjects, readFileObject } from "../../src/objects/file-tree.js";
import type { Hash } from "../../src/objects/hash.js";
import { childHashes, parseNode, type TreeNode } from "../../src/objects/node.js";
import { backendOf } from "../../src/timeline/store-internals.js";
import { rejectsWith } from "../support/errors.js";
import type { MakeStore } from "./backend-contract.js";

/** A state with what a tree holds: chunked arrays of split items, long strings, non-ASCII text, deep objects. */
function richState(n: number): Record<string, unknown> {
  const text = (i: number, j: number) => `observed ${i}/${j} (${n}): ` + "the dequantised block scale differs by one ulp; ".repeat(8);
  return {
    hypotheses: Array.from({ length: 300 }, (_, i) => ({
      id: `h${i}`,
      statement: `hypothesis ${i}`,
      confidence: (i % 10) / 10,
      evidence: Array.from({ length: 4 }, (_, j) => ({ id: `e${i}.${j}`, content: text(i, j) })),
    })),
    beliefs: Array.from({ length: 200 }, (_, i) => ({ id: `b${i}`, statement: `belief ${i} ${n}`, dependsOn: [`h${i}`] })),
    notes: Array.from({ length: 40 }, (_, i) => `note ${i}: naïve café – 日本語 🙂 `.repeat(30)),
    log: "line of a long log\n".repeat(5000),
    nested: { a: { b: { c: [1, 2, { d: "é".repeat(3000), e: null, f: true }] } } },
    empty: { list: [], object: {}, string: "" },
  };
}

/** Every node of the tree under `root`, each read on its own: its stored bytes, unpacked and parsed. */
async function oneByOne(backend: Backend, root: Hash): Promise<Map<Hash, TreeNode>> {
  const out = new Map<Hash, TreeNode>();
  const todo = [root];
  while (todo.length > 0) {
    const h = todo.pop() as Hash;
    if (out.has(h)) continue;
    const stored = (await backend.getObjects([h])).get(h);
    if (!stored) throw new Error(`object ${h} is not stored`);
    const node = parseNode(h, unpack(h, stored));
    out.set(h, node);
    todo.push(...childHashes(node));
  }
  return out;
}

const plain = (node: TreeNode): unknown => (node.kind === "b" ? { kind: "b", data: node.data.toString("hex") } : { ...node });

export function runObjectReadContract(name: string, makeStore: MakeStore): void {
  describe(`object reads in batches: ${name}`, () => {
    afterEach(() => useSharedInflater(true));

    async function open(): Promise<Store> {
      const { store, cleanup } = await makeStore();
      onTestFinished(() => cleanup());
      return store;
    }

    /** A store over the same backend with nothing cached: every read goes to storage. */
    const uncached = (store: Store): Store => Store.fromBackend(backendOf(store));

    it("a state read in batches is the state written, node for node what reading one object at a time gives", async () => {
      const store = await open();
      const session = await store.session("s");
      const state = richState(1);
      const cp = await session.checkpoint(state);
      const expected = JSON.parse(JSON.stringify(state)) as unknown;
      expect(isDeepStrictEqual(await (await uncached(store).getSession("s")).state(cp.id), expected)).toBe(true);
      // The same nodes, batched and one by one.
      const batched = await uncached(store).objects.loadTrees([cp.stateRoot]);
      const single = await oneByOne(backendOf(store), cp.stateRoot);
      expect(batched.size).toBe(single.size);
      expect(batched.size).toBeGreaterThan(100);
      for (const [h, node] of single) expect(plain(batched.get(h) as TreeNode)).toEqual(plain(node));
      // Without the shared inflater, the same state.
      useSharedInflater(false);
      expect(isDeepStrictEqual(await (await uncached(store).getSession("s")).state(cp.id), expected)).toBe(true);
    });

    it("reading a state again gives a copy of its own each time", async () => {
      const store = await open();
      const session = await store.session("s");
      const cp = await session.checkpoint(richState(2));
      const expected = JSON.parse(JSON.stringify(richState(2))) as unknown;
      const reader = await uncached(store).getSession("s");
      const copies: Record<string, unknown>[] = [];
      for (let i = 0; i < 3; i++) {
        const got = (await reader.state(cp.id)) as Record<string, unknown>;
        expect(isDeepStrictEqual(got, expected)).toBe(true);
        for (const c of copies) expect(c).not.toBe(got);
        copies.push(got);
        // Changing one copy changes neither the others nor what the next read gives.
        (got["hypotheses"] as { statement: string }[])[7] = { statement: "changed" };
        (got["nested"] as Record<string, unknown>)["a"] = null;
      }
      expect(isDeepStrictEqual(await reader.state(cp.id), expected)).toBe(true);
    });

    it("files' bytes read in batches are the bytes written", async () => {
      const store = await open();
      const files = [
        Buffer.from("a small text file\n"),
        Buffer.from("text ".repeat(20_000)),
        Buffer.from(Array.from({ length: 3_000 }, (_, i) => (i * 7919) % 256)),
        Buffer.alloc(0),
        Buffer.from("a file big enough to be cut into chunks\n".repeat(60_000)),
      ];
      const objects = new Map<Hash, Buffer>();
      const hashes: Hash[] = [];
      for (const f of files) {
        const { hash, objects: o } = fileObjects(f);
        hashes.push(hash);
        for (const [h, raw] of o) objects.set(h, raw);
      }
      await store.objects.putRaw(objects);
      const reader = uncached(store);
      for (const [i, h] of hashes.entries()) expect((await readFileObject(reader.objects, h)).equals(files[i] as Buffer)).toBe(true);
      const nodes = await uncached(store).objects.getNodes([...objects.keys()]);
      for (const [h, raw] of objects) expect(plain(nodes.get(h) as TreeNode)).toEqual(plain(parseNode(h, raw)));
    });

    it("a damaged object in a batch fails the read, naming it; states that do not use it still read", async () => {
      const store = await open();
      const a = await (await store.session("a")).checkpoint(richState(3));
      const b = await (await store.session("b")).checkpoint({ other: richState(4)["beliefs"] });
      // A leaf deep in the first state, read in a batch with hundreds of others.
      const nodes = await oneByOne(backendOf(store), a.stateRoot);
      const shared = await oneByOne(backendOf(store), b.stateRoot);
      const victim = [...nodes.entries()].find(([h, n]) => n.kind === "j" && n.refs.length === 0 && !shared.has(h))?.[0] as Hash;
      const backend = backendOf(store);
      const stored = (await backend.getObjects([victim])).get(victim) as Uint8Array;
      const damaged = Uint8Array.from(stored);
      damaged[damaged.length >> 1] = (damaged[damaged.length >> 1] ?? 0) ^ 0x55;
      if (!backend.corruptObjectForTesting) throw new Error(`${backend.url} has no corruptObjectForTesting`);
      await backend.corruptObjectForTesting(victim, damaged);
      const error = await rejectsWith((await uncached(store).getSession("a")).state(a.id), "CORRUPT_OBJECT");
      expect(error.data["hash"]).toBe(victim);
      expect(isDeepStrictEqual(await (await uncached(store).getSession("b")).state(b.id), { other: richState(4)["beliefs"] })).toBe(true);
    });
  });
}
