// Comparing two checkpoints: the structural changes between their states and a one-line summary.
import { formatDuration } from "../core/time.js";
import type { ObjectStore } from "../objects/object-store.js";
import { diffTrees, formatPath } from "../objects/tree-diff.js";
import type { Change, Checkpoint, Comparison } from "./types.js";
import { short } from "../core/text.js";
export { short };

export async function compareCheckpoints(objects: ObjectStore, from: Checkpoint, to: Checkpoint): Promise<Comparison> {
  const raw = await diffTrees(objects, from.stateRoot, to.stateRoot);
  const changes: Change[] = raw.map((c) => ({ ...c, at: formatPath(c.path) }));
  const counts = { added: 0, removed: 0, changed: 0 };
  for (const c of changes) counts[c.kind]++;
  const elapsedMs = to.createdAt.getTime() - from.createdAt.getTime();
  return { from, to, changes, counts, elapsedMs, summary: summarize(from, to, changes, counts, elapsedMs) };
}

function summarize(from: Checkpoint, to: Checkpoint, changes: readonly Change[], counts: Comparison["counts"], elapsedMs: number): string {
  const span = `#${from.seq} → #${to.seq}, ${elapsedMs >= 0 ? "" : "going back "}${formatDuration(Math.abs(elapsedMs))}`;
  if (changes.length === 0) return `no changes (${span})`;
  const parts: string[] = [];
  if (counts.changed) parts.push(`${counts.changed} changed`);
  if (counts.added) parts.push(`${counts.added} added`);
  if (counts.removed) parts.push(`${counts.removed} removed`);
  const shown = changes.slice(0, 3).map(describe);
  const more = changes.length > 3 ? `, and ${changes.length - 3} more` : "";
  return `${parts.join(", ")} (${span}): ${shown.join("; ")}${more}`;
}

function describe(c: Change): string {
  switch (c.kind) {
    case "added":
      return `${c.at} added`;
    case "removed":
      return `${c.at} removed`;
    case "changed":
      return `${c.at} ${short(c.oldValue)} → ${short(c.newValue)}`;
  }
}
