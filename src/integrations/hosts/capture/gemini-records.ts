// One Gemini CLI chat record as conversation entries. A "gemini" record is appended again,
// whole, each time Gemini CLI adds to it (its tokens, then the tool calls it made, with their
// results), so it is read as a list of entries that only grows: its thinking, its text, then
// each tool call with its result. An entry is complete once it cannot change (a tool call
// once its status is final); a reader returns complete entries as soon as they are there and
// the rest when a later record closes the message.
//
// Followed: packages/core/src/services/chatRecordingTypes.ts and chatRecordingService.ts
// (MessageRecord {id, timestamp, type: user|gemini|info|error|warning, content, displayContent,
// toolCalls, thoughts, tokens, model}; ToolCallRecord {id, name, args, result, status, …}),
// packages/core/src/utils/sessionUtils.ts (user content starting with "/", "?",
// "<session_context>" or "<hook_context>" is not a prompt; tool results are rebuilt from
// toolCalls[].result) and packages/core/src/scheduler/types.ts (statuses) in
// google-gemini/gemini-cli at 5411f113 (0.56.0-nightly, 2026-08-21).
import type { ContentPart, Message, ToolCall } from "../../../domains/conversation/model.js";
import type { CapturedMessage } from "../types.js";
import { field, isObject, type JsonObject, list, obj, omit, str, text } from "./fields.js";
import { argumentsFromValue, captured, hostRecord, toContent } from "./messages.js";

const HOST = "gemini-cli";

/** One entry a record becomes, and whether it can still change. */
export interface Entry {
  readonly message: CapturedMessage;
  readonly complete: boolean;
}

/** Tool call statuses after which the call and its result do not change. */
const FINAL = new Set(["success", "error", "cancelled"]);

/** How user text that is not a prompt starts (Gemini CLI's own isIgnoredUserContent). */
const NOT_PROMPT = ["/", "?", "<session_context>", "<hook_context>"];

/** Whether `record` is a message record (it has a string id), as Gemini CLI tells them apart. */
export function isMessageRecord(record: unknown): record is JsonObject {
  return isObject(record) && typeof field(record, "id") === "string";
}

/** The entries of a message record (see the file comment); anything else is one host record. */
export function recordEntries(record: unknown, fallbackKey: string): Entry[] {
  if (!isMessageRecord(record)) return [{ message: hostRecord(HOST, fallbackKey, record, str(record, "timestamp")), complete: true }];
  const id = text(record, "id") ?? fallbackKey;
  const at = str(record, "timestamp");
  const type = str(record, "type");
  if (type === "user") return [{ message: userMessage(record, id, at), complete: true }];
  if (type === "gemini") return geminiEntries(record, id, at);
  return [{ message: hostRecord(HOST, id, record, at), complete: true }]; // info, warning, error, and types to come
}

/** A record's content (PartListUnion: a string, a part, or a list of both) as a list of parts. */
function partsOf(content: unknown): JsonObject[] {
  const items = Array.isArray(content) ? content : content === undefined || content === null ? [] : [content];
  return items.map((p) => (typeof p === "string" ? { text: p } : isObject(p) ? p : { value: p }));
}

/** The text of a record's content, as Gemini CLI's partListUnionToString reads it for prompts. */
function contentText(content: unknown): string {
  return partsOf(content)
    .filter((p) => field(p, "thought") !== true)
    .map((p) => str(p, "text") ?? "")
    .join("");
}

function userMessage(record: JsonObject, id: string, at: string | undefined): CapturedMessage {
  const typed = contentText(field(record, "content")).trim();
  // A record of tool responses only (no text) repeats toolCalls[].result: Gemini CLI skips it on resume too.
  if (typed === "") return hostRecord(HOST, id, record, at);
  const parts = partsOf(field(record, "content")).map(toPart);
  const message: Message = { role: "user", content: toContent(parts, false), extra: { record: omit(record, ["content"]) } };
  return captured(HOST, id, message, { prompt: !NOT_PROMPT.some((p) => typed.startsWith(p)), at, record });
}

function geminiEntries(record: JsonObject, id: string, at: string | undefined): Entry[] {
  const parts = partsOf(field(record, "content"));
  const entries: Entry[] = [];
  const meta = { record: omit(record, ["content", "thoughts", "toolCalls"]) };
  const add = (key: string, message: Message, complete = true) => {
    const m = entries.length === 0 ? { ...message, extra: { ...(message.extra ?? {}), ...meta } } : message;
    entries.push({ message: captured(HOST, key, m, { at, record }), complete });
  };
  const thinking: ContentPart[] = [
    ...(list(record, "thoughts") ?? []).map((t) => ({
      type: "thinking",
      thinking: str(t, "description") ?? "",
      ...omit(isObject(t) ? t : {}, ["description"]),
    })),
    ...parts.filter((p) => field(p, "thought") === true).map(toPart),
  ];
  if (thinking.length > 0) add(`${id}#thinking`, { role: "assistant", content: thinking });
  const said = parts.filter((p) => field(p, "thought") !== true && obj(p, "functionCall") === undefined).map(toPart);
  if (said.some((p) => p.type !== "text" || (typeof p["text"] === "string" && p["text"] !== "")))
    add(id, { role: "assistant", content: toContent(said, true) });
  for (const call of calls(parts, list(record, "toolCalls") ?? [])) {
    const callId = call.id;
    const status = str(call.record, "status");
    const complete = status !== undefined && FINAL.has(status);
    const callExtra = omit(call.record, ["id", "name", "args", "result", "status", "resultDisplay"]);
    const toolCall: ToolCall = {
      id: callId,
      name: call.name,
      ...argumentsFromValue(call.args),
      ...(Object.keys(callExtra).length > 0 && { extra: callExtra }),
    };
    add(`${id}#call:${callId}`, { role: "assistant", content: null, toolCalls: [toolCall] }, complete);
    if (complete || field(call.record, "result") !== undefined) add(`${id}#result:${callId}`, toolResult(call), complete);
  }
  if (entries.length === 0) return [{ message: hostRecord(HOST, id, record, at), complete: true }];
  return entries;
}

interface Call {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
  /** The ToolCallRecord (empty when the call is only in the content so far). */
  readonly record: JsonObject;
}

/** The calls a gemini record makes: functionCall parts of its content, then toolCalls[] (merged by id). */
function calls(parts: readonly JsonObject[], toolCalls: readonly unknown[]): Call[] {
  const out: Call[] = [];
  for (const p of parts) {
    const fc = obj(p, "functionCall");
    const id = text(fc, "id");
    if (id !== undefined && !out.some((c) => c.id === id)) out.push({ id, name: str(fc, "name") ?? "", args: field(fc, "args") ?? {}, record: {} });
  }
  for (const tc of toolCalls) {
    const id = text(tc, "id");
    if (id === undefined || !isObject(tc)) continue;
    const call: Call = { id, name: str(tc, "name") ?? "", args: field(tc, "args") ?? {}, record: tc };
    const i = out.findIndex((c) => c.id === id);
    if (i < 0) out.push(call);
    else out[i] = call;
  }
  return out;
}

function toolResult(call: Call): Message {
  const result = field(call.record, "result");
  const rest = omit(call.record, ["id", "name", "args", "displayName", "description", "renderOutputAsMarkdown", "agentId", "timestamp"]);
  return { role: "tool", toolCallId: call.id, name: call.name, content: resultContent(result), extra: rest };
}

/** A tool result as content: the output text of a lone functionResponse, else its parts. */
function resultContent(result: unknown): string | ContentPart[] {
  if (typeof result === "string") return result;
  const parts = partsOf(result);
  const response = parts.length === 1 ? obj(obj(parts[0], "functionResponse"), "response") : undefined;
  const output = str(response, "output") ?? str(response, "error");
  if (output !== undefined) return output;
  return parts.length === 0 ? "" : parts.map(toPart);
}

/** A Gemini Part as a content part: text → text, a thought → thinking (with its signature), anything else kept as it is. */
function toPart(p: JsonObject): ContentPart {
  const t = str(p, "text");
  if (t !== undefined && field(p, "thought") === true) {
    const signature = str(p, "thoughtSignature");
    return { type: "thinking", thinking: t, ...(signature !== undefined && { signature }), ...omit(p, ["text", "thought", "thoughtSignature"]) };
  }
  if (t !== undefined) return { type: "text", text: t, ...omit(p, ["text"]) };
  return { type: "gemini-part", part: p };
}
