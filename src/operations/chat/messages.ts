// chat_new, chat_append, chat_show: start a conversation, add messages of any role and
// format to it, read it back (now, or as a checkpoint saved it).
import { ConversationSession } from "../../domains/conversation/conversation-session.js";
import type { Message } from "../../domains/conversation/model.js";
import { INPUT_FORMATS } from "../../domains/conversation/names.js";
import { defineOperation } from "../operation.js";
import { sessionField } from "../shared.js";
import {
  chatRefField,
  conversationCheckpointJson,
  existingConversation,
  jsonObjectField,
  openConversation,
  type ConversationCheckpointJson,
} from "./shared.js";

export const chatNewOperation = defineOperation({
  name: "chat_new",
  title: "Start a conversation",
  description: "Starts a conversation session (refused if the name is taken), optionally with a system message.",
  effect: "write",
  input: (z) => ({
    session: sessionField(z).describe("the new session's name (default: the caller's session)"),
    system: z.string().optional().describe("start it with this system message"),
  }),
  run: async (ctx, input): Promise<{ readonly session: string; readonly kind: "conversation"; readonly messages: number }> => {
    const first = input.system === undefined ? {} : { messages: [{ role: "system", content: input.system }] };
    const cs = await ConversationSession.create(await ctx.store(), ctx.sessionName(input.session), first);
    return { session: cs.name, kind: "conversation", messages: (await cs.messages()).length };
  },
});

export interface AppendResultJson {
  readonly session: string;
  /** The messages added, as stored. */
  readonly appended: readonly Message[];
  /** How many messages the conversation holds now. */
  readonly count: number;
}

export const chatAppendOperation = defineOperation({
  name: "chat_append",
  title: "Append messages",
  description:
    "Adds a message, or a list of messages, to a conversation (started if there is none): Forge's shape, OpenAI's or LangChain's, detected per message unless `format` says. All are checked before anything is written.",
  effect: "write",
  input: (z) => ({
    message: z.union([jsonObjectField(z), z.array(jsonObjectField(z))]).describe("a message, or a list of messages"),
    format: z.enum(INPUT_FORMATS).default("auto").describe("the messages' format (auto: detected per message)"),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<AppendResultJson> => {
    const cs = await openConversation(ctx, input.session);
    const r = await cs.append(input.message, { format: input.format });
    return { session: cs.name, appended: r.appended, count: r.count };
  },
});

export interface ShowResult {
  readonly session: string;
  /** The checkpoint shown; null for the messages the conversation holds now. */
  readonly checkpoint: ConversationCheckpointJson | null;
  readonly messages: readonly Message[];
}

export const chatShowOperation = defineOperation({
  name: "chat_show",
  title: "Show a conversation",
  description: "The messages a conversation holds now, or those a checkpoint of it saved.",
  effect: "read",
  input: (z) => ({ ref: chatRefField(z, "a checkpoint (default: the messages it holds now)").optional(), session: sessionField(z) }),
  run: async (ctx, input): Promise<ShowResult> => {
    const cs = await existingConversation(ctx, input.session);
    if (input.ref === undefined) return { session: cs.name, checkpoint: null, messages: await cs.messages() };
    const saved = await cs.get(input.ref);
    return { session: cs.name, checkpoint: conversationCheckpointJson(saved.checkpoint), messages: saved.messages };
  },
});
