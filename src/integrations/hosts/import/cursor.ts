// Cursor's sessions of a project: ~/.cursor/projects/<workspace path, "/" as "-">/agent-transcripts/<id>/<id>.jsonl
// (or <id>.jsonl). Cursor documents where transcripts are, not what is in them, and its lines
// carry no working folder: a session is the project's only when its folder is the project
// root's exactly (a session opened on a folder inside the project is not found), and the lines
// are read with capture/cursor.ts's reader, which keeps whatever it cannot map whole.
import { join } from "node:path";
import { capture } from "../capture/cursor.js";
import { homeFolder } from "../capture/homes.js";
import type { TranscriptCursor } from "../types.js";
import { changedSince, entries, readWithCapture } from "./files.js";
import type { FindOptions, FoundSession, HostHistory, ImportRead, ProjectMatch } from "./types.js";

const HOST = "cursor";

const projectsDir = () => join(homeFolder(), ".cursor", "projects");
const slug = (path: string) =>
  path
    .split(/[\\/]+/)
    .filter(Boolean)
    .join("-");

function find(project: ProjectMatch, options: FindOptions): FoundSession[] {
  const out: FoundSession[] = [];
  for (const root of project.roots) {
    const dir = join(projectsDir(), slug(root), "agent-transcripts");
    for (const e of entries(dir)) {
      const id = e.isDirectory() ? e.name : e.isFile() && e.name.endsWith(".jsonl") ? e.name.slice(0, -".jsonl".length) : undefined;
      if (id === undefined || !/^[\w-]+$/.test(id) || out.some((s) => s.sessionId === id)) continue;
      const path = e.isDirectory() ? join(dir, id, `${id}.jsonl`) : join(dir, e.name);
      const modified = changedSince(path, options.since);
      if (modified !== undefined) out.push({ host: HOST, sessionId: id, path, cwd: root, modified });
    }
  }
  return out;
}

function read(found: FoundSession, cursor: TranscriptCursor | null): ImportRead {
  return readWithCapture(capture, found, cursor);
}

/** Cursor's agent transcripts (the project root's folder only), read with live capture's own reader. */
export const history: HostHistory = {
  host: HOST,
  label: "Cursor",
  format: "cursor-agent-transcript-jsonl",
  version: 1,
  where: projectsDir,
  find,
  read,
};
