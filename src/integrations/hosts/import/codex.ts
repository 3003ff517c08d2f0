// Codex's sessions of a project: rollouts under $CODEX_HOME (or ~/.codex) sessions/YYYY/MM/DD/
// and archived_sessions/, rollout-<time>-<thread id>.jsonl, possibly zstd-compressed
// (.jsonl.zst). The first line is session_meta, whose payload names the thread (`id`) and the
// working folder (`cwd`); a sub-agent's thread says which thread spawned it in
// `source.subagent.thread_spawn.parent_thread_id`. A prompt is both a response_item message
// and an event_msg user_message: the rollout reader maps the first and keeps the second whole
// as a host record, so it is one prompt.
//
// Followed: codex-rs/protocol (RolloutItem {timestamp, type, payload}: session_meta, turn_context,
// response_item, event_msg; SessionMeta {id, cwd, source, …}) and codex-rs/rollout/src/recorder.rs
// in openai/codex (2026-08), as capture/codex.ts does.
import { join } from "node:path";
import { capture } from "../capture/codex.js";
import { codexLineMessages } from "../capture/codex-records.js";
import { obj, str, text } from "../capture/fields.js";
import { codexHome } from "../capture/homes.js";
import { jsonlMark, readJsonlBytes } from "../capture/jsonl.js";
import type { TranscriptCursor } from "../types.js";
import { changedSince, filesIn, firstRecord, folders, linesToMessages, readWithCapture } from "./files.js";
import type { FindOptions, FoundSession, HostHistory, ImportRead, ProjectMatch } from "./types.js";
import { readZstd } from "./zstd.js";

const HOST = "codex";
const LABEL = "Codex";

const isRollout = (name: string) => name.startsWith("rollout-") && (name.endsWith(".jsonl") || name.endsWith(".jsonl.zst"));

/** Every rollout file: the dated folders, then the archived ones. */
function rollouts(): string[] {
  const sessions = join(codexHome(), "sessions");
  const out: string[] = [];
  for (const y of folders(sessions).filter((n) => /^\d{4}$/.test(n)))
    for (const m of folders(join(sessions, y)).filter((n) => /^\d{2}$/.test(n)))
      for (const d of folders(join(sessions, y, m)).filter((n) => /^\d{2}$/.test(n))) out.push(...filesIn(join(sessions, y, m, d), isRollout));
  out.push(...filesIn(join(codexHome(), "archived_sessions"), isRollout));
  return out;
}

function find(project: ProjectMatch, options: FindOptions): FoundSession[] {
  const out: FoundSession[] = [];
  for (const path of rollouts()) {
    const modified = changedSince(path, options.since);
    if (modified === undefined) continue;
    const meta = firstRecord(path, LABEL, (r) => str(r, "type") === "session_meta");
    const payload = obj(meta, "payload");
    const id = text(payload, "id");
    const cwd = text(payload, "cwd");
    if (id === undefined || cwd === undefined || !project(cwd)) continue;
    const parent = text(obj(obj(obj(payload, "source"), "subagent"), "thread_spawn"), "parent_thread_id");
    out.push({ host: HOST, sessionId: id, path, cwd, modified, ...(parent !== undefined && { parent }) });
  }
  return out;
}

function read(found: FoundSession, cursor: TranscriptCursor | null): ImportRead {
  if (!found.path.endsWith(".zst")) return readWithCapture(capture, found, cursor);
  // Compressed: the same lines at the same offsets as the plain rollout, so the same keys.
  const { data, ino } = readZstd(found.path, LABEL);
  const chunk = readJsonlBytes(data, ino, jsonlMark(cursor));
  const messages = linesToMessages(HOST, chunk.lines, codexLineMessages);
  return { messages, cursor: { offset: chunk.offset, ino: chunk.ino, head: chunk.head }, reset: chunk.reset };
}

/** Codex's rollouts, plain or zstd-compressed, read with live capture's own record mapping. */
export const history: HostHistory = {
  host: HOST,
  label: LABEL,
  format: "codex-rollout-jsonl",
  version: 1,
  where: () => join(codexHome(), "sessions"),
  find,
  read,
};
