// checkpoint_prune: delete old checkpoints by retention rules (the default retention when
// none is given); branch heads and milestone ends always stay.
import type { KeepReason } from "../../timeline/retention.js";
import { defineOperation } from "../operation.js";
import { checkpointJson, sessionField, type CheckpointJson } from "../shared.js";

export interface PruneResult {
  readonly dryRun: boolean;
  readonly policy: Record<string, unknown>;
  readonly kept: readonly { readonly reason: KeepReason; readonly checkpoint: CheckpointJson }[];
  readonly deleted: readonly CheckpointJson[];
  /** Where HEAD went, when the checkpoint it was detached at was pruned. */
  readonly headMoved: { readonly from: string; readonly to: string | null } | null;
}

export const pruneOperation = defineOperation({
  name: "checkpoint_prune",
  title: "Prune checkpoints",
  description:
    "DELETES CHECKPOINTS. Keeps what any rule keeps (with no rule, the default retention: the last hour, manual checkpoints, tags significant/milestone/verified/keep, one per hour for 24 hours, the last 50, and 7 days) plus every branch head and milestone end, and deletes the rest. `dryRun` shows what would go.",
  effect: "destructive",
  input: (z) => ({
    keepLast: z.number().int().min(0).optional().describe("keep the newest N"),
    keepDays: z.number().min(0).optional().describe("keep everything from the last N days"),
    keepHourly: z.number().int().min(0).optional().describe("keep the newest checkpoint of each of the last N hours that have one"),
    keepManual: z.boolean().optional().describe("keep checkpoints made by hand"),
    keepTags: z.array(z.string().min(1)).optional().describe("keep checkpoints with any of these tags"),
    dryRun: z.boolean().default(false),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<PruneResult> => {
    const { session: name, ...options } = input;
    const report = await (await ctx.existingSession(name)).prune(options);
    return {
      dryRun: report.dryRun,
      policy: { ...report.policy },
      kept: report.kept.map((k) => ({ reason: k.reason, checkpoint: checkpointJson(k.checkpoint) })),
      deleted: report.deleted.map(checkpointJson),
      headMoved: report.headMoved,
    };
  },
});
