// chat_save, chat_list, chat_latest, chat_restore, chat_delete, chat_clear: a conversation's
// checkpoints — saved by name ("Checkpoint N" unless named), listed, restored (branching, or
// linear: the future discarded), deleted.
import type { Message } from "../../domains/conversation/model.js";
import { ForgeError } from "../../core/errors.js";
import { defineOperation } from "../operation.js";
import { sessionField } from "../shared.js";
import { chatRefField, conversationCheckpointJson, existingConversation, openConversation, type ConversationCheckpointJson } from "./shared.js";

export const chatSaveOperation = defineOperation({
  name: "chat_save",
  title: "Save a conversation",
  description: 'Saves the messages a conversation holds as a checkpoint, named "Checkpoint N" (N its #N) unless named.',
  effect: "write",
  input: (z) => ({
    name: z.string().max(200).optional().describe("the checkpoint's name"),
    description: z.string().max(2000).optional().describe("what it is"),
    tags: z.array(z.string().min(1)).default([]).describe("tags to find it by"),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<{ readonly checkpoint: ConversationCheckpointJson }> => {
    const cs = await openConversation(ctx, input.session);
    const cp = await cs.save(input.name, { tags: input.tags, ...(input.description !== undefined && { description: input.description }) });
    return { checkpoint: conversationCheckpointJson(cp) };
  },
});

export interface ListResult {
  readonly session: string;
  readonly head: { readonly branch: string | null; readonly checkpoint: string | null };
  /** Oldest first, on every branch. */
  readonly checkpoints: readonly ConversationCheckpointJson[];
}

export const chatListOperation = defineOperation({
  name: "chat_list",
  title: "List a conversation's checkpoints",
  description: "A conversation's checkpoints, oldest first, on every branch, and where HEAD is.",
  effect: "read",
  input: (z) => ({ session: sessionField(z) }),
  run: async (ctx, input): Promise<ListResult> => {
    const cs = await existingConversation(ctx, input.session);
    const [list, head] = await Promise.all([cs.list(), cs.session.head()]);
    return { session: cs.name, head: { branch: head.branch, checkpoint: head.checkpoint?.id ?? null }, checkpoints: list.map(conversationCheckpointJson) };
  },
});

export interface SavedJson {
  readonly checkpoint: ConversationCheckpointJson;
  readonly messages: readonly Message[];
}

export const chatLatestOperation = defineOperation({
  name: "chat_latest",
  title: "The latest save",
  description: "The checkpoint a conversation saved last (on any branch) and its messages.",
  effect: "read",
  input: (z) => ({ session: sessionField(z) }),
  run: async (ctx, input): Promise<SavedJson> => {
    const cs = await existingConversation(ctx, input.session);
    const latest = await cs.latest();
    if (!latest) throw new ForgeError("NO_CHECKPOINT", `conversation "${cs.name}" has no checkpoints`, { hint: "`forge chat save` saves one" });
    return { checkpoint: conversationCheckpointJson(latest.checkpoint), messages: latest.messages };
  },
});

export interface ChatRestoreResult extends SavedJson {
  readonly head: { readonly branch: string | null; readonly checkpointId: string };
  /** Checkpoints a linear restore deleted, oldest first. */
  readonly discarded: readonly ConversationCheckpointJson[];
}

export const chatRestoreOperation = defineOperation({
  name: "chat_restore",
  title: "Restore a conversation",
  description:
    "CHANGES STATE. Makes a checkpoint's messages the conversation's again. By default later checkpoints stay on their branch and the next save starts a new one; with `linear: true` the checkpoints after it on its branch are DELETED.",
  effect: "destructive",
  input: (z) => ({
    ref: chatRefField(z, "the checkpoint"),
    linear: z.boolean().default(false).describe("discard every checkpoint made after it on its branch"),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<ChatRestoreResult> => {
    const r = await (await existingConversation(ctx, input.session)).restore(input.ref, { linear: input.linear });
    return { checkpoint: conversationCheckpointJson(r.checkpoint), head: r.head, messages: r.messages, discarded: r.discarded.map(conversationCheckpointJson) };
  },
});

export const chatDeleteOperation = defineOperation({
  name: "chat_delete",
  title: "Delete conversation checkpoints",
  description: "Deletes checkpoints of a conversation (their children are re-linked, branch heads move back); the messages it holds now stay.",
  effect: "destructive",
  input: (z) => ({ refs: z.array(chatRefField(z, "a checkpoint")).min(1), session: sessionField(z) }),
  run: async (ctx, input): Promise<{ readonly deleted: readonly ConversationCheckpointJson[] }> => ({
    deleted: (await (await existingConversation(ctx, input.session)).delete(input.refs)).map(conversationCheckpointJson),
  }),
});

export const chatClearOperation = defineOperation({
  name: "chat_clear",
  title: "Clear a conversation",
  description: "Deletes every checkpoint of a conversation and empties its messages.",
  effect: "destructive",
  input: (z) => ({ session: sessionField(z) }),
  run: async (ctx, input): Promise<{ readonly session: string; readonly deleted: readonly ConversationCheckpointJson[]; readonly messages: number }> => {
    const cs = await existingConversation(ctx, input.session);
    const r = await cs.clear();
    return { session: cs.name, deleted: r.deleted.map(conversationCheckpointJson), messages: r.messages };
  },
});
