// Which checkpoints a prune keeps. A checkpoint stays when any rule keeps it; branch heads
// and milestone ends always stay. The rules are those of the forge-reasoning design, with restic's meanings
// where the two overlap (keep-last, keep-hourly, keep-within).
import { InvalidArgumentError } from "../core/errors.js";
import type { CheckpointRow } from "../backends/backend.js";

export interface RetentionPolicy {
  /** Keep the newest N checkpoints (by seq). */
  readonly keepLast?: number;
  /** Keep every checkpoint made in the last N days. */
  readonly keepDays?: number;
  /** Keep checkpoints made by hand (trigger "manual"). */
  readonly keepManual?: boolean;
  /** Keep checkpoints with any of these tags. */
  readonly keepTags?: readonly string[];
  /** For the last N hours that have checkpoints, keep the newest of each hour. */
  readonly keepHourly?: number;
  /** Keep every checkpoint made in the last N minutes. */
  readonly keepRecentMinutes?: number;
}

/** The design's retention, used when a prune names no rule of its own. */
export const DEFAULT_RETENTION: RetentionPolicy = Object.freeze({
  keepRecentMinutes: 60,
  keepManual: true,
  keepTags: Object.freeze(["significant", "milestone", "verified", "keep"]),
  keepHourly: 24,
  keepLast: 50,
  keepDays: 7,
});

export type KeepReason = "branch head" | "milestone" | "last" | "days" | "manual" | "tag" | "hourly" | "recent";

export function isEmptyPolicy(p: RetentionPolicy): boolean {
  return (
    p.keepLast === undefined &&
    p.keepDays === undefined &&
    p.keepManual === undefined &&
    p.keepTags === undefined &&
    p.keepHourly === undefined &&
    p.keepRecentMinutes === undefined
  );
}

export function checkPolicy(p: RetentionPolicy): void {
  for (const [name, v] of Object.entries({ keepLast: p.keepLast, keepDays: p.keepDays, keepHourly: p.keepHourly, keepRecentMinutes: p.keepRecentMinutes })) {
    // Infinity is allowed: "one per hour for all older time".
    if (v !== undefined && (Number.isNaN(v) || v < 0)) throw new InvalidArgumentError(`${name} must be a number ≥ 0, not ${v}`);
  }
}

/** Why each kept checkpoint stays; those absent from the map go. */
export function planRetention(
  rows: readonly CheckpointRow[],
  branchHeads: ReadonlySet<string>,
  policy: RetentionPolicy,
  nowMs: number,
  milestoneEnds: ReadonlySet<string> = new Set(),
): Map<string, KeepReason> {
  checkPolicy(policy);
  const keep = new Map<string, KeepReason>();
  const mark = (id: string, why: KeepReason) => {
    if (!keep.has(id)) keep.set(id, why);
  };
  const newestFirst = [...rows].sort((a, b) => b.seq - a.seq);
  for (const r of newestFirst) if (branchHeads.has(r.id)) mark(r.id, "branch head");
  for (const r of newestFirst) if (milestoneEnds.has(r.id)) mark(r.id, "milestone");
  if (policy.keepLast !== undefined) for (const r of newestFirst.slice(0, policy.keepLast)) mark(r.id, "last");
  for (const r of newestFirst) {
    if (policy.keepDays !== undefined && r.createdAt >= nowMs - policy.keepDays * 86_400_000) mark(r.id, "days");
    if (policy.keepRecentMinutes !== undefined && r.createdAt >= nowMs - policy.keepRecentMinutes * 60_000) mark(r.id, "recent");
    if (policy.keepManual && r.trigger === "manual") mark(r.id, "manual");
    if (policy.keepTags?.some((t) => r.tags.includes(t))) mark(r.id, "tag");
  }
  if (policy.keepHourly !== undefined && policy.keepHourly > 0) {
    const seenHours = new Set<number>();
    for (const r of [...rows].sort((a, b) => b.createdAt - a.createdAt || b.seq - a.seq)) {
      const hour = Math.floor(r.createdAt / 3_600_000);
      if (seenHours.has(hour)) continue;
      if (seenHours.size >= policy.keepHourly) break;
      seenHours.add(hour);
      mark(r.id, "hourly");
    }
  }
  return keep;
}
