// What the functions that work on one session from outside the Session class (pruning,
// deleting checkpoints, milestones) reach of it: its store, its id and name, its row and its
// checkpoints' refs — nothing else of its private state.
import type { CheckpointRow, MetaReader, SessionRow } from "../backends/backend.js";
import type { StoreContext } from "./store-context.js";
import type { Checkpoint } from "./types.js";

export interface SessionScope {
  readonly ctx: StoreContext;
  readonly id: string;
  readonly name: string;
  /** Reads outside a transaction. */
  readonly meta: MetaReader;
  /** The session's row, read with `reader` (a transaction's, or `meta`). */
  row(reader?: MetaReader): Promise<SessionRow>;
  /** A ref resolved to a checkpoint of this session (INVALID_REF for another session's). */
  resolveOwn(ref: string, reader?: MetaReader): Promise<CheckpointRow>;
  /** A row as the checkpoint callers see. */
  info(row: CheckpointRow): Checkpoint;
}
