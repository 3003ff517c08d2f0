// Contradiction detection over the belief graph: two held beliefs that contradict each
// other, a held belief resting on a rejected or abandoned hypothesis or on a retracted
// belief, and a cycle of dependencies — each reported once; retracted beliefs ignored.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findContradictions } from "../../src/domains/reasoning/beliefs.js";
import type { Belief } from "../../src/domains/reasoning/model.js";
import { reasoningBench } from "./support.js";

describe("conflicts", () => {
  it("reports two held beliefs that contradict each other, declared on the later one", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("the service is stateless");
    rs.beliefs.add("the service keeps sessions in memory", { contradicts: ["B1"] });
    expect(rs.contradictions()).toEqual([
      { kind: "conflict", beliefs: ["B1", "B2"], grounds: [], description: "B1 and B2 are both held but contradict each other", key: "conflict:B1,B2:" },
    ]);
  });

  it("reports a conflict declared on the earlier belief the same way", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("a");
    rs.beliefs.add("b");
    rs.beliefs.update("B1", { contradicts: ["B2"] });
    expect(rs.contradictions().map((c) => [c.kind, c.beliefs])).toEqual([["conflict", ["B1", "B2"]]]);
  });

  it("reports a conflict declared on both sides once", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("a");
    rs.beliefs.add("b", { contradicts: ["B1"] });
    rs.beliefs.update("B1", { contradicts: ["B2"] });
    expect(rs.contradictions()).toHaveLength(1);
  });

  it("orders the pair by number, B2 before B10", async () => {
    const { rs } = await reasoningBench();
    for (let i = 1; i <= 9; i++) rs.beliefs.add(`belief ${i}`);
    rs.beliefs.add("ten", { contradicts: ["B2"] });
    expect(rs.contradictions()[0]?.beliefs).toEqual(["B2", "B10"]);
  });

  it("ignores a conflict once either belief is retracted", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("a");
    rs.beliefs.add("b", { contradicts: ["B1"] });
    rs.beliefs.update("B1", { status: "retracted" });
    expect(rs.contradictions()).toEqual([]);
    rs.beliefs.update("B1", { status: "held" });
    rs.beliefs.update("B2", { status: "retracted" });
    expect(rs.contradictions()).toEqual([]);
  });
});

describe("beliefs resting on what no longer holds", () => {
  it("reports a held belief resting on a rejected hypothesis, naming it as the grounds", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("the cache is stale");
    rs.beliefs.add("stale pages are served", { dependsOn: ["H1"] });
    expect(rs.contradictions()).toEqual([]);
    rs.hypotheses.update("H1", { status: "rejected" });
    expect(rs.contradictions()).toEqual([
      { kind: "rests-on-rejected", beliefs: ["B1"], grounds: ["H1"], description: "B1 is held but rests on H1 (rejected)", key: "rests-on-rejected:B1:H1" },
    ]);
  });

  it("reports a held belief resting on an abandoned hypothesis", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("h");
    rs.beliefs.add("b", { dependsOn: ["H1"] });
    rs.hypotheses.update("H1", { status: "abandoned" });
    expect(rs.contradictions().map((c) => [c.kind, c.grounds])).toEqual([["rests-on-rejected", ["H1"]]]);
  });

  it("does not report a belief resting on a hypothesis that is proposed, testing or confirmed", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("a");
    rs.hypotheses.add("b", { status: "testing" });
    rs.hypotheses.add("c", { status: "confirmed" });
    rs.beliefs.add("rests on all", { dependsOn: ["H1", "H2", "H3"] });
    expect(rs.contradictions()).toEqual([]);
  });

  it("reports a held belief resting on a retracted belief", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("the config is read once");
    rs.beliefs.add("a restart picks up changes", { dependsOn: ["B1"] });
    rs.beliefs.update("B1", { status: "retracted" });
    expect(rs.contradictions()).toEqual([
      expect.objectContaining({ kind: "rests-on-rejected", beliefs: ["B2"], grounds: ["B1"], description: "B2 is held but rests on B1 (retracted)" }),
    ]);
  });

  it("names every fallen ground of one belief in one report", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("h");
    rs.beliefs.add("b1");
    rs.beliefs.add("b2", { dependsOn: ["H1", "B1"] });
    rs.hypotheses.update("H1", { status: "rejected" });
    rs.beliefs.update("B1", { status: "retracted" });
    const found = rs.contradictions();
    expect(found).toHaveLength(1);
    expect(found[0]?.grounds).toEqual(["H1", "B1"]);
  });

  it("ignores a retracted belief resting on a rejected hypothesis", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("h");
    rs.beliefs.add("b", { dependsOn: ["H1"] });
    rs.hypotheses.update("H1", { status: "rejected" });
    rs.beliefs.update("B1", { status: "retracted" });
    expect(rs.contradictions()).toEqual([]);
  });
});

describe("dependency cycles", () => {
  it("reports two beliefs resting on each other once", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("a");
    rs.beliefs.add("b", { dependsOn: ["B1"] });
    rs.beliefs.update("B1", { dependsOn: ["B2"] });
    const found = rs.contradictions();
    expect(found).toEqual([
      { kind: "cycle", beliefs: ["B1", "B2"], grounds: [], description: "B1 → B2 → B1 rest on each other in a circle", key: "cycle:B1,B2:" },
    ]);
  });

  it("reports a longer cycle once, starting at its smallest id, even when entered from outside", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("entry"); // B1 rests on the cycle, is not in it
    rs.beliefs.add("b2");
    rs.beliefs.add("b3", { dependsOn: ["B2"] });
    rs.beliefs.add("b4", { dependsOn: ["B3"] });
    rs.beliefs.update("B2", { dependsOn: ["B4"] });
    rs.beliefs.update("B1", { dependsOn: ["B3"] });
    const cycles = rs.contradictions().filter((c) => c.kind === "cycle");
    expect(cycles).toHaveLength(1);
    expect(cycles[0]?.beliefs[0]).toBe("B2");
    expect([...(cycles[0]?.beliefs ?? [])].sort()).toEqual(["B2", "B3", "B4"]);
    expect(rs.contradictions()).toHaveLength(1);
  });

  it("reports two separate cycles once each", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("a");
    rs.beliefs.add("b", { dependsOn: ["B1"] });
    rs.beliefs.update("B1", { dependsOn: ["B2"] });
    rs.beliefs.add("c");
    rs.beliefs.add("d", { dependsOn: ["B3"] });
    rs.beliefs.update("B3", { dependsOn: ["B4"] });
    expect(rs.contradictions().map((c) => c.key)).toEqual(["cycle:B1,B2:", "cycle:B3,B4:"]);
  });

  it("reports the same contradictions however often it is asked (the keys are stable)", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("a");
    rs.beliefs.add("b", { dependsOn: ["B1"], contradicts: ["B1"] });
    rs.beliefs.update("B1", { dependsOn: ["B2"] });
    const first = rs.contradictions();
    expect(first.map((c) => c.kind).sort()).toEqual(["conflict", "cycle"]);
    expect(rs.contradictions()).toEqual(first);
    expect(findContradictions(rs.state().beliefs, rs.state().hypotheses)).toEqual(first);
  });

  it("ignores a cycle broken by retracting one of its beliefs (and reports what then rests on the retracted one)", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("a");
    rs.beliefs.add("b", { dependsOn: ["B1"] });
    rs.beliefs.update("B1", { dependsOn: ["B2"] });
    rs.beliefs.update("B2", { status: "retracted" });
    expect(rs.contradictions()).toEqual([expect.objectContaining({ kind: "rests-on-rejected", beliefs: ["B1"], grounds: ["B2"] })]);
  });

  it("finds nothing in a graph without cycles, conflicts or fallen grounds", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("h", { status: "testing" });
    rs.beliefs.add("a", { dependsOn: ["H1"] });
    rs.beliefs.add("b", { dependsOn: ["B1", "H1"], supports: ["B1"] });
    rs.beliefs.add("c", { dependsOn: ["B1", "B2"] });
    expect(rs.contradictions()).toEqual([]);
  });
});

describe("cycles in any graph (property)", () => {
  /** Held beliefs B1..Bn with the given depends-on edges (i → j means Bi rests on Bj). */
  function graph(n: number, edges: readonly (readonly [number, number])[]): Belief[] {
    return Array.from({ length: n }, (_, i) => ({
      id: `B${i + 1}`,
      statement: `b${i + 1}`,
      confidence: 0.7,
      status: "held" as const,
      dependsOn: [...new Set(edges.filter(([from, to]) => from === i && to !== i).map(([, to]) => `B${to + 1}`))],
      supports: [],
      contradicts: [],
      createdAt: "2025-01-20T09:00:00.000Z",
      updatedAt: "2025-01-20T09:00:00.000Z",
    }));
  }

  /** Whether `id` can reach itself through depends-on links (so it lies on some cycle). */
  function onCycle(beliefs: readonly Belief[], id: string): boolean {
    const byId = new Map(beliefs.map((b) => [b.id, b]));
    const seen = new Set<string>();
    const stack = [...(byId.get(id)?.dependsOn ?? [])];
    while (stack.length > 0) {
      const next = stack.pop() as string;
      if (next === id) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(byId.get(next)?.dependsOn ?? []));
    }
    return false;
  }

  it("reports only real cycles, each once, and covers every belief that lies on one", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }).chain((n) => fc.tuple(fc.constant(n), fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 14 }))),
        ([n, edges]) => {
          const beliefs = graph(n, edges);
          const byId = new Map(beliefs.map((b) => [b.id, b]));
          const cycles = findContradictions(beliefs, []).filter((c) => c.kind === "cycle");
          expect(new Set(cycles.map((c) => c.key)).size).toBe(cycles.length);
          for (const c of cycles) {
            expect(new Set(c.beliefs).size).toBe(c.beliefs.length);
            c.beliefs.forEach((id, i) => {
              const next = c.beliefs[(i + 1) % c.beliefs.length] as string;
              expect(byId.get(id)?.dependsOn).toContain(next);
            });
          }
          const covered = new Set(cycles.flatMap((c) => c.beliefs));
          // Every strongly connected tangle is reported at least once.
          for (const b of beliefs) {
            if (!onCycle(beliefs, b.id)) continue;
            const sameTangle = beliefs.filter((o) => onCycle(beliefs, o.id) && reaches(byId, b.id, o.id) && reaches(byId, o.id, b.id));
            expect(sameTangle.some((o) => covered.has(o.id))).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  function reaches(byId: ReadonlyMap<string, Belief>, from: string, to: string): boolean {
    if (from === to) return true;
    const seen = new Set<string>([from]);
    const stack = [...(byId.get(from)?.dependsOn ?? [])];
    while (stack.length > 0) {
      const next = stack.pop() as string;
      if (next === to) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(byId.get(next)?.dependsOn ?? []));
    }
    return false;
  }
});
