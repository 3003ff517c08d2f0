// The search index's pieces, held to their definitions: a checkpoint's diff against its
// parent is exactly the multiset difference of the two trees' text nodes (walked whole), over
// random states with thresholds so small that everything splits and chunks; and the query
// syntax reads as documented.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openStore, type TreeParams } from "../../src/index.js";
import { parseQuery } from "../../src/backends/search/tokenize.js";
import type { Hash } from "../../src/objects/hash.js";
import type { ObjectStore } from "../../src/objects/object-store.js";
import { diffRoots } from "../../src/timeline/search-diff.js";

const TINY: TreeParams = { splitBytes: 40, chunkArrayBytes: 120, chunkTargetBytes: 60, maxFanout: 4 };

/** Every `j` node of the tree under `root`, counted as often as the tree holds it. */
async function textNodes(objects: ObjectStore, root: Hash): Promise<Map<Hash, number>> {
  const out = new Map<Hash, number>();
  const walk = async (h: Hash): Promise<void> => {
    const node = await objects.getNode(h);
    if (node.kind === "j") {
      out.set(h, (out.get(h) ?? 0) + 1);
      for (const [child] of node.refs) await walk(child);
    } else if (node.kind === "a") for (const [child] of node.entries) await walk(child);
  };
  await walk(root);
  return out;
}

const word = fc.constantFrom("pool", "timeout", "shard", "retry", "latency", "socket", "cache", "queue");
const text = fc.array(word, { minLength: 1, maxLength: 12 }).map((w) => w.join(" "));
const item = fc.oneof(text, fc.record({ note: text, n: fc.integer({ min: 0, max: 9 }) }), fc.array(text, { maxLength: 4 }));
const state = fc.record({ notes: fc.array(item, { maxLength: 30 }), task: text, extra: fc.option(fc.array(item, { maxLength: 10 })) });

describe("the search diff", () => {
  it("gives exactly the multiset difference of the two trees' text nodes", async () => {
    const store = await openStore("memory:", { treeParams: TINY });
    try {
      await fc.assert(
        fc.asyncProperty(state, fc.array(fc.tuple(fc.nat(40), item), { maxLength: 6 }), fc.nat(30), async (a, edits, cut) => {
          // The child: a few inserts and an append or a cut, as a session's next state.
          const b = structuredClone(a);
          for (const [at, x] of edits) b.notes.splice(at % (b.notes.length + 1), 0, x);
          if (cut % 3 === 0) b.notes = b.notes.slice(cut % (b.notes.length + 1));
          const ra = (await store.objects.writeValue(a, "a")).root;
          const rb = (await store.objects.writeValue(b, "b")).root;
          const changes = await diffRoots(store.objects, { state: rb, files: null, message: "" }, { state: ra, files: null, message: "" });
          const before = await textNodes(store.objects, ra);
          const after = await textNodes(store.objects, rb);
          const expected = new Map<Hash, number>();
          for (const [h, n] of after) expected.set(h, n - (before.get(h) ?? 0));
          for (const [h, n] of before) if (!after.has(h)) expected.set(h, -n);
          const nonZero = [...expected].filter(([, n]) => n !== 0).sort();
          expect(changes.map((c) => [c.key, c.delta]).sort()).toEqual(nonZero);
        }),
        { numRuns: 150 },
      );
    } finally {
      await store.close();
    }
  });

  it("of a checkpoint against itself is empty, and against nothing is everything it holds", async () => {
    const store = await openStore("memory:", { treeParams: TINY });
    try {
      const root = (await store.objects.writeValue({ notes: Array.from({ length: 40 }, (_, i) => `note ${i} about the pool`) })).root;
      const roots = { state: root, files: null, message: "m" };
      expect(await diffRoots(store.objects, roots, roots)).toEqual([]);
      const all = await diffRoots(store.objects, roots, null);
      expect(all.filter((c) => c.kind === "node").length).toBe((await textNodes(store.objects, root)).size);
      expect(all.filter((c) => c.kind === "message").map((c) => c.delta)).toEqual([1]);
    } finally {
      await store.close();
    }
  });
});

describe("the query syntax", () => {
  const groups = (q: string) => parseQuery(q).groups.map((g) => `${g.tokens.join("+")}${g.prefix ? "*" : ""}`);

  it("ANDs words; words of three characters or more match as prefixes", () => {
    expect(groups("Pool exhausted at 5")).toEqual(["pool*", "exhausted*", "at", "5"]);
  });

  it('reads "quoted phrases" as their words in order, exactly, and an unclosed quote to the end', () => {
    expect(groups('timeout "tensor shape mismatch" layer')).toEqual(["timeout*", "tensor+shape+mismatch", "layer*"]);
    expect(groups('"pool exhausted')).toEqual(["pool+exhausted"]);
  });

  it("reads a word holding punctuation as the phrase of its parts, the last a prefix", () => {
    expect(groups("tensor_shape pool.max ECONNRESET:")).toEqual(["tensor+shape*", "pool+max*", "econnreset*"]);
  });

  it("refuses a query with no words, naming it", () => {
    expect(() => parseQuery(' "" -- ')).toThrow(/has no words/);
  });
});
