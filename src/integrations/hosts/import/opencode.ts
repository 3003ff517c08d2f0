// OpenCode's sessions of a project, out of its own storage (opencode-store.ts: the SQLite
// database of later releases and the JSON files of earlier ones, a session in both read from
// the database), matched by the folder OpenCode recorded for the session (its project's
// worktree when it names none), sub-agent sessions (a parent session id) included.
//
// Read on from a cursor: the first message that was still being written at the last read (or
// the last message, when none was), so a message whose parts were still coming is read again
// and only its new parts are stored (each entry is keyed by OpenCode's ids, opencode-records.ts).
// A session captured live by Forge's OpenCode plugin holds its prompts and files; an import
// adds its conversation, each prompt filling the live prompt checkpoint it belongs to (write.ts).
import { join } from "node:path";
import type { TranscriptCursor } from "../types.js";
import { finished, opencodeMessages } from "./opencode-records.js";
import {
  jsonMessages,
  jsonSessions,
  type MessageMark,
  type OpencodeMessage,
  opencodeDatabases,
  opencodeDataDir,
  sqliteLocator,
  sqliteMessages,
  sqliteSessions,
  storageOf,
} from "./opencode-store.js";
import type { FindOptions, FoundSession, HostHistory, ImportRead, ProjectMatch } from "./types.js";

const HOST = "opencode";

function find(project: ProjectMatch, options: FindOptions): FoundSession[] {
  // The databases first: a session OpenCode copied from its JSON files into one is read from there.
  const all = [...opencodeDatabases().flatMap(sqliteSessions), ...jsonSessions(join(opencodeDataDir(), "storage"))];
  const out: FoundSession[] = [];
  const seen = new Set<string>();
  for (const s of all) {
    if (seen.has(s.id) || s.directory === "" || !project(s.directory)) continue;
    if (options.since !== null && s.updated < options.since.getTime()) continue;
    seen.add(s.id);
    out.push({
      host: HOST,
      sessionId: s.id,
      path: s.locator,
      cwd: s.directory,
      modified: new Date(s.updated),
      ...(s.parent !== null && { parent: s.parent }),
    });
  }
  return out;
}

/** The cursor's mark, when it is one this reader wrote for the same layout. */
function markOf(cursor: TranscriptCursor | null, layout: string): MessageMark | null {
  if (cursor === null || cursor["layout"] !== layout) return null;
  const created = cursor["created"];
  const id = cursor["id"];
  return typeof created === "number" && typeof id === "string" ? { created, id } : null;
}

function read(found: FoundSession, cursor: TranscriptCursor | null): ImportRead {
  const db = sqliteLocator(found.path);
  const layout = db === undefined ? "json" : "sqlite";
  const from = markOf(cursor, layout);
  const messages: readonly OpencodeMessage[] =
    db === undefined ? jsonMessages(storageOf(found.path), found.sessionId, from) : sqliteMessages(db.db, db.session, from);
  const out = [];
  let open: OpencodeMessage | undefined;
  for (const [i, m] of messages.entries()) {
    // A file or row not readable yet stops the read there: it is read again next time, with what follows.
    if (m.unreadable) {
      open ??= m;
      break;
    }
    const over = i + 1 < messages.length || finished(m);
    if (!over) open ??= m;
    out.push(...opencodeMessages(m, over));
  }
  const at = open ?? messages.at(-1);
  const next: TranscriptCursor = at === undefined ? (cursor ?? { layout }) : { layout, created: at.created, id: at.id };
  return { messages: out, cursor: next, reset: cursor !== null && from === null && cursor["created"] !== undefined };
}

/** OpenCode's sessions, from its database and its JSON files. */
export const history: HostHistory = {
  host: HOST,
  label: "OpenCode",
  format: "opencode-storage",
  version: 1,
  where: opencodeDataDir,
  find,
  read,
};
