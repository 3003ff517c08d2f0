// Knowledge gaps: the questions not answered yet, their priorities and their answers.
import { GAP_PRIORITIES, type Gap } from "../../domains/reasoning/model.js";
import { defineOperation } from "../operation.js";
import { sessionField } from "../shared.js";
import { change, idField, type Saved } from "./shared.js";

export const gapAddOperation = defineOperation({
  name: "gap_add",
  title: "Note a knowledge gap",
  description: "Record a question that needs an answer, with a priority.",
  effect: "write",
  input: (z) => ({ question: z.string().min(1).describe("what is not known"), priority: z.enum(GAP_PRIORITIES).default("medium"), session: sessionField(z) }),
  run: async (ctx, input): Promise<Gap & Saved> => {
    const r = await change(ctx, input.session, (rs) => rs.gaps.add(input.question, { priority: input.priority }));
    return { ...r.result, autoCheckpoint: r.autoCheckpoint };
  },
});

export const gapFillOperation = defineOperation({
  name: "gap_fill",
  title: "Fill a knowledge gap",
  description: "Answer an open question (G1, G2, …), optionally naming what answered it. Filling a gap makes an automatic checkpoint.",
  effect: "write",
  input: (z) => ({
    id: idField(z, "G1, G2, …"),
    answer: z.string().min(1).describe("what was found"),
    by: z.string().min(1).optional().describe("the evidence, verification or note that answered it"),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<Gap & Saved> => {
    const r = await change(ctx, input.session, (rs) => rs.gaps.fill(input.id, input.answer, { filledBy: input.by ?? null }));
    return { ...r.result, autoCheckpoint: r.autoCheckpoint };
  },
});

export const gapListOperation = defineOperation({
  name: "gap_list",
  title: "List knowledge gaps",
  description: "Open and filled questions, open ones first by priority.",
  effect: "read",
  input: (z) => ({ status: z.enum(["open", "filled"]).optional().describe("only open or only filled ones"), session: sessionField(z) }),
  run: async (ctx, input): Promise<{ readonly gaps: readonly Gap[] }> => ({
    gaps: (await ctx.reasoning(input.session)).gaps.list(input.status === undefined ? {} : { status: input.status }),
  }),
});
