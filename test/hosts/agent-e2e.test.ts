// The whole path, as a user of each host gets it: `forge enable` writes the host's hooks into
// a real git repository, a fake agent plays the host's documented hook sequence through them
// (its edit tool, shell commands that create and delete files, the user's own edit between
// turns, a compaction, a resume), and Forge captures it: `agent list` / `agent show`, a
// rewind to prompt 2 with exactly that moment's files and a transcript cut there, `--undo`,
// and a commit carrying a Forge-Checkpoint trailer that `agent show <commit>` follows back.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../../src/domains/conversation/model.js";
import { forge, json, ok } from "../support/cli.js";
import { FakeAgent, type FakeHost } from "../support/fake-agent.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { git, gitRun, hostBench } from "./git-support.js";

const HOSTS: readonly FakeHost[] = ["claude-code", "codex", "gemini-cli"];

let dir: TempDir;
let project: string;
let home: string;
/** A PATH whose `forge` is this checkout's, as a user's installed one would be. */
let path: string;

beforeEach(() => {
  dir = makeTempDir("agent-e2e");
  ({ project, home, path } = hostBench(dir.path));
  writeFileSync(join(project, "app.js"), "console.log('hi');\n");
  git(project, "add", "-A");
  git(project, "commit", "-q", "-m", "app");
});
afterEach(() => dir.remove());

const env = () => ({ HOME: home, PATH: path, CLAUDE_CONFIG_DIR: "", CODEX_HOME: "", GEMINI_CLI_HOME: "" });
const run = (args: readonly string[]) => forge(project, args, { env: env() });

/** Plays three prompts: the edit tool, a shell command that deletes a file, the user's edit between turns, a shell command that creates one. */
function playThreePrompts(agent: FakeAgent): void {
  agent.start();
  agent.prompt("add a greeting file");
  agent.say("I will write greeting.txt.", "The user wants a greeting file; the edit tool will do.");
  agent.edit("greeting.txt", "hello\n");
  agent.stop("Added greeting.txt.");
  agent.prompt("now remove the readme");
  agent.shell("rm README.md");
  agent.stop("Removed it.");
  // The user, between turns, outside the agent.
  writeFileSync(join(project, "app.js"), "console.log('hi, user');\n");
  agent.prompt("and add a notes file");
  agent.shell("printf 'n\\n' > notes.txt");
  agent.stop("Added notes.txt.");
}

interface ShowJson {
  sessionId: string;
  prompts: number;
  turns: { prompt: number; text: string | null; checkpoint: { id: string }; messages: Message[] }[];
  preamble: Message[];
  commit: { sha: string; checkpoint: { id: string } } | null;
}

const allText = (messages: readonly Message[]) => JSON.stringify(messages);

describe.each(HOSTS)("%s through the hooks forge enable wrote", (host) => {
  let agent: FakeAgent;
  beforeEach(() => {
    ok(run(["enable", host]));
    agent = new FakeAgent(host, { project, home, env: { PATH: path, FORGE_HOOK_STRICT: "1" } });
  });

  it("captures every prompt, tool call, thinking and file change, each message once, listed and shown turn by turn", () => {
    playThreePrompts(agent);
    const list = json<{ sessions: { host: string; sessionId: string; prompts: number; filesChanged: number }[] }>(run(["agent", "list", "--json"]));
    expect(list.sessions).toEqual([expect.objectContaining({ host, sessionId: agent.sessionId, prompts: 3 })]);
    // greeting.txt and notes.txt created, README.md deleted, app.js modified (by the user).
    expect(list.sessions[0]?.filesChanged).toBe(4);

    const show = json<ShowJson>(run(["agent", "show", agent.sessionId.slice(0, 8), "--json"]));
    expect(show.turns.map((t) => [t.prompt, t.text])).toEqual([
      [1, "add a greeting file"],
      [2, "now remove the readme"],
      [3, "and add a notes file"],
    ]);
    const [first, second, third] = show.turns;
    expect(allText(first?.messages ?? [])).toContain("greeting.txt");
    expect(allText(second?.messages ?? [])).toContain("rm README.md");
    expect(allText(third?.messages ?? [])).toContain("notes.txt");
    expect(allText(first?.messages ?? [])).toContain("The user wants a greeting file");
    // Every message once: the keys the hooks imported are all different, however many hooks read the transcript.
    const all = [...show.preamble, ...show.turns.flatMap((t) => t.messages)];
    const ids = all.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    // A tool call's result follows it in the same turn.
    for (const t of show.turns) {
      const calls = t.messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id));
      const results = t.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId);
      for (const id of calls) expect(results).toContain(id);
    }
  });

  it("rewinds to prompt 2: exactly the files of that moment and a transcript cut there; --undo gives back the state before", () => {
    playThreePrompts(agent);
    const before = { app: readFileSync(join(project, "app.js"), "utf8"), notes: readFileSync(join(project, "notes.txt"), "utf8") };
    const r = json<{ written: string[]; deleted: string[]; transcript: { path: string; sessionId: string; resume: string } | null }>(
      run(["rewind", agent.sessionId, "--to-prompt", "2", "--json"]),
    );
    // At prompt 2: the greeting (made in turn 1) and the README (deleted in turn 2), the app as the user had not yet changed it, no notes.
    expect(readFileSync(join(project, "greeting.txt"), "utf8")).toBe("hello\n");
    expect(readFileSync(join(project, "README.md"), "utf8")).toBe("# demo\n");
    expect(readFileSync(join(project, "app.js"), "utf8")).toBe("console.log('hi');\n");
    expect(existsSync(join(project, "notes.txt"))).toBe(false);
    expect(r.deleted).toEqual(["notes.txt"]);

    // The cut transcript: a new session holding prompt 1 and not prompt 2, and the host's own command to resume it.
    expect(r.transcript).not.toBeNull();
    const cut = readFileSync(r.transcript?.path as string, "utf8");
    expect(cut).toContain("add a greeting file");
    expect(cut).not.toContain("now remove the readme");
    expect(r.transcript?.sessionId).not.toBe(agent.sessionId);
    expect(r.transcript?.resume).toContain(r.transcript?.sessionId);
    expect(readFileSync(agent.transcriptPath, "utf8")).toContain("and add a notes file");

    ok(run(["rewind", "--undo"]));
    expect(readFileSync(join(project, "app.js"), "utf8")).toBe(before.app);
    expect(readFileSync(join(project, "notes.txt"), "utf8")).toBe(before.notes);
    expect(existsSync(join(project, "README.md"))).toBe(false);
    expect(existsSync(join(project, "greeting.txt"))).toBe(true);
    expect(run(["rewind", "--undo"]).code).toBe(1);
  });

  it("keeps one copy of every message through a compaction and a resume, and counts on after them", () => {
    playThreePrompts(agent);
    agent.compact();
    agent.resume();
    agent.prompt("one more thing");
    agent.shell("printf 'x' > more.txt");
    agent.stop();
    agent.end();
    const show = json<ShowJson>(run(["agent", "show", agent.sessionId, "--json"]));
    expect(show.turns.map((t) => t.prompt)).toEqual([1, 2, 3, 4]);
    const ids = [...show.preamble, ...show.turns.flatMap((t) => t.messages)].map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(allText(show.turns[3]?.messages ?? [])).toContain("more.txt");
    const r = json<{ written: string[] }>(run(["rewind", agent.sessionId, "--to-prompt", "4", "--json"]));
    expect(r.written).toEqual([]);
    expect(existsSync(join(project, "more.txt"))).toBe(false);
  });

  it("puts a Forge-Checkpoint trailer on a commit made during the session, which agent show follows back", () => {
    playThreePrompts(agent);
    git(project, "add", "-A");
    const c = gitRun(project, { PATH: path, HOME: home }, "commit", "-q", "-m", "work from the session");
    expect(c.code, c.stderr).toBe(0);
    const message = git(project, "log", "-1", "--format=%B");
    const id = /^Forge-Checkpoint: (\S+)$/m.exec(message)?.[1];
    expect(id).toBeDefined();
    const show = json<ShowJson>(run(["agent", "show", "HEAD", "--json"]));
    expect(show.sessionId).toBe(agent.sessionId);
    expect(show.commit?.checkpoint.id).toBe(id);
    // Once the session ended, a commit gets no trailer.
    agent.end();
    writeFileSync(join(project, "later.txt"), "later\n");
    git(project, "add", "-A");
    expect(gitRun(project, { PATH: path, HOME: home }, "commit", "-q", "-m", "later").code).toBe(0);
    expect(git(project, "log", "-1", "--format=%B")).not.toContain("Forge-Checkpoint");
  });
});

describe("hooks with no store, or a bad payload", () => {
  it("a capture hook in a folder with no store says so on stderr and exits 0, creating nothing", () => {
    const r = forge(project, ["hook", "prompt", "--host", "claude-code"], {
      env: env(),
      input: JSON.stringify({ session_id: "s", cwd: project, prompt: "x" }),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/no Forge store for/);
    expect(existsSync(join(project, ".forge"))).toBe(false);
  });

  it("gives Gemini CLI its JSON object on stdout even when the input is not JSON", () => {
    ok(run(["enable", "gemini-cli"]));
    const r = forge(project, ["hook", "tool", "--host", "gemini-cli"], { env: env(), input: "not json" });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({});
  });

  it("skips a Cursor or Copilot CLI payload that reaches Claude Code's hooks (those hosts run them too): no second timeline", () => {
    ok(run(["enable", "claude-code"]));
    const cursor = {
      conversation_id: "c1",
      generation_id: "g1",
      cursor_version: "1.7.2",
      workspace_roots: [project],
      prompt: "x",
      hook_event_name: "beforeSubmitPrompt",
    };
    const copilot = { sessionId: "p1", timestamp: 1, cwd: project, prompt: "y" };
    for (const payload of [cursor, copilot]) {
      const r = forge(project, ["hook", "prompt", "--host", "claude-code", "-v"], { env: env(), input: JSON.stringify(payload) });
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/skipped: a (Cursor|Copilot CLI) payload in Claude Code's hooks/);
    }
    expect(json<{ sessions: unknown[] }>(run(["agent", "list", "--json"])).sessions).toEqual([]);
  });

  it("an unknown session for rewind and agent show is an error naming it", () => {
    ok(run(["init"]));
    expect(run(["agent", "show", "nope"]).stderr).toMatch(/^forge: no captured host session "nope"/);
    expect(run(["rewind", "nope", "--to-prompt", "1"]).code).toBe(1);
  });
});
