// Edits of a session's history that Session's operations share: removing checkpoints
// (children re-linked, branch heads and HEAD moved back) for prune and explicit deletes, the
// linear restore's discard of the future, branch names, the working state's version after a
// write, and the check of a checkpoint's options before anything is written.
import type { CheckpointRow, MetaReader, MetaWriter, RefRow, SessionRow } from "../backends/backend.js";
import { InvalidArgumentError } from "../core/errors.js";
import { checkName } from "../core/ids.js";
import { milestoneEnds, refuseMilestoneEnds } from "./milestones.js";
import { DEFAULT_RETENTION, isEmptyPolicy, planRetention, type KeepReason } from "./retention.js";
import type { SessionScope } from "./session-scope.js";
import { MAIN_BRANCH, type Checkpoint, type CheckpointOptions, type PruneOptions, type PruneReport } from "./types.js";

/**
 * Removes the checkpoints `kept` rejects from `rows` (all of one session): children are
 * re-linked to the nearest kept ancestor, branch heads move back (or the branch goes), a
 * detached HEAD moves too. With `write` false it only works out where HEAD would go.
 */
export async function removeCheckpoints(
  tx: MetaReader & Partial<MetaWriter>,
  sessionId: string,
  session: SessionRow,
  rows: readonly CheckpointRow[],
  refs: readonly RefRow[],
  kept: (id: string) => boolean,
  write: boolean,
): Promise<PruneReport["headMoved"]> {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const keptAncestor = (id: string | null): string | null => {
    while (id !== null && !kept(id)) id = byId.get(id)?.parentId ?? null;
    return id;
  };
  const w = tx as MetaWriter;
  const liveRefs = refs.filter((r) => kept(r.checkpointId) || keptAncestor(r.checkpointId) !== null);
  let headMoved: PruneReport["headMoved"] = null;
  if (session.headBranch === null && session.headCheckpoint !== null && !kept(session.headCheckpoint)) {
    const to = keptAncestor(session.headCheckpoint);
    const fallback = liveRefs.find((r) => r.name === MAIN_BRANCH) ?? liveRefs[0];
    headMoved = { from: session.headCheckpoint, to: to ?? fallback?.name ?? null };
    if (write) {
      if (to !== null) await w.updateSession(sessionId, { headCheckpoint: to });
      else await w.updateSession(sessionId, { headBranch: fallback?.name ?? MAIN_BRANCH, headCheckpoint: null });
    }
  }
  if (!write || rows.every((r) => kept(r.id))) return headMoved;
  for (const ref of refs) {
    if (kept(ref.checkpointId)) continue;
    const to = keptAncestor(ref.checkpointId);
    if (to !== null) await w.setRef(sessionId, ref.name, to);
    else await w.deleteRef(sessionId, ref.name);
  }
  for (const r of rows) {
    if (kept(r.id) && r.parentId !== null && !kept(r.parentId)) await w.updateCheckpoint(r.id, { parentId: keptAncestor(r.parentId) });
  }
  await w.deleteCheckpoints(rows.filter((r) => !kept(r.id)).map((r) => r.id));
  return headMoved;
}

/** The working state's version once `root` is the working state. */
export function versionAfter(session: SessionRow, root: string): number {
  return session.workRoot === root ? session.workVersion : session.workVersion + 1;
}

/** The session fields that make `root` its working state (nothing, if it already is). */
export function workPatch(session: SessionRow, root: string): { workRoot?: string; workVersion?: number } {
  return session.workRoot === root ? {} : { workRoot: root, workVersion: session.workVersion + 1 };
}

/** The branch a linear restore rewinds: HEAD's, if the target is in its history, else the target's own. */
export async function branchForLinearRestore(
  tx: MetaReader,
  session: SessionRow,
  target: CheckpointRow,
  heads: readonly { name: string; checkpointId: string }[],
): Promise<string> {
  if (session.headBranch !== null) {
    const head = heads.find((h) => h.name === session.headBranch);
    if (head && (await isAncestor(tx, target.id, head.checkpointId))) return session.headBranch;
  }
  if (heads.some((h) => h.name === target.branch)) return target.branch;
  return session.headBranch ?? MAIN_BRANCH;
}

/** Deletes the checkpoints between `target` (exclusive) and the branch's head, keeping those other branches stand on. */
export async function discardAfter(
  tx: MetaWriter,
  branch: string,
  target: CheckpointRow,
  heads: readonly { name: string; checkpointId: string }[],
): Promise<CheckpointRow[]> {
  const doomed = await planDiscard(tx, branch, target, heads);
  if (doomed.length === 0) return [];
  // Checkpoints that stay but stood on a doomed one (a branch whose name was deleted, say)
  // move down to their nearest surviving ancestor, as prune does.
  const doomedParent = new Map(doomed.map((r) => [r.id, r.parentId]));
  for (const r of await tx.listCheckpoints({ sessionId: target.sessionId })) {
    if (doomedParent.has(r.id) || r.parentId === null || !doomedParent.has(r.parentId)) continue;
    let p: string | null = r.parentId;
    while (p !== null && doomedParent.has(p)) p = doomedParent.get(p) ?? null;
    await tx.updateCheckpoint(r.id, { parentId: p });
  }
  await tx.deleteCheckpoints(doomed.map((r) => r.id));
  return doomed.reverse();
}

/** The checkpoints after `target` on `branch` that no other branch stands on, newest first. */
export async function planDiscard(
  reader: MetaReader,
  branch: string,
  target: CheckpointRow,
  heads: readonly { name: string; checkpointId: string }[],
): Promise<CheckpointRow[]> {
  const head = heads.find((h) => h.name === branch);
  if (!head) return [];
  const chain: CheckpointRow[] = [];
  let id: string | null = head.checkpointId;
  while (id !== null && id !== target.id) {
    const row: CheckpointRow | undefined = await reader.getCheckpoint(id);
    if (!row) break;
    chain.push(row);
    id = row.parentId;
  }
  if (id !== target.id) return []; // the target is not in this branch's history: nothing after it here
  const protectedIds = new Set<string>();
  for (const h of heads) {
    if (h.name === branch) continue;
    let a: string | null = h.checkpointId;
    while (a !== null && !protectedIds.has(a)) {
      protectedIds.add(a);
      a = (await reader.getCheckpoint(a))?.parentId ?? null;
    }
  }
  return chain.filter((r) => !protectedIds.has(r.id));
}

export async function isAncestor(meta: MetaReader, ancestor: string, of: string): Promise<boolean> {
  let id: string | null = of;
  while (id !== null) {
    if (id === ancestor) return true;
    id = (await meta.getCheckpoint(id))?.parentId ?? null;
  }
  return false;
}

export async function freeBranchName(meta: MetaReader, sessionId: string, base: string): Promise<string> {
  if (!(await meta.getRef(sessionId, base))) return base;
  for (let i = 2; ; i++) {
    const name = `${base}-${i}`;
    if (!(await meta.getRef(sessionId, name))) return name;
  }
}

export function normalizeTags(tags: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of tags) {
    const t = raw.trim();
    if (t === "") continue;
    checkName("tag", t);
    if (!out.includes(t)) out.push(t);
  }
  return out;
}

/**
 * Deletes the given checkpoints (refs resolved in this session). A deleted checkpoint's
 * children are re-linked to its nearest remaining ancestor; a branch whose head goes moves
 * back to that ancestor, or is deleted when none is left; a HEAD detached at one moves the
 * same way. Their objects become garbage for gc. A milestone end is refused (PROTECTED):
 * delete the milestone first.
 */
export async function deleteCheckpoints(s: SessionScope, refs: readonly string[]): Promise<Checkpoint[]> {
  if (refs.length === 0) return [];
  return s.ctx.backend.transaction(async (tx) => {
    const targets = new Map<string, CheckpointRow>();
    for (const ref of refs) {
      const row = await s.resolveOwn(ref, tx);
      targets.set(row.id, row);
    }
    await refuseMilestoneEnds(tx, s.id, [...targets.values()], `delete ${[...targets.values()].map((r) => `#${r.seq}`).join(" ")}`);
    const rows = await tx.listCheckpoints({ sessionId: s.id });
    await removeCheckpoints(tx, s.id, await s.row(tx), rows, await tx.listRefs(s.id), (id) => !targets.has(id), true);
    return [...targets.values()].sort((a, b) => a.seq - b.seq).map((r) => s.info(r));
  });
}

/**
 * Deletes the checkpoints no retention rule keeps (branch heads and milestone ends always
 * stay). Children of a deleted checkpoint are re-linked to its nearest kept ancestor. With
 * no rule given, the design's default retention applies. The objects they used become
 * garbage for gc.
 */
export async function prune(s: SessionScope, options: PruneOptions = {}): Promise<PruneReport> {
  const { dryRun = false, ...rules } = options;
  const policy = isEmptyPolicy(rules) ? DEFAULT_RETENTION : rules;
  const run = async (tx: MetaReader & Partial<MetaWriter>, write: boolean): Promise<PruneReport> => {
    const rows = await tx.listCheckpoints({ sessionId: s.id });
    const refs = await tx.listRefs(s.id);
    const ends = new Set(milestoneEnds(await tx.listMilestones(s.id)).keys());
    const keep = planRetention(rows, new Set(refs.map((r) => r.checkpointId)), policy, s.ctx.clock.now(), ends);
    const gone = rows.filter((r) => !keep.has(r.id));
    const session = await s.row(tx);
    const headMoved = await removeCheckpoints(tx, s.id, session, rows, refs, (id) => keep.has(id), write);
    return {
      dryRun: !write,
      policy,
      kept: rows.filter((r) => keep.has(r.id)).map((r) => ({ checkpoint: s.info(r), reason: keep.get(r.id) as KeepReason })),
      deleted: gone.map((r) => s.info(r)),
      headMoved,
    };
  };
  if (dryRun) return run(s.meta, false);
  return s.ctx.backend.transaction((tx) => run(tx, true));
}

export interface CheckedOptions {
  readonly gcEpoch?: number;
  readonly message: string;
  readonly tags: string[];
  readonly trigger: string;
  readonly metadata: Record<string, unknown>;
  readonly filesRoot: string | null;
}

/** Validates checkpoint options before anything is written. */
export function checkCheckpointOptions(options: CheckpointOptions): CheckedOptions {
  const tags = normalizeTags(options.tags ?? []);
  const trigger = options.trigger ?? "manual";
  if (!/^[a-z][a-z0-9_-]{0,63}$/.test(trigger)) {
    throw new InvalidArgumentError(`invalid trigger "${trigger}"`, "use lower-case letters, digits, _ and -");
  }
  const metadata = options.metadata ?? {};
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    throw new InvalidArgumentError("checkpoint metadata must be a JSON object");
  }
  JSON.stringify(metadata); // throws early on cycles, before anything is written
  return {
    message: options.message ?? "",
    tags,
    trigger,
    metadata,
    filesRoot: options.filesRoot ?? null,
    ...(options.gcEpoch !== undefined && { gcEpoch: options.gcEpoch }),
  };
}
