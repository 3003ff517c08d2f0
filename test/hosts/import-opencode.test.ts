// `forge agent import` of OpenCode's sessions, from a fake home holding OpenCode's data folder as
// OpenCode writes it (opencode-support.ts): its SQLite database (open in WAL mode meanwhile, as a
// running OpenCode keeps it) and the JSON files of earlier releases, with sessions of this
// project, a sub-agent's, a session OpenCode copied from its files into its database, and
// sessions of other projects (one in a folder whose name starts with this project's) that must
// not be imported. A second import adds nothing; a message still being written is left for
// later and only its new parts added then; a session captured live by Forge's OpenCode hooks
// and imported is one session with one prompt numbering, its prompts' files still rewindable.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../../src/domains/conversation/model.js";
import { forge, json, ok } from "../support/cli.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { gitRepo } from "./git-support.js";
import type { ImportJson, ListJson } from "./import-support.js";
import { FakeOpencode, FakeOpencodeDb, type OcMessage, writeJsonSession } from "./opencode-support.js";

let dir: TempDir;
let project: string;
let home: string;
let xdg = "";

beforeEach(() => {
  dir = makeTempDir("import-opencode");
  project = join(dir.path, "shop-api");
  home = join(dir.path, "home");
  mkdirSync(project);
  mkdirSync(home);
  gitRepo(project);
  xdg = "";
});
afterEach(() => dir.remove());

const env = () => ({ HOME: home, XDG_DATA_HOME: xdg, OPENCODE_DB: "", CLAUDE_CONFIG_DIR: "", CODEX_HOME: "", GEMINI_CLI_HOME: "", COPILOT_HOME: "" });
const run = (args: readonly string[], input?: string) => forge(project, args, { env: env(), ...(input !== undefined && { input }) });
type OpencodeImport = Omit<ImportJson, "sessions"> & { sessions: (ImportJson["sessions"][number] & { file: string })[] };
const importOpencode = () => json<OpencodeImport>(run(["agent", "import", "--host", "opencode", "--all", "--json"]));

interface ShowJson {
  sessionId: string;
  prompts: number;
  parent: string | null;
  imported: { format: string; version: number } | null;
  preamble: Message[];
  turns: {
    prompt: number;
    text: string | null;
    imported: boolean;
    checkpoint: { createdAt: string; filesRoot: string | null; metadata: Record<string, unknown> };
    messages: Message[];
  }[];
}
const show = (id: string) => json<ShowJson>(run(["agent", "show", id, "--json"]));
const texts = (ms: readonly Message[]) => JSON.stringify(ms);

describe("forge agent import from OpenCode's storage", () => {
  it("imports this project's sessions from its database and its JSON files, sub-agents included, and no other project's", () => {
    const data = join(home, ".local", "share", "opencode");
    const oc = new FakeOpencode(data);
    const db = new FakeOpencodeDb(join(data, "opencode.db"));
    try {
      db.project("prj_shop", project);
      db.project("prj_legacy", `${project}-legacy`);
      // An older session, in the JSON files only.
      const older = oc.session("prj_shop", project);
      writeJsonSession(data, project, older, oc.turns(older, [{ prompt: "J1 list the routes", command: "ls src", output: "routes.ts\n", reply: "One file." }]));
      // A session OpenCode copied from its JSON files into its database: the same ids in both.
      const main = oc.session("prj_shop", project);
      const mainMessages = oc.turns(main, [
        { prompt: "O1 add request logging", thinking: "Middleware first.", command: "npm test", output: "ok\n", reply: "Logging added." },
        { prompt: "O2 make the level configurable", command: "npm test", output: "ok\n", reply: "LOG_LEVEL it is." },
      ]);
      // A part of a type this importer does not know (a later release's).
      const firstReply = mainMessages[1] as OcMessage;
      firstReply.parts.splice(1, 0, { id: oc.id("prt"), sessionID: main.id, messageID: firstReply.info.id, type: "hologram", beam: { on: true } });
      writeJsonSession(data, project, main, mainMessages.slice(0, 2));
      db.session(main);
      db.messages(mainMessages);
      // Its sub-agent, run in a folder inside the project.
      const sub = oc.session("prj_shop", join(project, "src"), main.id);
      db.session(sub);
      db.messages(oc.turns(sub, [{ prompt: "S1 find the logger", command: "grep -r logger .", output: "src/log.ts\n", reply: "In src/log.ts." }]));
      // Other projects: a sibling whose name starts with this one's, in the database and in the files.
      const other = oc.session("prj_legacy", `${project}-legacy`);
      db.session(other);
      db.messages(oc.turns(other, [{ prompt: "X1 another project's work", reply: "Not yours." }]));
      const gone = oc.session("prj_gone", join(dir.path, "elsewhere"));
      writeJsonSession(data, join(dir.path, "elsewhere"), gone, oc.turns(gone, [{ prompt: "X2 elsewhere", reply: "No." }]));

      ok(run(["init"]));
      const r = importOpencode();
      expect(r.hosts).toEqual([{ host: "opencode", label: "OpenCode", where: data, found: 3 }]);
      expect(r.sessions.map((s) => [s.sessionId, s.status, s.prompts, s.parent])).toEqual(
        expect.arrayContaining([
          [older.id, "new", 1, null],
          [main.id, "new", 2, null],
          [sub.id, "new", 1, main.id],
        ]),
      );
      expect(r.sessions).toHaveLength(3);
      // The database's copy is the one read.
      expect(r.sessions.find((s) => s.sessionId === main.id)?.file).toBe(`${join(data, "opencode.db")}#${main.id}`);
      expect(r.sessions.find((s) => s.sessionId === older.id)?.file).toBe(join(data, "storage", "session", "prj_shop", `${older.id}.json`));

      const list = json<ListJson>(run(["agent", "list", "--json"])).sessions;
      expect(list.map((s) => s.sessionId).sort()).toEqual([older.id, main.id, sub.id].sort());
      expect(JSON.stringify(list)).not.toContain(other.id);
      expect(JSON.stringify(list)).not.toContain(gone.id);
      expect(list.every((s) => s.host === "opencode" && s.imported?.format === "opencode-storage" && s.imported.version === 1)).toBe(true);

      const s = show(main.id);
      expect(s.turns.map((t) => [t.prompt, t.text, t.imported, t.checkpoint.filesRoot])).toEqual([
        [1, "O1 add request logging", true, null],
        [2, "O2 make the level configurable", true, null],
      ]);
      // Each turn: its prompt first, the thinking, the tool call with its input and its result, the reply; real times.
      const [first, second] = s.turns;
      expect(first?.messages[0]).toMatchObject({ role: "user", content: "O1 add request logging" });
      expect(
        first?.messages.some((m) => Array.isArray(m.content) && m.content.some((p) => p.type === "thinking" && p["thinking"] === "Middleware first.")),
      ).toBe(true);
      const call = first?.messages.flatMap((m) => m.toolCalls ?? [])[0];
      expect(call).toMatchObject({ name: "bash", arguments: { command: "npm test", description: "Run it" } });
      expect(first?.messages.find((m) => m.role === "tool")).toMatchObject({ toolCallId: call?.id, content: "ok\n", name: "bash" });
      expect(first?.messages.some((m) => m.role === "assistant" && m.content === "Logging added.")).toBe(true);
      expect(texts(second?.messages ?? [])).not.toContain("O1 add request logging");
      expect(new Date(first?.checkpoint.createdAt ?? "").getTime()).toBe(mainMessages[0]?.info.time.created);
      // Steps, their cost and tokens, and each finished message's Info are kept whole.
      expect(texts(first?.messages ?? [])).toContain('"type":"step-finish"');
      expect(texts(first?.messages ?? [])).toContain('"modelID":"claude-sonnet-4-5"');
      expect(first?.messages.find((m) => texts([m]).includes("hologram"))?.content).toEqual([
        { type: "host-record", host: "opencode", record: expect.objectContaining({ type: "hologram", beam: { on: true } }) },
      ]);
      expect(show(sub.id)).toMatchObject({ parent: main.id, turns: [{ text: "S1 find the logger" }] });

      // A second import adds nothing.
      const again = importOpencode();
      expect(again.sessions.map((x) => [x.status, x.added])).toEqual([
        ["unchanged", 0],
        ["unchanged", 0],
        ["unchanged", 0],
      ]);
      expect(show(main.id).turns.flatMap((t) => t.messages)).toHaveLength(s.turns.flatMap((t) => t.messages).length);
    } finally {
      db.close();
    }
  });

  it("leaves a message still being written for later and adds only its new parts then (data under $XDG_DATA_HOME)", () => {
    xdg = join(dir.path, "xdg");
    const data = join(xdg, "opencode");
    const oc = new FakeOpencode(data);
    const db = new FakeOpencodeDb(join(data, "opencode.db"));
    try {
      db.project("prj_shop", project);
      const s = oc.session("prj_shop", project);
      const done = oc.turns(s, [{ prompt: "P1 write the parser", command: "npm test", output: "ok\n", reply: "Parser written." }]);
      // Turn 2 halfway: its reply's first text finished, a tool running, thinking still streaming.
      const user = oc.user(s, "P2 now the printer");
      const reply = oc.assistant(s, user.info.id, { reply: "Starting on it.", command: "npm run build", output: "built\n" }, false);
      const running = structuredClone(reply);
      running.parts = running.parts.filter((p) => p.type !== "step-finish");
      const tool = running.parts.find((p) => p.type === "tool") as OcMessage["parts"][number] & { state: Record<string, unknown> };
      tool.state = { status: "running", input: { command: "npm run build", description: "Run it" }, time: { start: oc.now() } };
      const thinking = { id: oc.id("prt"), sessionID: s.id, messageID: reply.info.id, type: "reasoning", text: "Hal", time: { start: oc.now() } };
      running.parts.push(thinking);
      db.session(s);
      db.messages([...done, user, running]);

      ok(run(["init"]));
      const first = importOpencode();
      expect(first.sessions).toMatchObject([{ sessionId: s.id, status: "new", prompts: 2 }]);
      let turn2 = show(s.id).turns[1];
      expect(turn2?.messages[0]).toMatchObject({ role: "user", content: "P2 now the printer" });
      expect(texts(turn2?.messages ?? [])).toContain("Starting on it.");
      expect(turn2?.messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.name)).toEqual(["bash"]);
      expect(turn2?.messages.some((m) => m.role === "tool")).toBe(false);
      expect(texts(turn2?.messages ?? [])).not.toContain('"Hal"');

      // OpenCode finishes the message (the tool ran, the thinking ended) and the user goes on.
      const finished = structuredClone(reply);
      finished.info.time.completed = oc.now();
      finished.parts.splice(1, 0, { ...thinking, text: "Halfway there.", time: { start: thinking.time.start, end: oc.now() } });
      db.messages([finished, ...oc.turns(s, [{ prompt: "P3 and the tests", reply: "Tests pass." }])]);
      s.time.updated = oc.now();
      db.session(s);
      const second = importOpencode();
      expect(second.sessions).toMatchObject([{ sessionId: s.id, status: "added", prompts: 1 }]);
      const after = show(s.id);
      expect(after.turns.map((t) => t.text)).toEqual(["P1 write the parser", "P2 now the printer", "P3 and the tests"]);
      turn2 = after.turns[1];
      const ids = [...after.preamble, ...after.turns.flatMap((t) => t.messages)].map((m) => m.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(turn2?.messages.flatMap((m) => m.toolCalls ?? [])).toHaveLength(1);
      expect(turn2?.messages.find((m) => m.role === "tool")).toMatchObject({ content: "built\n" });
      expect(texts(turn2?.messages ?? [])).toContain("Halfway there.");
      expect(texts(turn2?.messages ?? [])).not.toContain("P3 and the tests");
      expect(importOpencode().sessions).toMatchObject([{ status: "unchanged", added: 0 }]);
    } finally {
      db.close();
    }
  });

  it("a session captured live by Forge's OpenCode hooks and imported is one session, its prompts numbered once", () => {
    const data = join(home, ".local", "share", "opencode");
    const oc = new FakeOpencode(data);
    const db = new FakeOpencodeDb(join(data, "opencode.db"));
    try {
      db.project("prj_shop", project);
      const s = oc.session("prj_shop", project);
      db.session(s);
      db.messages(oc.turns(s, [{ prompt: "L1 before Forge", reply: "Done before." }]));
      ok(run(["init"]));
      expect(importOpencode().sessions).toMatchObject([{ sessionId: s.id, status: "new", prompts: 1 }]);

      // Forge's plugin runs the hooks: chat.message before OpenCode stores the prompt, a tool, session.idle.
      const hook = (kind: string, payload: Record<string, unknown>) =>
        ok(run(["hook", kind, "--host", "opencode"], JSON.stringify({ directory: project, sessionID: s.id, ...payload })));
      hook("prompt", { event: "chat.message", prompt: "L2 write the notes" });
      const user = oc.user(s, "L2 write the notes");
      writeFileSync(join(project, "notes.txt"), "n\n");
      hook("tool", { event: "tool.execute.after", tool: "write", callID: "call_1", args: { filePath: join(project, "notes.txt"), content: "n\n" } });
      db.messages([user, oc.assistant(s, user.info.id, { reply: "Notes written." })]);
      hook("stop", { event: "session.idle" });

      const r = importOpencode();
      // The prompt's message is the import's; its checkpoint the hook's, not a second one.
      expect(r.sessions).toMatchObject([{ sessionId: s.id, status: "added", prompts: 1 }]);
      const list = json<ListJson>(run(["agent", "list", "--json"])).sessions;
      expect(list.map((x) => [x.sessionId, x.prompts])).toEqual([[s.id, 2]]);
      const shown = show(s.id);
      expect(shown.turns.map((t) => [t.prompt, t.text])).toEqual([
        [1, "L1 before Forge"],
        [2, "L2 write the notes"],
      ]);
      const [one, two] = shown.turns;
      expect(texts(one?.messages ?? [])).not.toContain("L2 write the notes");
      expect(two?.messages[0]).toMatchObject({ role: "user", content: "L2 write the notes" });
      expect(texts(two?.messages ?? [])).toContain("Notes written.");
      // The live prompt's files are still its own: a rewind to it takes the notes away.
      expect(two?.checkpoint.filesRoot).not.toBeNull();
      const rewound = json<{ deleted: string[]; transcript: unknown; note: string | null }>(run(["rewind", s.id, "--to-prompt", "2", "--json"]));
      expect(rewound.deleted).toEqual(["notes.txt"]);
      expect(rewound.transcript).toBeNull();
      expect(() => readFileSync(join(project, "notes.txt"))).toThrow();
      expect(importOpencode().sessions).toMatchObject([{ status: "unchanged", added: 0 }]);
    } finally {
      db.close();
    }
  });
});
