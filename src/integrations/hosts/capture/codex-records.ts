// One line of a Codex rollout as conversation messages. Every line is a RolloutLine:
// {timestamp, [ordinal], type, payload}. `response_item` payloads are what the model saw
// (ResponseItem: message, reasoning, function_call, function_call_output, custom_tool_call,
// custom_tool_call_output, local_shell_call, …) and are mapped; session_meta, turn_context,
// event_msg (the TUI's copy), compacted, world_state and any other line are kept whole.
//
// Followed: codex-rs/protocol/src/models.rs (ResponseItem, ContentItem), codex-rs/history/src/lib.rs
// (RolloutItem, RolloutLine, CompactedItem; openai/codex at 04ad7869, 2026-08) and the
// contextual user fragments Codex itself leaves out of user turns (codex-rs/core
// is_contextual_user_message_content: AGENTS.md instructions, <environment_context>, …).
import type { ContentPart, Message, ToolCall } from "../../../domains/conversation/model.js";
import type { CapturedMessage } from "../types.js";
import { field, isObject, type JsonObject, list, obj, omit, str, text } from "./fields.js";
import { argumentsFromText, argumentsFromValue, captured, hostRecord, toContent } from "./messages.js";

const HOST = "codex";

/** Text Codex puts in a user-role message that the user did not type. */
const CONTEXTUAL_PREFIXES = [
  "# AGENTS.md instructions for ",
  "<INSTRUCTIONS>",
  "<user_instructions>",
  "<environment_context>",
  "<skill>",
  "<skills_instructions>",
  "<user_shell_command>",
  "<turn_aborted>",
  "<subagent_notification>",
  "<hook_prompt",
];

/** The messages one rollout line becomes (one, or a host record); `key` names it. */
export function codexLineMessages(line: unknown, key: string): CapturedMessage[] {
  const at = str(line, "timestamp");
  const payload = obj(line, "payload");
  if (str(line, "type") !== "response_item" || payload === undefined) return [hostRecord(HOST, key, line, at)];
  const mapped = responseItem(payload);
  if (mapped === undefined) return [hostRecord(HOST, key, line, at)];
  const envelope = omit(line as JsonObject, ["payload"]);
  const message: Message = { ...mapped.message, extra: { ...(mapped.message.extra ?? {}), record: { ...envelope, payload: mapped.rest } } };
  return [captured(HOST, key, message, { prompt: mapped.prompt, at, record: line })];
}

interface Mapped {
  readonly message: Message;
  /** The payload's fields the message does not hold. */
  readonly rest: JsonObject;
  readonly prompt: boolean;
}

function responseItem(p: JsonObject): Mapped | undefined {
  switch (str(p, "type")) {
    case "message":
      return messageItem(p);
    case "reasoning":
      return reasoning(p);
    case "function_call": {
      const call: ToolCall = { id: str(p, "call_id") ?? "", name: str(p, "name") ?? "", ...argumentsFromText(str(p, "arguments") ?? "") };
      return { message: { role: "assistant", content: null, toolCalls: [call] }, rest: omit(p, ["call_id", "name", "arguments"]), prompt: false };
    }
    case "custom_tool_call": {
      // A freeform tool (apply_patch): its input is text, kept as {input}.
      const call: ToolCall = { id: str(p, "call_id") ?? "", name: str(p, "name") ?? "", arguments: { input: str(p, "input") ?? "" } };
      return { message: { role: "assistant", content: null, toolCalls: [call] }, rest: omit(p, ["call_id", "name", "input"]), prompt: false };
    }
    case "local_shell_call": {
      const id = str(p, "call_id") ?? str(p, "id");
      const call: ToolCall = { ...(id !== undefined && { id }), name: "local_shell", ...argumentsFromValue(field(p, "action")) };
      return { message: { role: "assistant", content: null, toolCalls: [call] }, rest: omit(p, ["call_id", "action"]), prompt: false };
    }
    case "function_call_output":
    case "custom_tool_call_output":
      return toolOutput(p);
    default:
      return undefined; // web_search_call, ghost_snapshot, compaction, other: kept whole
  }
}

function messageItem(p: JsonObject): Mapped | undefined {
  const role = str(p, "role");
  const parts = (list(p, "content") ?? []).map(contentPart);
  const rest = omit(p, ["role", "content"]);
  if (role === "user") {
    const contextual = parts.some(
      (part) => typeof part["text"] === "string" && CONTEXTUAL_PREFIXES.some((x) => (part["text"] as string).trimStart().startsWith(x)),
    );
    const typed = !contextual && parts.some((part) => typeof part["text"] === "string" && part["text"].trim() !== "");
    return { message: { role: "user", content: toContent(parts, false) }, rest, prompt: typed };
  }
  if (role === "assistant") return { message: { role: "assistant", content: toContent(parts, true) }, rest, prompt: false };
  if (role === "developer" || role === "system") {
    const kwargs = role === "developer" ? { additionalKwargs: { __openai_role__: "developer" } } : {};
    return { message: { role: "system", content: toContent(parts, false), ...kwargs }, rest, prompt: false };
  }
  return undefined;
}

function reasoning(p: JsonObject): Mapped {
  const summary = (list(p, "summary") ?? []).map((s) => str(s, "text") ?? "").filter((t) => t !== "");
  const content = (list(p, "content") ?? []).map((c) => str(c, "text") ?? "").filter((t) => t !== "");
  const thinking = (content.length > 0 ? content : summary).join("\n\n");
  const part: ContentPart = { type: "thinking", thinking, ...omit(p, ["type"]) };
  return { message: { role: "assistant", content: [part] }, rest: {}, prompt: false };
}

function toolOutput(p: JsonObject): Mapped {
  const output = field(p, "output");
  let content: string | ContentPart[] = "";
  const extra: JsonObject = {};
  if (typeof output === "string") content = output;
  else if (Array.isArray(output)) content = output.map(contentPart);
  else if (isObject(output)) {
    // Older rollouts: {content, success}.
    content = str(output, "content") ?? "";
    Object.assign(extra, omit(output, ["content"]));
  }
  const message: Message = { role: "tool", content, toolCallId: str(p, "call_id") ?? "", ...(Object.keys(extra).length > 0 && { extra }) };
  return { message, rest: omit(p, ["call_id", "output"]), prompt: false };
}

/** A ContentItem as a content part: input_text/output_text → text, input_image → image_url; others as they are. */
function contentPart(item: unknown): ContentPart {
  const type = str(item, "type");
  if ((type === "input_text" || type === "output_text") && str(item, "text") !== undefined) {
    const rest = omit(item as JsonObject, ["type", "text"]);
    return { type: "text", text: str(item, "text"), ...rest };
  }
  if (type === "input_image" && text(item, "image_url") !== undefined) return { type: "image_url", image_url: { url: text(item, "image_url") } };
  return isObject(item) && type !== undefined ? (item as ContentPart) : { type: "host-block", block: item };
}
