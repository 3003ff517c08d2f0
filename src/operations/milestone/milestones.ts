// Milestones: a named stretch of a session's timeline, from one checkpoint to a later one on
// its history, seen as one change; prune keeps its ends.
import type { Milestone, MilestoneSpan } from "../../timeline/milestones.js";
import type { Session } from "../../timeline/session.js";
import type { Store } from "../../timeline/store.js";
import { compareCheckpoints, type CompareOptions, type CompareResult } from "../checkpoint/compare.js";
import { defineOperation } from "../operation.js";
import { checkpointJson, refField, sessionField, type CheckpointJson } from "../shared.js";

export interface MilestoneJson {
  readonly name: string;
  readonly session: string;
  readonly description: string;
  readonly createdAt: string;
  readonly from: CheckpointJson;
  readonly to: CheckpointJson;
}

export function milestoneJson(m: Milestone): MilestoneJson {
  return {
    name: m.name,
    session: m.session,
    description: m.description,
    createdAt: m.createdAt.toISOString(),
    from: checkpointJson(m.from),
    to: checkpointJson(m.to),
  };
}

export const milestoneCreateOperation = defineOperation({
  name: "milestone_create",
  title: "Create a milestone",
  description: "Names the stretch of the timeline from one checkpoint to a later one on its history (default: to HEAD).",
  effect: "write",
  input: (z) => ({
    name: z.string().min(1).describe("letters, digits, . _ - /"),
    from: refField(z, "where the stretch starts: an ancestor of `to`"),
    to: refField(z, "where it ends").default("HEAD"),
    description: z.string().default("").describe("what was done in it"),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<MilestoneJson> =>
    milestoneJson(
      await (await ctx.existingSession(input.session)).createMilestone(input.name, { from: input.from, to: input.to, description: input.description }),
    ),
});

export const milestoneListOperation = defineOperation({
  name: "milestone_list",
  title: "List milestones",
  description: "A session's milestones, oldest first.",
  effect: "read",
  input: (z) => ({ session: sessionField(z) }),
  run: async (ctx, input): Promise<{ readonly session: string; readonly milestones: readonly MilestoneJson[] }> => {
    const session = await ctx.existingSession(input.session);
    return { session: session.name, milestones: (await session.milestones()).map(milestoneJson) };
  },
});

export interface MilestoneShowResult {
  readonly milestone: MilestoneJson;
  /** The checkpoints it spans, oldest first. */
  readonly checkpoints: readonly CheckpointJson[];
  /** The change from its start to its end: what `checkpoint_compare` of its two ends gives. */
  readonly change: CompareResult;
}

export const milestoneShowOperation = defineOperation({
  name: "milestone_show",
  title: "Show a milestone",
  description: "A milestone, the checkpoints it spans, and the combined change over it (typed reasoning changes, file changes).",
  effect: "read",
  input: (z) => ({ name: z.string().min(1), raw: z.boolean().default(false).describe("JSON paths even for a reasoning session"), session: sessionField(z) }),
  run: async (ctx, input): Promise<MilestoneShowResult> => {
    const r = await describeMilestone(await ctx.store(), await ctx.existingSession(input.session), input.name, { raw: input.raw });
    return { milestone: milestoneJson(r.milestone), checkpoints: r.checkpoints.map(checkpointJson), change: r.change };
  },
});

/** A milestone, the checkpoints it spans and its combined change: the compare of its two ends. */
export async function describeMilestone(
  store: Store,
  session: Session,
  name: string,
  options: CompareOptions = {},
): Promise<MilestoneSpan & { readonly change: CompareResult }> {
  const span = await session.milestoneSpan(name);
  return { ...span, change: await compareCheckpoints(store, session, span.milestone.from.id, span.milestone.to.id, options) };
}

export const milestoneDeleteOperation = defineOperation({
  name: "milestone_delete",
  title: "Delete a milestone",
  description: "Deletes a milestone; its checkpoints stay.",
  effect: "destructive",
  input: (z) => ({ name: z.string().min(1), session: sessionField(z) }),
  run: async (ctx, input): Promise<{ readonly deleted: MilestoneJson }> => ({
    deleted: milestoneJson(await (await ctx.existingSession(input.session)).deleteMilestone(input.name)),
  }),
});
