// Squash (consolidation): a run of consecutive checkpoints FROM..TO on one line of history
// becomes one checkpoint carrying TO's state and files exactly, in one metadata transaction.
// It writes no object, so there is nothing for a crash to leave half done and no gc race:
// the new row points at TO's roots, which TO kept alive until the same commit.
//
// The squashed checkpoint takes TO's seq and time (it holds TO's state, so `#N` and `at(t)`
// keep answering with the same state), TO's branch, trigger and metadata (so domains that
// read them — runs, LangGraph, conversations — still understand it), TO's parent's place
// below FROM, and a record of what it replaced under `metadata.squashed`.
import { ForgeError, InvalidArgumentError } from "../core/errors.js";
import { newId } from "../core/ids.js";
import type { CheckpointRow, MetaWriter, MilestoneRow, SessionRow } from "../backends/backend.js";
import { chainBetween, describeEnds, milestoneEnds } from "./milestones.js";
import { toCheckpoint, type Checkpoint } from "./types.js";

export interface SquashOptions {
  /** The squashed checkpoint's message (default: the run's messages, joined with "; "). */
  readonly message?: string;
  /**
   * Fold in checkpoints something else stands on (see SquashConflict) instead of refusing:
   * branch heads, a detached HEAD, tags and milestone ends move to the squashed checkpoint;
   * checkpoints that fork from inside the run are re-linked to the checkpoint before it.
   */
  readonly force?: boolean;
}

export type SquashConflictKind = "branch-head" | "detached-head" | "tagged" | "milestone-end" | "fork";

/** Something that stands on a checkpoint of the run, which a squash refuses to fold in without `force`. */
export interface SquashConflict {
  readonly kind: SquashConflictKind;
  /** The checkpoint of the run it concerns. */
  readonly checkpoint: Checkpoint;
  /** What stands on it, for people: `the head of branch "exp"`. */
  readonly what: string;
  /** What `force` does about it. */
  readonly effect: string;
}

export interface SquashReport {
  /** The new checkpoint. */
  readonly checkpoint: Checkpoint;
  /** The checkpoints it replaced, oldest first (their ids no longer resolve). */
  readonly replaced: readonly Checkpoint[];
  /** What `force` overrode; empty when nothing in the run was protected. */
  readonly forced: readonly SquashConflict[];
  /** Branches that pointed into the run and now point at the new checkpoint. */
  readonly branches: readonly { readonly name: string; readonly from: string }[];
  /** Checkpoints after the run whose parent changed: TO's children, and forks re-linked below the run. */
  readonly reparented: readonly { readonly checkpoint: Checkpoint; readonly from: string; readonly to: string | null }[];
  /** Milestones with an end in the run: moved to the new checkpoint, or deleted when they no longer span a stretch. */
  readonly milestones: readonly { readonly name: string; readonly deleted: boolean }[];
  /** Where a detached HEAD in the run went (the new checkpoint), or null. */
  readonly headMoved: { readonly from: string; readonly to: string } | null;
}

/**
 * Squashes `from`..`to` (rows of `session`, resolved by the caller) inside `tx`. Everything
 * is checked before the first write; a refusal names every protected checkpoint.
 */
export async function squashRange(
  tx: MetaWriter,
  session: SessionRow,
  from: CheckpointRow,
  to: CheckpointRow,
  options: SquashOptions,
  now: number,
): Promise<SquashReport> {
  if (options.message !== undefined && typeof options.message !== "string") throw new InvalidArgumentError("the squash message must be a string");
  const info = (r: CheckpointRow) => toCheckpoint(r, session.name);
  if (from.id === to.id) {
    throw new InvalidArgumentError(`nothing to squash: FROM and TO are both #${from.seq}`, "give two checkpoints, FROM..TO, with FROM earlier on TO's history");
  }
  const chain = await chainBetween(tx, from.id, to.id);
  if (!chain) {
    throw new InvalidArgumentError(
      `#${from.seq} is not an ancestor of #${to.seq}: a squash folds a run of consecutive checkpoints, FROM..TO along TO's history`,
      "`forge checkpoint timeline` shows the history",
    );
  }
  const inRun = new Set(chain.map((r) => r.id));
  const rows = await tx.listCheckpoints({ sessionId: session.id });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const refs = await tx.listRefs(session.id);
  const milestones = await tx.listMilestones(session.id);
  const ends = milestoneEnds(milestones);
  const below = from.parentId; // where forks from inside the run go, as prune re-links
  const belowText =
    below === null ? "becomes a root (the run starts the timeline)" : `is re-linked to #${byId.get(below)?.seq ?? "?"}, the checkpoint before the run`;
  const squashedId = newId();

  // The graph after the squash: parent links, for milestone checks.
  const parentAfter = new Map<string, string | null>();
  for (const r of rows) {
    if (inRun.has(r.id)) continue;
    const p = r.parentId;
    parentAfter.set(r.id, p === null || !inRun.has(p) ? p : p === to.id ? squashedId : below);
  }
  parentAfter.set(squashedId, below);
  const isAncestorAfter = (a: string, b: string): boolean => {
    for (let id: string | null | undefined = b; id != null; id = parentAfter.get(id)) if (id === a) return true;
    return false;
  };
  const moveEnd = (id: string) => (inRun.has(id) ? squashedId : id);
  const milestoneFate = (m: MilestoneRow): { deleted: boolean; effect: string } => {
    const f = moveEnd(m.fromId);
    const t = moveEnd(m.toId);
    if (f === t) return { deleted: true, effect: `milestone "${m.name}" lies wholly inside the run and is deleted` };
    if (!isAncestorAfter(f, t)) return { deleted: true, effect: `milestone "${m.name}" is deleted: its other end is on a branch that forks inside the run` };
    return { deleted: false, effect: `milestone "${m.name}" now ${f === squashedId ? "starts" : "ends"} at the squashed checkpoint` };
  };

  const conflicts: SquashConflict[] = [];
  const children = new Map<string, CheckpointRow[]>();
  for (const r of rows) if (r.parentId !== null) children.set(r.parentId, [...(children.get(r.parentId) ?? []), r]);
  for (const r of chain) {
    const cp = info(r);
    const isTo = r.id === to.id;
    if (!isTo) {
      for (const ref of refs) {
        if (ref.checkpointId === r.id) {
          conflicts.push({
            kind: "branch-head",
            checkpoint: cp,
            what: `the head of branch "${ref.name}"`,
            effect: `branch "${ref.name}" moves to the squashed checkpoint (so it holds #${to.seq}'s state)`,
          });
        }
      }
      if (session.headBranch === null && session.headCheckpoint === r.id) {
        conflicts.push({ kind: "detached-head", checkpoint: cp, what: "where HEAD is detached", effect: "HEAD moves to the squashed checkpoint" });
      }
      if (r.tags.length > 0) {
        conflicts.push({
          kind: "tagged",
          checkpoint: cp,
          what: `tagged ${r.tags.join(", ")}`,
          effect: `its tags (${r.tags.join(", ")}) move to the squashed checkpoint`,
        });
      }
      for (const child of children.get(r.id) ?? []) {
        if (inRun.has(child.id)) continue;
        conflicts.push({
          kind: "fork",
          checkpoint: cp,
          what: `on another branch's history: #${child.seq} (branch ${child.branch}) forks from it`,
          effect: `#${child.seq} ${belowText}`,
        });
      }
    }
    for (const end of ends.get(r.id) ?? []) {
      const m = milestones.find((x) => x.name === end.name) as MilestoneRow;
      conflicts.push({ kind: "milestone-end", checkpoint: cp, what: describeEnds([end]), effect: milestoneFate(m).effect });
    }
  }
  if (conflicts.length > 0 && !options.force) {
    const bySeq = new Map<number, string[]>();
    for (const c of conflicts) bySeq.set(c.checkpoint.seq, [...(bySeq.get(c.checkpoint.seq) ?? []), c.what]);
    throw new ForgeError(
      "PROTECTED",
      `cannot squash #${from.seq}..#${to.seq}: ${[...bySeq].map(([seq, whats]) => `#${seq} is ${whats.join(" and ")}`).join("; ")}`,
      {
        hint: "--force folds them in: " + [...new Set(conflicts.map((c) => c.effect))].join("; "),
        data: { conflicts: conflicts.map((c) => ({ kind: c.kind, checkpoint: c.checkpoint.id, seq: c.checkpoint.seq, what: c.what, effect: c.effect })) },
      },
    );
  }

  const tags: string[] = [...to.tags];
  for (const r of chain) for (const t of r.tags) if (!tags.includes(t)) tags.push(t);
  const squashed: CheckpointRow = {
    id: squashedId,
    sessionId: session.id,
    seq: to.seq,
    parentId: below,
    branch: to.branch,
    createdAt: to.createdAt,
    message: options.message ?? combinedMessage(chain),
    tags,
    trigger: to.trigger,
    metadata: { ...to.metadata, squashed: { at: new Date(now).toISOString(), replaced: chain.map(replacedRecord) } },
    stateRoot: to.stateRoot,
    filesRoot: to.filesRoot,
    logicalBytes: to.logicalBytes,
    newBytes: chain.reduce((n, r) => n + r.newBytes, 0),
  };

  // TO goes before its replacement takes its seq.
  await tx.deleteCheckpoints(chain.map((r) => r.id));
  await tx.insertCheckpoint(squashed);
  const reparented: SquashReport["reparented"][number][] = [];
  for (const r of rows) {
    if (inRun.has(r.id) || r.parentId === null || !inRun.has(r.parentId)) continue;
    const parentId = r.parentId === to.id ? squashedId : below;
    await tx.updateCheckpoint(r.id, { parentId });
    reparented.push({ checkpoint: info({ ...r, parentId }), from: r.parentId, to: parentId });
  }
  const branches: { name: string; from: string }[] = [];
  for (const ref of refs) {
    if (!inRun.has(ref.checkpointId)) continue;
    await tx.setRef(session.id, ref.name, squashedId);
    branches.push({ name: ref.name, from: ref.checkpointId });
  }
  let headMoved: SquashReport["headMoved"] = null;
  if (session.headBranch === null && session.headCheckpoint !== null && inRun.has(session.headCheckpoint)) {
    await tx.updateSession(session.id, { headCheckpoint: squashedId });
    headMoved = { from: session.headCheckpoint, to: squashedId };
  }
  const movedMilestones: { name: string; deleted: boolean }[] = [];
  for (const m of milestones) {
    if (!inRun.has(m.fromId) && !inRun.has(m.toId)) continue;
    const { deleted } = milestoneFate(m);
    if (deleted) await tx.deleteMilestone(session.id, m.name);
    else await tx.setMilestone({ ...m, fromId: moveEnd(m.fromId), toId: moveEnd(m.toId) });
    movedMilestones.push({ name: m.name, deleted });
  }
  return {
    checkpoint: info(squashed),
    replaced: chain.map(info),
    forced: conflicts,
    branches,
    reparented,
    milestones: movedMilestones,
    headMoved,
  };
}

/** The run's distinct messages, oldest first, joined with "; ". */
function combinedMessage(chain: readonly CheckpointRow[]): string {
  const parts: string[] = [];
  for (const r of chain) {
    const m = r.message.trim();
    if (m !== "" && !parts.includes(m)) parts.push(m);
  }
  const first = chain[0] as CheckpointRow;
  const last = chain[chain.length - 1] as CheckpointRow;
  return parts.length > 0 ? parts.join("; ") : `squash of #${first.seq}..#${last.seq}`;
}

/** What the squashed checkpoint records of one it replaced (a squashed one keeps its own record). */
function replacedRecord(r: CheckpointRow): Record<string, unknown> {
  return {
    id: r.id,
    seq: r.seq,
    message: r.message,
    createdAt: new Date(r.createdAt).toISOString(),
    trigger: r.trigger,
    tags: [...r.tags],
    ...(r.metadata["squashed"] !== undefined && { squashed: r.metadata["squashed"] }),
  };
}
