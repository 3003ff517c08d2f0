// One line of a Claude Code transcript as conversation messages. "user" and "assistant" lines
// wrap an Anthropic Messages API message; the rest (summary, system, file-history-snapshot,
// attachment, queue-operation, …) and sidechain lines are kept whole as host records.
//
// Record shapes: Claude Code is closed source and calls the format internal. Followed: the
// hooks reference (https://code.claude.com/docs/en/hooks, 2026-08) for the envelope fields
// hooks see, and the record types as Claude Code 2.x writes them, cross-checked against
// public parsers (txcript docs/formats/claude-code.md, verified 2026-08-10 against 2.1.227).
import type { ContentPart, Message, ToolCall } from "../../../domains/conversation/model.js";
import type { CapturedMessage } from "../types.js";
import { field, flag, isObject, type JsonObject, list, obj, omit, str, text } from "./fields.js";
import { argumentsFromValue, captured, hostRecord, keyed, toContent } from "./messages.js";

const HOST = "claude-code";

/**
 * Text Claude Code writes as a user message that the user did not type as a prompt: slash
 * commands and their output, `!` shell input and output, interruption notices, background
 * task notices.
 */
const INJECTED_PREFIXES = [
  "<command-name>",
  "<command-message>",
  "<command-args>",
  "<local-command-stdout>",
  "<local-command-stderr>",
  "<local-command-caveat>",
  "<bash-input>",
  "<bash-stdout>",
  "<bash-stderr>",
  "<user-memory-input>",
  "<task-notification>",
  "[Request interrupted by user",
];

/**
 * The messages one transcript line becomes; `fallbackKey` names a line without a uuid.
 * `subagent`: the line is from a sub-agent's own transcript (<session>/subagents/agent-<id>.jsonl),
 * where sidechain lines are the conversation itself and are mapped like any other.
 */
export function claudeLineMessages(record: unknown, fallbackKey: string, options: { readonly subagent?: boolean } = {}): CapturedMessage[] {
  if (!isObject(record)) return [hostRecord(HOST, fallbackKey, record)];
  const key = text(record, "uuid") ?? fallbackKey;
  const at = str(record, "timestamp");
  const type = str(record, "type");
  const message = obj(record, "message");
  // Sidechain lines are a subagent's own conversation (older CLIs wrote them inline): kept whole.
  const sidechain = flag(record, "isSidechain") && options.subagent !== true;
  if (message === undefined || sidechain || (type !== "user" && type !== "assistant")) return [hostRecord(HOST, key, record, at)];
  const meta = { record: omit(record, ["message"]), message: omit(message, ["content", "role"]) };
  return type === "user" ? userMessages(record, message, key, at, meta) : [assistantMessage(record, message, key, at, meta)];
}

function userMessages(record: JsonObject, message: JsonObject, key: string, at: string | undefined, meta: JsonObject): CapturedMessage[] {
  const content = field(message, "content");
  const out: CapturedMessage[] = [];
  const push = (m: Message, prompt: boolean) => {
    const withMeta = out.length === 0 ? { ...m, extra: { ...(m.extra ?? {}), ...meta } } : m;
    out.push(captured(HOST, keyed(key, out.length), withMeta, { prompt, at, record }));
  };
  if (typeof content === "string") {
    push({ role: "user", content }, isTypedPrompt(record, content));
    return out;
  }
  const blocks = Array.isArray(content) ? content : [];
  const hasToolResult = blocks.some((b) => str(b, "type") === "tool_result");
  let pending: ContentPart[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const firstText = pending.map((p) => (typeof p["text"] === "string" ? p["text"] : "")).find((t) => t !== "") ?? "";
    push({ role: "user", content: toContent(pending, false) }, !hasToolResult && isTypedPrompt(record, firstText));
    pending = [];
  };
  for (const block of blocks) {
    if (str(block, "type") === "tool_result" && isObject(block)) {
      flush();
      push(toolResult(block), false);
    } else if (isObject(block) && typeof block["type"] === "string") {
      pending.push(block as ContentPart);
    } else {
      pending.push({ type: "host-block", block });
    }
  }
  flush();
  if (out.length === 0) return [hostRecord(HOST, key, record, at)];
  return out;
}

function toolResult(block: JsonObject): Message {
  const content = field(block, "content");
  const rest = omit(block, ["type", "tool_use_id", "content"]);
  return {
    role: "tool",
    content: typeof content === "string" ? content : Array.isArray(content) ? (content.map(asPart) as ContentPart[]) : "",
    toolCallId: str(block, "tool_use_id") ?? "",
    ...(Object.keys(rest).length > 0 && { extra: rest }),
  };
}

function assistantMessage(record: JsonObject, message: JsonObject, key: string, at: string | undefined, meta: JsonObject): CapturedMessage {
  const content = field(message, "content");
  const parts: ContentPart[] = [];
  const calls: ToolCall[] = [];
  for (const block of typeof content === "string" ? [{ type: "text", text: content }] : (list(message, "content") ?? [])) {
    if (str(block, "type") === "tool_use" && isObject(block)) {
      const rest = omit(block, ["type", "id", "name", "input"]);
      calls.push({
        ...(text(block, "id") !== undefined && { id: text(block, "id") }),
        name: str(block, "name") ?? "",
        ...argumentsFromValue(field(block, "input")),
        ...(Object.keys(rest).length > 0 && { extra: rest }),
      });
    } else {
      // text, thinking ({thinking, signature}), redacted_thinking and other blocks keep their shape.
      parts.push(asPart(block));
    }
  }
  const m: Message = { role: "assistant", content: toContent(parts, true), ...(calls.length > 0 && { toolCalls: calls }), extra: meta };
  return captured(HOST, key, m, { at, record });
}

function asPart(block: unknown): ContentPart {
  return isObject(block) && typeof block["type"] === "string" ? (block as ContentPart) : { type: "host-block", block };
}

/** Whether a user line is a prompt the user typed (not a tool result, a command, a summary or a meta message). */
function isTypedPrompt(record: JsonObject, firstText: string): boolean {
  if (flag(record, "isMeta") || flag(record, "isCompactSummary") || flag(record, "isVisibleInTranscriptOnly")) return false;
  const t = firstText.trimStart();
  return t !== "" && !INJECTED_PREFIXES.some((p) => t.startsWith(p));
}
