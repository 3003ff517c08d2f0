// Restoring a checkpoint of a session: where HEAD goes (onto a branch the target heads, else
// detached at it), and with `discardFuture` (the linear model) the checkpoints after it on its
// branch deleted — refused when one is a milestone end. Also the plan of a restore, for a
// confirmation that says what it would do.
import type { CheckpointRow, MetaReader, RefRow, SessionRow } from "../backends/backend.js";
import { CheckpointNotFoundError } from "../core/errors.js";
import { branchForLinearRestore, discardAfter, planDiscard, versionAfter, workPatch } from "./history-edits.js";
import { refuseMilestoneEnds } from "./milestones.js";
import type { SessionScope } from "./session-scope.js";
import type { Checkpoint, RestoreOptions, RestoreResult } from "./types.js";

export interface RestorePlan {
  readonly checkpoint: Checkpoint;
  readonly head: RestoreResult["head"];
  /** What a linear restore would delete, oldest first. */
  readonly discarded: Checkpoint[];
}

/** The branch HEAD stays on when the target heads one: the current branch first, then the target's own, then any. */
function branchHeadedBy(heads: readonly RefRow[], session: SessionRow, cp: CheckpointRow): RefRow | undefined {
  return (
    heads.find((h) => h.name === session.headBranch && h.checkpointId === cp.id) ??
    heads.find((h) => h.name === cp.branch && h.checkpointId === cp.id) ??
    heads.find((h) => h.checkpointId === cp.id)
  );
}

export async function planRestore(s: SessionScope, ref: string, options: RestoreOptions): Promise<RestorePlan> {
  const meta: MetaReader = s.meta;
  const cp = await s.resolveOwn(ref, meta);
  const session = await s.row(meta);
  const heads = await meta.listRefs(s.id);
  if (options.discardFuture) {
    const branch = await branchForLinearRestore(meta, session, cp, heads);
    const discarded = (await planDiscard(meta, branch, cp, heads)).reverse();
    return { checkpoint: s.info(cp), head: { branch, checkpointId: cp.id }, discarded: discarded.map((r) => s.info(r)) };
  }
  return { checkpoint: s.info(cp), head: { branch: branchHeadedBy(heads, session, cp)?.name ?? null, checkpointId: cp.id }, discarded: [] };
}

export async function restoreTo(s: SessionScope, ref: string, options: RestoreOptions): Promise<RestoreResult> {
  const target = await s.resolveOwn(ref);
  // Read first: a damaged state fails the restore before HEAD moves.
  const state = await s.ctx.objects.readValue(target.stateRoot);
  const { head, discarded, workVersion } = await s.ctx.backend.transaction(async (tx) => {
    const session = await s.row(tx);
    const heads = await tx.listRefs(s.id);
    const cp = await tx.getCheckpoint(target.id);
    if (!cp) throw new CheckpointNotFoundError(ref, "it was deleted while restoring");
    const work = workPatch(session, cp.stateRoot);
    const version = versionAfter(session, cp.stateRoot);
    if (options.discardFuture) {
      const branch = await branchForLinearRestore(tx, session, cp, heads);
      await refuseMilestoneEnds(tx, s.id, await planDiscard(tx, branch, cp, heads), `restore #${cp.seq} discarding the future`);
      const gone = await discardAfter(tx, branch, cp, heads);
      await tx.setRef(s.id, branch, cp.id);
      await tx.updateSession(s.id, { headBranch: branch, headCheckpoint: null, ...work });
      return { head: { branch, checkpointId: cp.id }, discarded: gone, workVersion: version };
    }
    const onHead = branchHeadedBy(heads, session, cp);
    await tx.updateSession(s.id, onHead ? { headBranch: onHead.name, headCheckpoint: null, ...work } : { headBranch: null, headCheckpoint: cp.id, ...work });
    return { head: { branch: onHead?.name ?? null, checkpointId: cp.id }, discarded: [] as CheckpointRow[], workVersion: version };
  });
  return { checkpoint: s.info(target), state, head, discarded: discarded.map((r) => s.info(r)), workVersion };
}
