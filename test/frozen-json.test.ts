// Frozen JSON (objects/frozen-json.ts) and the value encoder: a frozen value met at the same
// place as last time is taken from the memo without a walk — which must never change what is
// encoded. States built from a pool of frozen and unfrozen values, rebuilt between encodings
// (new arrays, items inserted, removed, replaced, appended), encode with the memo exactly as
// from scratch; and a list of frozen items grown at its end costs its tail.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { freezeJson, isFrozenJson } from "../src/objects/frozen-json.js";
import { encodeTree, type TreeParams } from "../src/objects/value-encoder.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const TINY: TreeParams = { splitBytes: 40, chunkArrayBytes: 120, chunkTargetBytes: 60, maxFanout: 4 };

const leaf = fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.boolean(), fc.constant(null));
const item: fc.Arbitrary<Json> = fc.oneof(
  leaf,
  fc.record({ type: fc.constantFrom("human", "ai"), content: fc.string({ maxLength: 60 }), id: fc.string({ maxLength: 6 }) }),
  fc.array(leaf, { maxLength: 4 }),
);

type Step = { op: "push" | "insert" | "delete" | "replace"; at: number; pick: number };
const step: fc.Arbitrary<Step> = fc.record({ op: fc.constantFrom<Step["op"]>("push", "insert", "delete", "replace"), at: fc.nat(), pick: fc.nat() });

describe("frozen JSON", () => {
  it("freezes a value whole and marks each container of plain JSON", () => {
    const v = { a: [1, { b: "x" }], c: { d: null } };
    expect(freezeJson(v)).toBe(true);
    expect(isFrozenJson(v) && isFrozenJson(v.a) && isFrozenJson(v.a[1] as object) && isFrozenJson(v.c)).toBe(true);
    expect(Object.isFrozen(v.a[1])).toBe(true);
    expect(() => {
      (v.a as unknown[]).push(2);
    }).toThrow(TypeError);
  });

  it("does not mark a container holding something that is not JSON, nor what holds it", () => {
    const d = new Date(0);
    const v = { when: d, list: [1, 2] };
    expect(freezeJson(v)).toBe(false);
    expect(isFrozenJson(v)).toBe(false);
    expect(isFrozenJson(v.list)).toBe(true);
    expect(Object.isFrozen(d)).toBe(false);
    expect(freezeJson({ f: () => 1 })).toBe(false);
    const holey = [1, 2, 3];
    delete holey[1];
    expect(freezeJson(holey)).toBe(false); // a hole
  });

  for (const [name, params] of [
    ["default thresholds", undefined],
    ["tiny thresholds", TINY],
  ] as const) {
    it(`leaves the encoding as from scratch when a state of frozen items is rebuilt, with ${name}`, () => {
      fc.assert(
        fc.property(fc.array(item, { minLength: 1, maxLength: 40 }), fc.array(step, { minLength: 1, maxLength: 25 }), (pool, steps) => {
          // Half the pool frozen: frozen and unfrozen items side by side, some met twice.
          for (let i = 0; i < pool.length; i += 2) freezeJson(pool[i]);
          let list: Json[] = pool.slice(0, Math.ceil(pool.length / 2));
          let memo = encodeTree({ list }, new Set(), undefined, params).memo;
          for (const s of steps) {
            const x = pool[s.pick % pool.length] as Json;
            list = [...list];
            const at = list.length === 0 ? 0 : s.at % list.length;
            if (s.op === "push") list.push(x);
            else if (s.op === "insert") list.splice(at, 0, x);
            else if (s.op === "delete") list.splice(at, 1);
            else list[at] = x;
            const state = { list, n: list.length };
            const withMemo = encodeTree(state, new Set(), memo, params);
            const scratch = encodeTree(JSON.parse(JSON.stringify(state)) as Json, new Set(), undefined, params);
            expect(withMemo.root).toBe(scratch.root);
            expect(withMemo.logicalBytes).toBe(JSON.stringify(state).length);
            memo = withMemo.memo;
          }
        }),
        { numRuns: 200, endOnFailure: true },
      );
    });
  }

  it("encodes a list of frozen items grown at its end in the nodes of its tail", () => {
    const list: Json[] = [];
    let r = encodeTree({ list }, new Set());
    for (let i = 0; i < 3_000; i++) {
      const m = { type: i % 2 === 0 ? "human" : "ai", content: `message ${i} `.repeat(40), id: `m-${i}` };
      freezeJson(m);
      list.push(m);
      r = encodeTree({ list: [...list] }, new Set(), r.memo);
      // The last chunk, the `a` nodes above it, the root.
      if (i > 100) expect(r.hashed).toBeLessThanOrEqual(5);
    }
    expect(r.root).toBe(encodeTree(JSON.parse(JSON.stringify({ list })) as Json, new Set()).root);
  });
});
