// Session kinds: what a kind of state looks like on a page, how two of its states compare,
// and how a session of it is restored. Operations ask the registry, never a domain by
// name, so a new kind of state is a folder under domains/ with a `kind.ts`, plus one line
// in KINDS below — no interface changes.
import type { RestoreOptions, RestoreResult } from "../timeline/types.js";
import type { Store } from "../timeline/store.js";
import type { Change } from "../timeline/types.js";
import type { MessageView } from "./conversation/view.js";
import type { ReasoningChange } from "./reasoning/compare.js";
import type { ReasoningState } from "./reasoning/model.js";

/** A state as a page (or any reader) shows it. */
export type StateView =
  | { readonly kind: "reasoning"; readonly state: ReasoningState }
  | { readonly kind: "conversation"; readonly messages: readonly MessageView[] }
  | { readonly kind: "json"; readonly state: unknown };

/** What changed between two states, by what they are. */
export type StateComparison =
  | { readonly kind: "reasoning"; readonly summary: string; readonly changes: readonly ReasoningChange[] }
  | {
      readonly kind: "conversation";
      readonly summary: string;
      /** Messages both sides begin with. */
      readonly common: number;
      /** The first side's messages after the common part. */
      readonly removed: readonly MessageView[];
      /** The second side's messages after the common part. */
      readonly added: readonly MessageView[];
    }
  | {
      readonly kind: "json";
      readonly summary: string;
      readonly changes: readonly Change[];
      readonly counts: { readonly added: number; readonly removed: number; readonly changed: number };
    }
  /** Workspace snapshots: their state is a summary of the files, so the file changes say it all. */
  | { readonly kind: "files"; readonly summary: string };

/** One side of a comparison: a checkpoint's label ("#3"), time and state. */
export interface Side {
  readonly label: string;
  readonly at: string;
  readonly state: unknown;
}

export interface SessionKind {
  /** The state as this kind shows it; null when it is not one of this kind's (shown as JSON then). */
  view(state: unknown, sessionName: string): StateView | null;
  /** The kind's own comparison of two states, or null to compare them as JSON. */
  compare(a: Side, b: Side, sessionName: string, files: FileCounts | null): StateComparison | null;
  /** Restores a session of this kind (default: the timeline's restore). */
  restore?(store: Store, sessionName: string, ref: string, options: RestoreOptions): Promise<Pick<RestoreResult, "checkpoint" | "head" | "discarded">>;
  /** False when restoring writes outside the store (workspace files): the web page leaves that to the CLI. */
  readonly restoresOnPage: boolean;
}

/** How many files changed, by kind of change, for kinds whose states are file summaries. */
export type FileCounts = ReadonlyMap<string, number>;

/** Kinds by name, loaded on first use. A kind not listed is shown and compared as JSON. */
const KINDS: Readonly<Record<string, () => Promise<SessionKind>>> = {
  generic: () => import("./reasoning/kind.js").then((m) => m.reasoningKind),
  reasoning: () => import("./reasoning/kind.js").then((m) => m.reasoningKind),
  conversation: () => import("./conversation/kind.js").then((m) => m.conversationKind),
  workspace: () => import("./workspace/kind.js").then((m) => m.workspaceKind),
};

const PLAIN: SessionKind = { view: () => null, compare: () => null, restoresOnPage: true };

/** The handler of sessions of `kind`. */
export async function sessionKind(kind: string): Promise<SessionKind> {
  const load = Object.hasOwn(KINDS, kind) ? KINDS[kind] : undefined;
  return load ? load() : PLAIN;
}

/** A state as the session's kind shows it, else as JSON. */
export function viewOf(kind: SessionKind, state: unknown, sessionName: string): StateView {
  return kind.view(state, sessionName) ?? { kind: "json", state };
}
