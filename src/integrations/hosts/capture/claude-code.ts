// What Claude Code tells a hook and what it writes down.
//
// Followed: the hooks reference, https://code.claude.com/docs/en/hooks (2026-08; input
// fields session_id, transcript_path, cwd, hook_event_name, source, prompt, tool_name,
// tool_input, tool_response, trigger; exit 0 stdout of SessionStart and UserPromptSubmit is
// added to the context as plain text), "Manage sessions", https://code.claude.com/docs/en/sessions
// (sessions under $CLAUDE_CONFIG_DIR or ~/.claude /projects/<project>/<session id>.jsonl,
// resumed with `claude --resume <id>`), and the project folder rule from Claude Code's
// sessionStoragePortable.ts (non-alphanumerics to "-", long names cut at 200 with a hash).
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { CaptureKind, CapturedMessage, HostCapture, TranscriptCursor, TranscriptFormat, TranscriptRead } from "../types.js";
import { claudeLineMessages } from "./claude-code-records.js";
import { checkPromptNumber, jsonlText, noSuchPrompt, setIdInLine, writeNewTranscript } from "./cut.js";
import { isObject, str, text } from "./fields.js";
import { claudeProjectDir } from "./homes.js";
import { type JsonlLine, jsonlMark, lineKey, parseLine, readAllJsonl, readJsonl } from "./jsonl.js";
import { hostRecord } from "./messages.js";
import { inputPaths, normalizePayload, type PayloadPolicy } from "./payload.js";

const HOST = "claude-code";
const LABEL = "Claude Code";

/** Claude Code's built-in tools that only read files, the web or the agent's own notes. */
const READ_ONLY = new Set([
  "Read",
  "Grep",
  "Glob",
  "LS",
  "WebFetch",
  "WebSearch",
  "TodoWrite",
  "TodoRead",
  "NotebookRead",
  "BashOutput",
  "ExitPlanMode",
  "ListMcpResourcesTool",
  "ReadMcpResourceTool",
]);

/** Its tools that write the files their input names. */
const EDIT_TOOLS = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]);

const policy: PayloadPolicy = {
  readOnlyTools: READ_ONLY,
  editedPaths: (name, input) => (EDIT_TOOLS.has(name) ? inputPaths(input) : []),
};

/** The messages of one line, parsed (a line that is not JSON is kept as a host record). */
function lineMessages(line: JsonlLine): CapturedMessage[] {
  const key = lineKey(line.offset, line.text);
  const parsed = parseLine(line.text);
  if (!parsed.ok) return [hostRecord(HOST, key, line.text, undefined, "not JSON")];
  return claudeLineMessages(parsed.value, key);
}

const transcript: TranscriptFormat = {
  read(path: string, cursor: TranscriptCursor | null): TranscriptRead {
    const chunk = readJsonl(path, jsonlMark(cursor), LABEL);
    const messages = chunk.lines.flatMap(lineMessages);
    return { messages, cursor: { offset: chunk.offset, ino: chunk.ino, head: chunk.head }, ...(chunk.reset && { reset: true }) };
  },

  cut(path: string, prompt: number, options: { cwd: string }) {
    checkPromptNumber(prompt);
    const lines = readAllJsonl(path, LABEL);
    let seen = 0;
    const at = lines.findIndex((line) => lineMessages(line).some((m) => m.prompt) && ++seen === prompt);
    if (at < 0) throw noSuchPrompt(path, prompt, seen);
    const kept = lines.slice(0, at).map((l) => l.text);
    const sessionId = randomUUID();
    const uuids = new Set(kept.map((l) => uuidOf(l)).filter((u): u is string => u !== undefined));
    const out: string[] = [];
    for (const line of kept) {
      const parsed = parseLine(line);
      if (!parsed.ok) {
        out.push(line);
        continue;
      }
      const record = parsed.value;
      // A summary whose leaf is cut away would make --resume report the session missing.
      if (str(record, "type") === "summary" && !uuids.has(str(record, "leafUuid") ?? "")) continue;
      const old = str(record, "sessionId");
      out.push(old === undefined ? line : setIdInLine(line, "sessionId", old, sessionId));
    }
    const target = join(claudeProjectDir(options.cwd), `${sessionId}.jsonl`);
    writeNewTranscript(target, jsonlText(out));
    return { path: target, sessionId, resume: `claude --resume ${sessionId}` };
  },
};

function uuidOf(line: string): string | undefined {
  const parsed = parseLine(line);
  return parsed.ok && isObject(parsed.value) ? text(parsed.value, "uuid") : undefined;
}

/** Claude Code: hook payloads, its JSONL transcript, and its hook output protocol. */
export const capture: HostCapture = {
  normalize: (kind, payload) => normalizePayload(HOST, kind, payload, policy),
  // Cursor (with third-party hooks on) and Copilot CLI also run .claude/settings.json's hooks.
  foreign(payload) {
    if (Object.hasOwn(payload, "cursor_version")) return "a Cursor payload in Claude Code's hooks (Cursor's own hooks capture it)";
    if (!Object.hasOwn(payload, "session_id") && Object.hasOwn(payload, "sessionId"))
      return "a Copilot CLI payload in Claude Code's hooks (its own hooks capture it)";
    return undefined;
  },
  transcript,
  // Claude Code appends the user's line to the transcript before it runs UserPromptSubmit.
  promptBeforeHook: true,
  locateTranscript(event) {
    if (event.sessionId === undefined || event.cwd === undefined) return undefined;
    const path = join(claudeProjectDir(event.cwd), `${event.sessionId}.jsonl`);
    return existsSync(path) ? path : undefined;
  },
  output(kind: CaptureKind, context: string): string {
    // Plain stdout of a SessionStart or UserPromptSubmit hook that exits 0 is added to the
    // context; other events show stdout only in the transcript view.
    return (kind === "session-start" || kind === "prompt") && context !== "" ? context : "";
  },
};
