// What Kiro tells a hook, from its CLI and from its IDE.
//
// Followed: the CLI's hooks, https://kiro.dev/docs/cli/hooks (the same text as
// aws/amazon-q-developer-cli docs/hooks.md at 15cc8f3, 2026-04-23, and its hooks.rs, which
// builds the payload): a JSON object on stdin with hook_event_name (agentSpawn,
// userPromptSubmit, preToolUse, postToolUse, stop) and cwd; prompt (userPromptSubmit, also
// in the USER_PROMPT environment variable); tool_name, tool_input, tool_response
// (postToolUse). Commands run with `bash -c`; exit 0 stdout of agentSpawn and
// userPromptSubmit is added to the agent's context. Built-in tools (docs/built-in-tools.md):
// fs_read, fs_write {command, path, …}, execute_bash, use_aws, introspect, report_issue,
// knowledge, thinking, todo_list. The IDE's hooks, https://kiro.dev/docs/hooks/types (read
// 2026-11-25): a shell command action gets the prompt in USER_PROMPT at Prompt Submit; the
// page documents nothing else a command is given (no stdin payload).
//
// No payload names a session: Forge keeps one per project (implicit-session.ts), a new one at
// each agentSpawn. Kiro keeps no transcript a hook is given, so Forge's conversation is what
// the payloads carry (prompts, tool calls with input and result).
import { readEnv } from "../../../core/config.js";
import { copyData } from "../../../core/own.js";
import type { CaptureKind, HostCapture, HostEvent } from "../types.js";
import { field, isObject, str, text } from "./fields.js";
import { payloadConversation } from "./payload-messages.js";
import { hostEvent } from "./payload.js";

const HOST = "kiro";

/** Kiro's built-in tools that change no file in the workspace (the CLI's names, and the IDE's categories). */
const READ_ONLY = new Set(["fs_read", "read", "introspect", "thinking"]);
/** Its tools that write the file their `path` input names. */
const EDIT_TOOLS = new Set(["fs_write", "write"]);

/** Kiro's payload at Forge's `kind` event, normalized (own properties only); the IDE's prompt comes from USER_PROMPT. */
function normalize(kind: CaptureKind, payload: Readonly<Record<string, unknown>>): HostEvent {
  const raw = copyData(isObject(payload) ? payload : {}) as Record<string, unknown>;
  const prompt = kind === "prompt" ? (str(raw, "prompt") ?? readEnv(["USER_PROMPT"])["USER_PROMPT"]) : undefined;
  return hostEvent(HOST, kind, raw, {
    cwd: text(raw, "cwd"),
    prompt,
    tool: kind === "tool" ? kiroTool(raw) : undefined,
    source: kind === "session-start" ? "startup" : undefined,
  });
}

function kiroTool(raw: Record<string, unknown>): NonNullable<HostEvent["tool"]> {
  // The IDE's post-tool-use command is given no payload: an unknown tool, which may have written.
  const name = text(raw, "tool_name") ?? "unknown";
  const input = field(raw, "tool_input");
  const path = EDIT_TOOLS.has(name) ? text(input, "path") : undefined;
  return {
    name,
    ...(input !== undefined && { input }),
    ...(field(raw, "tool_response") !== undefined && { response: field(raw, "tool_response") }),
    mayWrite: !READ_ONLY.has(name),
    editedPaths: path === undefined ? [] : [path],
  };
}

/** Kiro adds agentSpawn's stdout to the agent's context (and userPromptSubmit's, where Forge has nothing to add). */
function output(kind: CaptureKind, context: string): string {
  return kind === "session-start" ? context : "";
}

/** Kiro, as Forge captures it. */
export const capture: HostCapture = {
  normalize,
  output,
  implicitSession: true,
  payloadMessages: (event, key) => payloadConversation(event, key),
};
