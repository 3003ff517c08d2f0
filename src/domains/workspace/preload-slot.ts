// The one preload bin/forge.js hands the CLI (walk-preload.ts, stat-preload.ts): adopted once,
// taken once, by the first walk or comparison of the process, and only while it is fresh.

/** What a preload must say of itself to be handed on. */
export interface Preload {
  readonly root: string;
  /** Date.now() when it started. */
  readonly startedAt: number;
  close(): void;
}

/**
 * What a preload saw is the tree as the command started: a walk or comparison that starts this
 * long after the process did (it waited for a lock, say) looks for itself.
 */
const FRESH_MS = 1000;

export class PreloadSlot<P extends Preload> {
  #held: P | undefined;

  /** Holds `preload` (closing one held before). */
  adopt(preload: P | undefined): void {
    this.#held?.close();
    this.#held = preload;
  }

  /** The preload for `root`, once: later callers (and other roots, or a stale one) get none, and what they would have got is closed. */
  take(root: string): P | undefined {
    const p = this.#held;
    this.#held = undefined;
    if (p !== undefined && (p.root !== root || Date.now() - p.startedAt > FRESH_MS)) {
      p.close();
      return undefined;
    }
    return p;
  }
}
