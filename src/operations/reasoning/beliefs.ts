// The belief graph: hold and retract beliefs, list them, and find the contradictions among
// them (computed from the board, never stored).
import type { Contradiction } from "../../domains/reasoning/beliefs.js";
import type { Belief } from "../../domains/reasoning/model.js";
import { defineOperation } from "../operation.js";
import { sessionField } from "../shared.js";
import { change, idField, unitField, type Saved } from "./shared.js";

export interface BeliefAddResult extends Belief, Saved {
  /** The contradictions the new belief takes part in. */
  readonly contradictions: readonly Contradiction[];
}

export const beliefAddOperation = defineOperation({
  name: "belief_add",
  title: "Hold a belief",
  description:
    "Record a belief, optionally resting on other beliefs or hypotheses (dependsOn), supporting or contradicting others. Returns it and any contradiction it takes part in.",
  effect: "write",
  input: (z) => ({
    statement: z.string().min(1).describe("what is held true"),
    confidence: unitField(z, "how sure (default 0.7)").optional(),
    dependsOn: z.array(z.string().min(1)).optional().describe("ids of beliefs (B1, …) or hypotheses (H1, …) it rests on"),
    supports: z.array(z.string().min(1)).optional().describe("ids of beliefs it supports"),
    contradicts: z.array(z.string().min(1)).optional().describe("ids of beliefs it cannot be held with"),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<BeliefAddResult> => {
    const {
      result: b,
      autoCheckpoint,
      rs,
    } = await change(ctx, input.session, (r) =>
      r.beliefs.add(input.statement, {
        ...(input.confidence !== undefined && { confidence: input.confidence }),
        ...(input.dependsOn !== undefined && { dependsOn: input.dependsOn }),
        ...(input.supports !== undefined && { supports: input.supports }),
        ...(input.contradicts !== undefined && { contradicts: input.contradicts }),
      }),
    );
    return { ...b, contradictions: rs.contradictions().filter((x) => x.beliefs.includes(b.id)), autoCheckpoint };
  },
});

export const beliefRetractOperation = defineOperation({
  name: "belief_retract",
  title: "Retract a belief",
  description: "Mark a belief as no longer held (it stays in the record).",
  effect: "write",
  input: (z) => ({ id: idField(z, "B1, B2, …"), session: sessionField(z) }),
  run: async (ctx, input): Promise<Belief & Saved> => {
    const r = await change(ctx, input.session, (rs) => rs.beliefs.update(input.id, { status: "retracted" }));
    return { ...r.result, autoCheckpoint: r.autoCheckpoint };
  },
});

export const beliefListOperation = defineOperation({
  name: "belief_list",
  title: "List beliefs",
  description: "The beliefs with their dependencies, and the contradictions among beliefs and hypotheses.",
  effect: "read",
  input: (z) => ({ session: sessionField(z) }),
  run: async (ctx, input): Promise<{ readonly beliefs: readonly Belief[]; readonly contradictions: readonly Contradiction[] }> => {
    const rs = await ctx.reasoning(input.session);
    return { beliefs: rs.beliefs.list(), contradictions: rs.contradictions() };
  },
});

export const contradictionsOperation = defineOperation({
  name: "contradictions",
  title: "Find contradictions",
  description:
    "Beliefs that contradict each other, beliefs resting on retracted beliefs or on rejected hypotheses, beliefs resting on each other in a circle: what to resolve before trusting the board.",
  effect: "read",
  input: (z) => ({ session: sessionField(z) }),
  run: async (ctx, input): Promise<{ readonly contradictions: readonly Contradiction[] }> => ({
    contradictions: (await ctx.reasoning(input.session)).contradictions(),
  }),
});
