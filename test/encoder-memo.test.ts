// The encoder's memo is an optimisation only: encoding a state with the memo of any
// earlier state must give exactly the tree that encoding it from scratch gives — same root
// hash, same nodes — whether the caller changed the state in place or rebuilt it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeTree, type TreeParams } from "../src/objects/value-encoder.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Small thresholds so that even small generated values split and chunk. */
const TINY: TreeParams = { splitBytes: 40, chunkArrayBytes: 120, chunkTargetBytes: 60, maxFanout: 4 };

const leaf = fc.oneof(fc.integer(), fc.string({ maxLength: 30 }), fc.boolean(), fc.constant(null));
const value: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("v"), { maxLength: 30 }),
    fc.dictionary(fc.constantFrom("a", "b", "c", "d", "e", "list", ""), tie("v"), { maxKeys: 6, noNullPrototype: true }),
  ),
})).v;

/** An edit: at a random place, replace, insert, delete or append. */
type Edit = { path: number[]; op: "set" | "insert" | "delete" | "push"; with: Json };
const edit: fc.Arbitrary<Edit> = fc.record({
  path: fc.array(fc.nat(), { maxLength: 6 }),
  op: fc.constantFrom<Edit["op"]>("set", "insert", "delete", "push"),
  with: value,
});

/** Applies an edit in place, following `path` through containers as far as it goes. */
function apply(root: Json, e: Edit): Json {
  if (root === null || typeof root !== "object") return e.with;
  let node: Json[] | { [k: string]: Json } = root;
  for (const step of e.path) {
    const keys = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    if (keys.length === 0) break;
    const k = keys[step % keys.length] as string | number;
    const next: Json | undefined = Array.isArray(node) ? node[k as number] : node[k as string];
    if (next === null || next === undefined || typeof next !== "object") break;
    node = next;
  }
  if (Array.isArray(node)) {
    const i = node.length === 0 ? 0 : (e.path[0] ?? 0) % node.length;
    if (e.op === "push") node.push(e.with);
    else if (e.op === "insert") node.splice(i, 0, e.with);
    else if (e.op === "delete") node.splice(i, 1);
    else if (node.length > 0) node[i] = e.with;
    else node.push(e.with);
  } else {
    const keys = Object.keys(node);
    const k = keys.length === 0 ? "a" : (keys[(e.path[0] ?? 0) % keys.length] as string);
    if (e.op === "delete") delete node[k];
    else node[e.op === "set" ? k : `${k}${e.op}`] = e.with;
  }
  return root;
}

function fromScratch(v: Json, params?: TreeParams) {
  return encodeTree(v, new Set(), undefined, params);
}

describe("the encoder's memo", () => {
  for (const [name, params] of [
    ["default thresholds", undefined],
    ["tiny thresholds (everything splits and chunks)", TINY],
  ] as const) {
    it(`gives the same root hash as encoding from scratch after in-place edits, with ${name}`, () => {
      fc.assert(
        fc.property(value, fc.array(edit, { minLength: 1, maxLength: 12 }), (start, edits) => {
          let state: Json = structuredClone(start);
          let memo = encodeTree(state, new Set(), undefined, params).memo;
          for (const e of edits) {
            state = apply(state, e);
            const withMemo = encodeTree(state, new Set(), memo, params);
            const scratch = fromScratch(structuredClone(state), params);
            expect(withMemo.root).toBe(scratch.root);
            expect(withMemo.logicalBytes).toBe(JSON.stringify(state).length);
            memo = withMemo.memo;
          }
        }),
        { numRuns: 300, endOnFailure: true },
      );
    });
  }

  it("gives the same root hash when the state is rebuilt from JSON between encodings", () => {
    fc.assert(
      fc.property(value, fc.array(edit, { minLength: 1, maxLength: 8 }), (start, edits) => {
        let state: Json = structuredClone(start);
        let memo = encodeTree(state, new Set(), undefined, TINY).memo;
        for (const e of edits) {
          state = apply(JSON.parse(JSON.stringify(state)) as Json, e);
          const withMemo = encodeTree(state, new Set(), memo, TINY);
          expect(withMemo.root).toBe(fromScratch(state, TINY).root);
          memo = withMemo.memo;
        }
      }),
      { numRuns: 200, endOnFailure: true },
    );
  });

  it("changing, adding or removing an early key does not re-encode the large values after it", () => {
    const big = Array.from({ length: 3_000 }, (_, i) => ({ id: i, text: `item ${i} `.repeat(8) }));
    const state: Record<string, Json> = { a: 1, b: "x", big, tail: { deep: big.slice(0, 500) } };
    let r = encodeTree(state, new Set());
    expect(r.hashed).toBeGreaterThan(100);
    for (const change of [
      () => (state["a"] = 2),
      () => (state["b"] = "y".repeat(3_000)), // now split off: one more node
      () => delete state["a"],
      () => {
        const copy: Record<string, Json> = { first: true, ...state };
        for (const k of Object.keys(state)) delete state[k];
        Object.assign(state, copy);
      },
    ]) {
      change();
      r = encodeTree(state, new Set(), r.memo);
      // The root, and at most the one changed value: nothing of `big` or `tail`.
      expect(r.hashed).toBeLessThanOrEqual(2);
      expect(r.root).toBe(fromScratch(state).root);
    }
  });

  it("reports as fresh every node the tree needs that `known` does not hold", () => {
    fc.assert(
      fc.property(value, edit, (start, e) => {
        const first = encodeTree(structuredClone(start), new Set(), undefined, TINY);
        const known = new Set(first.fresh.keys());
        const next = apply(structuredClone(start), e);
        const withMemo = encodeTree(next, known, first.memo, TINY);
        const scratch = fromScratch(next, TINY);
        // Every node of the new tree is either known or reported fresh.
        for (const h of scratch.fresh.keys()) expect(known.has(h) || withMemo.fresh.has(h)).toBe(true);
      }),
      { numRuns: 300, endOnFailure: true },
    );
  });
});
