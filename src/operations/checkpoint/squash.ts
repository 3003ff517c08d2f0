// checkpoint_squash: replace a run of consecutive checkpoints FROM..TO by one that holds TO's
// state and files.
import { defineOperation } from "../operation.js";
import { checkpointJson, refField, sessionField, type CheckpointJson } from "../shared.js";

export interface SquashResult {
  readonly checkpoint: CheckpointJson;
  readonly replaced: readonly CheckpointJson[];
  readonly forced: readonly { readonly kind: string; readonly checkpoint: string; readonly seq: number; readonly what: string; readonly effect: string }[];
  readonly branches: readonly { readonly name: string; readonly from: string }[];
  readonly reparented: readonly { readonly checkpoint: string; readonly seq: number; readonly from: string; readonly to: string | null }[];
  readonly milestones: readonly { readonly name: string; readonly deleted: boolean }[];
  readonly headMoved: { readonly from: string; readonly to: string } | null;
}

export const squashOperation = defineOperation({
  name: "checkpoint_squash",
  title: "Squash a run of checkpoints",
  description:
    "REWRITES HISTORY. Replaces the checkpoints FROM..TO (FROM on TO's history) by one holding TO's state and files, with TO's seq, time, branch and trigger. Refused, naming them, when a branch head, a detached HEAD or tags stand before TO, a milestone end is in the run, or a branch forks from inside it — unless `force`.",
  effect: "destructive",
  input: (z) => ({
    from: refField(z, "the first checkpoint of the run"),
    to: refField(z, "the last checkpoint of the run"),
    message: z.string().optional().describe("the new checkpoint's message (default: the run's messages joined with \"; \")"),
    force: z.boolean().default(false),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<SquashResult> => {
    const r = await (await ctx.existingSession(input.session)).squash(input.from, input.to, {
      ...(input.message !== undefined && { message: input.message }),
      force: input.force,
    });
    return {
      checkpoint: checkpointJson(r.checkpoint),
      replaced: r.replaced.map(checkpointJson),
      forced: r.forced.map((f) => ({ kind: f.kind, checkpoint: f.checkpoint.id, seq: f.checkpoint.seq, what: f.what, effect: f.effect })),
      branches: r.branches,
      reparented: r.reparented.map((p) => ({ checkpoint: p.checkpoint.id, seq: p.checkpoint.seq, from: p.from, to: p.to })),
      milestones: r.milestones,
      headMoved: r.headMoved,
    };
  },
});
