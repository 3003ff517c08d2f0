// What Cursor tells a hook and what it writes down.
//
// Followed: the hooks reference, https://cursor.com/docs/hooks (page as of 2026-08-24: common
// input fields conversation_id, generation_id, hook_event_name, workspace_roots,
// transcript_path (null when transcripts are off); afterFileEdit {file_path, edits},
// afterShellExecution {command, output, duration}, afterMCPExecution {tool_name, tool_input,
// result_json} as JSON strings; CURSOR_TRANSCRIPT_PATH in the hook's environment). Cursor
// documents where the agent transcript is, not its format: the reader follows the JSONL lines
// Cursor writes, `{role, message: {content: [...]}}` with Claude-style blocks (text, tool_use,
// tool_result), as public parsers describe them, and keeps every line it cannot map whole.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readEnv } from "../../../core/config.js";
import { ForgeError } from "../../../core/errors.js";
import { copyData, getOwn } from "../../../core/own.js";
import type { ContentPart, Message, ToolCall } from "../../../domains/conversation/model.js";
import type { CaptureKind, CapturedMessage, HostCapture, HostEvent, TranscriptCursor, TranscriptFormat, TranscriptRead } from "../types.js";
import { field, isObject, list, obj, omit, str, text } from "./fields.js";
import { homeFolder } from "./homes.js";
import { type JsonlLine, jsonlMark, lineKey, parseLine, readJsonl } from "./jsonl.js";
import { argumentsFromValue, captured, hostRecord, keyed, toContent } from "./messages.js";
import { hostEvent } from "./payload.js";

const HOST = "cursor";
const LABEL = "Cursor";

/** Tools Cursor names (hook matchers: Shell, Read, Write, Grep, Delete, Task, MCP:<name>) that only read. */
const READ_ONLY_TOOLS = new Set(["Read", "Grep"]);

/** Cursor's payload at Forge's `kind` event, normalized (own properties only). */
function normalize(kind: CaptureKind, payload: Readonly<Record<string, unknown>>): HostEvent {
  const raw = copyData(isObject(payload) ? payload : {}) as Record<string, unknown>;
  const root = list(raw, "workspace_roots")?.find((r): r is string => typeof r === "string" && r !== "");
  // sessionStart and sessionEnd also send session_id, documented as the same as conversation_id.
  const sessionId = text(raw, "conversation_id") ?? text(raw, "session_id");
  const cwd = text(raw, "cwd") ?? root;
  const transcriptPath = text(raw, "transcript_path");
  const prompt = kind === "prompt" ? str(raw, "prompt") : undefined;
  const trigger = kind === "pre-compact" ? text(raw, "trigger") : undefined;
  return hostEvent(HOST, kind, raw, { sessionId, cwd, transcriptPath, prompt, tool: kind === "tool" ? cursorTool(raw) : undefined, trigger });
}

/** The tool an `after*` payload (or a `postToolUse` one, should a user wire it) reports. */
function cursorTool(raw: Record<string, unknown>): NonNullable<HostEvent["tool"]> {
  const hook = text(raw, "hook_event_name");
  const filePath = text(raw, "file_path");
  if (hook === "afterFileEdit") {
    // afterFileEdit's matcher values are the edit tools' names (Write, TabWrite); the payload names none.
    return { name: "Write", input: { file_path: filePath, edits: field(raw, "edits") }, mayWrite: true, editedPaths: filePath === undefined ? [] : [filePath] };
  }
  if (hook === "afterShellExecution") {
    const input = { command: field(raw, "command"), sandbox: field(raw, "sandbox") };
    return { name: "Shell", input, response: { output: field(raw, "output"), duration: field(raw, "duration") }, mayWrite: true, editedPaths: [] };
  }
  const name = text(raw, "tool_name") ?? "unknown";
  if (hook === "afterMCPExecution") {
    return { name: `MCP:${name}`, input: jsonText(field(raw, "tool_input")), response: jsonText(field(raw, "result_json")), mayWrite: true, editedPaths: [] };
  }
  const input = jsonText(field(raw, "tool_input"));
  const edited = [text(input, "file_path") ?? text(input, "path")].filter((p): p is string => p !== undefined);
  return {
    name,
    input,
    response: jsonText(field(raw, "tool_output")),
    mayWrite: !READ_ONLY_TOOLS.has(name),
    editedPaths: READ_ONLY_TOOLS.has(name) ? [] : edited,
  };
}

/** A JSON text parsed when it is one (Cursor sends MCP input and results as JSON strings), else the value as given. */
function jsonText(v: unknown): unknown {
  if (typeof v !== "string") return v;
  const parsed = parseLine(v);
  return parsed.ok ? parsed.value : v;
}

/**
 * What Cursor reads on stdout. sessionStart takes `additional_context`; beforeSubmitPrompt needs
 * `continue: true` or the prompt is blocked; stop must not carry a `followup_message` (Cursor
 * would submit it as the user's next prompt); the other events read nothing Forge has to say.
 */
function output(kind: CaptureKind, context: string): string {
  if (kind === "session-start" && context !== "") return JSON.stringify({ additional_context: context });
  if (kind === "prompt") return JSON.stringify({ continue: true });
  return "{}";
}

const transcript: TranscriptFormat = {
  read(path: string, cursor: TranscriptCursor | null): TranscriptRead {
    const chunk = readJsonl(path, jsonlMark(cursor), LABEL);
    // Tool calls still without a result: a tool_result that names no call answers the oldest.
    const kept = cursor === null || chunk.reset ? "" : getOwn(cursor, "pending");
    const pending = typeof kept === "string" ? kept.split("\n").filter(Boolean) : [];
    const messages = chunk.lines.flatMap((line) => lineMessages(line, pending));
    return {
      messages,
      cursor: { offset: chunk.offset, ino: chunk.ino, head: chunk.head, pending: pending.join("\n") },
      ...(chunk.reset && { reset: true }),
    };
  },
  cut(path: string): never {
    throw new ForgeError(
      "UNSUPPORTED",
      `Cursor cannot resume a conversation from its transcript ${path}: it keeps conversations in its own database and writes the transcript only as a record`,
      {
        hint: "start a new Cursor chat; Forge keeps the conversation up to that prompt (`forge chat show` on the agent session)",
        data: { host: HOST, path },
      },
    );
  },
};

/** The messages of one transcript line (a line Forge cannot map is kept whole as a host record). */
function lineMessages(line: JsonlLine, pending: string[]): CapturedMessage[] {
  const key = lineKey(line.offset, line.text);
  const parsed = parseLine(line.text);
  if (!parsed.ok) return [hostRecord(HOST, key, line.text, undefined, "not JSON")];
  const record = parsed.value;
  const role = str(record, "role");
  const content = field(obj(record, "message"), "content");
  const blocks = typeof content === "string" ? [{ type: "text", text: content }] : content;
  if ((role !== "user" && role !== "assistant") || !Array.isArray(blocks) || !blocks.every((b) => typeof str(b, "type") === "string")) {
    return [hostRecord(HOST, key, record)];
  }
  const parts = blocks as ContentPart[];
  const out: { message: Message; prompt: boolean }[] = role === "assistant" ? [assistantMessage(parts, key, pending)] : userMessages(parts, pending);
  if (out.length === 0) return [hostRecord(HOST, key, record)];
  return out.map((m, i) => captured(HOST, keyed(key, i), m.message, { prompt: m.prompt, record }));
}

/** An assistant line: its text and other blocks as content, its tool_use blocks as tool calls (ids made from the key when Cursor gives none). */
function assistantMessage(blocks: ContentPart[], key: string, pending: string[]): { message: Message; prompt: boolean } {
  const calls: ToolCall[] = [];
  const parts: ContentPart[] = [];
  for (const [i, b] of blocks.entries()) {
    const name = text(b, "name");
    if (b.type !== "tool_use" || name === undefined) {
      parts.push(b);
      continue;
    }
    const id = text(b, "id") ?? `${key}#tool${i}`;
    const rest = omit(b, ["type", "id", "name", "input"]);
    calls.push({ id, name, ...argumentsFromValue(field(b, "input") ?? {}), ...(Object.keys(rest).length > 0 && { extra: rest }) });
    pending.push(id);
  }
  return { message: { role: "assistant", content: toContent(parts, calls.length > 0), ...(calls.length > 0 && { toolCalls: calls }) }, prompt: false };
}

/** A user line: one tool message per tool_result, then the rest as the user's message, a prompt when the line answers no tool call. */
function userMessages(blocks: ContentPart[], pending: string[]): { message: Message; prompt: boolean }[] {
  const out: { message: Message; prompt: boolean }[] = [];
  const rest: ContentPart[] = [];
  for (const b of blocks) {
    const answered = b.type === "tool_result" ? (text(b, "tool_use_id") ?? pending[0]) : undefined;
    if (answered === undefined) {
      rest.push(b);
      continue;
    }
    if (pending.includes(answered)) pending.splice(pending.indexOf(answered), 1);
    const extra = omit(b, ["type", "tool_use_id", "content"]);
    const result = field(b, "content");
    const content =
      typeof result === "string"
        ? result
        : Array.isArray(result) && result.every((p) => typeof str(p, "type") === "string")
          ? (result as ContentPart[])
          : JSON.stringify(result ?? "");
    out.push({ message: { role: "tool", toolCallId: answered, content, ...(Object.keys(extra).length > 0 && { extra }) }, prompt: false });
  }
  if (rest.length > 0)
    out.push({ message: { role: "user", content: toContent(rest, false) }, prompt: out.length === 0 && rest.some((b) => b.type === "text") });
  return out;
}

/**
 * The transcript of a Cursor session when the payload does not name it: Cursor gives hook
 * processes `CURSOR_TRANSCRIPT_PATH` (when transcripts are on), and keeps agent transcripts in
 * `~/.cursor/projects/<workspace path, "/" as "-">/agent-transcripts/<id>/<id>.jsonl`.
 */
function locateTranscript(event: HostEvent): string | undefined {
  const fromEnv = readEnv(["CURSOR_TRANSCRIPT_PATH"])["CURSOR_TRANSCRIPT_PATH"];
  if (fromEnv) return fromEnv;
  const id = event.sessionId;
  // The id enters a path: only a plain name (Cursor's are UUIDs).
  if (id === undefined || event.cwd === undefined || !/^[\w-]+$/.test(id)) return undefined;
  const slug = event.cwd
    .split(/[\\/]+/)
    .filter(Boolean)
    .join("-");
  const dir = join(homeFolder(), ".cursor", "projects", slug, "agent-transcripts");
  return [join(dir, id, `${id}.jsonl`), join(dir, `${id}.jsonl`)].find((p) => existsSync(p));
}

/** Cursor, as Forge captures it. */
export const capture: HostCapture = { normalize, transcript, locateTranscript, output };
