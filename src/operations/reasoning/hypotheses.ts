// The hypothesis board: propose, update, list and show hypotheses, and record the evidence
// that moves their confidence.
import { InvalidArgumentError } from "../../core/errors.js";
import type { FieldChange } from "../../domains/reasoning/hypotheses.js";
import { EVIDENCE_KINDS, HYPOTHESIS_STATUSES, type Evidence, type Hypothesis } from "../../domains/reasoning/model.js";
import { defineOperation } from "../operation.js";
import { sessionField } from "../shared.js";
import { change, idField, unitField, type Saved } from "./shared.js";

export type HypothesisResult = Hypothesis & Saved;

export const hypothesisAddOperation = defineOperation({
  name: "hypothesis_add",
  title: "Propose a hypothesis",
  description: "Add a hypothesis to the board (status proposed unless given). Returns it with its id (H1, H2, …).",
  effect: "write",
  input: (z) => ({
    statement: z.string().min(1).describe("what might be true"),
    confidence: unitField(z, "how likely it is (default 0.5)").optional(),
    status: z.enum(HYPOTHESIS_STATUSES).optional(),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<HypothesisResult> => {
    const r = await change(ctx, input.session, (rs) =>
      rs.hypotheses.add(input.statement, {
        ...(input.confidence !== undefined && { confidence: input.confidence }),
        ...(input.status !== undefined && { status: input.status }),
      }),
    );
    return { ...r.result, autoCheckpoint: r.autoCheckpoint };
  },
});

export interface HypothesisUpdateResult extends HypothesisResult {
  /** What changed, field by field (empty when the values given were the current ones). */
  readonly changes: readonly FieldChange[];
}

export const hypothesisUpdateOperation = defineOperation({
  name: "hypothesis_update",
  title: "Update a hypothesis",
  description:
    "Change a hypothesis's status (proposed, testing, confirmed, rejected, abandoned), confidence or wording. Confirming or rejecting one makes an automatic checkpoint.",
  effect: "write",
  input: (z) => ({
    id: idField(z, "H1, H2, …"),
    status: z.enum(HYPOTHESIS_STATUSES).optional(),
    confidence: unitField(z, "how likely it is").optional(),
    statement: z.string().min(1).optional().describe("a better wording"),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<HypothesisUpdateResult> => {
    if (input.status === undefined && input.confidence === undefined && input.statement === undefined) {
      throw new InvalidArgumentError("nothing to update: give status, confidence or statement");
    }
    const r = await change(ctx, input.session, (rs) =>
      rs.hypotheses.update(input.id, {
        ...(input.status !== undefined && { status: input.status }),
        ...(input.confidence !== undefined && { confidence: input.confidence }),
        ...(input.statement !== undefined && { statement: input.statement }),
      }),
    );
    return { ...r.result.hypothesis, changes: r.result.changes, autoCheckpoint: r.autoCheckpoint };
  },
});

export const hypothesisListOperation = defineOperation({
  name: "hypothesis_list",
  title: "List hypotheses",
  description: "The hypothesis board, with evidence counts and confidences.",
  effect: "read",
  input: (z) => ({ status: z.enum(HYPOTHESIS_STATUSES).optional().describe("only those with this status"), session: sessionField(z) }),
  run: async (ctx, input): Promise<{ readonly hypotheses: readonly Hypothesis[] }> => ({
    hypotheses: (await ctx.reasoning(input.session)).hypotheses.list(input.status === undefined ? {} : { status: input.status }),
  }),
});

export interface HypothesisShowResult extends Hypothesis {
  /** The evidence attached to it, oldest first. */
  readonly evidenceItems: readonly Evidence[];
}

export const hypothesisShowOperation = defineOperation({
  name: "hypothesis_show",
  title: "Show a hypothesis",
  description: "A hypothesis with its evidence.",
  effect: "read",
  input: (z) => ({ id: idField(z, "H1, H2, …"), session: sessionField(z) }),
  run: async (ctx, input): Promise<HypothesisShowResult> => {
    const rs = await ctx.reasoning(input.session);
    const h = rs.hypotheses.get(input.id);
    return { ...h, evidenceItems: rs.hypotheses.evidenceFor(h.id) };
  },
});

export interface EvidenceResult extends Evidence, Saved {
  /** The hypothesis it bears on, with its confidence moved; null for evidence on its own. */
  readonly hypothesis: Hypothesis | null;
}

export const evidenceAddOperation = defineOperation({
  name: "evidence_add",
  title: "Record evidence",
  description:
    "Record an observation for a hypothesis (it moves the hypothesis's confidence: supports raises, refutes lowers) or, without `hypothesis`, on its own.",
  effect: "write",
  input: (z) => ({
    hypothesis: z.string().min(1).optional().describe("H1, H2, … (omit for evidence about no hypothesis in particular)"),
    content: z.string().min(1).describe("what was observed"),
    kind: z.enum(EVIDENCE_KINDS).default("neutral"),
    source: z.string().min(1).optional().describe("where it came from: a file, a command, a log"),
    strength: unitField(z, "how much it should move confidence (default 0.5)").optional(),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<EvidenceResult> => {
    const r = await change(ctx, input.session, (rs) =>
      rs.hypotheses.addEvidence(input.hypothesis ?? null, {
        kind: input.kind,
        content: input.content,
        source: input.source ?? null,
        ...(input.strength !== undefined && { strength: input.strength }),
      }),
    );
    return { ...r.result.evidence, hypothesis: r.result.hypothesis, autoCheckpoint: r.autoCheckpoint };
  },
});
