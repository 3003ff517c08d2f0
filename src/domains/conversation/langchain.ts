// LangChain messages ⇄ the conversation model, without importing LangChain (an optional
// peer): the serialized form `{lc: 1, type: "constructor", id: [..., "AIMessage"], kwargs}`
// that `toJSON()` writes and `load` revives, and the stored form `{type: "ai", data}` of
// mapChatMessagesToStoredMessages. `additional_kwargs` maps to `additionalKwargs`; every
// other LangChain field (response_metadata, usage_metadata, artifact, status,
// invalid_tool_calls, …) is kept in `extra` under its LangChain name.
import { getOwn, setOwn } from "../../core/own.js";
import {
  contentField,
  failer,
  isPlainObject,
  jsonCopy,
  kindOf,
  objectField,
  parseArguments,
  stringField,
  type Fail,
  type Message,
  type Role,
  type ToolCall,
} from "./model.js";

/** `toJSON()` of a LangChain message. */
export interface LangChainSerializedMessage {
  lc: 1;
  type: "constructor";
  id: string[];
  kwargs: Record<string, unknown>;
}

/** One entry of mapChatMessagesToStoredMessages. */
export interface LangChainStoredMessage {
  type: "human" | "ai" | "system" | "tool" | "function";
  data: Record<string, unknown>;
}

type LangChainType = LangChainStoredMessage["type"] | "generic";

const CLASS_TYPES: Record<string, LangChainType> = {
  HumanMessage: "human",
  HumanMessageChunk: "human",
  AIMessage: "ai",
  AIMessageChunk: "ai",
  SystemMessage: "system",
  SystemMessageChunk: "system",
  ToolMessage: "tool",
  ToolMessageChunk: "tool",
  FunctionMessage: "function",
  FunctionMessageChunk: "function",
  ChatMessage: "generic",
  ChatMessageChunk: "generic",
};

const TYPE_CLASSES: Record<LangChainStoredMessage["type"], string> = {
  human: "HumanMessage",
  ai: "AIMessage",
  system: "SystemMessage",
  tool: "ToolMessage",
  function: "FunctionMessage",
};

/** A ChatMessage's free-form role, where it means one of ours. */
const GENERIC_ROLES: Record<string, Role> = { user: "user", human: "user", assistant: "assistant", ai: "assistant", system: "system", tool: "tool" };

/** Fields the model names itself; all others of a message go to `extra`. */
const OWN_FIELDS = new Set(["content", "name", "id", "tool_calls", "tool_call_id", "additional_kwargs"]);

export function isLangChainSerialized(v: unknown): boolean {
  return isPlainObject(v) && v["lc"] === 1 && v["type"] === "constructor" && Array.isArray(v["id"]);
}

export function isLangChainStored(v: unknown): boolean {
  return isPlainObject(v) && typeof v["type"] === "string" && isPlainObject(v["data"]) && !("role" in v);
}

/** One LangChain message, serialized or stored, as a model message. */
export function fromLangChain(v: unknown, index: number, where = ""): Message {
  const fail = failer(index, where);
  let type: LangChainType;
  let fields: Record<string, unknown>;
  let at: string;
  if (isLangChainSerialized(v)) {
    const s = v as Record<string, unknown>;
    const id = s["id"] as unknown[];
    const cls = id[id.length - 1];
    const t = typeof cls === "string" ? (getOwn(CLASS_TYPES, cls) as LangChainType | undefined) : undefined;
    if (t === undefined)
      return fail(
        "id",
        `${JSON.stringify(cls)} is not a LangChain message class this can read (${Object.keys(CLASS_TYPES)
          .filter((c) => !c.endsWith("Chunk"))
          .join(", ")})`,
      );
    if (!isPlainObject(s["kwargs"])) return fail("kwargs", `kwargs must be an object, not ${kindOf(s["kwargs"])}`);
    type = t;
    fields = s["kwargs"];
    at = "kwargs.";
  } else if (isLangChainStored(v)) {
    const s = v as Record<string, unknown>;
    const t = s["type"] as string;
    if (!Object.hasOwn(TYPE_CLASSES, t) && t !== "generic")
      return fail("type", `type ${JSON.stringify(t)} is not a LangChain message type (human, ai, system, tool, function, generic)`);
    type = t as LangChainType;
    fields = s["data"] as Record<string, unknown>;
    at = "data.";
  } else {
    return fail("", `is not a LangChain message (neither {lc: 1, type: "constructor", id, kwargs} nor {type, data})`);
  }
  return fromFields(type, fields, at, fail);
}

function fromFields(type: LangChainType, f: Record<string, unknown>, at: string, fail: Fail): Message {
  const own = new Set(OWN_FIELDS);
  let role: Role;
  if (type === "generic") {
    const r = f["role"];
    const mapped = typeof r === "string" ? (getOwn(GENERIC_ROLES, r) as Role | undefined) : undefined;
    if (mapped === undefined)
      return fail(`${at}role`, `ChatMessage role ${JSON.stringify(r)} has no counterpart here (use one of ${Object.keys(GENERIC_ROLES).join(", ")})`);
    role = mapped;
    own.add("role");
  } else {
    role = type === "human" ? "user" : type === "ai" ? "assistant" : type === "function" ? "tool" : type;
  }
  if (!("content" in f)) fail(`${at}content`, `${at}content is missing`);
  const out: Message = { role, content: contentField(f["content"], `${at}content`, fail, false) };
  if (f["name"] !== undefined && f["name"] !== null) out.name = stringField(f["name"], `${at}name`, fail, { nonEmpty: true });
  else if (type === "function") fail(`${at}name`, "a FunctionMessage needs the name of the function");
  if (f["id"] !== undefined && f["id"] !== null) out.id = stringField(f["id"], `${at}id`, fail, { nonEmpty: true });

  if (role === "assistant" && f["tool_calls"] !== undefined) {
    const calls = f["tool_calls"];
    if (!Array.isArray(calls)) return fail(`${at}tool_calls`, `${at}tool_calls must be a list, not ${kindOf(calls)}`);
    if (calls.length > 0) out.toolCalls = calls.map((c, i) => fromLangChainToolCall(c, `${at}tool_calls[${i}]`, fail));
  } else {
    own.delete("tool_calls");
  }
  if (role === "tool" && type !== "function") {
    if (f["tool_call_id"] === undefined) fail(`${at}tool_call_id`, "a ToolMessage needs tool_call_id (the id of the call it answers)");
    out.toolCallId = stringField(f["tool_call_id"], `${at}tool_call_id`, fail, { nonEmpty: true });
  } else {
    own.delete("tool_call_id");
  }
  if (f["additional_kwargs"] !== undefined) {
    const kw = objectField(f["additional_kwargs"], `${at}additional_kwargs`, fail);
    if (Object.keys(kw).length > 0) out.additionalKwargs = kw;
  }
  const extra: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(f)) {
    if (own.has(k) || x === undefined) continue;
    // LangChain writes these on every message; empty ones carry nothing.
    if ((k === "response_metadata" && isPlainObject(x) && Object.keys(x).length === 0) || (k === "invalid_tool_calls" && Array.isArray(x) && x.length === 0))
      continue;
    setOwn(extra, k, jsonCopy(x, `${at}${k}`, fail));
  }
  if (Object.keys(extra).length > 0) out.extra = extra;
  return out;
}

function fromLangChainToolCall(v: unknown, field: string, fail: Fail): ToolCall {
  if (!isPlainObject(v)) return fail(field, `${field} must be an object {id, name, args}, not ${kindOf(v)}`);
  const call: ToolCall = {
    ...(v["id"] !== undefined && v["id"] !== null && { id: stringField(v["id"], `${field}.id`, fail, { nonEmpty: true }) }),
    name: stringField(v["name"], `${field}.name`, fail, { nonEmpty: true }),
    arguments: objectField(v["args"], `${field}.args`, fail),
  };
  const extra: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === "id" || k === "name" || k === "args" || x === undefined || (k === "type" && x === "tool_call")) continue;
    setOwn(extra, k, jsonCopy(x, `${field}.${k}`, fail));
  }
  if (Object.keys(extra).length > 0) call.extra = extra;
  return call;
}

/** The LangChain type of a model message. */
function typeOf(m: Message): LangChainStoredMessage["type"] {
  switch (m.role) {
    case "user":
      return "human";
    case "assistant":
      return "ai";
    case "system":
      return "system";
    case "tool":
      return m.toolCallId === undefined ? "function" : "tool";
  }
}

/** The kwargs (or stored data) LangChain's own `toJSON()` would write for this message. */
function toFields(m: Message): Record<string, unknown> {
  const { response_metadata: responseMetadata, invalid_tool_calls: invalidToolCalls, ...extra } = structuredClone(m.extra ?? {});
  const out: Record<string, unknown> = { content: m.content === null ? "" : structuredClone(m.content) };
  if (m.role === "assistant") {
    const valid: Record<string, unknown>[] = [];
    const invalid: unknown[] = [];
    for (const c of m.toolCalls ?? []) {
      const args = c.argumentsText === undefined ? c.arguments : parseArguments(c.argumentsText);
      if (args === undefined) {
        // Arguments that are not a JSON object are what LangChain calls an invalid tool call.
        invalid.push({
          name: c.name,
          args: c.argumentsText,
          ...(c.id !== undefined && { id: c.id }),
          error: "the arguments are not a JSON object",
          type: "invalid_tool_call",
        });
      } else {
        valid.push({
          ...(c.id !== undefined && { id: c.id }),
          name: c.name,
          args: structuredClone(args),
          type: "tool_call",
          ...structuredClone(c.extra ?? {}),
        });
      }
    }
    out["tool_calls"] = valid;
    out["invalid_tool_calls"] = [...invalid, ...(Array.isArray(invalidToolCalls) ? invalidToolCalls : [])];
  }
  if (m.name !== undefined) out["name"] = m.name;
  if (m.id !== undefined) out["id"] = m.id;
  if (m.toolCallId !== undefined) out["tool_call_id"] = m.toolCallId;
  out["additional_kwargs"] = structuredClone(m.additionalKwargs ?? {});
  out["response_metadata"] = responseMetadata ?? {};
  if (m.role !== "assistant" && invalidToolCalls !== undefined) out["invalid_tool_calls"] = invalidToolCalls;
  return { ...out, ...extra };
}

/** A model message as LangChain's serialized form (what `load` from @langchain/core/load revives). */
export function toLangChain(m: Message): LangChainSerializedMessage {
  return { lc: 1, type: "constructor", id: ["langchain_core", "messages", TYPE_CLASSES[typeOf(m)]], kwargs: toFields(m) };
}

/** A model message as LangChain's stored form (what mapStoredMessagesToChatMessages revives). */
export function toLangChainStored(m: Message): LangChainStoredMessage {
  return { type: typeOf(m), data: toFields(m) };
}

export function fromLangChainMessages(list: readonly unknown[], where = ""): Message[] {
  return list.map((m, i) => fromLangChain(m, i, where));
}

export function toLangChainMessages(messages: readonly Message[]): LangChainSerializedMessage[] {
  return messages.map(toLangChain);
}

export function toLangChainStoredMessages(messages: readonly Message[]): LangChainStoredMessage[] {
  return messages.map(toLangChainStored);
}
