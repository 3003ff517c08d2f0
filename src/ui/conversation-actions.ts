// What the page does to a conversation, through the conversation domain: append a message,
// save a checkpoint, restore one (which also gives the conversation its messages back).
import { ConversationSession } from "../domains/conversation/conversation-session.js";
import type { Store } from "../timeline/store.js";
import type { Checkpoint, RestoreResult } from "../timeline/types.js";

export interface ConversationActions {
  restore(ref: string, linear: boolean): Promise<Pick<RestoreResult, "checkpoint" | "head" | "discarded">>;
  append(message: Record<string, unknown>): Promise<{ messageCount: number }>;
  save(name?: string, description?: string): Promise<Checkpoint>;
}

export function conversationActions(store: Store, name: string): ConversationActions {
  const open = () => ConversationSession.open(store, name);
  return {
    restore: async (ref, linear) => (await open()).restore(ref, { linear }),
    append: async (message) => ({ messageCount: (await (await open()).append(message)).count }),
    save: async (checkpointName, description) => (await open()).save(checkpointName, description === undefined ? {} : { description }),
  };
}
