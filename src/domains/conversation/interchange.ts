// Reading messages in any format a caller has them in — the model's own, OpenAI's, or
// LangChain's (serialized, stored, or live message objects) — and writing them out in
// each. Detection is per message, so a list may mix formats.
import { checkMessage, failer, isPlainObject, kindOf, ROLES, type Message } from "./model.js";
import { fromLangChain, isLangChainSerialized, isLangChainStored, toLangChainMessages, toLangChainStoredMessages } from "./langchain.js";
import { fromOpenAI, toOpenAIMessages } from "./openai.js";
import { INPUT_FORMATS, OUTPUT_FORMATS, type InputFormat, type OutputFormat } from "./names.js";

export { INPUT_FORMATS, OUTPUT_FORMATS, type InputFormat, type OutputFormat };

/** The fields of the model's own shape. */
const FORGE_FIELDS = new Set(["role", "content", "name", "id", "toolCalls", "toolCallId", "additionalKwargs", "extra"]);

/** A live LangChain message object (has toJSON and a namespace) as its serialized form. */
function unwrap(v: unknown): unknown {
  if (typeof v === "object" && v !== null && !isPlainObject(v) && !Array.isArray(v)) {
    const o = v as { toJSON?: unknown; lc_namespace?: unknown };
    if (typeof o.toJSON === "function" && Array.isArray(o.lc_namespace)) return (o.toJSON as () => unknown).call(v);
  }
  return v;
}

/**
 * The format a message is in, or undefined. A message whose fields are all the model's
 * own (and whose role is one of its four) reads as the model's shape; any other
 * `{role, …}` as OpenAI's, which keeps fields it does not know in additionalKwargs.
 * (A plain `{role, content, name}` means the same in both, but for a tool message
 * without a call id: a legacy function result in the model, refused by OpenAI.)
 */
export function detectFormat(v: unknown): Exclude<InputFormat, "auto"> | undefined {
  const m = unwrap(v);
  if (isLangChainSerialized(m) || isLangChainStored(m)) return "langchain";
  if (!isPlainObject(m) || typeof m["role"] !== "string") return undefined;
  const ours = (ROLES as readonly string[]).includes(m["role"]) && Object.keys(m).every((k) => FORGE_FIELDS.has(k));
  return ours ? "forge" : "openai";
}

/** One message in `format` (detected when "auto") as a model message; `index` names it in errors. */
export function readMessage(v: unknown, index: number, format: InputFormat = "auto", where = ""): Message {
  const m = unwrap(v);
  const f = format === "auto" ? detectFormat(m) : format;
  switch (f) {
    case "forge":
      return checkMessage(m, index, where);
    case "openai":
      return fromOpenAI(m, index, where);
    case "langchain":
      return fromLangChain(m, index, where);
    case undefined:
      return failer(index, where)(
        "",
        `is ${kindOf(m) === "an object" ? "an object in no known message format" : kindOf(m)}: expected {"role", "content", …} (Forge or OpenAI) or a LangChain message`,
      );
  }
}

export function readMessages(list: readonly unknown[], format: InputFormat = "auto", where = ""): Message[] {
  return list.map((m, i) => readMessage(m, i, format, where));
}

/** Messages written in `format`. */
export function writeMessages(messages: readonly Message[], format: OutputFormat): unknown[] {
  switch (format) {
    case "forge":
      return structuredClone(messages as Message[]);
    case "openai":
      return toOpenAIMessages(messages);
    case "langchain":
      return toLangChainMessages(messages);
    case "langchain-stored":
      return toLangChainStoredMessages(messages);
  }
}

export function isInputFormat(s: string): s is InputFormat {
  return (INPUT_FORMATS as readonly string[]).includes(s);
}

export function isOutputFormat(s: string): s is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(s);
}
