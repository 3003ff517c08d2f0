// What the parts of a reasoning session share: capture/restore of their slice of the
// state, the clock, id allocation, and a way to report events that trigger checkpoints.
import type { Clock } from "../../core/clock.js";
import type { CheckpointOptions } from "../../timeline/types.js";
import type { ReasoningState } from "./model.js";

/**
 * A part of the state that can be captured into a checkpoint and put back from one.
 * `capture` returns the part's own data, not a copy: the session encodes it at once and
 * hands callers copies. `restore` takes ownership of what it is given.
 */
export interface Snapshotable<T> {
  capture(): T;
  restore(snapshot: T): void;
}

/** The eight automatic checkpoint triggers of the forge-reasoning design. */
export const TRIGGERS = [
  "hypothesis-status",
  "contradiction",
  "verification",
  "branch-switch",
  "gap-filled",
  "code-modified",
  "time",
  "compaction-warning",
] as const;
export type Trigger = (typeof TRIGGERS)[number];

export interface TriggerEvent {
  readonly trigger: Trigger;
  /** One line for the checkpoint message: "H2 confirmed". */
  readonly what: string;
  /** Significant events (a hypothesis confirmed or rejected, a contradiction) survive pruning. */
  readonly significant: boolean;
  /** Checkpoint only if there is work since HEAD's checkpoint (a branch switch with nothing new needs none). */
  readonly onlyIfUnsaved?: boolean;
}

export interface PartContext {
  readonly clock: Clock;
  /** The next id for a prefix: H1, H2, … */
  nextId(prefix: string): string;
  now(): string;
  emit(event: TriggerEvent): void;
  /**
   * Marks a top-level key of the state as changed. Parts call it from every method that
   * changes them, so the session can tell the encoder which keys it need not walk.
   */
  touch(key: keyof ReasoningState): void;
}

/** Id counters, kept in the state so ids never repeat across processes and restores. */
export class Counters implements Snapshotable<ReasoningState["counters"]> {
  #counters: Record<string, number> = {};

  next(prefix: string): string {
    const n = (this.#counters[prefix] ?? 0) + 1;
    this.#counters[prefix] = n;
    return `${prefix}${n}`;
  }

  capture(): ReasoningState["counters"] {
    return { ...this.#counters };
  }

  restore(snapshot: ReasoningState["counters"]): void {
    this.#counters = { ...snapshot };
  }
}

/** The options of an automatic checkpoint for the events that fired. */
export function autoCheckpointOptions(events: readonly TriggerEvent[]): CheckpointOptions {
  const fired = [...new Set(events.map((e) => e.trigger))].sort((a, b) => TRIGGERS.indexOf(a) - TRIGGERS.indexOf(b));
  const significant = events.some((e) => e.significant);
  return {
    message: `auto: ${events.map((e) => e.what).join("; ")}`,
    trigger: fired[0] as string,
    tags: ["auto", ...fired, ...(significant ? ["significant"] : [])],
    metadata: { events: events.map((e) => ({ trigger: e.trigger, what: e.what })) },
  };
}
