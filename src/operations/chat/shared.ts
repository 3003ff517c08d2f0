// What the chat operations share: opening the conversation a call names (writes may start
// it, reads never do), the JSON shape of a conversation's checkpoint, and input fields.
import { ConversationSession, type ConversationCheckpoint } from "../../domains/conversation/conversation-session.js";
import type { OperationContext } from "../context.js";
import type { Z } from "../operation.js";
import { checkpointJson, type CheckpointJson } from "../shared.js";

/** A conversation's checkpoint: the timeline's checkpoint with what `save` recorded. */
export interface ConversationCheckpointJson extends CheckpointJson {
  /** The name it was saved under: "Checkpoint N" unless one was given. */
  readonly name: string;
  readonly description: string;
  /** How many messages it holds; null for a checkpoint not made by a conversation save. */
  readonly messageCount: number | null;
}

export function conversationCheckpointJson(cp: ConversationCheckpoint): ConversationCheckpointJson {
  return { ...checkpointJson(cp), name: cp.name, description: cp.description, messageCount: cp.messageCount };
}

/** The conversation the call names, started if there is none (for calls that add to it). */
export async function openConversation(ctx: OperationContext, session: string | undefined): Promise<ConversationSession> {
  return ConversationSession.open(await ctx.store(), ctx.sessionName(session));
}

/** The existing conversation the call names (SESSION_NOT_FOUND otherwise): looking never starts one. */
export async function existingConversation(ctx: OperationContext, session: string | undefined): Promise<ConversationSession> {
  return ConversationSession.openExisting(await ctx.store(), ctx.sessionName(session));
}

/** A field naming a conversation's checkpoint. */
export const chatRefField = (z: Z, what: string) =>
  z.string().min(1).max(200).describe(`${what}: its name ("Checkpoint 2"), #N, an id or unique prefix, HEAD~N, a branch name, or tag:NAME`);

/**
 * A JSON object, kept as parsed: every key ("__proto__" included) stays an own key of it.
 * Not z.record, which drops a "__proto__" key silently (and copies the object to do it).
 */
export const jsonObjectField = (z: Z) =>
  z.custom<Record<string, unknown>>(
    (v) => typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype,
    "expected a JSON object",
  );
