// GitHub Copilot CLI's sessions of a project: $COPILOT_HOME (or ~/.copilot) session-state/<id>/events.jsonl,
// and <id>.jsonl beside them in earlier versions. The first event is session.start, whose data
// names the session (`sessionId`) and the working folder (`context.cwd`).
//
// Followed: the config directory reference of the Copilot CLI docs and the session event types
// of github/copilot-sdk nodejs/src/generated/session-events.ts (2026-08), as capture/copilot.ts does.
import { basename, join } from "node:path";
import { capture, copilotHome } from "../capture/copilot.js";
import { obj, str, text } from "../capture/fields.js";
import type { TranscriptCursor } from "../types.js";
import { changedSince, entries, firstRecord, readWithCapture } from "./files.js";
import type { FindOptions, FoundSession, HostHistory, ImportRead, ProjectMatch } from "./types.js";

const HOST = "copilot";
const LABEL = "Copilot CLI";

function find(project: ProjectMatch, options: FindOptions): FoundSession[] {
  const state = join(copilotHome(), "session-state");
  const out: FoundSession[] = [];
  for (const e of entries(state)) {
    const path = e.isDirectory() ? join(state, e.name, "events.jsonl") : e.isFile() && e.name.endsWith(".jsonl") ? join(state, e.name) : undefined;
    if (path === undefined) continue;
    const modified = changedSince(path, options.since);
    if (modified === undefined) continue;
    const data = obj(
      firstRecord(path, LABEL, (r) => str(r, "type") === "session.start"),
      "data",
    );
    const cwd = text(obj(data, "context"), "cwd");
    if (cwd === undefined || !project(cwd)) continue;
    const sessionId = text(data, "sessionId") ?? (e.isDirectory() ? e.name : basename(e.name, ".jsonl"));
    out.push({ host: HOST, sessionId, path, cwd, modified });
  }
  return out;
}

function read(found: FoundSession, cursor: TranscriptCursor | null): ImportRead {
  return readWithCapture(capture, found, cursor);
}

/** Copilot CLI's event logs, read with live capture's own reader. */
export const history: HostHistory = {
  host: HOST,
  label: LABEL,
  format: "copilot-events-jsonl",
  version: 1,
  where: () => join(copilotHome(), "session-state"),
  find,
  read,
};
