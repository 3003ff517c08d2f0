// What Windsurf's Cascade tells a hook.
//
// Followed: Cascade Hooks, https://docs.windsurf.com/windsurf/cascade/hooks (the page as
// published with eleven hook events, read 2026-11-25): every payload has agent_action_name,
// trajectory_id (the Cascade conversation), execution_id (one agent turn), timestamp and
// tool_info — pre_user_prompt {user_prompt}; post_write_code {file_path, edits: [{old_string,
// new_string}]}; post_run_command {command_line, cwd}; post_mcp_tool_use {mcp_server_name,
// mcp_tool_name, mcp_tool_arguments, mcp_result}; post_cascade_response {response: the
// markdown of Cascade's reply since the last prompt}. Hooks run in the workspace root (the
// default working_directory); stdout is only shown in the UI, never read by Cascade.
//
// The transcript: Cascade keeps its trajectories in its own store, not a file a hook is
// given (the page followed names none), so Forge's conversation is what the payloads carry:
// the prompt, each tool with its input and result, and the reply.
import { copyData } from "../../../core/own.js";
import type { CaptureKind, HostCapture, HostEvent } from "../types.js";
import { field, isObject, obj, str, text } from "./fields.js";
import { payloadConversation } from "./payload-messages.js";
import { hostEvent } from "./payload.js";

const HOST = "windsurf";

/** Windsurf's payload at Forge's `kind` event, normalized (own properties only). */
function normalize(kind: CaptureKind, payload: Readonly<Record<string, unknown>>): HostEvent {
  const raw = copyData(isObject(payload) ? payload : {}) as Record<string, unknown>;
  const info = obj(raw, "tool_info");
  const prompt = kind === "prompt" ? str(info, "user_prompt") : undefined;
  return hostEvent(HOST, kind, raw, {
    sessionId: text(raw, "trajectory_id"),
    prompt,
    tool: kind === "tool" ? windsurfTool(text(raw, "agent_action_name"), info) : undefined,
  });
}

/** The tool a post_* payload reports, named after the action. */
function windsurfTool(action: string | undefined, info: Record<string, unknown> | undefined): NonNullable<HostEvent["tool"]> {
  if (action === "post_write_code") {
    const path = text(info, "file_path");
    return { name: "write_code", input: { file_path: path, edits: field(info, "edits") }, mayWrite: true, editedPaths: path === undefined ? [] : [path] };
  }
  if (action === "post_run_command") {
    return { name: "run_command", input: { command_line: field(info, "command_line"), cwd: field(info, "cwd") }, mayWrite: true, editedPaths: [] };
  }
  if (action === "post_mcp_tool_use") {
    const server = text(info, "mcp_server_name") ?? "mcp";
    const tool = text(info, "mcp_tool_name") ?? "unknown";
    return {
      name: `mcp:${server}/${tool}`,
      input: field(info, "mcp_tool_arguments") ?? {},
      response: field(info, "mcp_result"),
      mayWrite: true,
      editedPaths: [],
    };
  }
  if (action === "post_read_code") return { name: "read_code", input: { file_path: field(info, "file_path") }, mayWrite: false, editedPaths: [] };
  // An action this version does not know: it may have written.
  return { name: action ?? "unknown", ...(info !== undefined && { input: info }), mayWrite: true, editedPaths: [] };
}

/** Cascade reads no hook's stdout: nothing is printed. */
function output(): string {
  return "";
}

/** Windsurf's Cascade, as Forge captures it. */
export const capture: HostCapture = {
  normalize,
  output,
  payloadMessages: (event, key) => payloadConversation(event, key, event.kind === "stop" ? str(obj(event.raw, "tool_info"), "response") : undefined),
};
