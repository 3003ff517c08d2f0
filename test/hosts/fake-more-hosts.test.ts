// Factory Droid, Windsurf, Cline and Kiro (CLI and IDE) as a user gets them: `forge enable`
// writes the host's hooks into a real git repository that already holds the user's own, a
// fake of the host (fake-more-hosts.ts) plays its documented hook sequence through them — an
// edit tool, a shell command that deletes a file, another that creates one, the end of each
// turn — and Forge captures it: the prompts, the tool calls with their input, the files (a
// rewind to prompt 2 brings back exactly that moment), while the user's own hooks still run.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../../src/domains/conversation/model.js";
import { forge, json, ok } from "../support/cli.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { FakeHostSession, type MoreHost } from "./fake-more-hosts.js";
import { hostBench } from "./git-support.js";

let dir: TempDir;
let project: string;
let home: string;
let path: string;
let userLog: string;

beforeEach(() => {
  dir = makeTempDir("fake-more-hosts");
  ({ project, home, path } = hostBench(dir.path));
  userLog = join(dir.path, "user-hooks.log");
});
afterEach(() => dir.remove());

const run = (args: readonly string[]) => forge(project, args, { env: { HOME: home, PATH: path } });
function put(rel: string, text: string, mode?: number): void {
  mkdirSync(dirname(join(project, rel)), { recursive: true });
  writeFileSync(join(project, rel), text);
  if (mode !== undefined) chmodSync(join(project, rel), mode);
}
const userRuns = () => (existsSync(userLog) ? readFileSync(userLog, "utf8").trim().split("\n") : []);

/** Per host: the name `forge enable` is given, and the user's own configuration (with a hook that logs to userLog). */
const CASES: readonly { host: MoreHost; id: string; enable: string; seed: () => void; userHookRuns: number }[] = [
  {
    host: "factory-droid",
    id: "factory-droid",
    enable: "droid",
    seed: () =>
      put(
        ".factory/settings.json",
        `${JSON.stringify({ model: "sonnet", hooks: { PostToolUse: [{ matcher: "Create|Edit", hooks: [{ type: "command", command: `echo droid >> '${userLog}'` }] }] } }, null, 2)}\n`,
      ),
    userHookRuns: 1,
  },
  {
    host: "windsurf",
    id: "windsurf",
    enable: "cascade",
    seed: () =>
      put(
        ".windsurf/hooks.json",
        `${JSON.stringify({ hooks: { post_run_command: [{ command: `echo windsurf >> '${userLog}'`, show_output: true }] } }, null, 2)}\n`,
      ),
    userHookRuns: 2,
  },
  {
    host: "cline",
    id: "cline",
    enable: "cline",
    seed: () => put(".clinerules/hooks/PostToolUse", `#!/usr/bin/env bash\ninput=$(cat)\necho cline >> '${userLog}'\necho '{"cancel": false}'\n`, 0o755),
    userHookRuns: 3,
  },
  {
    host: "kiro-cli",
    id: "kiro",
    enable: "kiro-cli",
    seed: () =>
      put(
        ".kiro/agents/dev.json",
        `${JSON.stringify({ name: "dev", tools: ["*"], hooks: { postToolUse: [{ matcher: "fs_write", command: `echo kiro >> '${userLog}'` }] } }, null, 2)}\n`,
      ),
    userHookRuns: 1,
  },
  {
    host: "kiro-ide",
    id: "kiro",
    enable: "kiro-ide",
    seed: () =>
      put(
        ".kiro/hooks/lint-on-save.kiro.hook",
        `{ "version": "1.0.0", "enabled": true, "name": "lint-on-save", "description": "log", "when": { "type": "fileEdited", "patterns": ["**/*.txt"] }, "then": { "type": "runCommand", "command": "echo kiro-ide >> '${userLog}'" } }\n`,
      ),
    userHookRuns: 1,
  },
];

interface ShowJson {
  host: string;
  sessionId: string;
  prompts: number;
  turns: { prompt: number; text: string | null; messages: Message[] }[];
}

/** Three turns: the edit tool writes greeting.txt; a shell deletes the README; another shell creates notes.txt. */
function playThreeTurns(session: FakeHostSession): void {
  session.start("add a greeting file");
  session.prompt("add a greeting file");
  session.edit("greeting.txt", "hello\n");
  session.stop("Added greeting.txt.");
  session.prompt("now remove the readme");
  session.shell("rm README.md");
  session.stop("Removed it.");
  session.prompt("and add a notes file");
  session.shell("printf 'n\\n' > notes.txt");
  session.stop("Added notes.txt.");
}

describe.each(CASES)("the fake $host through the hooks forge enable wrote", (c) => {
  it("captures each prompt, each tool call with its input and every file change; the user's own hooks still run", () => {
    c.seed();
    ok(run(["enable", c.enable]));
    const session = new FakeHostSession(c.host, { project, home, env: { PATH: path, FORGE_HOOK_STRICT: "1" } });
    playThreeTurns(session);
    expect(session.runs.filter((r) => /forge/.test(r.command) || /\.clinerules/.test(r.command)).length).toBeGreaterThan(0);
    expect(userRuns()).toHaveLength(c.userHookRuns);

    const list = json<{ sessions: { host: string; sessionId: string; prompts: number; filesChanged: number }[] }>(run(["agent", "list", "--json"]));
    expect(list.sessions).toEqual([expect.objectContaining({ host: c.id, prompts: 3 })]);
    // greeting.txt and notes.txt created, README.md deleted.
    expect(list.sessions[0]?.filesChanged).toBe(3);
    const id = list.sessions[0]?.sessionId ?? "";
    if (c.host !== "kiro-cli" && c.host !== "kiro-ide") expect(id).toBe(session.sessionId);

    const show = json<ShowJson>(run(["agent", "show", id, "--json"]));
    expect(show.turns.map((t) => [t.prompt, t.text])).toEqual([
      [1, "add a greeting file"],
      [2, "now remove the readme"],
      [3, "and add a notes file"],
    ]);
    const [first, second, third] = show.turns;
    expect(first?.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["add a greeting file"]);
    const calls = (t: ShowJson["turns"][number] | undefined) => (t?.messages ?? []).flatMap((m) => m.toolCalls ?? []);
    expect(calls(first)).toHaveLength(1);
    // The Kiro IDE gives a post-tool hook no payload: the call is there, its input is not.
    if (c.host !== "kiro-ide") {
      expect(JSON.stringify(calls(first))).toContain("greeting.txt");
      expect(JSON.stringify(calls(second))).toContain("rm README.md");
      expect(JSON.stringify(calls(third))).toContain("notes.txt");
    }
    for (const t of show.turns) {
      const results = t.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId);
      if (c.host === "windsurf" || c.host === "kiro-ide") continue;
      for (const call of calls(t)) expect(results).toContain(call.id);
    }
    if (c.host === "windsurf") expect(JSON.stringify(first?.messages)).toContain("Added greeting.txt.");

    // The files of each moment: at prompt 2 the greeting is there and the README not yet deleted, no notes.
    const r = json<{ deleted: string[] }>(run(["rewind", id, "--to-prompt", "2", "--json"]));
    expect(readFileSync(join(project, "greeting.txt"), "utf8")).toBe("hello\n");
    expect(readFileSync(join(project, "README.md"), "utf8")).toBe("# demo\n");
    expect(existsSync(join(project, "notes.txt"))).toBe(false);
    expect(r.deleted).toEqual(["notes.txt"]);
  });
});

describe("sessions of hosts that name none (Kiro)", () => {
  it("a new Kiro CLI chat (agentSpawn) is a new session; the prompts of one chat stay together", () => {
    put(".kiro/agents/dev.json", '{ "name": "dev", "tools": ["*"] }\n');
    ok(run(["enable", "kiro"]));
    const env = { PATH: path, FORGE_HOOK_STRICT: "1" };
    const one = new FakeHostSession("kiro-cli", { project, home, env });
    one.start();
    one.prompt("first chat, first prompt");
    one.stop();
    one.prompt("first chat, second prompt");
    one.stop();
    const two = new FakeHostSession("kiro-cli", { project, home, env });
    two.start();
    two.prompt("second chat");
    two.stop();
    const list = json<{ sessions: { prompts: number; sessionId: string }[] }>(run(["agent", "list", "--json"]));
    expect(list.sessions.map((s) => s.prompts).sort()).toEqual([1, 2]);
    expect(list.sessions.every((s) => /^kiro-\d{8}T\d{6}-[0-9a-f]{6}$/.test(s.sessionId))).toBe(true);
  });
});

describe("the fake hosts fail loudly", () => {
  it("a Cline hook whose answer is not JSON fails the fake, as Cline would block the action", () => {
    put(".clinerules/hooks/UserPromptSubmit", "#!/bin/sh\necho not json\n", 0o755);
    expect(() => new FakeHostSession("cline", { project, home }).prompt("hi")).toThrow(/cannot parse/);
  });

  it("a hook that exits non-zero fails the fake", () => {
    put(".windsurf/hooks.json", '{ "hooks": { "pre_user_prompt": [ { "command": "echo broken >&2; exit 3" } ] } }\n');
    expect(() => new FakeHostSession("windsurf", { project, home }).prompt("hi")).toThrow(/exited 3[\s\S]*broken/);
  });
});
