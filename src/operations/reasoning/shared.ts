// What the reasoning operations share: the write protocol (load the session's reasoning
// state, change it, save — from the top again if another process saved in between) with the
// automatic checkpoint a trigger made, and the fields several of them take.
import type { ReasoningSession } from "../../domains/reasoning/reasoning-session.js";
import type { OperationContext } from "../context.js";
import type { Z } from "../operation.js";
import { checkpointJson, type CheckpointJson } from "../shared.js";

/** What every reasoning write adds to its result. */
export interface Saved {
  /** The automatic checkpoint a trigger (a status change, a verification, a new contradiction, …) made with this change; null when none fired. */
  readonly autoCheckpoint: CheckpointJson | null;
}

/**
 * Applies `fn` to the session's reasoning state and saves it. `fn` may run more than once
 * (see ReasoningSession.update), so it only changes the session: anything that acts on the
 * world (running a command) happens before, once.
 */
export async function change<T>(ctx: OperationContext, session: string | undefined, fn: (rs: ReasoningSession) => T): Promise<Changed<T>> {
  return changeOpen(await ctx.reasoning(session), fn);
}

/** `change` on a reasoning session already open (to check something before changing it). */
export async function changeOpen<T>(rs: ReasoningSession, fn: (rs: ReasoningSession) => T): Promise<Changed<T>> {
  const { result, saved } = await rs.update(fn);
  return { result, autoCheckpoint: saved.checkpoint ? checkpointJson(saved.checkpoint) : null, rs };
}

export interface Changed<T> extends Saved {
  /** What `fn` returned (on the attempt that was saved). */
  readonly result: T;
  /** The session, as saved. */
  readonly rs: ReasoningSession;
}

/** A number from 0 to 1 (a confidence, a strength). */
export const unitField = (z: Z, what: string) => z.number().min(0).max(1).describe(`${what}, from 0 to 1`);

/** An id of the board: H1, B2, G3, … (any case). */
export const idField = (z: Z, examples: string) => z.string().min(1).describe(examples);
