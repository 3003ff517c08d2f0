// What Factory Droid tells a hook.
//
// Followed: the hooks reference, https://docs.factory.ai/reference/hooks-reference
// (Factory-AI/factory docs@a80aa7c, 2026-07-24; page last changed 23d17af, 2026-06-23):
// Claude-Code-shaped payloads with session_id, transcript_path, cwd, permission_mode,
// hook_event_name; prompt (UserPromptSubmit), tool_name / tool_input / tool_response
// (PostToolUse), source (SessionStart: startup, resume, clear, compact), trigger (PreCompact),
// reason (SessionEnd). Exit 0 stdout of UserPromptSubmit and SessionStart is added to the
// context as plain text. Built-in tools (docs/cli/configuration/custom-droids.mdx): Read, LS,
// Grep, Glob (read-only), Create, Edit, ApplyPatch (edit), Execute, WebSearch, FetchUrl,
// TodoWrite, Task.
//
// The transcript: payloads name a JSONL file under ~/.factory/projects/…, but the docs do not
// describe its records ("Path to conversation JSON"), so Forge does not read it: the
// conversation is what the payloads carry (prompts, tool calls with input and result), and
// the files come from workspace snapshots.
import type { CaptureKind, HostCapture, HostEvent } from "../types.js";
import { isObject } from "./fields.js";
import { payloadConversation } from "./payload-messages.js";
import { inputPaths, normalizePayload, type PayloadPolicy, patchPaths } from "./payload.js";

const HOST = "factory-droid";

/** Droid's built-in tools that change no file. */
const READ_ONLY = new Set(["Read", "LS", "Grep", "Glob", "WebSearch", "FetchUrl", "TodoWrite"]);
/** Its tools that write the file their input names (`file_path`, as the reference's Create example shows). */
const EDIT_TOOLS = new Set(["Create", "Edit", "MultiEdit"]);

/** The files an ApplyPatch input names: its input fields are not documented, so any string in it that is a patch. */
function applyPatchPaths(input: unknown): string[] {
  if (typeof input === "string") return patchPaths(input);
  if (!isObject(input)) return [];
  return Object.values(input).flatMap((v) => (typeof v === "string" && v.includes("*** Begin Patch") ? patchPaths(v) : []));
}

const policy: PayloadPolicy = {
  readOnlyTools: READ_ONLY,
  editedPaths: (name, input) => (EDIT_TOOLS.has(name) ? inputPaths(input) : name === "ApplyPatch" ? applyPatchPaths(input) : []),
};

function normalize(kind: CaptureKind, payload: Readonly<Record<string, unknown>>): HostEvent {
  return normalizePayload(HOST, kind, payload, policy);
}

/** Droid adds a SessionStart or UserPromptSubmit hook's stdout to the context as text; the other events' stdout only shows in transcript mode. */
function output(kind: CaptureKind, context: string): string {
  return kind === "session-start" ? context : "";
}

/** Factory Droid, as Forge captures it. */
export const capture: HostCapture = {
  normalize,
  output,
  payloadMessages: (event, key) => payloadConversation(event, key),
};
