// A fake OpenCode data folder for import tests, in the layouts OpenCode itself writes
// (anomalyco/opencode, formerly sst/opencode): the SQLite database of later releases
// (packages/opencode/src/session/session.sql.ts @063e8306 and project.sql.ts: tables project,
// session, message, part; a message row's `data` is its MessageV2.Info without id and
// sessionID, a part row's its Part without the three ids; WAL mode, as OpenCode opens it) and
// the JSON files of earlier ones (storage/json-migration.ts @062aa8c0: storage/project/<id>.json,
// storage/session/<project>/<id>.json, storage/message/<session>/<id>.json,
// storage/part/<message>/<id>.json). Ids are OpenCode's ascending form (prefix, time, random).
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";

/** The tables as a release of 2026 creates them (its migrations, columns Forge reads among them). */
const SCHEMA = `
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text, icon_url text, icon_color text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_initialized integer, sandboxes text NOT NULL);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL REFERENCES project(id) ON DELETE CASCADE, parent_id text,
  slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL, share_url text,
  summary_additions integer, summary_deletions integer, summary_files integer, summary_diffs text, revert text, permission text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer, time_archived integer,
  workspace_id text, path text, agent text, model text);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL REFERENCES message(id) ON DELETE CASCADE, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
CREATE INDEX session_project_idx ON session (project_id);
`;

type Json = Record<string, unknown>;

/** One message as `opencode export` shows it: its Info and its Parts (ids included). */
export interface OcMessage {
  info: Json & { id: string; sessionID: string; role: "user" | "assistant"; time: { created: number; completed?: number } };
  parts: (Json & { id: string; type: string })[];
}

export interface OcSession {
  id: string;
  projectID: string;
  directory: string;
  parentID?: string;
  title: string;
  time: { created: number; updated: number };
}

/** A turn: the prompt and what the agent did (a shell command with its output, thinking before it, a reply after). */
export interface OcTurn {
  readonly prompt: string;
  readonly command?: string;
  readonly output?: string;
  readonly thinking?: string;
  readonly reply?: string;
}

export class FakeOpencode {
  #clock: number;
  #n = 0;

  constructor(
    /** The data folder (~/.local/share/opencode, or $XDG_DATA_HOME/opencode). */
    readonly data: string,
    start = Date.now() - 86_400_000,
  ) {
    this.#clock = start;
  }

  /** An ascending OpenCode id: `<prefix>_` then 12 hex digits of time and counter, then 14 random characters. */
  id(prefix: "ses" | "msg" | "prt" | "prj"): string {
    const order = (BigInt(this.#clock) * 4096n + BigInt(++this.#n)).toString(16).padStart(12, "0").slice(-12);
    return `${prefix}_${order}${randomBytes(10).toString("base64url").replace(/[-_]/g, "x").slice(0, 14)}`;
  }

  now(): number {
    this.#clock += 1000;
    return this.#clock;
  }

  session(projectID: string, directory: string, parentID?: string): OcSession {
    const t = this.now();
    return { id: this.id("ses"), projectID, directory, ...(parentID !== undefined && { parentID }), title: "a session", time: { created: t, updated: t } };
  }

  /** The messages of `turns`: per turn a user message (one text part), then an assistant message (step-start, reasoning, a bash tool part, text, step-finish). */
  turns(session: OcSession, turns: readonly OcTurn[]): OcMessage[] {
    const out: OcMessage[] = [];
    for (const t of turns) {
      const user = this.user(session, t.prompt);
      out.push(user);
      out.push(this.assistant(session, user.info.id, t));
    }
    session.time.updated = this.#clock;
    return out;
  }

  user(session: OcSession, prompt: string): OcMessage {
    const id = this.id("msg");
    const created = this.now();
    return {
      info: { id, sessionID: session.id, role: "user", time: { created }, agent: "build", model: { providerID: "anthropic", modelID: "claude-sonnet-4-5" } },
      parts: [{ id: this.id("prt"), sessionID: session.id, messageID: id, type: "text", text: prompt }],
    };
  }

  assistant(session: OcSession, parentID: string, t: Omit<OcTurn, "prompt">, finished = true): OcMessage {
    const id = this.id("msg");
    const created = this.now();
    const base = { sessionID: session.id, messageID: id };
    const parts: OcMessage["parts"] = [{ id: this.id("prt"), ...base, type: "step-start", snapshot: "4b825dc6" }];
    if (t.thinking !== undefined) {
      const start = this.now();
      parts.push({ id: this.id("prt"), ...base, type: "reasoning", text: t.thinking, time: { start, end: this.now() } });
    }
    if (t.command !== undefined) {
      const start = this.now();
      parts.push({
        id: this.id("prt"),
        ...base,
        type: "tool",
        callID: `toolu_${randomBytes(8).toString("hex")}`,
        tool: "bash",
        state: {
          status: "completed",
          input: { command: t.command, description: "Run it" },
          output: t.output ?? "",
          title: t.command,
          metadata: { exit: 0 },
          time: { start, end: this.now() },
        },
      });
    }
    if (t.reply !== undefined) {
      const start = this.now();
      parts.push({ id: this.id("prt"), ...base, type: "text", text: t.reply, time: { start, end: this.now() } });
    }
    parts.push({
      id: this.id("prt"),
      ...base,
      type: "step-finish",
      reason: "stop",
      cost: 0.0123,
      tokens: { input: 1200, output: 80, reasoning: 20, cache: { read: 0, write: 0 } },
    });
    const completed = this.now();
    return {
      info: {
        id,
        sessionID: session.id,
        role: "assistant",
        parentID,
        time: finished ? { created, completed } : { created },
        modelID: "claude-sonnet-4-5",
        providerID: "anthropic",
        mode: "build",
        agent: "build",
        path: { cwd: session.directory, root: session.directory },
        cost: 0.0123,
        tokens: { input: 1200, output: 80, reasoning: 20, cache: { read: 0, write: 0 } },
        ...(finished && { finish: "stop" }),
      },
      parts,
    };
  }
}

/** OpenCode's database at `path`, open for writing as OpenCode keeps it (WAL). */
export class FakeOpencodeDb {
  readonly db: Database.Database;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma("journal_mode = WAL");
    this.db.exec(SCHEMA);
  }

  project(id: string, worktree: string): void {
    this.db
      .prepare("INSERT OR IGNORE INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?, ?, 'git', ?, ?, '[]')")
      .run(id, worktree, Date.now(), Date.now());
  }

  session(s: OcSession): void {
    this.db
      .prepare(
        "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, ?, 'brave-otter', ?, ?, '1.18.27', ?, ?) ON CONFLICT (id) DO UPDATE SET time_updated = excluded.time_updated",
      )
      .run(s.id, s.projectID, s.parentID ?? null, s.directory, s.title, s.time.created, s.time.updated);
  }

  /** Writes each message and its parts (a message or part written again is updated in place, as OpenCode's upserts do). */
  messages(list: readonly OcMessage[]): void {
    const message = this.db.prepare(
      "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET time_updated = excluded.time_updated, data = excluded.data",
    );
    const part = this.db.prepare(
      "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET time_updated = excluded.time_updated, data = excluded.data",
    );
    for (const m of list) {
      const { id, sessionID, ...info } = m.info;
      message.run(id, sessionID, m.info.time.created, m.info.time.completed ?? m.info.time.created, JSON.stringify(info));
      for (const p of m.parts) {
        const { id: pid, sessionID: _s, messageID: _m, ...data } = p;
        part.run(pid, id, sessionID, m.info.time.created, m.info.time.created, JSON.stringify(data));
      }
    }
  }

  close(): void {
    this.db.close();
  }
}

function put(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(value, null, 2));
}

/** Writes a session in the JSON layout under `<data>/storage`. */
export function writeJsonSession(data: string, worktree: string, session: OcSession, messages: readonly OcMessage[]): void {
  const storage = join(data, "storage");
  put(join(storage, "project", `${session.projectID}.json`), { id: session.projectID, worktree, vcs: "git", time: { created: session.time.created } });
  put(join(storage, "session", session.projectID, `${session.id}.json`), { ...session, version: "0.15.31" });
  for (const m of messages) {
    put(join(storage, "message", session.id, `${m.info.id}.json`), m.info);
    for (const p of m.parts) put(join(storage, "part", m.info.id, `${p.id}.json`), p);
  }
}
