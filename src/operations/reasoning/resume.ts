// Picking the work back up: the brief (the session's state as a screen of Markdown, what an
// agent reads after a context compaction) and the recovery point (the latest checkpoint and
// the steps to resume from it after a crash).
import type { Contradiction } from "../../domains/reasoning/beliefs.js";
import type { BriefInput } from "../../domains/reasoning/brief.js";
import type { ReasoningState } from "../../domains/reasoning/model.js";
import type { RecoveryPoint } from "../../domains/reasoning/recovery.js";
import { defineOperation } from "../operation.js";
import { checkpointJson, refField, sessionField, type CheckpointJson } from "../shared.js";

/** The checkpoint a brief comes from (every field of a checkpoint; the time as ISO). */
export type BriefCheckpointJson = Omit<NonNullable<BriefInput["checkpoint"]>, "createdAt"> & { readonly createdAt: string };

export interface BriefResult {
  readonly session: string;
  /** The branch HEAD is on (for a brief of a checkpoint: the checkpoint's branch); null when detached. */
  readonly branch: string | null;
  /** HEAD's checkpoint for the working state, else the checkpoint briefed; null when there is none yet. */
  readonly checkpoint: BriefCheckpointJson | null;
  /** Whether there is work since that checkpoint. */
  readonly unsaved: boolean;
  /** How many checkpoints the session has. */
  readonly checkpoints: number;
  /** When the brief was made (ms since the epoch): its "ago"s count from here. */
  readonly now: number;
  readonly contradictions: readonly Contradiction[];
  readonly markdown: string;
  /** The whole reasoning state briefed, when asked for (`includeState`). */
  readonly state?: ReasoningState;
}

export const briefOperation = defineOperation({
  name: "brief",
  title: "Brief",
  description:
    "The session's state as a short markdown brief: task, hypotheses by confidence, beliefs, contradictions, open gaps, recent verifications. Read it after a context compaction to pick up where you were.",
  effect: "read",
  input: (z) => ({
    ref: refField(z, "a checkpoint to brief instead of the working state").optional(),
    includeState: z.boolean().default(false).describe("also give the whole reasoning state briefed (it can be large)"),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<BriefResult> => {
    const { markdown, input: b } = await (await ctx.reasoning(input.session)).brief(input.ref);
    return {
      session: b.session,
      branch: b.branch,
      checkpoint: b.checkpoint ? { ...b.checkpoint, createdAt: b.checkpoint.createdAt.toISOString() } : null,
      unsaved: b.unsaved,
      checkpoints: b.checkpoints,
      now: b.now,
      contradictions: b.contradictions,
      markdown,
      ...(input.includeState && { state: b.state }),
    };
  },
  text: (r) => r.markdown,
});

export type RecoverResult = Omit<RecoveryPoint, "checkpoint"> & { readonly checkpoint: CheckpointJson };

export const recoverOperation = defineOperation({
  name: "recover",
  title: "Recover",
  description:
    "The latest checkpoint and the steps to resume from it (after a crash or a lost context): the code to restore, the environment, the commands to replay.",
  effect: "read",
  input: (z) => ({ session: sessionField(z) }),
  run: async (ctx, input): Promise<RecoverResult> => {
    const r = await (await ctx.reasoning(input.session)).recover();
    return { ...r, checkpoint: checkpointJson(r.checkpoint) };
  },
});
