// What GitHub Copilot CLI tells a hook and what it writes down.
//
// Followed: the CLI hooks reference,
// https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference
// (github/docs@927566b, 2026: camelCase payloads sessionId, timestamp, cwd, source, prompt,
// toolName, toolArgs, toolResult, error, transcriptPath, trigger; the VS Code-compatible
// snake_case form is read too), hooks-configuration (toolArgs is a JSON string), the config
// directory reference (sessions in $COPILOT_HOME or ~/.copilot /session-state/<id>/ with an
// events.jsonl log and workspace.yaml; `--resume` reads them back) and the session event types
// of github/copilot-sdk nodejs/src/generated/session-events.ts (2026-08-21: every event is
// `{type, id, timestamp, parentId, agentId?, data}`).
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readEnv } from "../../../core/config.js";
import { ForgeError } from "../../../core/errors.js";
import { copyData } from "../../../core/own.js";
import type { Message, ToolCall } from "../../../domains/conversation/model.js";
import type { CaptureKind, CapturedMessage, HostCapture, HostEvent, TranscriptCursor, TranscriptFormat, TranscriptRead } from "../types.js";
import { checkPromptNumber, jsonlText, noSuchPrompt, setIdInLine, writeNewTranscript } from "./cut.js";
import { field, flag, isObject, type JsonObject, list, obj, omit, str, text } from "./fields.js";
import { homeFolder } from "./homes.js";
import { type JsonlLine, jsonlMark, lineKey, parseLine, readAllJsonl, readJsonl } from "./jsonl.js";
import { argumentsFromText, argumentsFromValue, captured, hostRecord } from "./messages.js";
import { hostEvent } from "./payload.js";

const HOST = "copilot";
const LABEL = "Copilot CLI";

/** Copilot CLI's built-in tools (the reference's "Tool names for hook matching") that write nothing. */
const READ_ONLY_TOOLS = new Set(["view", "glob", "grep", "web_fetch", "ask_user"]);
/** The built-in tools that write the file their `path` argument names. */
const EDIT_TOOLS = new Set(["edit", "create"]);

/** Copilot's payload at Forge's `kind` event, normalized (own properties only). */
function normalize(kind: CaptureKind, payload: Readonly<Record<string, unknown>>): HostEvent {
  const raw = copyData(isObject(payload) ? payload : {}) as Record<string, unknown>;
  const either = (camel: string, snake: string) => text(raw, camel) ?? text(raw, snake);
  const sessionId = either("sessionId", "session_id");
  const cwd = text(raw, "cwd");
  const transcriptPath = either("transcriptPath", "transcript_path");
  const prompt = kind === "prompt" ? str(raw, "prompt") : undefined;
  const source = kind === "session-start" ? text(raw, "source") : undefined;
  const trigger = kind === "pre-compact" ? text(raw, "trigger") : undefined;
  const tool = kind === "tool" ? copilotTool(raw, either("toolName", "tool_name") ?? "unknown") : undefined;
  return hostEvent(HOST, kind, raw, { sessionId, cwd, transcriptPath, prompt, tool, source, trigger });
}

/** The tool a postToolUse or postToolUseFailure payload reports; its arguments parsed from their JSON string. */
function copilotTool(raw: JsonObject, name: string): NonNullable<HostEvent["tool"]> {
  const given = field(raw, "toolArgs") ?? field(raw, "tool_input");
  const parsed = typeof given === "string" ? parseLine(given) : undefined;
  const input = parsed?.ok ? parsed.value : given;
  const error = field(raw, "error");
  const response = field(raw, "toolResult") ?? field(raw, "tool_result") ?? (error === undefined ? undefined : { error });
  const path = EDIT_TOOLS.has(name) ? text(input, "path") : undefined;
  return {
    name,
    ...(input !== undefined && { input }),
    ...(response !== undefined && { response }),
    mayWrite: !READ_ONLY_TOOLS.has(name),
    editedPaths: path === undefined ? [] : [path],
  };
}

/**
 * What Copilot reads on stdout: JSON. `additionalContext` is what its hooks take at session
 * start and prompt submission in the SDK (the CLI reference marks those two outputs as not
 * processed, so Copilot may ignore it); agentStop must never carry `decision: "block"`, which
 * forces another turn.
 */
function output(kind: CaptureKind, context: string): string {
  if ((kind === "session-start" || kind === "prompt") && context !== "") return JSON.stringify({ additionalContext: context });
  return "{}";
}

/** A user.message the user typed: from the main agent, not autopilot's continuation, not sent by a skill or another agent. */
function isPrompt(record: unknown): boolean {
  if (str(record, "type") !== "user.message" || field(record, "agentId") !== undefined) return false;
  const data = obj(record, "data");
  const source = str(data, "source");
  return str(data, "content") !== undefined && !flag(data, "isAutopilotContinuation") && (source === undefined || source === "user");
}

/** One line of the event log as a message, keyed by the event's own id. Sub-agent events and types Forge does not map are kept whole. */
function lineMessage(line: JsonlLine): CapturedMessage {
  const fallback = lineKey(line.offset, line.text);
  const parsed = parseLine(line.text);
  if (!parsed.ok) return hostRecord(HOST, fallback, line.text, undefined, "not JSON");
  const record = parsed.value;
  const key = text(record, "id") ?? fallback;
  const at = text(record, "timestamp");
  const message = field(record, "agentId") === undefined ? eventMessage(record, key) : undefined;
  return message === undefined ? hostRecord(HOST, key, record, at) : captured(HOST, key, message, { prompt: isPrompt(record), at, record });
}

/** The message of a user.message, assistant.message or tool.execution_complete event; undefined for any other. */
function eventMessage(record: unknown, id: string): Message | undefined {
  const data = obj(record, "data");
  if (data === undefined) return undefined;
  switch (str(record, "type")) {
    case "user.message": {
      const content = str(data, "content");
      return content === undefined ? undefined : { role: "user", content, id, ...more(omit(data, ["content"])) };
    }
    case "assistant.message": {
      const content = str(data, "content");
      const calls = (list(data, "toolRequests") ?? []).map(toolCall);
      if (content === undefined) return undefined;
      const toolCalls = calls.filter((c): c is ToolCall => c !== undefined);
      const body = content === "" && toolCalls.length > 0 ? null : content;
      return { role: "assistant", content: body, id, ...(toolCalls.length > 0 && { toolCalls }), ...more(omit(data, ["content", "toolRequests"])) };
    }
    case "tool.execution_complete": {
      const toolCallId = text(data, "toolCallId");
      if (toolCallId === undefined) return undefined;
      const content = str(obj(data, "result"), "content") ?? str(obj(data, "error"), "message") ?? "";
      return { role: "tool", toolCallId, content, id, ...more(omit(data, ["toolCallId"])) };
    }
    default:
      return undefined;
  }
}

/** A tool request of an assistant message as a tool call (its arguments are JSON, an object as a rule). */
function toolCall(request: unknown): ToolCall | undefined {
  const id = text(request, "toolCallId");
  const name = text(request, "name");
  if (id === undefined || name === undefined || !isObject(request)) return undefined;
  const given = field(request, "arguments");
  const rest = omit(request, ["toolCallId", "name", "arguments"]);
  const args = typeof given === "string" ? argumentsFromText(given) : argumentsFromValue(given ?? {});
  return { id, name, ...args, ...(Object.keys(rest).length > 0 && { extra: rest }) };
}

/** The event's other data fields, kept with the message. */
function more(rest: JsonObject): { extra?: JsonObject } {
  return Object.keys(rest).length > 0 ? { extra: { copilot: rest } } : {};
}

const transcript: TranscriptFormat = {
  read(path: string, cursor: TranscriptCursor | null): TranscriptRead {
    const chunk = readJsonl(path, jsonlMark(cursor), LABEL);
    return { messages: chunk.lines.map(lineMessage), cursor: { offset: chunk.offset, ino: chunk.ino, head: chunk.head }, ...(chunk.reset && { reset: true }) };
  },

  cut(path: string, prompt: number, options: { cwd: string }) {
    checkPromptNumber(prompt);
    const lines = readAllJsonl(path, LABEL);
    let seen = 0;
    const at = lines.findIndex((line) => {
      const parsed = parseLine(line.text);
      return parsed.ok && isPrompt(parsed.value) && ++seen === prompt;
    });
    if (at < 0) throw noSuchPrompt(path, prompt, seen);
    const sessionId = randomUUID();
    const kept = lines.slice(0, at).map((line) => {
      // session.start names the session: the copy names the new one; every other line is kept byte for byte.
      const parsed = parseLine(line.text);
      const old = parsed.ok && str(parsed.value, "type") === "session.start" ? text(obj(parsed.value, "data"), "sessionId") : undefined;
      return old === undefined ? line.text : setIdInLine(line.text, "sessionId", old, sessionId, (r) => field(r, "data"));
    });
    const dir = join(copilotHome(), "session-state", sessionId);
    const target = join(dir, "events.jsonl");
    writeNewTranscript(target, jsonlText(kept));
    writeNewTranscript(join(dir, "workspace.yaml"), workspaceYaml(join(dirname(path), "workspace.yaml"), sessionId, options.cwd));
    return { path: target, sessionId, resume: `copilot --resume=${sessionId}` };
  },
};

/** The copy's workspace.yaml: the original's with the new id, or the id and folder when there is none. */
function workspaceYaml(original: string, sessionId: string, cwd: string): string {
  if (!existsSync(original)) return `id: ${sessionId}\ncwd: ${JSON.stringify(cwd)}\n`;
  const lines = readFileSync(original, "utf8").split("\n");
  const i = lines.findIndex((l) => l.startsWith("id:"));
  if (i >= 0) lines[i] = `id: ${sessionId}`;
  else lines.unshift(`id: ${sessionId}`);
  return lines.join("\n");
}

/** Copilot's configuration folder: COPILOT_HOME when set and not empty, else ~/.copilot. */
export function copilotHome(): string {
  const dir = readEnv(["COPILOT_HOME"])["COPILOT_HOME"]?.trim();
  return dir ? dir : join(homeFolder(), ".copilot");
}

/** The session's event log when the payload does not name it (only agentStop and preCompact carry `transcriptPath`). */
function locateTranscript(event: HostEvent): string | undefined {
  const id = event.sessionId;
  if (id === undefined) return undefined;
  if (!/^[\w.-]+$/.test(id) || id === "." || id === "..") {
    throw new ForgeError("INVALID_ARGUMENT", `Copilot session id ${JSON.stringify(id)} is not a name Forge puts in a path`, {
      hint: "the hook payload's sessionId is damaged",
      data: { host: HOST, id },
    });
  }
  const state = join(copilotHome(), "session-state");
  return [join(state, id, "events.jsonl"), join(state, `${id}.jsonl`)].find((p) => existsSync(p));
}

/** GitHub Copilot CLI: hook payloads, its session event log, and its hook output protocol. */
export const capture: HostCapture = { normalize, transcript, locateTranscript, output };
