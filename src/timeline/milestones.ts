// Milestones: named stretches of a session's timeline, from one checkpoint to a later one on
// its history. They live in the backend's milestone relation (not among the refs, which every
// reader takes for branches); their two ends are kept by prune and by explicit deletes.
import { CheckpointNotFoundError, ForgeError, InvalidArgumentError } from "../core/errors.js";
import { checkName } from "../core/ids.js";
import type { CheckpointRow, MetaReader, MetaWriter, MilestoneRow } from "../backends/backend.js";
import type { SessionScope } from "./session-scope.js";
import type { Checkpoint } from "./types.js";

export interface Milestone {
  readonly name: string;
  readonly session: string;
  readonly description: string;
  readonly createdAt: Date;
  /** Where the stretch starts: an ancestor of `to`. */
  readonly from: Checkpoint;
  /** Where it ends. */
  readonly to: Checkpoint;
}

export interface MilestoneOptions {
  /** The first checkpoint of the stretch. */
  readonly from: string;
  /** The last one (default HEAD); `from` must be on its history. */
  readonly to?: string;
  readonly description?: string;
}

/** A milestone with the checkpoints it spans, `from` to `to` along the parent links. */
export interface MilestoneSpan {
  readonly milestone: Milestone;
  /** Oldest first; the first is `from`, the last `to`. */
  readonly checkpoints: readonly Checkpoint[];
}

/** Which end of a milestone a checkpoint is. */
export interface MilestoneEnd {
  readonly name: string;
  readonly end: "from" | "to";
}

/**
 * The checkpoints from `fromId` to `toId` along `toId`'s parent links, oldest first, or
 * null when `fromId` is not on `toId`'s history.
 */
export async function chainBetween(reader: MetaReader, fromId: string, toId: string): Promise<CheckpointRow[] | null> {
  const chain: CheckpointRow[] = [];
  let id: string | null = toId;
  const seen = new Set<string>();
  while (id !== null && !seen.has(id)) {
    seen.add(id);
    const row: CheckpointRow | undefined = await reader.getCheckpoint(id);
    if (!row) return null;
    chain.push(row);
    if (row.id === fromId) return chain.reverse();
    id = row.parentId;
  }
  return null;
}

/** Checkpoint id → the milestone ends it is, for a session's milestones. */
export function milestoneEnds(milestones: readonly MilestoneRow[]): Map<string, MilestoneEnd[]> {
  const out = new Map<string, MilestoneEnd[]>();
  const add = (id: string, end: MilestoneEnd) => out.set(id, [...(out.get(id) ?? []), end]);
  for (const m of milestones) {
    add(m.fromId, { name: m.name, end: "from" });
    add(m.toId, { name: m.name, end: "to" });
  }
  return out;
}

/** "the start of milestone "m1"", "the ends of milestones "a" and "b"" — for messages. */
export function describeEnds(ends: readonly MilestoneEnd[]): string {
  const names = [...new Set(ends.map((e) => e.name))];
  if (ends.length === 1) return `the ${ends[0]?.end === "from" ? "start" : "end"} of milestone "${names[0]}"`;
  return `an end of milestone${names.length === 1 ? "" : "s"} ${names.map((n) => `"${n}"`).join(", ")}`;
}

/**
 * Refuses to delete checkpoints that are milestone ends (inside a transaction, before
 * anything is deleted): a milestone must never name a checkpoint that is gone. `action` says
 * what was asked: "delete #3 #4".
 */
export async function refuseMilestoneEnds(reader: MetaReader, sessionId: string, doomed: readonly CheckpointRow[], action: string): Promise<void> {
  const ends = milestoneEnds(await reader.listMilestones(sessionId));
  const hit = doomed.filter((r) => ends.has(r.id)).sort((a, b) => a.seq - b.seq);
  if (hit.length === 0) return;
  const names = [...new Set(hit.flatMap((r) => (ends.get(r.id) ?? []).map((e) => e.name)))];
  throw new ForgeError("PROTECTED", `cannot ${action}: ${hit.map((r) => `#${r.seq} is ${describeEnds(ends.get(r.id) ?? [])}`).join("; ")}`, {
    hint: `a milestone keeps its ends; delete it first (${names.map((n) => `forge milestone delete ${n}`).join("; ")})`,
    data: { checkpoints: hit.map((r) => r.id), milestones: names },
  });
}

export function milestoneNotFound(name: string, session: string): ForgeError {
  return new ForgeError("MILESTONE_NOT_FOUND", `session "${session}" has no milestone "${name}"`, {
    hint: "run `forge milestone list` to see them",
    data: { name },
  });
}

/** Checks a new milestone and writes it (inside a transaction); `from` and `to` are resolved already. */
export async function insertMilestone(
  tx: MetaWriter,
  session: { id: string; name: string },
  name: string,
  from: CheckpointRow,
  to: CheckpointRow,
  description: string,
  now: number,
): Promise<MilestoneRow> {
  checkName("milestone", name);
  if (await tx.getMilestone(session.id, name)) {
    throw new ForgeError("MILESTONE_EXISTS", `session "${session.name}" already has a milestone "${name}"`, {
      hint: `pick another name, or delete the old one first (forge milestone delete ${name})`,
      data: { name },
    });
  }
  if (from.id === to.id) {
    throw new InvalidArgumentError(`a milestone needs two checkpoints: --from and --to both name #${from.seq}`, "pick --from earlier on the history of --to");
  }
  if (!(await chainBetween(tx, from.id, to.id))) {
    throw new InvalidArgumentError(
      `#${from.seq} is not an ancestor of #${to.seq}: a milestone runs from a checkpoint to a later one on its history`,
      `\`forge checkpoint timeline\` shows the history; #${to.seq} is on branch ${to.branch}`,
    );
  }
  const row: MilestoneRow = { sessionId: session.id, name, fromId: from.id, toId: to.id, description, createdAt: now };
  await tx.setMilestone(row);
  return row;
}

// What a session does with its milestones (Session's methods call these).

/**
 * Names the stretch of history from `options.from` to `options.to` (default HEAD), which
 * must be a later checkpoint on `from`'s line. Prune keeps both ends; deleting either is
 * refused while the milestone exists.
 */
export async function createMilestone(s: SessionScope, name: string, options: MilestoneOptions): Promise<Milestone> {
  const description = options.description ?? "";
  if (typeof description !== "string") throw new InvalidArgumentError("a milestone's description must be a string");
  return s.ctx.backend.transaction(async (tx) => {
    const from = await s.resolveOwn(options.from, tx);
    const to = await s.resolveOwn(options.to ?? "HEAD", tx);
    const row = await insertMilestone(tx, { id: s.id, name: s.name }, name, from, to, description, s.ctx.clock.now());
    return milestoneOf(s, row, from, to);
  });
}

/** The session's milestones, oldest first. */
export async function listMilestones(s: SessionScope): Promise<Milestone[]> {
  const out: Milestone[] = [];
  for (const m of await s.meta.listMilestones(s.id)) out.push(await loadMilestone(s, m));
  return out;
}

export async function getMilestone(s: SessionScope, name: string): Promise<Milestone> {
  const row = await s.meta.getMilestone(s.id, name);
  if (!row) throw milestoneNotFound(name, s.name);
  return loadMilestone(s, row);
}

/** A milestone with every checkpoint it spans, from its start to its end. */
export async function milestoneSpan(s: SessionScope, name: string): Promise<MilestoneSpan> {
  const milestone = await getMilestone(s, name);
  const chain = await chainBetween(s.meta, milestone.from.id, milestone.to.id);
  if (!chain) {
    throw new ForgeError("CHECKPOINT_NOT_FOUND", `milestone "${name}" no longer runs from #${milestone.from.seq} to #${milestone.to.seq} along the history`, {
      hint: "run `forge fsck`",
    });
  }
  return { milestone, checkpoints: chain.map((r) => s.info(r)) };
}

/** Deletes a milestone (its checkpoints stay); returns what it was. */
export async function deleteMilestone(s: SessionScope, name: string): Promise<Milestone> {
  return s.ctx.backend.transaction(async (tx) => {
    const row = await tx.getMilestone(s.id, name);
    if (!row) throw milestoneNotFound(name, s.name);
    const milestone = await loadMilestone(s, row, tx);
    await tx.deleteMilestone(s.id, name);
    return milestone;
  });
}

async function loadMilestone(s: SessionScope, row: MilestoneRow, reader: MetaReader = s.meta): Promise<Milestone> {
  const [from, to] = await Promise.all([reader.getCheckpoint(row.fromId), reader.getCheckpoint(row.toId)]);
  if (!from || !to) {
    throw new CheckpointNotFoundError(
      `milestone:${row.name}`,
      "run `forge fsck`",
      `milestone "${row.name}" points at ${!from ? row.fromId : row.toId}, which is gone`,
    );
  }
  return milestoneOf(s, row, from, to);
}

function milestoneOf(s: SessionScope, row: MilestoneRow, from: CheckpointRow, to: CheckpointRow): Milestone {
  return { name: row.name, session: s.name, description: row.description, createdAt: new Date(row.createdAt), from: s.info(from), to: s.info(to) };
}
