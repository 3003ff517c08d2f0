// Import of a checked export document as a new conversation session, all at once, through
// the store's one way of writing an imported history (`Store.importHistory`): a failure or a
// crash leaves no session at all, never half of one, and every checkpoint keeps its time,
// seq, parent and branch (Session's API would give it the next seq and the time of now).
import { MAIN_BRANCH } from "../../timeline/types.js";
import type { Store } from "../../timeline/store.js";
import type { ConversationDocument } from "./document.js";
import { CONVERSATION_SESSION_KIND, conversationState } from "./model.js";

/** Creates session `name` from `doc`; IMPORT_CONFLICT if the store has a session by that name. */
export async function writeImportedSession(store: Store, doc: ConversationDocument, name: string): Promise<void> {
  const head = doc.head.branch === null && doc.head.checkpoint !== null ? { checkpoint: doc.head.checkpoint } : { branch: doc.head.branch ?? MAIN_BRANCH };
  await store.importHistory({
    name,
    kind: CONVERSATION_SESSION_KIND,
    metadata: { importedFrom: { session: doc.session, exportedAt: doc.exportedAt } },
    checkpoints: doc.checkpoints.map((c) => ({
      key: c.id,
      seq: c.seq,
      parent: c.parent,
      branch: c.branch,
      createdAt: Date.parse(c.createdAt),
      message: c.name,
      tags: c.tags,
      trigger: c.trigger,
      metadata: { name: c.name, description: c.description, messageCount: c.messages.length },
      state: conversationState(c.messages),
    })),
    branches: doc.branches,
    head,
    working: conversationState(doc.messages),
  });
}
