// What Cline tells a hook script.
//
// Followed: the hook reference, https://docs.cline.bot/features/hooks/hook-reference
// (cline/cline docs/features/hooks/hook-reference.mdx at 2048a07, read 2026-11-25): a JSON
// object on stdin with clineVersion, hookName, timestamp, taskId, workspaceRoots, userId and
// one object per hook — userPromptSubmit {prompt, attachments}, postToolUse {toolName,
// parameters, result, success, executionTimeMs}, taskStart / taskResume / taskComplete /
// taskCancel {taskMetadata: {taskId, ulid, …}}; the script answers with one JSON object, the
// last thing on stdout: {cancel, contextModification?, errorMessage?} (a non-zero exit or
// output that is not JSON blocks the action). Tool names: Cline's tools guide (read_file,
// write_to_file, replace_in_file, execute_command, list_files, search_files, …).
// UserPromptSubmit also runs for a task's first message (Cline's Task.runUserPromptSubmitHook,
// context "initial_task").
//
// The transcript: Cline keeps a task's messages in its own storage and gives a hook no path
// to them, so Forge's conversation is what the payloads carry (prompts, tool calls with
// parameters and result).
import { copyData } from "../../../core/own.js";
import type { CaptureKind, HostCapture, HostEvent } from "../types.js";
import { field, isObject, list, obj, str, text } from "./fields.js";
import { payloadConversation } from "./payload-messages.js";
import { hostEvent } from "./payload.js";

const HOST = "cline";

/** Cline's tools that change no file. */
const READ_ONLY = new Set([
  "read_file",
  "list_files",
  "search_files",
  "list_code_definition_names",
  "ask_followup_question",
  "attempt_completion",
  "plan_mode_respond",
  "access_mcp_resource",
  "load_mcp_documentation",
  "web_fetch",
  "focus_chain",
]);
/** Its tools that write the file their `path` parameter names (relative to the workspace). */
const EDIT_TOOLS = new Set(["write_to_file", "replace_in_file", "new_rule"]);

/** Cline's payload at Forge's `kind` event, normalized (own properties only). */
function normalize(kind: CaptureKind, payload: Readonly<Record<string, unknown>>): HostEvent {
  const raw = copyData(isObject(payload) ? payload : {}) as Record<string, unknown>;
  const root = list(raw, "workspaceRoots")?.find((r): r is string => typeof r === "string" && r !== "");
  const hook = text(raw, "hookName");
  return hostEvent(HOST, kind, raw, {
    sessionId: text(raw, "taskId"),
    cwd: root,
    prompt: kind === "prompt" ? str(obj(raw, "userPromptSubmit"), "prompt") : undefined,
    tool: kind === "tool" ? clineTool(obj(raw, "postToolUse")) : undefined,
    source: kind === "session-start" ? (hook === "TaskResume" ? "resume" : "startup") : undefined,
  });
}

function clineTool(use: Record<string, unknown> | undefined): NonNullable<HostEvent["tool"]> {
  const name = text(use, "toolName") ?? "unknown";
  const input = field(use, "parameters");
  const path = EDIT_TOOLS.has(name) ? text(input, "path") : undefined;
  return {
    name,
    ...(input !== undefined && { input }),
    response: { result: field(use, "result"), success: field(use, "success"), executionTimeMs: field(use, "executionTimeMs") },
    mayWrite: !READ_ONLY.has(name),
    editedPaths: path === undefined ? [] : [path],
  };
}

/** Cline reads one JSON object from stdout at every hook: never a cancel; the context, when there is one, as contextModification. */
function output(_kind: CaptureKind, context: string): string {
  return `${JSON.stringify(context === "" ? { cancel: false } : { cancel: false, contextModification: context })}\n`;
}

/** Cline, as Forge captures it. */
export const capture: HostCapture = {
  normalize,
  output,
  payloadMessages: (event, key) => payloadConversation(event, key),
};
