// The store's source of time, replaceable in tests that need checkpoints days apart.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to: `advance(ms)` or `set(ms)`. */
export class ManualClock implements Clock {
  #ms: number;
  constructor(startMs: number = Date.now()) {
    this.#ms = startMs;
  }
  now(): number {
    return this.#ms;
  }
  advance(ms: number): void {
    this.#ms += ms;
  }
  set(ms: number): void {
    this.#ms = ms;
  }
}
