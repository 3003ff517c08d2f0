// Where a turn starts and ends, however its messages reached the store: a turn's messages
// start with its own prompt and never hold the next one, whether the session was imported,
// captured live by the hooks `forge enable` wrote (the host writing its prompt down before
// its prompt hook, as Claude Code does, or after it, as Codex and Gemini CLI do), or first
// imported and then captured live; and a store written before this rule (live checkpoints that
// counted their prompt's message in) still reads the same. The rewind and `forge why` go on
// working on the mixed session.
import { randomUUID } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConversationSession } from "../../src/domains/conversation/conversation-session.js";
import type { Message } from "../../src/domains/conversation/model.js";
import { openStore } from "../../src/index.js";
import { agentSessionDetail, listAgentSessions } from "../../src/integrations/hosts/agent-sessions.js";
import { forge, json, ok } from "../support/cli.js";
import { FakeAgent, type FakeHost } from "../support/fake-agent.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { hostBench } from "./git-support.js";
import type { ImportJson } from "./import-support.js";

let dir: TempDir;
let project: string;
let home: string;
let path: string;

beforeEach(() => {
  dir = makeTempDir("turn-bounds");
  ({ project, home, path } = hostBench(dir.path));
});
afterEach(() => dir.remove());

const env = () => ({ HOME: home, PATH: path, CLAUDE_CONFIG_DIR: "", CODEX_HOME: "", GEMINI_CLI_HOME: "", COPILOT_HOME: "" });
const run = (args: readonly string[], input?: string) => forge(project, args, { env: env(), ...(input !== undefined && { input }) });

interface TurnJson {
  prompt: number;
  text: string | null;
  imported: boolean;
  checkpoint: { filesRoot: string | null };
  messages: Message[];
}
interface ShowJson {
  preamble: Message[];
  turns: TurnJson[];
}

const textOf = (m: Message | undefined): string =>
  m === undefined ? "" : typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => (typeof p["text"] === "string" ? p["text"] : "")).join("\n");

/** The last message that is not a host record. */
const lastSaid = (messages: readonly Message[]) => textOf(messages.findLast((m) => m.role !== "system"));

/** Each turn starts with its own prompt's message and holds no other prompt's text (nor does the preamble). */
function expectTurnsBounded(show: { preamble: readonly Message[]; turns: readonly { text: string | null; messages: readonly Message[] }[] }): void {
  const prompts = show.turns.map((t) => t.text ?? "");
  for (const t of show.turns) {
    expect(t.messages[0]?.role).toBe("user");
    expect(textOf(t.messages[0])).toContain(t.text ?? "");
    const others = prompts.filter((p) => p !== t.text);
    for (const m of t.messages) for (const p of others) expect(m.role === "user" && textOf(m).includes(p)).toBe(false);
  }
  for (const m of show.preamble) for (const p of prompts) expect(m.role === "user" && textOf(m).includes(p)).toBe(false);
}

describe("a Claude Code session imported, then captured live through the hooks forge enable wrote", () => {
  it("gives each turn its own prompt first and none of the next; rewind and why still find the right prompt", () => {
    const agent = new FakeAgent("claude-code", { project, home, env: { PATH: path }, startAt: new Date(Date.now() - 3_600_000).toISOString() });
    agent.start();
    agent.prompt("M1 write the greeting");
    agent.say("Writing it.", "A greeting file, then.");
    agent.edit("greeting.txt", "hello\n");
    agent.stop("Wrote greeting.txt.");
    ok(run(["init"]));
    expect(json<ImportJson>(run(["agent", "import", "--json"])).sessions).toMatchObject([{ status: "new", prompts: 1 }]);
    ok(run(["enable", "claude-code"]));
    agent.prompt("M2 now the notes");
    agent.say("Notes next.", "The user wants notes.");
    agent.edit("notes.txt", "first\n");
    agent.stop("Wrote notes.txt.");
    agent.prompt("M3 extend the notes");
    agent.edit("notes.txt", "first\nsecond\n");
    agent.stop("Extended them.");

    const show = json<ShowJson>(run(["agent", "show", agent.sessionId, "--json"]));
    expect(show.turns.map((t) => [t.prompt, t.text, t.imported])).toEqual([
      [1, "M1 write the greeting", true],
      [2, "M2 now the notes", false],
      [3, "M3 extend the notes", false],
    ]);
    expectTurnsBounded(show);
    // Each turn is all of its own: the imported one ends with its reply, the live ones hold their thinking, call and reply.
    const [first, second, third] = show.turns;
    expect(lastSaid(first?.messages ?? [])).toBe("Wrote greeting.txt.");
    expect(JSON.stringify(second?.messages)).toContain("The user wants notes.");
    expect(lastSaid(second?.messages ?? [])).toBe("Wrote notes.txt.");
    expect(lastSaid(third?.messages ?? [])).toBe("Extended them.");

    // `forge why` tells the turn of a line written live, with its reply, and nothing of the next prompt.
    const why = json<{ line: { prompt: { number: number } }; reply: string[] }>(run(["why", "notes.txt:1", "--json"]));
    expect(why.line.prompt.number).toBe(2);
    expect(why.reply).toContain("Wrote notes.txt.");
    expect(JSON.stringify(why)).not.toContain("M3 extend the notes");
    expect(json<{ line: { prompt: { number: number } } }>(run(["why", "notes.txt:2", "--json"])).line.prompt.number).toBe(3);

    // The rewind to prompt 3: the files of that moment, and a transcript cut exactly before its prompt.
    const r = json<{ transcript: { path: string; sessionId: string } | null }>(run(["rewind", agent.sessionId, "--to-prompt", "3", "--json"]));
    expect(readFileSync(join(project, "notes.txt"), "utf8")).toBe("first\n");
    const cut = readFileSync(r.transcript?.path as string, "utf8")
      .split("\n")
      .filter(Boolean);
    const original = readFileSync(agent.transcriptPath, "utf8").split("\n").filter(Boolean);
    const at3 = original.findIndex((l) => l.includes("M3 extend the notes"));
    expect(at3).toBeGreaterThan(0);
    expect(cut).toEqual(original.slice(0, at3).map((l) => l.split(agent.sessionId).join(r.transcript?.sessionId ?? "")));
  });
});

describe.each<FakeHost>(["claude-code", "codex", "gemini-cli"])("%s captured live only", (host) => {
  it("gives each turn its own prompt first and none of the next", () => {
    ok(run(["enable", host]));
    const agent = new FakeAgent(host, { project, home, env: { PATH: path, FORGE_HOOK_STRICT: "1" } });
    agent.start();
    agent.prompt("L1 add a greeting file");
    agent.say("I will write it.", "A greeting.");
    agent.edit("greeting.txt", "hello\n");
    agent.stop("Added greeting.txt.");
    agent.prompt("L2 and a notes file");
    agent.shell("printf 'n\\n' > notes.txt");
    agent.stop("Added notes.txt.");
    agent.prompt("L3 that is all");
    agent.stop("Nothing left.");
    const show = json<ShowJson>(run(["agent", "show", agent.sessionId, "--json"]));
    expect(show.turns.map((t) => t.text)).toEqual(["L1 add a greeting file", "L2 and a notes file", "L3 that is all"]);
    expectTurnsBounded(show);
    expect(show.turns.map((t) => lastSaid(t.messages))).toEqual(["Added greeting.txt.", "Added notes.txt.", "Nothing left."]);
  });
});

/** Copilot CLI and Cursor, their prompt hook run by hand with the documented payload, the prompt written to the transcript before or after it. */
const HAND_HOSTS = {
  copilot: {
    transcript: (sid: string) => join(home, ".copilot", "session-state", sid, "events.jsonl"),
    start: (sid: string) => ({ type: "session.start", id: randomUUID(), timestamp: "2026-08-20T10:00:00.000Z", parentId: null, data: { sessionId: sid } }),
    user: (text: string) => ({ type: "user.message", id: randomUUID(), timestamp: "2026-08-20T10:00:01.000Z", parentId: null, data: { content: text } }),
    reply: (text: string) => ({
      type: "assistant.message",
      id: randomUUID(),
      timestamp: "2026-08-20T10:00:02.000Z",
      parentId: null,
      data: { messageId: randomUUID(), content: text, toolRequests: [] },
    }),
    prompt: (sid: string, _path: string, prompt: string) => ({ sessionId: sid, timestamp: 1755684001000, cwd: project, prompt }),
    stop: (sid: string, path: string) => ({ sessionId: sid, timestamp: 1755684002000, cwd: project, transcriptPath: path }),
  },
  cursor: {
    transcript: (sid: string) => join(home, ".cursor", "projects", "p", "agent-transcripts", sid, `${sid}.jsonl`),
    start: () => undefined,
    user: (text: string) => ({ role: "user", message: { content: [{ type: "text", text: `<user_query>\n${text}\n</user_query>` }] } }),
    reply: (text: string) => ({ role: "assistant", message: { content: [{ type: "text", text }] } }),
    prompt: (sid: string, path: string, prompt: string) => ({
      conversation_id: sid,
      generation_id: randomUUID(),
      hook_event_name: "beforeSubmitPrompt",
      cursor_version: "2.0.77",
      workspace_roots: [project],
      transcript_path: path,
      prompt,
      attachments: [],
    }),
    stop: (sid: string, path: string) => ({
      conversation_id: sid,
      generation_id: randomUUID(),
      hook_event_name: "stop",
      cursor_version: "2.0.77",
      workspace_roots: [project],
      transcript_path: path,
      status: "completed",
      loop_count: 0,
    }),
  },
} as const;

describe.each(["copilot", "cursor"] as const)("%s's prompt hook", (host) => {
  it.each(["before", "after"] as const)("with the prompt written to the transcript %s it: each turn starts with its own prompt", (when) => {
    ok(run(["init"]));
    const h = HAND_HOSTS[host];
    const sid = randomUUID();
    const file = h.transcript(sid);
    mkdirSync(dirname(file), { recursive: true });
    const write = (record: unknown) => appendFileSync(file, `${JSON.stringify(record)}\n`);
    const start = h.start(sid);
    if (start !== undefined) write(start);
    else writeFileSync(file, "");
    for (const [i, text] of ["H1 fix the bug", "H2 add a test", "H3 tidy up"].entries()) {
      if (when === "before") write(h.user(text));
      ok(run(["hook", "prompt", "--host", host], JSON.stringify(h.prompt(sid, file, text))));
      if (when === "after") write(h.user(text));
      write(h.reply(`reply ${i + 1}`));
      ok(run(["hook", "stop", "--host", host], JSON.stringify(h.stop(sid, file))));
    }
    const show = json<ShowJson>(run(["agent", "show", sid, "--json"]));
    expect(show.turns.map((t) => t.text)).toEqual(["H1 fix the bug", "H2 add a test", "H3 tidy up"]);
    expectTurnsBounded(show);
    expect(show.turns.map((t) => lastSaid(t.messages))).toEqual(["reply 1", "reply 2", "reply 3"]);
    expect(existsSync(file)).toBe(true);
  });
});

describe("a store written before turns started with their prompts", () => {
  it("reads a live checkpoint that counted its own prompt in as the start of that prompt's turn", async () => {
    const forgeDir = join(dir.path, "forge");
    mkdirSync(forgeDir);
    const store = await openStore(`sqlite:${join(dir.path, "old.db")}`);
    try {
      const name = `agent/claude-code/${randomUUID()}`;
      const conversation = await ConversationSession.open(store, name);
      await conversation.replace([]);
      const m = (id: string, role: Message["role"], content: string): Message => ({ id, role, content });
      // Prompt 1 imported (its count before its message), prompts 2 and 3 captured live the old way (their count after their message).
      const prompt = async (n: number, text: string, messages: number, imported: boolean) =>
        conversation.session.checkpointWorking({
          message: `prompt ${n}: ${text}`,
          trigger: "prompt",
          metadata: { host: "claude-code", prompt: n, text, messages, ...(imported && { imported: { format: "claude-code-jsonl", version: 1 } }) },
          filesRoot: null,
        });
      await prompt(1, "O1 first", 0, true);
      // A host record the hook read after prompt 2's line counts in too.
      await conversation.append([m("u1", "user", "O1 first"), m("a1", "assistant", "one"), m("u2", "user", "O2 second"), m("s2", "system", "record")], {
        format: "forge",
      });
      await prompt(2, "O2 second", 4, false);
      await conversation.append([m("a2", "assistant", "two"), m("u3", "user", "O3 third")], { format: "forge" });
      await prompt(3, "O3 third", 6, false);
      await conversation.append([m("a3", "assistant", "three")], { format: "forge" });
      const [summary] = await listAgentSessions(store, forgeDir);
      const detail = await agentSessionDetail(store, summary as NonNullable<typeof summary>);
      expect(detail.turns.map((t) => t.messages.map((x) => x.id))).toEqual([
        ["u1", "a1"],
        ["u2", "s2", "a2"],
        ["u3", "a3"],
      ]);
      expect(detail.preamble).toEqual([]);
      expectTurnsBounded(detail);
    } finally {
      await store.close();
    }
  });
});
