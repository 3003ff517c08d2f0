// `forge agent import` meeting the rest of Forge: a session imported and then captured live by
// the hooks `forge enable` wrote is one session; imported text is redacted and found by
// `forge search`; `forge enable` offers the import when the hosts hold earlier sessions.
import { randomBytes, randomUUID } from "node:crypto";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forge, json, ok } from "../support/cli.js";
import { FakeAgent } from "../support/fake-agent.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { leaksUnder } from "../redact/leaks.js";
import { hostBench } from "./git-support.js";
import { FakeHome, type ImportJson, type ListJson, type ShowJson, turn } from "./import-support.js";

let dir: TempDir;
let project: string;
let home: string;
/** A PATH whose `forge` is this checkout's, as a user's installed one would be. */
let path: string;

beforeEach(() => {
  dir = makeTempDir("agent-import-live");
  ({ project, home, path } = hostBench(dir.path));
});
afterEach(() => dir.remove());

const env = () => ({ HOME: home, PATH: path, CLAUDE_CONFIG_DIR: "", CODEX_HOME: "", GEMINI_CLI_HOME: "", COPILOT_HOME: "" });
const run = (args: readonly string[]) => forge(project, args, { env: env() });

describe("forge agent import with live capture", () => {
  it("a session imported and then captured live through the hooks is one session", () => {
    const agent = new FakeAgent("claude-code", { project, home, env: { PATH: path }, startAt: new Date(Date.now() - 3_600_000).toISOString() });
    // Before Forge: no hooks, the host only writes its transcript.
    agent.start();
    agent.prompt("L1 write the greeting");
    agent.say("Writing it.", "A greeting file, then.");
    agent.edit("greeting.txt", "hello\n");
    agent.stop("Wrote greeting.txt.");
    ok(run(["init"]));
    const imported = json<ImportJson>(run(["agent", "import", "--json"]));
    expect(imported.sessions).toMatchObject([{ host: "claude-code", sessionId: agent.sessionId, status: "new", prompts: 1 }]);
    // Forge is enabled; the same session goes on, and its hooks capture it.
    ok(run(["enable", "claude-code"]));
    agent.prompt("L2 now the notes");
    agent.edit("notes.txt", "n\n");
    agent.stop("Wrote notes.txt.");

    const sessions = json<ListJson>(run(["agent", "list", "--json"])).sessions;
    expect(sessions.map((s) => [s.host, s.sessionId, s.prompts])).toEqual([["claude-code", agent.sessionId, 2]]);
    const show = json<ShowJson>(run(["agent", "show", agent.sessionId, "--json"]));
    expect(show.turns.map((t) => [t.prompt, t.text, t.imported, t.checkpoint.filesRoot === null])).toEqual([
      [1, "L1 write the greeting", true, true],
      [2, "L2 now the notes", false, false],
    ]);
    // Each prompt's own message is stored once, whichever of the two read it.
    const users = [...show.turns.flatMap((t) => t.messages)].filter((m) => m.role === "user" && typeof m.content === "string");
    expect(users.map((m) => m.content)).toEqual(["L1 write the greeting", "L2 now the notes"]);
    // And an import after the hooks finds nothing new.
    const again = json<ImportJson>(run(["agent", "import", "--json"]));
    expect(again.sessions).toMatchObject([{ sessionId: agent.sessionId, status: "unchanged", added: 0 }]);
  });

  it("redacts secrets in what it imports, and `forge search` finds the imported text", () => {
    const token = `ghp_${[...randomBytes(36)].map((b) => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[b % 62]).join("")}`;
    const fake = new FakeHome(home);
    const sid = randomUUID();
    const word = `quokka${randomBytes(4).toString("hex")}`;
    fake.claude(sid, project, [turn(`push with ${token} please`), { ...turn("then tidy up"), reply: `Tidied the ${word} module.` }]);
    ok(run(["init"]));
    json<ImportJson>(run(["agent", "import", "--json"]));
    const shown = ok(run(["agent", "show", sid, "--json"]));
    expect(shown).toContain("push with [REDACTED:github-pat] please");
    expect(shown).not.toContain(token);
    expect(leaksUnder(join(project, ".forge"), [token])).toEqual([]);
    // The last turn's reply too: the import's closing checkpoint holds the whole conversation.
    const found = json<{ results: { checkpoint: { session: string }; snippet: string }[] }>(run(["search", word, "--json"]));
    expect(found.results.map((h) => h.checkpoint.session)).toContain(`agent/claude-code/${sid}`);
    expect(found.results.some((h) => h.snippet.includes(word))).toBe(true);
    const prompt = json<{ results: { checkpoint: { session: string } }[] }>(run(["search", "tidy up", "--json"]));
    expect(prompt.results.map((h) => h.checkpoint.session)).toContain(`agent/claude-code/${sid}`);
  });

  it("forge enable says how many earlier sessions it found, and no longer once they are imported", () => {
    const fake = new FakeHome(home);
    fake.claude(randomUUID(), project, [turn("E1 earlier work")]);
    fake.codex(randomUUID(), project, [turn("E2 earlier work")]);
    fake.codex(randomUUID(), join(dir.path, "elsewhere"), [turn("E3 another project's")]);
    const first = run(["enable", "claude-code"]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/2 earlier sessions of this project found \(Claude Code 1, Codex 1\); run `forge agent import`/);
    const asJson = json<{ history: { sessions: number; command: string } }>(run(["enable", "claude-code", "--json"]));
    expect(asJson.history).toMatchObject({ sessions: 2, command: "forge agent import" });
    ok(run(["agent", "import"]));
    expect(ok(run(["enable", "claude-code"]))).not.toMatch(/earlier session/);
  });
});
