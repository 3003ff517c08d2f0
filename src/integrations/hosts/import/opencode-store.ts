// Where OpenCode keeps its sessions on this machine, read as it wrote them, never written to.
//
// Its data folder is `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode` (Global.Path.data:
// xdg-basedir's data folder, on every platform). Two layouts, both still on disks people have:
//  - JSON files (releases up to early 2026): `storage/project/<project>.json` {id, worktree},
//    `storage/session/<project>/<session>.json` {id, directory, parentID, title, time},
//    `storage/message/<session>/<message>.json` (MessageV2.Info: id, sessionID, role, time, …)
//    and `storage/part/<message>/<part>.json` (MessageV2.Part: id, sessionID, messageID, type, …);
//  - a SQLite database (later releases, which copy the JSON files into it once and leave them):
//    `opencode.db` (`opencode-<channel>.db` for other release channels, `$OPENCODE_DB` when set,
//    absolute or under the data folder) with tables project (id, worktree), session (id,
//    project_id, parent_id, directory, title, time_created, time_updated, …), message (id,
//    session_id, time_created, data: the Info without id and sessionID) and part (id,
//    message_id, session_id, time_created, data: the Part without its three ids).
// Followed: anomalyco/opencode (formerly sst/opencode) packages/opencode/src/session/session.sql.ts
// @063e8306, storage/json-migration.ts @062aa8c0 (the JSON layout, and how each row is made from a
// file), session/message-v2.ts @c4794191 (the part and message types), cli/cmd/export.ts @cfa809bf
// (`opencode export` prints {info, messages: [{info, parts}]}, what is read here) and the database
// path of storage/db.ts (getChannelPath, OPENCODE_DB).
//
// The database is opened read-only; OpenCode may be writing it (WAL) meanwhile.
import Database from "better-sqlite3";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { sqliteAddon } from "../../../backends/sqlite/sqlite-addon.js";
import { readEnv } from "../../../core/config.js";
import { ForgeError } from "../../../core/errors.js";
import { field, isObject, type JsonObject, str, text } from "../capture/fields.js";
import { homeFolder } from "../capture/homes.js";
import { parseLine } from "../capture/jsonl.js";
import { changedSince, entries, filesIn, folders } from "./files.js";

/** One OpenCode session, wherever it is kept. */
export interface OpencodeSession {
  readonly id: string;
  /** The folder it ran in (its project's worktree when the session names none). */
  readonly directory: string;
  readonly parent: string | null;
  /** When it last changed (epoch ms). */
  readonly updated: number;
  /** Where it is: `<database>#<session>` or the session's JSON file. */
  readonly locator: string;
}

/** One message with its parts, as `opencode export` shows it: the Info and the Parts with their ids. */
export interface OpencodeMessage {
  readonly id: string;
  /** When it was created (epoch ms), the order OpenCode lists messages in. */
  readonly created: number;
  readonly info: JsonObject;
  readonly parts: readonly JsonObject[];
  /** A file or row that could not be read as JSON (one still being written): the message is read again next time. */
  readonly unreadable: boolean;
}

/** Where reading a session goes on from: the first message at or after this (time, id). */
export interface MessageMark {
  readonly created: number;
  readonly id: string;
}

/** OpenCode's data folder: $XDG_DATA_HOME/opencode, else ~/.local/share/opencode. */
export function opencodeDataDir(): string {
  const xdg = readEnv(["XDG_DATA_HOME"])["XDG_DATA_HOME"]?.trim();
  return join(xdg && isAbsolute(xdg) ? xdg : join(homeFolder(), ".local", "share"), "opencode");
}

/** The databases OpenCode may have written: $OPENCODE_DB, opencode.db and each channel's opencode-<channel>.db. */
export function opencodeDatabases(): string[] {
  const data = opencodeDataDir();
  const given = readEnv(["OPENCODE_DB"])["OPENCODE_DB"]?.trim();
  const named = given && given !== ":memory:" ? [isAbsolute(given) ? given : join(data, given)] : [];
  const channels = filesIn(data, (n) => /^opencode(-[A-Za-z0-9._-]+)?\.db$/.test(n)).sort((a, b) =>
    basename(a) === "opencode.db" ? -1 : basename(b) === "opencode.db" ? 1 : a.localeCompare(b),
  );
  return [...new Set([...named, ...channels])].filter((p) => existsSync(p));
}

const SEP = "#";

/** The database and session a SQLite locator names; undefined for a JSON file. */
export function sqliteLocator(locator: string): { db: string; session: string } | undefined {
  if (locator.endsWith(".json")) return undefined;
  const at = locator.lastIndexOf(SEP);
  return at < 0 ? undefined : { db: locator.slice(0, at), session: locator.slice(at + 1) };
}

function openDb(path: string): Database.Database {
  try {
    return new Database(path, { readonly: true, fileMustExist: true, ...sqliteAddon() });
  } catch (e) {
    throw new ForgeError("INVALID_ARGUMENT", `cannot open OpenCode's database ${path}: ${(e as Error).message}`, {
      hint: "check that the file can be read; OpenCode keeps it in its data folder",
      data: { path },
      cause: e,
    });
  }
}

function withDb<T>(path: string, fn: (db: Database.Database) => T): T {
  const db = openDb(path);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

function columns(db: Database.Database, table: string): Set<string> {
  return new Set((db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
}

function json(textValue: unknown): { ok: true; value: JsonObject } | { ok: false } {
  if (typeof textValue !== "string") return { ok: false };
  const parsed = parseLine(textValue);
  return parsed.ok && isObject(parsed.value) ? { ok: true, value: parsed.value } : { ok: false };
}

const num = (v: unknown, or: number) => (typeof v === "number" && Number.isFinite(v) ? v : or);

/** The sessions of a database (none when it has no session table: not OpenCode's, or not migrated yet). */
export function sqliteSessions(path: string): OpencodeSession[] {
  return withDb(path, (db) => {
    const session = columns(db, "session");
    if (!session.has("id")) return [];
    const worktrees = new Map<string, string>();
    if (columns(db, "project").has("worktree")) {
      for (const r of db.prepare("SELECT id, worktree FROM project").all() as { id: string; worktree: unknown }[]) {
        if (typeof r.worktree === "string") worktrees.set(r.id, r.worktree);
      }
    }
    const pick = (c: string) => (session.has(c) ? c : `NULL AS ${c}`);
    const rows = db
      .prepare(`SELECT id, ${["project_id", "parent_id", "directory", "time_created", "time_updated"].map(pick).join(", ")} FROM session`)
      .all() as Record<string, unknown>[];
    return rows.flatMap((r) => {
      const id = typeof r["id"] === "string" ? r["id"] : undefined;
      if (id === undefined) return [];
      const directory = (typeof r["directory"] === "string" && r["directory"]) || worktrees.get(String(r["project_id"])) || "";
      return [
        {
          id,
          directory,
          parent: typeof r["parent_id"] === "string" && r["parent_id"] !== "" ? r["parent_id"] : null,
          updated: num(r["time_updated"], num(r["time_created"], 0)),
          locator: `${path}${SEP}${id}`,
        },
      ];
    });
  });
}

/** The messages of a database's session at or after `from` (all of them when null), with their parts, in OpenCode's order. */
export function sqliteMessages(path: string, session: string, from: MessageMark | null): OpencodeMessage[] {
  return withDb(path, (db) => {
    const after = from === null ? "" : " AND (time_created > @t OR (time_created = @t AND id >= @id))";
    const params = { s: session, t: from?.created ?? 0, id: from?.id ?? "" };
    const rows = db.prepare(`SELECT id, time_created, data FROM message WHERE session_id = @s${after} ORDER BY time_created, id`).all(params) as {
      id: string;
      time_created: unknown;
      data: unknown;
    }[];
    const parts = new Map<string, { parts: JsonObject[]; unreadable: boolean }>();
    const partRows = db
      .prepare(
        `SELECT id, message_id, data FROM part WHERE session_id = @s AND message_id IN (SELECT id FROM message WHERE session_id = @s${after}) ORDER BY id`,
      )
      .all(params) as { id: string; message_id: string; data: unknown }[];
    for (const p of partRows) {
      const held = parts.get(p.message_id) ?? { parts: [], unreadable: false };
      const data = json(p.data);
      if (data.ok) held.parts.push({ ...data.value, id: p.id, sessionID: session, messageID: p.message_id });
      else held.unreadable = true;
      parts.set(p.message_id, held);
    }
    return rows.map((r) => {
      const data = json(r.data);
      const own = parts.get(r.id);
      return {
        id: r.id,
        created: num(r.time_created, 0),
        info: data.ok ? { ...data.value, id: r.id, sessionID: session } : { id: r.id, sessionID: session },
        parts: own?.parts ?? [],
        unreadable: !data.ok || own?.unreadable === true,
      };
    });
  });
}

function readJson(path: string): JsonObject | undefined {
  let raw: string;
  try {
    raw = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined; // gone since it was listed
    throw e;
  }
  const parsed = json(raw);
  return parsed.ok ? parsed.value : undefined;
}

/** The sessions of the JSON layout under `storage`. */
export function jsonSessions(storage: string): OpencodeSession[] {
  const worktrees = new Map<string, string>();
  for (const f of filesIn(join(storage, "project"), (n) => n.endsWith(".json"))) {
    const worktree = str(readJson(f), "worktree");
    if (worktree !== undefined) worktrees.set(basename(f, ".json"), worktree);
  }
  const out: OpencodeSession[] = [];
  for (const project of folders(join(storage, "session"))) {
    for (const file of filesIn(join(storage, "session", project), (n) => n.endsWith(".json"))) {
      const info = readJson(file);
      const modified = changedSince(file, null);
      if (info === undefined || modified === undefined) continue;
      const id = text(info, "id") ?? basename(file, ".json");
      const time = field(info, "time");
      out.push({
        id,
        directory: text(info, "directory") ?? worktrees.get(project) ?? "",
        parent: text(info, "parentID") ?? null,
        updated: Math.max(num(field(time, "updated"), 0), modified.getTime()),
        locator: file,
      });
    }
  }
  return out;
}

/** The storage folder a session file is in (`<storage>/session/<project>/<session>.json`). */
export function storageOf(sessionFile: string): string {
  return dirname(dirname(dirname(sessionFile)));
}

/** The messages of a JSON-layout session at or after `from`, with their parts, in OpenCode's order. */
export function jsonMessages(storage: string, session: string, from: MessageMark | null): OpencodeMessage[] {
  const dir = join(storage, "message", session);
  const messages: OpencodeMessage[] = [];
  for (const e of entries(dir)) {
    if (!e.isFile() || !e.name.endsWith(".json")) continue;
    const id = basename(e.name, ".json");
    const info = readJson(join(dir, e.name));
    const created = num(field(field(info, "time"), "created"), 0);
    messages.push({ id, created, info: { ...(info ?? {}), id, sessionID: session }, parts: [], unreadable: info === undefined });
  }
  const wanted = messages
    .filter((m) => from === null || m.created > from.created || (m.created === from.created && m.id >= from.id))
    .sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return wanted.map((m) => {
    const parts: JsonObject[] = [];
    let unreadable = m.unreadable;
    for (const file of filesIn(join(storage, "part", m.id), (n) => n.endsWith(".json")).sort()) {
      const part = readJson(file);
      if (part === undefined) unreadable = true;
      else parts.push({ ...part, id: basename(file, ".json"), sessionID: session, messageID: m.id });
    }
    return { ...m, parts, unreadable };
  });
}
