// A reasoning session tells the encoder which parts of its state did not change, so a
// checkpoint does not walk them. That is only an optimisation: after any sequence of
// changes, saves, checkpoints, restores and branch switches, what is stored must be exactly
// what the session holds — read back by a second store that has no memo of its own.
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ReasoningSession } from "../../src/domains/reasoning/reasoning-session.js";
import { MINUTE, reasoningBench } from "./support.js";

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
  fc.record({ op: fc.constant("status" as const), pick: fc.nat(), status: fc.constantFrom("testing" as const, "confirmed" as const, "rejected" as const, "proposed" as const) }),
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
async function apply(rs: ReasoningSession, o: Op, advance: (ms: number) => void): Promise<void> {
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
          await apply(rs, o, (ms) => clock.advance(ms));
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
