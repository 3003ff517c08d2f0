// chat_export, chat_import: a conversation as a JSON document — Forge's (every checkpoint
// included, read back by import as a NEW session), or its messages for OpenAI or LangChain.
import { ConversationSession } from "../../domains/conversation/conversation-session.js";
import { writeMessages } from "../../domains/conversation/interchange.js";
import { INPUT_FORMATS, OUTPUT_FORMATS, type OutputFormat } from "../../domains/conversation/names.js";
import { InvalidArgumentError } from "../../core/errors.js";
import { defineOperation } from "../operation.js";
import { sessionField } from "../shared.js";
import { chatRefField, existingConversation } from "./shared.js";

export interface ExportResultJson {
  readonly session: string;
  readonly format: OutputFormat;
  /** Messages written (the current ones, or the checkpoint's). */
  readonly messages: number;
  /** Checkpoints written (only the forge format holds them). */
  readonly checkpoints: number;
  /** The document: Forge's export, or the list of messages in `format`. */
  readonly document: unknown;
}

export const chatExportOperation = defineOperation({
  name: "chat_export",
  title: "Export a conversation",
  description:
    "A conversation as JSON: Forge's document (messages, every checkpoint, branches, HEAD; `chat_import` reads it back), or its messages in OpenAI's or LangChain's format (the current ones, or a checkpoint's with `ref`).",
  effect: "read",
  input: (z) => ({
    format: z.enum(OUTPUT_FORMATS).default("forge").describe("forge: the whole session; openai, langchain (serialized), langchain-stored: messages only"),
    ref: chatRefField(z, "with the openai and langchain formats: a checkpoint whose messages to export").optional(),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<ExportResultJson> => {
    if (input.format === "forge" && input.ref !== undefined)
      throw new InvalidArgumentError("`ref` goes with the openai, langchain and langchain-stored formats", "the forge format holds every checkpoint");
    const cs = await existingConversation(ctx, input.session);
    if (input.format === "forge") {
      const doc = await cs.export();
      return { session: cs.name, format: input.format, messages: doc.messages.length, checkpoints: doc.checkpoints.length, document: doc };
    }
    const messages = input.ref === undefined ? await cs.messages() : (await cs.get(input.ref)).messages;
    return { session: cs.name, format: input.format, messages: messages.length, checkpoints: 0, document: writeMessages(messages, input.format) };
  },
});

export const chatImportOperation = defineOperation({
  name: "chat_import",
  title: "Import a conversation",
  description:
    "Imports a conversation as a NEW session (never replacing one: a taken name is refused): a `chat_export` document with its checkpoints, or a plain list of messages (OpenAI, LangChain or Forge). Checked whole first, then written all at once.",
  effect: "write",
  input: (z) => ({
    document: z.unknown().describe("the export document, or a list of messages"),
    as: z.string().min(1).optional().describe("the new session's name (default: the document's; for a plain list, the caller's session)"),
    format: z.enum(INPUT_FORMATS).default("auto").describe("for a plain list: the messages' format (auto: detected per message)"),
  }),
  run: async (ctx, input): Promise<{ readonly session: string; readonly checkpoints: number; readonly messages: number }> => {
    const as = input.as ?? (Array.isArray(input.document) ? ctx.sessionName() : undefined);
    const r = await ConversationSession.import(await ctx.store(), input.document, { format: input.format, ...(as !== undefined && { as }) });
    return { session: r.session.name, checkpoints: r.checkpoints, messages: r.messages };
  },
});
