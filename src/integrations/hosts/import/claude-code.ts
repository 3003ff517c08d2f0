// Claude Code's sessions of a project. They are in <claude config>/projects/<slug>/<session id>.jsonl,
// where the slug is the working folder with every character but ASCII letters and digits as
// "-": lossy, and a sibling's folder (`shop-api-legacy`) starts with the project's (`shop-api`),
// so the slug only narrows the search and a file is the project's when the `cwd` its records
// carry is. A sub-agent has its own file — <session>/subagents/agent-<id>.jsonl since Claude
// Code 2.x, agent-<id>.jsonl beside the sessions before — made of sidechain records; it is
// imported as a session of its own ("agent-<id>") that names the session which started it.
//
// Followed: "Manage sessions" (https://code.claude.com/docs/en/sessions, 2026-08), the project
// folder rule of capture/homes.ts, and the record shapes of capture/claude-code-records.ts.
import { basename, join } from "node:path";
import { capture } from "../capture/claude-code.js";
import { claudeLineMessages } from "../capture/claude-code-records.js";
import { flag, text } from "../capture/fields.js";
import { claudeConfigDir } from "../capture/homes.js";
import { jsonlMark, readJsonl } from "../capture/jsonl.js";
import type { TranscriptCursor } from "../types.js";
import { changedSince, filesIn, firstRecord, folders, linesToMessages, readWithCapture } from "./files.js";
import type { FindOptions, FoundSession, HostHistory, ImportRead, ProjectMatch } from "./types.js";

const HOST = "claude-code";
const LABEL = "Claude Code";
/** Claude Code cuts longer folder names and adds a hash: the first 200 characters are what a search can rely on. */
const SLUG_PREFIX = 200;

const slug = (path: string) => path.normalize("NFC").replace(/[^a-zA-Z0-9]/g, "-");

function find(project: ProjectMatch, options: FindOptions): FoundSession[] {
  const projects = join(claudeConfigDir(), "projects");
  const prefixes = project.roots.map((r) => slug(r).slice(0, SLUG_PREFIX));
  const out: FoundSession[] = [];
  for (const folder of folders(projects)) {
    if (!prefixes.some((p) => folder.startsWith(p))) continue;
    const dir = join(projects, folder);
    for (const file of filesIn(dir, (n) => n.endsWith(".jsonl"))) place(file, undefined);
    for (const session of folders(dir)) {
      for (const file of filesIn(join(dir, session, "subagents"), (n) => n.startsWith("agent-") && n.endsWith(".jsonl"))) place(file, session);
    }
  }
  return out;

  function place(path: string, parentFolder: string | undefined): void {
    const modified = changedSince(path, options.since);
    if (modified === undefined) return;
    // The first record naming a working folder (a summary or file-history-snapshot may come before it).
    const record = firstRecord(path, LABEL, (r) => text(r, "cwd") !== undefined);
    const cwd = text(record, "cwd");
    if (cwd === undefined || !project(cwd)) return;
    const name = basename(path, ".jsonl");
    const subagent = parentFolder !== undefined || (name.startsWith("agent-") && flag(record, "isSidechain"));
    // Hooks name a session by its file (<session id>.jsonl), so the file name is the id live capture keys it by.
    if (!subagent) {
      out.push({ host: HOST, sessionId: name, path, cwd, modified });
      return;
    }
    const parent = parentFolder ?? text(record, "sessionId");
    out.push({ host: HOST, sessionId: name, path, cwd, modified, ...(parent !== undefined && { parent }) });
  }
}

function read(found: FoundSession, cursor: TranscriptCursor | null): ImportRead {
  if (!basename(found.path).startsWith("agent-")) return readWithCapture(capture, found, cursor);
  // A sub-agent's transcript: its sidechain lines are its conversation.
  const chunk = readJsonl(found.path, jsonlMark(cursor), LABEL);
  const messages = linesToMessages(HOST, chunk.lines, (value, key) => claudeLineMessages(value, key, { subagent: true }));
  return { messages, cursor: { offset: chunk.offset, ino: chunk.ino, head: chunk.head }, reset: chunk.reset };
}

/** Claude Code's transcripts, read with live capture's own reader. */
export const history: HostHistory = {
  host: HOST,
  label: LABEL,
  format: "claude-code-jsonl",
  version: 1,
  where: () => join(claudeConfigDir(), "projects"),
  find,
  read,
};
