// What Gemini CLI tells a hook and what it writes down.
//
// Followed: the hooks reference, https://geminicli.com/docs/hooks/reference (docs/hooks/reference.md
// in google-gemini/gemini-cli at 5411f113, 0.56.0-nightly, 2026-08-21): input session_id,
// transcript_path, cwd, hook_event_name, timestamp and each event's own (BeforeAgent prompt;
// AfterTool tool_name, tool_input, tool_response {llmContent, returnDisplay, error}; SessionStart
// source startup|resume|clear; PreCompress trigger manual|auto); on exit 0 stdout is parsed as
// JSON, so a hook always prints one object. Tool names from packages/core/src/tools/definitions/
// base-declarations.ts; chat files and `gemini --resume <uuid>` from chatRecordingService.ts and
// packages/cli/src/utils/sessionUtils.ts (the session is looked up in the project's chats folder
// by the first 8 characters of its id in the file name and its sessionId, and only when it
// holds a prompt).
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { ForgeError } from "../../../core/errors.js";
import type { CaptureKind, HostCapture, HostEvent, TranscriptCursor, TranscriptFormat, TranscriptRead } from "../types.js";
import { checkPromptNumber, jsonlText, noSuchPrompt, setIdInLine, writeNewTranscript } from "./cut.js";
import { field, isObject, list, str } from "./fields.js";
import { isMessageRecord } from "./gemini-records.js";
import { type GeminiRead, isLegacyDocument, LABEL, readDocument, readJsonlLog, readLegacyDocument } from "./gemini-transcript.js";
import { geminiDir } from "./homes.js";
import { parseLine, readAllJsonl, readLineAt } from "./jsonl.js";
import { inputPaths, normalizePayload, type PayloadPolicy } from "./payload.js";

const HOST = "gemini-cli";

/** Gemini CLI's built-in tools that only read (search_file_content was grep_search's name before 0.30). */
const READ_ONLY = new Set([
  "read_file",
  "read_many_files",
  "list_directory",
  "glob",
  "grep_search",
  "search_file_content",
  "google_web_search",
  "web_fetch",
  "write_todos",
  "get_internal_docs",
  "ask_user",
  "list_mcp_resources",
  "read_mcp_resource",
]);

/** Its tools that write the file their input names (file_path). */
const EDIT_TOOLS = new Set(["write_file", "replace"]);

const policy: PayloadPolicy = {
  readOnlyTools: READ_ONLY,
  editedPaths: (name, input) => (EDIT_TOOLS.has(name) ? inputPaths(input) : []),
};

function readAny(path: string, cursor: TranscriptCursor | null): GeminiRead {
  return isLegacyDocument(path) ? readLegacyDocument(path, cursor) : readJsonlLog(path, cursor);
}

const transcript: TranscriptFormat = {
  read(path: string, cursor: TranscriptCursor | null): TranscriptRead {
    const r = readAny(path, cursor);
    return { messages: r.messages.map((m) => m.message), cursor: r.cursor, ...(r.reset && { reset: true }) };
  },

  cut(path: string, prompt: number) {
    checkPromptNumber(prompt);
    const prompts = readAny(path, null).messages.filter((m) => m.message.prompt);
    const at = prompts[prompt - 1]?.at;
    if (at === undefined) throw noSuchPrompt(path, prompt, prompts.length);
    if (prompt === 1) {
      throw new ForgeError("INVALID_ARGUMENT", `cannot cut ${path} before its first prompt: Gemini CLI does not resume a session without a prompt`, {
        hint: "start a new Gemini CLI session instead",
        data: { path, prompt },
      });
    }
    const sessionId = randomUUID();
    // Gemini CLI names chat files by the UTC minute and the id's first 8 characters.
    const stamp = new Date().toISOString().slice(0, 16).replace(/:/g, "-");
    const legacy = isLegacyDocument(path);
    const target = join(dirname(path), `session-${stamp}-${sessionId.slice(0, 8)}.${legacy ? "json" : "jsonl"}`);
    if (legacy) {
      const doc = readDocument(path) ?? {};
      const messages = (list(doc, "messages") ?? []).slice(0, at);
      writeNewTranscript(target, `${JSON.stringify({ ...doc, sessionId, messages }, null, 2)}\n`);
    } else {
      const kept = readAllJsonl(path, LABEL)
        .filter((l) => l.offset < at)
        .map(({ text }) => {
          const parsed = parseLine(text);
          if (!parsed.ok || isMessageRecord(parsed.value)) return text;
          const set = field(parsed.value, "$set");
          const old = str(parsed.value, "sessionId") ?? str(set, "sessionId");
          if (old === undefined) return text;
          return str(parsed.value, "sessionId") !== undefined
            ? setIdInLine(text, "sessionId", old, sessionId)
            : setIdInLine(text, "sessionId", old, sessionId, (r) => field(r, "$set"));
        });
      writeNewTranscript(target, jsonlText(kept));
    }
    return { path: target, sessionId, resume: `gemini --resume ${sessionId}` };
  },
};

/** The chat file of `sessionId` under ~/.gemini/tmp/<project>/chats (GEMINI_CLI_HOME honoured), if there is one. */
export function findChat(sessionId: string): string | undefined {
  const tmp = join(geminiDir(), "tmp");
  if (!existsSync(tmp)) return undefined;
  const short = sessionId.slice(0, 8);
  for (const project of readdirSync(tmp)) {
    const chats = join(tmp, project, "chats");
    if (!existsSync(chats)) continue;
    const names = readdirSync(chats)
      .filter((f) => f.startsWith("session-") && (f.endsWith(`-${short}.jsonl`) || f.endsWith(`-${short}.json`)))
      .sort()
      .reverse();
    for (const name of names) {
      const path = join(chats, name);
      if (chatSessionId(path) === sessionId) return path;
    }
  }
  return undefined;
}

function chatSessionId(path: string): string | undefined {
  if (isLegacyDocument(path)) {
    const doc = readDocument(path);
    return doc === undefined ? undefined : str(doc, "sessionId");
  }
  const first = readLineAt(path, 0, LABEL);
  const parsed = first === undefined ? undefined : parseLine(first);
  return parsed?.ok && isObject(parsed.value) ? str(parsed.value, "sessionId") : undefined;
}

/** The JSON object a Gemini CLI hook prints for `kind`, with `context` for the agent where the event takes one. */
function hookOutput(kind: CaptureKind, context: string): Record<string, unknown> {
  const event = kind === "session-start" ? "SessionStart" : kind === "prompt" ? "BeforeAgent" : kind === "tool" ? "AfterTool" : undefined;
  if (event === undefined || context === "") return {};
  return { hookSpecificOutput: { hookEventName: event, additionalContext: context } };
}

/** Gemini CLI: hook payloads, its chat files, and its hook output protocol (always one JSON object). */
export const capture: HostCapture = {
  normalize: (kind, payload) => normalizePayload(HOST, kind, payload, policy),
  transcript,
  locateTranscript: (event: HostEvent) => (event.sessionId === undefined ? undefined : findChat(event.sessionId)),
  output: (kind, context) => JSON.stringify(hookOutput(kind, context)),
};
