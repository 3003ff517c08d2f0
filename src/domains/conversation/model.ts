// The conversation model: messages of every role, tool calls and tool results included,
// with whatever else the source format carried kept beside them, never dropped. Checked
// by hand (no schema library on the path of every append), with errors that name the
// message's index and the field that is wrong.
import { ForgeError } from "../../core/errors.js";
import { setOwn } from "../../core/own.js";
import { ROLES, type Role } from "./names.js";

export { ROLES, type Role };

/** One part of a multi-part content: `{type: "text", text}`, `{type: "image_url", image_url: {url}}`, … kept as given. */
export interface ContentPart {
  type: string;
  [field: string]: unknown;
}

/** A string, a list of parts, or null (an assistant message that only calls tools). */
export type Content = string | ContentPart[] | null;

export interface ToolCall {
  /** The id the tool's answer refers to (OpenAI requires it; LangChain may leave it out). */
  id?: string;
  /** The tool (function) called. */
  name: string;
  /** The arguments, as a JSON object. */
  arguments: Record<string, unknown>;
  /**
   * The arguments as the source wrote them, kept only when that text is not exactly
   * `JSON.stringify(arguments)`: other spacing, or not a JSON object at all (a model's
   * broken output — `arguments` is then `{}`).
   */
  argumentsText?: string;
  /** Other fields the source's tool call had. */
  extra?: Record<string, unknown>;
}

export interface Message {
  role: Role;
  content: Content;
  /** A participant's name; for a tool message, the tool's. */
  name?: string;
  /** The message's own id (LangChain's `id`), when the source had one. */
  id?: string;
  /** The tools an assistant message calls. */
  toolCalls?: ToolCall[];
  /**
   * The call a tool message answers. A tool message without one is a legacy function
   * result (OpenAI's role "function", LangChain's FunctionMessage), named by `name`.
   */
  toolCallId?: string;
  /**
   * Provider fields beyond the common ones — LangChain's `additional_kwargs`, the extra
   * top-level fields of an OpenAI message (`refusal`, `audio`, `function_call`, …), and
   * `__openai_role__: "developer"` for a developer message. Carried across both formats.
   */
  additionalKwargs?: Record<string, unknown>;
  /**
   * Fields only LangChain has (`response_metadata`, `usage_metadata`, `artifact`,
   * `status`, `invalid_tool_calls`, …), by their LangChain names: given back on export to
   * LangChain, left out of OpenAI messages, which have no place for them.
   */
  extra?: Record<string, unknown>;
}

/** The state a conversation session keeps (working state and checkpoints alike). */
export interface ConversationState {
  kind: typeof CONVERSATION_STATE_KIND;
  version: 1;
  messages: Message[];
}

/** The marker a conversation state carries. */
export const CONVERSATION_STATE_KIND = "forge.conversation";
/** The kind of a conversation session. */
export const CONVERSATION_SESSION_KIND = "conversation";

export function conversationState(messages: Message[]): ConversationState {
  return { kind: CONVERSATION_STATE_KIND, version: 1, messages };
}

/**
 * A message (or a field of one) that is not what it should be. `index` is the message's
 * place in the list being read; `field` the path inside it (`toolCalls[0].name`).
 */
export class InvalidMessageError extends ForgeError {
  readonly index: number;
  readonly field: string;
  constructor(index: number, field: string, what: string, where = "") {
    super("INVALID_ARGUMENT", `${where ? `${where}: ` : ""}message ${index}${field ? `: ${what}` : ` ${what}`}`, {
      hint: "nothing was written",
      data: { index, field },
    });
    this.index = index;
    this.field = field;
  }
}

/** Fails for message `index`, field `field`. */
export type Fail = (field: string, what: string) => never;

export function failer(index: number, where = ""): Fail {
  return (field, what) => {
    throw new InvalidMessageError(index, field, what, where);
  };
}

/** What a value is, for messages: "a number", "null", "a list". */
export function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (v === undefined) return "missing";
  if (typeof v === "object")
    return Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null
      ? "an object"
      : `a ${(v as object).constructor?.name ?? "non-JSON object"}`;
  return `a ${typeof v}`;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * A deep copy of `v` if it is plain JSON (objects, arrays, strings, finite numbers,
 * booleans, null); properties whose value is `undefined` are dropped, as JSON does. Every
 * key ("__proto__" too) is an own key of the copy. Anything else fails at `field` with the
 * path to the bad value.
 */
export function jsonCopy(v: unknown, field: string, fail: Fail): unknown {
  if (v === null || typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") {
    if (!Number.isFinite(v)) fail(field, `${field} holds ${v}, which JSON cannot represent`);
    return v;
  }
  if (Array.isArray(v)) return v.map((x, i) => (x === undefined ? fail(`${field}[${i}]`, `${field}[${i}] is undefined`) : jsonCopy(x, `${field}[${i}]`, fail)));
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) setOwn(out, k, jsonCopy(x, `${field}.${k}`, fail));
    return out;
  }
  return fail(field, `${field} is ${kindOf(v)}, not JSON`);
}

/** A JSON object at `field`, copied. */
export function objectField(v: unknown, field: string, fail: Fail): Record<string, unknown> {
  if (!isPlainObject(v)) fail(field, `${field} must be a JSON object, not ${kindOf(v)}`);
  return jsonCopy(v, field, fail) as Record<string, unknown>;
}

/** Content as the model keeps it: a string, a list of parts with a string `type`, or null where allowed. */
export function contentField(v: unknown, field: string, fail: Fail, allowNull: boolean): Content {
  if (typeof v === "string") return v;
  if (v === null && allowNull) return null;
  if (Array.isArray(v)) {
    return v.map((part, i) => {
      if (!isPlainObject(part) || typeof part["type"] !== "string") {
        fail(
          `${field}[${i}]`,
          `${field}[${i}] must be a content part: an object with a string "type" (like {"type": "text", "text": "…"}), not ${kindOf(part)}`,
        );
      }
      return jsonCopy(part, `${field}[${i}]`, fail) as ContentPart;
    });
  }
  return fail(field, `${field} must be a string${allowNull ? ", null" : ""} or a list of content parts, not ${kindOf(v)}`);
}

export function stringField(v: unknown, field: string, fail: Fail, options: { nonEmpty?: boolean } = {}): string {
  if (typeof v !== "string") return fail(field, `${field} must be a string, not ${kindOf(v)}`);
  if (options.nonEmpty && v === "") fail(field, `${field} must not be empty`);
  return v;
}

/** Whether `text` is exactly how JSON.stringify writes `args` (then it need not be kept). */
export function isCanonicalArguments(text: string, args: Record<string, unknown>): boolean {
  return JSON.stringify(args) === text;
}

/** Parses a tool call's arguments text: the object, or undefined when it is not a JSON object. */
export function parseArguments(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return isPlainObject(v) ? v : undefined;
  } catch {
    return undefined; // not JSON: the caller keeps the text as it is
  }
}

const MESSAGE_FIELDS = new Set(["role", "content", "name", "id", "toolCalls", "toolCallId", "additionalKwargs", "extra"]);
const TOOL_CALL_FIELDS = new Set(["id", "name", "arguments", "argumentsText", "extra"]);

/** Checks one message in the model's own shape and returns a deep copy of it. */
export function checkMessage(v: unknown, index: number, where = ""): Message {
  const fail = failer(index, where);
  if (!isPlainObject(v)) return fail("", `is ${kindOf(v)}, not a message object ({"role": …, "content": …})`);
  for (const k of Object.keys(v)) {
    if (!MESSAGE_FIELDS.has(k) && v[k] !== undefined) fail(k, `unknown field "${k}" (a source's other fields belong in "extra" or "additionalKwargs")`);
  }
  const role = v["role"];
  if (typeof role !== "string" || !(ROLES as readonly string[]).includes(role)) {
    fail("role", role === undefined ? "role is missing" : `role ${JSON.stringify(role)} is not one of ${ROLES.join(", ")}`);
  }
  const r = role as Role;
  if (!("content" in v)) fail("content", 'content is missing (use "" for none)');
  const out: Message = { role: r, content: contentField(v["content"], "content", fail, r === "assistant") };
  if (v["name"] !== undefined) out.name = stringField(v["name"], "name", fail, { nonEmpty: true });
  if (v["id"] !== undefined) out.id = stringField(v["id"], "id", fail, { nonEmpty: true });
  if (v["toolCalls"] !== undefined) {
    if (r !== "assistant") fail("toolCalls", `toolCalls belong to assistant messages, not ${r} messages`);
    const calls = v["toolCalls"];
    if (!Array.isArray(calls)) return fail("toolCalls", `toolCalls must be a list, not ${kindOf(calls)}`);
    out.toolCalls = calls.map((c, i) => checkToolCall(c, `toolCalls[${i}]`, fail));
  }
  if (v["toolCallId"] !== undefined) {
    if (r !== "tool") fail("toolCallId", `toolCallId belongs to tool messages, not ${r} messages`);
    out.toolCallId = stringField(v["toolCallId"], "toolCallId", fail, { nonEmpty: true });
  }
  if (r === "tool" && out.toolCallId === undefined && out.name === undefined) {
    fail("toolCallId", "a tool message needs toolCallId (the call it answers), or name for a legacy function result");
  }
  if (v["additionalKwargs"] !== undefined) out.additionalKwargs = objectField(v["additionalKwargs"], "additionalKwargs", fail);
  if (v["extra"] !== undefined) out.extra = objectField(v["extra"], "extra", fail);
  return out;
}

function checkToolCall(v: unknown, field: string, fail: Fail): ToolCall {
  if (!isPlainObject(v)) return fail(field, `${field} must be an object {id, name, arguments}, not ${kindOf(v)}`);
  for (const k of Object.keys(v)) {
    if (!TOOL_CALL_FIELDS.has(k) && v[k] !== undefined) fail(`${field}.${k}`, `${field} has an unknown field "${k}" (other fields belong in its "extra")`);
  }
  const call: ToolCall = { name: "", arguments: {} };
  if (v["id"] !== undefined) call.id = stringField(v["id"], `${field}.id`, fail, { nonEmpty: true });
  call.name = stringField(v["name"], `${field}.name`, fail, { nonEmpty: true });
  call.arguments = objectField(v["arguments"], `${field}.arguments`, fail);
  if (v["argumentsText"] !== undefined) {
    const text = stringField(v["argumentsText"], `${field}.argumentsText`, fail);
    const parsed = parseArguments(text);
    if (parsed === undefined ? Object.keys(call.arguments).length > 0 : JSON.stringify(parsed) !== JSON.stringify(call.arguments)) {
      fail(`${field}.argumentsText`, `${field}.argumentsText does not match ${field}.arguments (when the text is not a JSON object, arguments must be {})`);
    }
    call.argumentsText = text;
  }
  if (v["extra"] !== undefined) call.extra = objectField(v["extra"], `${field}.extra`, fail);
  // Key order as documented, so equal calls encode equally.
  return {
    ...(call.id !== undefined && { id: call.id }),
    name: call.name,
    arguments: call.arguments,
    ...(call.argumentsText !== undefined && { argumentsText: call.argumentsText }),
    ...(call.extra !== undefined && { extra: call.extra }),
  };
}

/** Checks a list of messages in the model's shape; errors name the index (and `where`, e.g. a checkpoint). */
export function checkMessages(v: unknown, where = ""): Message[] {
  if (!Array.isArray(v)) {
    throw new ForgeError("INVALID_ARGUMENT", `${where ? `${where}: ` : ""}messages must be a list, not ${kindOf(v)}`, { hint: "nothing was written" });
  }
  return v.map((m, i) => checkMessage(m, i, where));
}

export function isConversationState(v: unknown): boolean {
  return isPlainObject(v) && v["kind"] === CONVERSATION_STATE_KIND;
}

/** A stored state as a conversation state; a clear error when it is something else or damaged. */
export function toConversationState(v: unknown, session: string): ConversationState {
  if (!isConversationState(v)) {
    throw new ForgeError("INVALID_STATE", `session "${session}" holds a state that is not a conversation`, {
      hint: "use another --session for conversations",
    });
  }
  const s = v as Record<string, unknown>;
  if (s["version"] !== 1) {
    throw new ForgeError(
      "INVALID_STATE",
      `the conversation in session "${session}" has version ${JSON.stringify(s["version"])}, which this Forge cannot read`,
      {
        hint: "upgrade Forge",
      },
    );
  }
  try {
    return conversationState(checkMessages(s["messages"]));
  } catch (e) {
    throw new ForgeError("INVALID_STATE", `the conversation in session "${session}" is malformed: ${(e as Error).message}`, {
      hint: "restore an earlier checkpoint",
      cause: e,
    });
  }
}
