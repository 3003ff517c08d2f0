// What Forge's OpenCode plugin (config/opencode.ts) sends a hook: the event's name, sessionID,
// directory and the fields of the plugin hook it came from. OpenCode keeps no transcript a hook
// can read: a session is a tree of message and part records in its own storage (JSON files
// under ~/.local/share/opencode/storage, a SQLite database in later versions), not one
// append-only file, so `transcript` is left undefined and Forge captures files, not the
// conversation.
import { copyData } from "../../../core/own.js";
import type { CaptureKind, HostCapture, HostEvent } from "../types.js";
import { field, isObject, str, text } from "./fields.js";
import { hostEvent, patchPaths } from "./payload.js";

const HOST = "opencode";

/** OpenCode's built-in tools (opencode.ai/docs/tools) that change no file. */
const READ_ONLY_TOOLS = new Set(["read", "grep", "glob", "list", "lsp", "skill", "todoread", "todowrite", "webfetch", "websearch", "codesearch", "question"]);
/** The built-in tools that write the file their `filePath` argument names. */
const FILE_PATH_TOOLS = new Set(["edit", "write", "multiedit"]);

/** The plugin's payload at Forge's `kind` event, normalized (own properties only). */
function normalize(kind: CaptureKind, payload: Readonly<Record<string, unknown>>): HostEvent {
  const raw = copyData(isObject(payload) ? payload : {}) as Record<string, unknown>;
  const sessionId = text(raw, "sessionID");
  const cwd = text(raw, "directory");
  // The plugin sends the text parts the user typed (no synthetic ones): "" when there are none.
  const prompt = kind === "prompt" ? str(raw, "prompt") : undefined;
  // The plugin runs session-start at session.created only: a new session.
  const source = kind === "session-start" ? "startup" : undefined;
  return hostEvent(HOST, kind, raw, { sessionId, cwd, prompt, tool: kind === "tool" ? opencodeTool(raw) : undefined, source });
}

/** The tool a tool.execute.after payload reports. */
function opencodeTool(raw: Record<string, unknown>): NonNullable<HostEvent["tool"]> {
  const name = text(raw, "tool") ?? "unknown";
  const input = field(raw, "args");
  return {
    name,
    ...(input !== undefined && { input }),
    response: { title: field(raw, "title"), output: field(raw, "output"), metadata: field(raw, "metadata") },
    mayWrite: !READ_ONLY_TOOLS.has(name),
    editedPaths: editedPaths(name, input),
  };
}

/** The paths an edit tool names: `filePath` for edit/write/multiedit, the marker lines of apply_patch's `patchText`. */
function editedPaths(tool: string, input: unknown): string[] {
  if (FILE_PATH_TOOLS.has(tool)) {
    const path = text(input, "filePath");
    return path === undefined ? [] : [path];
  }
  const patch = tool === "apply_patch" || tool === "patch" ? str(input, "patchText") : undefined;
  return patch === undefined ? [] : patchPaths(patch);
}

/**
 * What the plugin does with the hook's stdout: at session start it gives the text to the model
 * as system text (through `experimental.chat.system.transform`); at the other events it reads
 * nothing, so Forge prints nothing.
 */
function output(kind: CaptureKind, context: string): string {
  return kind === "session-start" ? context : "";
}

/** OpenCode, through Forge's plugin: its payloads and what the plugin reads back. */
export const capture: HostCapture = { normalize, output };
