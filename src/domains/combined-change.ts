// The change between two checkpoints of a session as people read it: typed reasoning changes
// when both hold reasoning states (JSON paths otherwise) and the file changes when both carry
// a files snapshot. `forge checkpoint diff` and `forge milestone show` both print this.
import type { Session } from "../timeline/session.js";
import type { Store } from "../timeline/store.js";
import type { Checkpoint, Comparison } from "../timeline/types.js";
import type { MilestoneSpan } from "../timeline/milestones.js";
import { compareStates, type ReasoningComparison } from "./reasoning/compare.js";
import { isReasoningState } from "./reasoning/model.js";
import { toReasoningState } from "./reasoning/reasoning-session.js";
import { readTree } from "./workspace/file-tree.js";
import { compareTrees, type FileChange } from "./workspace/workspace.js";

export type StateChange =
  | { readonly kind: "reasoning"; readonly comparison: ReasoningComparison }
  | { readonly kind: "json"; readonly comparison: Comparison };

export interface CombinedChange {
  readonly from: Checkpoint;
  readonly to: Checkpoint;
  readonly state: StateChange;
  /** What changed in the files, when both checkpoints carry a files snapshot; else null. */
  readonly files: readonly FileChange[] | null;
}

export interface CombinedChangeOptions {
  /** JSON paths even when both states are reasoning states. */
  readonly raw?: boolean;
}

/** The change from checkpoint `from` to checkpoint `to` (refs in `session`). */
export async function combinedChange(store: Store, session: Session, from: string, to: string, options: CombinedChangeOptions = {}): Promise<CombinedChange> {
  const [a, b] = await Promise.all([session.get(from), session.get(to)]);
  let state: StateChange | undefined;
  if (!options.raw) {
    const [sa, sb] = await Promise.all([session.state(a.id), session.state(b.id)]);
    if (isReasoningState(sa) && isReasoningState(sb)) {
      const side = (cp: Checkpoint, s: unknown) => ({ label: `#${cp.seq}`, at: cp.createdAt.toISOString(), state: toReasoningState(s, session.name) });
      state = { kind: "reasoning", comparison: compareStates(side(a, sa), side(b, sb)) };
    }
  }
  state ??= { kind: "json", comparison: await session.compare(a.id, b.id) };
  let files: FileChange[] | null = null;
  if (a.filesRoot !== null && b.filesRoot !== null) {
    const [ta, tb] = await Promise.all([readTree(store.objects, a.filesRoot), readTree(store.objects, b.filesRoot)]);
    files = compareTrees(ta, tb);
  }
  return { from: a, to: b, state, files };
}

/** A milestone, the checkpoints it spans and its combined change: the change from its start to its end. */
export interface MilestoneReport extends MilestoneSpan {
  readonly change: CombinedChange;
}

export async function describeMilestone(store: Store, session: Session, name: string, options: CombinedChangeOptions = {}): Promise<MilestoneReport> {
  const span = await session.milestoneSpan(name);
  return { ...span, change: await combinedChange(store, session, span.milestone.from.id, span.milestone.to.id, options) };
}
