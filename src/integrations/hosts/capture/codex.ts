// What Codex tells a hook and what it writes down.
//
// Followed: the hooks docs, https://developers.openai.com/codex/hooks (2026-08), and the
// command input/output schemas in openai/codex codex-rs/hooks/schema/generated/*.json (at
// bde5e187, 2026-08: session_id, turn_id, transcript_path (nullable), cwd, model, prompt,
// tool_name, tool_input, tool_use_id, tool_response, source startup|resume|clear|compact,
// trigger manual|auto); codex-rs/hooks/src/events/{session_start,user_prompt_submit}.rs
// (plain stdout becomes model context, but stdout that looks like JSON must parse as the
// event's output object, so context is always given as hookSpecificOutput.additionalContext);
// the rollout layout of codex-rs/rollout/src/recorder.rs ($CODEX_HOME or ~/.codex,
// sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<thread id>.jsonl in local time, first
// line session_meta with the thread id in payload.id) and `codex resume <id>`.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ForgeError } from "../../../core/errors.js";
import type { CaptureKind, CapturedMessage, HostCapture, HostEvent, TranscriptCursor, TranscriptFormat, TranscriptRead } from "../types.js";
import { codexLineMessages } from "./codex-records.js";
import { checkPromptNumber, jsonlText, localStamp, noSuchPrompt, setIdInLine, uuidV7, writeNewTranscript } from "./cut.js";
import { field, obj, str } from "./fields.js";
import { codexHome } from "./homes.js";
import { type JsonlLine, jsonlMark, lineKey, parseLine, readAllJsonl, readJsonl } from "./jsonl.js";
import { hostRecord } from "./messages.js";
import { normalizePayload, type PayloadPolicy, patchPaths } from "./payload.js";

const HOST = "codex";
const LABEL = "Codex";

/** The tool names Codex gives hooks that only read (shell and apply_patch write; MCP tools are unknown). */
const READ_ONLY = new Set(["view_image", "web_search", "update_plan"]);

const policy: PayloadPolicy = {
  readOnlyTools: READ_ONLY,
  editedPaths(name, input) {
    if (name !== "apply_patch") return [];
    // Shell-like tools pass {command}; the patch text is the command.
    const patch = typeof input === "string" ? input : (str(input, "command") ?? str(input, "input") ?? str(input, "patch") ?? "");
    return patchPaths(patch);
  },
};

function lineMessages(line: JsonlLine): CapturedMessage[] {
  const key = lineKey(line.offset, line.text);
  const parsed = parseLine(line.text);
  if (!parsed.ok) return [hostRecord(HOST, key, line.text, undefined, "not JSON")];
  return codexLineMessages(parsed.value, key);
}

const transcript: TranscriptFormat = {
  read(path: string, cursor: TranscriptCursor | null): TranscriptRead {
    const chunk = readJsonl(path, jsonlMark(cursor), LABEL);
    const messages = chunk.lines.flatMap(lineMessages);
    return { messages, cursor: { offset: chunk.offset, ino: chunk.ino, head: chunk.head }, ...(chunk.reset && { reset: true }) };
  },

  cut(path: string, prompt: number) {
    checkPromptNumber(prompt);
    const lines = readAllJsonl(path, LABEL);
    let seen = 0;
    const at = lines.findIndex((line) => lineMessages(line).some((m) => m.prompt) && ++seen === prompt);
    if (at < 0) throw noSuchPrompt(path, prompt, seen);
    const now = new Date();
    const sessionId = uuidV7(now.getTime());
    let renamed = false;
    const out = lines.slice(0, at).map(({ text }) => {
      const parsed = parseLine(text);
      if (renamed || !parsed.ok || str(parsed.value, "type") !== "session_meta") return text;
      // The first session_meta is this session's; later ones (a fork's history) name other sessions.
      renamed = true;
      const payload = obj(parsed.value, "payload");
      let line = text;
      for (const key of ["id", "session_id"]) {
        const old = str(payload, key);
        if (old !== undefined) line = setIdInLine(line, key, old, sessionId, (r) => field(r, "payload"));
      }
      return line;
    });
    if (!renamed) {
      throw new ForgeError("INVALID_ARGUMENT", `${path} is not a Codex rollout: it has no session_meta line before prompt ${prompt}`, {
        hint: "give the rollout file Codex wrote for the session",
        data: { path },
      });
    }
    const p2 = (n: number) => String(n).padStart(2, "0");
    const dir = join(codexHome(), "sessions", String(now.getFullYear()), p2(now.getMonth() + 1), p2(now.getDate()));
    const target = join(dir, `rollout-${localStamp(now)}-${sessionId}.jsonl`);
    writeNewTranscript(target, jsonlText(out));
    return { path: target, sessionId, resume: `codex resume ${sessionId}` };
  },
};

/** The rollout of `sessionId` under $CODEX_HOME/sessions/YYYY/MM/DD (newest days first), if there is one. */
export function findRollout(sessionId: string): string | undefined {
  const root = join(codexHome(), "sessions");
  const suffix = `-${sessionId}.jsonl`;
  for (const year of subfolders(root)) {
    for (const month of subfolders(join(root, year))) {
      for (const day of subfolders(join(root, year, month))) {
        const dir = join(root, year, month, day);
        const file = readdirSync(dir).find((f) => f.startsWith("rollout-") && f.endsWith(suffix));
        if (file !== undefined) return join(dir, file);
      }
    }
  }
  return undefined;
}

function subfolders(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /^\d+$/.test(name) && statSync(join(dir, name)).isDirectory())
    .sort()
    .reverse();
}

/** Codex: hook payloads, its rollout transcript, and its hook output protocol. */
export const capture: HostCapture = {
  normalize: (kind, payload) => normalizePayload(HOST, kind, payload, policy),
  transcript,
  locateTranscript: (event: HostEvent) => (event.sessionId === undefined ? undefined : findRollout(event.sessionId)),
  output(kind: CaptureKind, context: string): string {
    if (context === "") return "";
    if (kind === "session-start") return JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: context } });
    if (kind === "prompt") return JSON.stringify({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: context } });
    if (kind === "tool") return JSON.stringify({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: context } });
    return "";
  },
};
