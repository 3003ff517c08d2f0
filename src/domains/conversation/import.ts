// Import of a checked export document as a new conversation session, all at once: the
// states' objects first, then the session, every checkpoint, the branches, HEAD and the
// working state in one metadata transaction — so a failure or a crash leaves no session
// at all, never half of one. (Session's API commits checkpoint by checkpoint, and cannot
// give a checkpoint its original time, seq or parent; a bundle import works the same way.)
import { ForgeError } from "../../core/errors.js";
import { checkName, newId } from "../../core/ids.js";
import type { CheckpointRow } from "../../backends/backend.js";
import type { WrittenTree } from "../../objects/object-store.js";
import type { Store } from "../../timeline/store.js";
import { MAIN_BRANCH } from "../../timeline/session.js";
import type { ConversationDocument } from "./document.js";
import { CONVERSATION_SESSION_KIND, conversationState } from "./model.js";

const MAX_ATTEMPTS = 5;

/** Creates session `name` from `doc`; IMPORT_CONFLICT if the store has a session by that name. */
export async function writeImportedSession(store: Store, doc: ConversationDocument, name: string): Promise<void> {
  checkName("session", name);
  // Checked again in the transaction; here too so a taken name writes no objects either.
  if (await store.backend.meta.getSessionByName(name)) throw taken(name);
  for (let attempt = 1; ; attempt++) {
    // The gc protocol of Session's writes: read the epoch, write the objects, and commit
    // only if no gc ran in between (it may have removed objects this write reused).
    const epoch = await store.gcEpoch();
    const sessionId = newId();
    const trees: WrittenTree[] = [];
    for (const c of doc.checkpoints) trees.push(await store.objects.writeValue(conversationState(c.messages), sessionId));
    const work = await store.objects.writeValue(conversationState(doc.messages), sessionId);
    const ids = new Map(doc.checkpoints.map((c) => [c.id, newId(Date.parse(c.createdAt))]));
    const idOf = (old: string | null): string | null => (old === null ? null : (ids.get(old) ?? null));
    const committed = await store.backend.transaction(async (tx) => {
      if ((await tx.getGcEpoch()) !== epoch) return false;
      if (await tx.getSessionByName(name)) throw taken(name);
      const detached = doc.head.branch === null;
      await tx.insertSession({
        id: sessionId,
        name,
        kind: CONVERSATION_SESSION_KIND,
        createdAt: store.clock.now(),
        metadata: { importedFrom: { session: doc.session, exportedAt: doc.exportedAt } },
        nextSeq: 1,
        headBranch: detached ? null : (doc.head.branch ?? MAIN_BRANCH),
        headCheckpoint: detached ? idOf(doc.head.checkpoint) : null,
        workRoot: work.root,
        workVersion: 1,
      });
      for (const [i, c] of doc.checkpoints.entries()) {
        const tree = trees[i] as WrittenTree;
        const row: CheckpointRow = {
          id: ids.get(c.id) as string,
          sessionId,
          seq: c.seq,
          parentId: idOf(c.parent),
          branch: c.branch,
          createdAt: Date.parse(c.createdAt),
          message: c.name,
          tags: c.tags,
          trigger: c.trigger,
          metadata: { name: c.name, description: c.description, messageCount: c.messages.length },
          stateRoot: tree.root,
          filesRoot: null,
          logicalBytes: tree.logicalBytes,
          newBytes: tree.newBytes,
        };
        await tx.insertCheckpoint(row);
      }
      for (const b of doc.branches) await tx.setRef(sessionId, b.name, ids.get(b.checkpoint) as string);
      return true;
    });
    if (committed) return;
    if (attempt >= MAX_ATTEMPTS) {
      throw new ForgeError("CONFLICT", `could not import session "${name}": garbage collection kept running during ${attempt} attempts`, {
        hint: "try again when no `forge gc` is running",
      });
    }
  }
}

function taken(name: string): ForgeError {
  return new ForgeError("IMPORT_CONFLICT", `this store already has a session named "${name}"`, {
    hint: "import it under another name with --as NAME, or delete that session first; nothing was imported",
  });
}
