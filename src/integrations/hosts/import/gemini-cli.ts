// Gemini CLI's sessions of a project. Each project has a folder under ~/.gemini/tmp (or
// $GEMINI_CLI_HOME/.gemini/tmp): a short slug named in ~/.gemini/projects.json ({projects:
// {<root>: <slug>}}) whose `.project_root` file holds the project's path, or, before the
// registry, the SHA-256 of the path. Its chats/ folder holds session-<time>-<id8>.jsonl logs
// (a metadata line with sessionId and projectHash, message records, `$set` updates and
// `$rewindTo` markers) and the older session-<time>-<id8>.json documents.
//
// A `$rewindTo: <message id>` drops that message and everything after it: entries read in the
// same pass are left out of the import (the marker itself is kept as a host record); entries a
// previous import already stored stay, as a live capture would have kept them.
//
// Followed: packages/core/src/config/storage.ts and projectRegistry.ts (slugs, .project_root,
// projects.json) and services/chatRecordingService.ts, chatRecordingTypes.ts in
// google-gemini/gemini-cli (0.56.0-nightly, 2026-08), as capture/gemini-*.ts do.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { capture } from "../capture/gemini-cli.js";
import { readDocument } from "../capture/gemini-transcript.js";
import { field, isObject, obj, str, text } from "../capture/fields.js";
import { geminiDir } from "../capture/homes.js";
import type { CapturedMessage, TranscriptCursor } from "../types.js";
import { changedSince, filesIn, firstRecord, folders, readWithCapture } from "./files.js";
import type { FindOptions, FoundSession, HostHistory, ImportRead, ProjectMatch } from "./types.js";

const HOST = "gemini-cli";
const LABEL = "Gemini CLI";

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return undefined;
    throw e;
  }
}

/** Slug → project path, from ~/.gemini/projects.json (a damaged registry names nothing: Gemini CLI starts it afresh too). */
function registry(): Map<string, string> {
  const raw = readText(join(geminiDir(), "projects.json"));
  let parsed: unknown;
  try {
    parsed = raw === undefined ? undefined : JSON.parse(raw);
  } catch {
    return new Map();
  }
  const projects = obj(parsed, "projects") ?? {};
  return new Map(Object.keys(projects).flatMap((root) => (typeof projects[root] === "string" ? [[projects[root], root] as [string, string]] : [])));
}

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/** The project a tmp folder belongs to: its .project_root, the registry's entry, or (a hash-named folder) the project root whose hash it is. */
function ownerOf(tmp: string, name: string, slugs: ReadonlyMap<string, string>, project: ProjectMatch): string | undefined {
  const marker = readText(join(tmp, name, ".project_root"))?.trim();
  if (marker) return marker;
  const registered = slugs.get(name);
  if (registered !== undefined) return registered;
  return /^[0-9a-f]{64}$/.test(name) ? project.roots.find((r) => sha256(r) === name) : undefined;
}

/** The session id a chat file names (its metadata line, or the document's field). */
function sessionIdOf(path: string): string | undefined {
  if (path.endsWith(".json")) {
    const doc = readDocument(path);
    return doc === undefined ? undefined : text(doc, "sessionId");
  }
  // The metadata line: no message id, a sessionId.
  const meta = firstRecord(path, LABEL, (r) => isObject(r) && typeof field(r, "id") !== "string" && text(r, "sessionId") !== undefined);
  return text(meta, "sessionId");
}

function find(project: ProjectMatch, options: FindOptions): FoundSession[] {
  const tmp = join(geminiDir(), "tmp");
  const slugs = registry();
  const out: FoundSession[] = [];
  for (const name of folders(tmp)) {
    const owner = ownerOf(tmp, name, slugs, project);
    if (owner === undefined || !project(owner)) continue;
    const chats = filesIn(join(tmp, name, "chats"), (n) => n.startsWith("session-") && (n.endsWith(".jsonl") || n.endsWith(".json")));
    for (const path of chats) {
      const modified = changedSince(path, options.since);
      if (modified === undefined) continue;
      const sessionId = sessionIdOf(path);
      if (sessionId !== undefined) out.push({ host: HOST, sessionId, path, cwd: owner, modified });
    }
  }
  return out;
}

/** The message id a `$rewindTo` host record names, if `m` is one. */
function rewindTarget(m: CapturedMessage): string | undefined {
  const part = Array.isArray(m.message.content) ? m.message.content[0] : undefined;
  return part?.type === "host-record" ? str(part["record"], "$rewindTo") : undefined;
}

/** The entries with each `$rewindTo` applied to what came before it in the same read. */
export function applyRewinds(messages: readonly CapturedMessage[]): CapturedMessage[] {
  const out: CapturedMessage[] = [];
  for (const m of messages) {
    const target = rewindTarget(m);
    if (target !== undefined) {
      // A record's entries are keyed by its id: the id itself, or "<id>#…".
      const at = out.findIndex((x) => x.key === target || x.key.startsWith(`${target}#`));
      if (at >= 0) out.length = at;
    }
    out.push(m);
  }
  return out;
}

function read(found: FoundSession, cursor: TranscriptCursor | null): ImportRead {
  const r = readWithCapture(capture, found, cursor);
  return { ...r, messages: applyRewinds(r.messages) };
}

/** Gemini CLI's chat files, JSONL or the older JSON documents, read with live capture's own reader. */
export const history: HostHistory = {
  host: HOST,
  label: LABEL,
  format: "gemini-chat",
  version: 1,
  where: () => join(geminiDir(), "tmp"),
  find,
  read,
};
