// What the timeline's parts share about one open store.
import type { Clock } from "../core/clock.js";
import type { Backend } from "../backends/backend.js";
import type { ObjectStore } from "../objects/object-store.js";

export interface StoreContext {
  readonly backend: Backend;
  readonly objects: ObjectStore;
  readonly clock: Clock;
  /**
   * Reads the store's gc epoch; if a gc ran since this process last looked, forgets which
   * objects it believed stored. Returns the epoch a writer must still see when it commits.
   */
  syncGcEpoch(): Promise<number>;
  /** The epoch this process last saw (`syncGcEpoch`), without a read; undefined before the first. */
  knownGcEpoch(): number | undefined;
}
