// The conversation kind: a transcript on the page, messages compared from where they part,
// and a restore that gives the conversation its messages back through the domain.
import type { SessionKind } from "../kinds.js";
import { ConversationSession } from "./conversation-session.js";
import { compareConversations, conversationOf } from "./view.js";

export const conversationKind: SessionKind = {
  view: (state) => {
    const c = conversationOf(state);
    return c ? { kind: "conversation", messages: c.messages } : null;
  },
  compare: (a, b) => {
    const ca = conversationOf(a.state);
    const cb = conversationOf(b.state);
    return ca && cb ? { kind: "conversation", ...compareConversations(ca, cb) } : null;
  },
  restore: async (store, sessionName, ref, options) => {
    const r = await (await ConversationSession.open(store, sessionName)).restore(ref, { linear: options.discardFuture === true });
    return { checkpoint: r.checkpoint, head: r.head, discarded: r.discarded };
  },
  restoresOnPage: true,
};
