// The encoder's memo is an optimisation only: encoding a state with the memo of any
// earlier state must give exactly the tree that encoding it from scratch gives — same root
// hash, same nodes — whether the caller changed the state in place or rebuilt it.
//
// So is the hint a reasoning session gives the encoder about which parts of its state did
// not change (so a checkpoint does not walk them): after any sequence of changes, saves,
// checkpoints, restores and branch switches, what is stored must be exactly what the
// session holds — read back by a second store that has no memo of its own.
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ReasoningSession } from "../src/domains/reasoning/reasoning-session.js";
import { encodeTree, type TreeParams } from "../src/objects/value-encoder.js";
import { MINUTE, reasoningBench } from "./reasoning/support.js";

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

// The unchanged-parts hint.

type Op =
  | { op: "hypothesis"; text: string }
  | { op: "status"; pick: number; status: "testing" | "confirmed" | "rejected" | "proposed" }
  | { op: "confidence"; pick: number; value: number }
  | { op: "evidence"; pick: number; kind: "supports" | "refutes" | "neutral"; text: string }
  | { op: "belief"; pick: number; text: string }
  | { op: "retract"; pick: number }
  | { op: "gap"; text: string }
  | { op: "fill"; pick: number; text: string }
  | { op: "note"; text: string }
  | { op: "task"; text: string }
  | { op: "save" }
  | { op: "checkpoint" }
  | { op: "restore"; pick: number }
  | { op: "branch"; name: string }
  | { op: "switch"; name: string }
  | { op: "wait" };

const text = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== "");
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant("hypothesis" as const), text }),
  fc.record({
    op: fc.constant("status" as const),
    pick: fc.nat(),
    status: fc.constantFrom("testing" as const, "confirmed" as const, "rejected" as const, "proposed" as const),
  }),
  fc.record({ op: fc.constant("confidence" as const), pick: fc.nat(), value: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ op: fc.constant("evidence" as const), pick: fc.nat(), kind: fc.constantFrom("supports" as const, "refutes" as const, "neutral" as const), text }),
  fc.record({ op: fc.constant("belief" as const), pick: fc.nat(), text }),
  fc.record({ op: fc.constant("retract" as const), pick: fc.nat() }),
  fc.record({ op: fc.constant("gap" as const), text }),
  fc.record({ op: fc.constant("fill" as const), pick: fc.nat(), text }),
  fc.record({ op: fc.constant("note" as const), text }),
  fc.record({ op: fc.constant("task" as const), text }),
  fc.constant({ op: "save" as const }),
  fc.constant({ op: "checkpoint" as const }),
  fc.record({ op: fc.constant("restore" as const), pick: fc.nat() }),
  fc.record({ op: fc.constant("branch" as const), name: fc.constantFrom("x", "y") }),
  fc.record({ op: fc.constant("switch" as const), name: fc.constantFrom("main", "x", "y") }),
  fc.constant({ op: "wait" as const }),
);

/** Applies one operation; operations that do not apply (no such item yet) do nothing. */
async function applyOp(rs: ReasoningSession, o: Op, advance: (ms: number) => void): Promise<void> {
  const hyps = rs.hypotheses.list();
  const beliefs = rs.beliefs.list({ status: "held" });
  const gaps = rs.gaps.list({ status: "open" });
  const pick = <T>(list: readonly T[], n: number): T | undefined => list[n % Math.max(1, list.length)];
  switch (o.op) {
    case "hypothesis":
      rs.hypotheses.add(o.text);
      return;
    case "status": {
      const h = pick(hyps, o.pick);
      if (h) rs.hypotheses.update(h.id, { status: o.status });
      return;
    }
    case "confidence": {
      const h = pick(hyps, o.pick);
      if (h) rs.hypotheses.update(h.id, { confidence: o.value });
      return;
    }
    case "evidence":
      rs.hypotheses.addEvidence(pick(hyps, o.pick)?.id ?? null, { kind: o.kind, content: o.text });
      return;
    case "belief": {
      const h = pick(hyps, o.pick);
      rs.beliefs.add(o.text, h ? { dependsOn: [h.id] } : {});
      return;
    }
    case "retract": {
      const b = pick(beliefs, o.pick);
      if (b) rs.beliefs.update(b.id, { status: "retracted" });
      return;
    }
    case "gap":
      rs.gaps.add(o.text);
      return;
    case "fill": {
      const g = pick(gaps, o.pick);
      if (g) rs.gaps.fill(g.id, o.text);
      return;
    }
    case "note":
      rs.notes.add(o.text);
      return;
    case "task":
      rs.setTask(o.text);
      return;
    case "save":
      await rs.save();
      return;
    case "checkpoint":
      await rs.checkpoint("cp");
      return;
    case "restore": {
      const cps = await rs.session.list();
      const cp = pick(cps, o.pick);
      if (cp) await rs.restore(cp.id);
      return;
    }
    case "branch":
      if (!(await rs.session.branches()).some((b) => b.name === o.name) && (await rs.session.head()).checkpoint) await rs.branch(o.name);
      return;
    case "switch":
      if ((await rs.session.branches()).some((b) => b.name === o.name)) await rs.switch(o.name);
      return;
    case "wait":
      advance(6 * MINUTE);
      return;
  }
}

describe("the unchanged-parts hint", () => {
  it("never changes what is stored: after any sequence of operations a fresh reader sees exactly the session's state", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
        const bench = await reasoningBench("hint");
        const { rs, clock } = bench;
        for (const o of ops) {
          await applyOp(rs, o, (ms) => clock.advance(ms));
          if (o.op === "save" || o.op === "checkpoint") {
            const { rs: fresh } = await bench.reopen();
            expect(isDeepStrictEqual(fresh.state(), rs.state())).toBe(true);
          }
        }
        await rs.save();
        const { rs: fresh } = await bench.reopen();
        expect(fresh.state()).toEqual(rs.state());
        // Every checkpoint's stored state reads back whole, too.
        for (const cp of await rs.session.list()) await fresh.stateAt(cp.id);
      }),
      { numRuns: 40, endOnFailure: true },
    );
  });
});
