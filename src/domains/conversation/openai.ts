// OpenAI chat-completions messages ⇄ the conversation model. Roles system, developer,
// user, assistant, tool and the legacy function; tool calls with their arguments as JSON
// text; every other field of a message carried in `additionalKwargs` (LangChain's place
// for them too), so a round trip gives the same messages back.
import { setOwn } from "../../core/own.js";
import {
  contentField,
  failer,
  isCanonicalArguments,
  isPlainObject,
  jsonCopy,
  kindOf,
  parseArguments,
  stringField,
  type Content,
  type Fail,
  type Message,
  type ToolCall,
} from "./model.js";

export const OPENAI_ROLES = ["system", "developer", "user", "assistant", "tool", "function"] as const;
export type OpenAIRole = (typeof OPENAI_ROLES)[number];

export interface OpenAIToolCall {
  id?: string;
  type: "function";
  function: { name: string; arguments: string; [field: string]: unknown };
  [field: string]: unknown;
}

export interface OpenAIMessage {
  role: OpenAIRole;
  content: Content;
  name?: string;
  tool_calls?: OpenAIToolCall[];
  tool_call_id?: string;
  [field: string]: unknown;
}

/** LangChain's marker (in additional_kwargs) for a system message sent with role "developer". */
export const OPENAI_ROLE_KEY = "__openai_role__";

/** The fields an OpenAI message names itself; all others go to `additionalKwargs`. */
const OWN_FIELDS = new Set(["role", "content", "name", "tool_calls", "tool_call_id"]);

/** One OpenAI message as a model message. `index` is its place in the list, for errors. */
export function fromOpenAI(v: unknown, index: number, where = ""): Message {
  const fail = failer(index, where);
  if (!isPlainObject(v)) return fail("", `is ${kindOf(v)}, not an OpenAI message ({"role": …, "content": …})`);
  const role = v["role"];
  if (typeof role !== "string" || !(OPENAI_ROLES as readonly string[]).includes(role)) {
    fail(
      "role",
      role === undefined ? "role is missing" : `role ${JSON.stringify(role)} is not one of system, user, assistant, tool (or OpenAI's developer and function)`,
    );
  }
  const r = role as OpenAIRole;
  const extra: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (!OWN_FIELDS.has(k) && x !== undefined) setOwn(extra, k, jsonCopy(x, k, fail));

  // An assistant that only calls tools may send content null, or leave it out.
  if (r !== "assistant" && !("content" in v)) fail("content", "content is missing");
  const content = contentField(v["content"] === undefined && r === "assistant" ? null : v["content"], "content", fail, r === "assistant");
  const out: Message = { role: r === "developer" ? "system" : r === "function" ? "tool" : r, content };
  if (v["name"] !== undefined) out.name = stringField(v["name"], "name", fail, { nonEmpty: true });
  else if (r === "function") fail("name", "a function message needs the name of the function");

  if (v["tool_calls"] !== undefined) {
    if (r !== "assistant") fail("tool_calls", `tool_calls belong to assistant messages, not ${r} messages`);
    const calls = v["tool_calls"];
    if (!Array.isArray(calls)) return fail("tool_calls", `tool_calls must be a list, not ${kindOf(calls)}`);
    out.toolCalls = calls.map((c, i) => fromOpenAIToolCall(c, `tool_calls[${i}]`, fail));
  }
  if (v["tool_call_id"] !== undefined) {
    if (r !== "tool") fail("tool_call_id", `tool_call_id belongs to tool messages, not ${r} messages`);
    out.toolCallId = stringField(v["tool_call_id"], "tool_call_id", fail, { nonEmpty: true });
  } else if (r === "tool") {
    fail("tool_call_id", "a tool message needs tool_call_id (the id of the call it answers)");
  }
  if (r === "developer") extra[OPENAI_ROLE_KEY] = "developer";
  if (Object.keys(extra).length > 0) out.additionalKwargs = extra;
  return out;
}

function fromOpenAIToolCall(v: unknown, field: string, fail: Fail): ToolCall {
  if (!isPlainObject(v)) return fail(field, `${field} must be an object {id, type: "function", function: {name, arguments}}, not ${kindOf(v)}`);
  if (v["type"] !== undefined && v["type"] !== "function") {
    fail(`${field}.type`, `${field} is of type ${JSON.stringify(v["type"])}; only "function" tool calls are supported`);
  }
  const fn = v["function"];
  if (!isPlainObject(fn)) return fail(`${field}.function`, `${field}.function must be an object {name, arguments}, not ${kindOf(fn)}`);
  const name = stringField(fn["name"], `${field}.function.name`, fail, { nonEmpty: true });
  const text = stringField(fn["arguments"], `${field}.function.arguments`, fail);
  const args = parseArguments(text);
  const call: ToolCall = { name, arguments: args ?? {} };
  if (v["id"] !== undefined) call.id = stringField(v["id"], `${field}.id`, fail, { nonEmpty: true });
  if (args === undefined || !isCanonicalArguments(text, args)) call.argumentsText = text;
  const extra: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v))
    if (k !== "id" && k !== "type" && k !== "function" && x !== undefined) setOwn(extra, k, jsonCopy(x, `${field}.${k}`, fail));
  const fnExtra: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(fn))
    if (k !== "name" && k !== "arguments" && x !== undefined) setOwn(fnExtra, k, jsonCopy(x, `${field}.function.${k}`, fail));
  if (Object.keys(fnExtra).length > 0) extra["function"] = fnExtra;
  if (Object.keys(extra).length > 0) call.extra = extra;
  return {
    ...(call.id !== undefined && { id: call.id }),
    name: call.name,
    arguments: call.arguments,
    ...(call.argumentsText !== undefined && { argumentsText: call.argumentsText }),
    ...(call.extra !== undefined && { extra: call.extra }),
  };
}

/** A model message as an OpenAI message. LangChain-only fields (`extra`) have no place here and are left out. */
export function toOpenAI(m: Message): OpenAIMessage {
  const role: OpenAIRole =
    m.role === "system" && m.additionalKwargs?.[OPENAI_ROLE_KEY] === "developer"
      ? "developer"
      : m.role === "tool" && m.toolCallId === undefined
        ? "function"
        : m.role;
  const out: OpenAIMessage = { role, content: structuredClone(m.content) };
  if (m.name !== undefined) out.name = m.name;
  if (m.toolCalls !== undefined) out.tool_calls = m.toolCalls.map(toOpenAIToolCall);
  if (m.toolCallId !== undefined) out.tool_call_id = m.toolCallId;
  for (const [k, x] of Object.entries(m.additionalKwargs ?? {})) {
    // Own fields only: `k in out` would also skip "constructor", "toString", … (inherited).
    if (k === OPENAI_ROLE_KEY || Object.hasOwn(out, k)) continue;
    setOwn(out as Record<string, unknown>, k, structuredClone(x));
  }
  return out;
}

function toOpenAIToolCall(c: ToolCall): OpenAIToolCall {
  const { function: fnExtra, ...rest } = c.extra ?? {};
  // `extra.function` holds the other fields of the source's `function` object (see fromOpenAIToolCall).
  return {
    ...(c.id !== undefined && { id: c.id }),
    type: "function",
    function: { name: c.name, arguments: c.argumentsText ?? JSON.stringify(c.arguments), ...(isPlainObject(fnExtra) ? structuredClone(fnExtra) : {}) },
    ...structuredClone(rest),
  };
}

export function fromOpenAIMessages(list: readonly unknown[], where = ""): Message[] {
  return list.map((m, i) => fromOpenAI(m, i, where));
}

export function toOpenAIMessages(messages: readonly Message[]): OpenAIMessage[] {
  return messages.map(toOpenAI);
}
