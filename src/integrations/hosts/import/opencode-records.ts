// One OpenCode message (its Info and Parts, as `opencode export` shows them) as conversation
// messages, keyed by OpenCode's own ids so a message read twice — from the JSON files and
// again from the database they were copied into, or again while it was still being written —
// is stored once:
//  - a user message is one user message (key: its id): its text parts, files and any other part
//    kept as they are; it is a prompt when the user typed text in it (a text part neither
//    `synthetic` nor `ignored`);
//  - an assistant message is one message per part (key: the part's id): text, reasoning
//    ("thinking"), a tool part's call (its input) and, once it ran, its result (key
//    `<part id>:result`); every other part (step-start, step-finish with its cost and tokens,
//    snapshot, patch, retry, agent, subtask, compaction, a type Forge does not know) is kept
//    whole as a host record; and once the message is finished, its Info (model, cost, tokens,
//    error) as a host record keyed by the message's id.
// A part still being written (text or reasoning without `time.end`, a tool still pending) is
// left for a later read, unless the message is over (finished, or followed by another).
import type { ContentPart, Message } from "../../../domains/conversation/model.js";
import { field, isObject, type JsonObject, omit, str, text } from "../capture/fields.js";
import { argumentsFromValue, captured, hostRecord, toContent } from "../capture/messages.js";
import type { CapturedMessage } from "../types.js";
import type { OpencodeMessage } from "./opencode-store.js";

const HOST = "opencode";

const IDS = ["id", "sessionID", "messageID"];

const iso = (ms: unknown): string | undefined => (typeof ms === "number" && Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : undefined);

/** Whether an assistant message is finished: OpenCode set its completion time, an error or a finish reason. */
export function finished(m: OpencodeMessage): boolean {
  const info = m.info;
  if (str(info, "role") !== "assistant") return m.parts.length > 0;
  return typeof field(field(info, "time"), "completed") === "number" || field(info, "error") !== undefined || text(info, "finish") !== undefined;
}

/** The conversation messages of `m`; `over`: the message is finished or another follows it (nothing of it is still being written). */
export function opencodeMessages(m: OpencodeMessage, over: boolean): CapturedMessage[] {
  const role = str(m.info, "role");
  if (role === "user") return userMessage(m);
  if (role === "assistant") return assistantMessages(m, over);
  return over ? [hostRecord(HOST, m.id, { info: m.info, parts: m.parts }, iso(m.created))] : [];
}

function typed(part: JsonObject): boolean {
  return str(part, "type") === "text" && (text(part, "text") ?? "").trim() !== "" && field(part, "synthetic") !== true && field(part, "ignored") !== true;
}

function userMessage(m: OpencodeMessage): CapturedMessage[] {
  if (m.parts.length === 0) return []; // its parts are written just after it: read it next time
  const content: ContentPart[] = m.parts.map((p) => ({ ...omit(p, IDS), type: str(p, "type") ?? "host-block" }));
  const message: Message = {
    role: "user",
    content: toContent(content, false),
    extra: { opencode: omit(m.info, ["id", "sessionID", "role"]) },
  };
  return [captured(HOST, m.id, message, { prompt: m.parts.some(typed), at: iso(field(field(m.info, "time"), "created")) ?? iso(m.created), record: m })];
}

function assistantMessages(m: OpencodeMessage, over: boolean): CapturedMessage[] {
  const out: CapturedMessage[] = [];
  const created = iso(field(field(m.info, "time"), "created")) ?? iso(m.created);
  for (const part of m.parts) {
    const id = str(part, "id") ?? "";
    const type = str(part, "type");
    const time = field(part, "time");
    const at = iso(field(time, "end")) ?? iso(field(time, "start")) ?? created;
    const done = over || typeof field(time, "end") === "number";
    const rest = omit(part, [...IDS, "type", "text"]);
    if (type === "text") {
      const more = Object.keys(rest).length > 0 ? { extra: { opencode: rest } } : {};
      if (done) out.push(say(id, { role: "assistant", content: str(part, "text") ?? "", ...more }, at, part));
    } else if (type === "reasoning") {
      if (done) out.push(say(id, { role: "assistant", content: [{ type: "thinking", thinking: str(part, "text") ?? "", ...rest }] }, at, part));
    } else if (type === "tool") {
      out.push(...toolMessages(part, over, created));
    } else {
      out.push(hostRecord(HOST, id, part, at));
    }
  }
  if (over) out.push(hostRecord(HOST, m.id, m.info, iso(field(field(m.info, "time"), "completed")) ?? created));
  return out;
}

function say(key: string, message: Message, at: string | undefined, record: unknown): CapturedMessage {
  return captured(HOST, key, message, { at, record });
}

/** A tool part: its call once its input is known (running or later), its result once it ran. */
function toolMessages(part: JsonObject, over: boolean, created: string | undefined): CapturedMessage[] {
  const id = str(part, "id") ?? "";
  const state = field(part, "state");
  const status = str(state, "status");
  if (!isObject(state) || (status === "pending" && !over)) return [];
  const time = field(state, "time");
  const callId = text(part, "callID") ?? id;
  const name = str(part, "tool") ?? "unknown";
  const callExtra = omit(part, [...IDS, "type", "callID", "tool", "state"]);
  const call: Message = {
    role: "assistant",
    content: null,
    toolCalls: [
      {
        id: callId,
        name,
        ...argumentsFromValue(field(state, "input") ?? {}),
        extra: { status, ...callExtra },
      },
    ],
  };
  const out = [say(id, call, iso(field(time, "start")) ?? created, part)];
  if (status === "completed" || status === "error") {
    const output = status === "completed" ? field(state, "output") : field(state, "error");
    const more = omit(state, ["input", "output", "error", "status"]);
    const extra = status === "error" ? { ...more, is_error: true } : more;
    const result: Message = {
      role: "tool",
      name,
      toolCallId: callId,
      content: typeof output === "string" ? output : JSON.stringify(output ?? null),
      ...(Object.keys(extra).length > 0 && { extra }),
    };
    out.push(say(`${id}:result`, result, iso(field(time, "end")) ?? created, part));
  }
  return out;
}
