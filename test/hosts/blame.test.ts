// `forge blame` and `forge why` over sessions captured through the real hooks: `forge enable`
// writes the host's hooks into a git repository, a fake host plays its documented hook
// sequence through them (its edit tool, shell commands, the user's own edits between turns),
// and blame names, for each line, the prompt that last wrote it — or says no agent did.
import { appendFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fails, forge, json, ok } from "../support/cli.js";
import { FakeAgent, type FakeHost } from "../support/fake-agent.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { hostBench } from "./git-support.js";
import type { BlameLineJson } from "../../src/operations/blame/shared.js";

let dir: TempDir;
let project: string;
let home: string;
let path: string;

beforeEach(() => {
  dir = makeTempDir("blame");
  ({ project, home, path } = hostBench(dir.path));
});
afterEach(() => dir.remove());

const env = () => ({ HOME: home, PATH: path, CLAUDE_CONFIG_DIR: "", CODEX_HOME: "", GEMINI_CLI_HOME: "" });
const run = (args: readonly string[], cwd = project) => forge(cwd, args, { env: env() });
const agentFor = (host: FakeHost) => new FakeAgent(host, { project, home, env: { PATH: path, FORGE_HOOK_STRICT: "1" } });
const file = (name: string) => join(project, name);

type LineJson = BlameLineJson;
interface BlameJson {
  path: string;
  total: number;
  lines: LineJson[];
}
const blame = (args: readonly string[]) => json<BlameJson>(run(["blame", ...args, "--json"]));
/** Per line: the prompt number that wrote it, or "human". */
const who = (b: BlameJson) => b.lines.map((l) => (l.agent ? l.prompt?.number : "human"));

/** The session: the edit tool creates calc.js, a shell command appends, the user edits line 2, the edit tool changes line 3. */
function playCalc(agent: FakeAgent): void {
  agent.start();
  agent.prompt("create calc.js with add, sub and mul");
  agent.say("I will write calc.js.", "Three helpers, one a line.");
  agent.edit("calc.js", "const add = (a, b) => a + b;\nconst sub = (a, b) => a - b;\nconst mul = (a, b) => a * b;\n");
  agent.stop("Wrote calc.js.");
  agent.prompt("export the helpers from the shell");
  agent.shell(`printf 'module.exports = { add, sub, mul };\\n' >> calc.js`);
  agent.stop("Exported them.");
  // The user, between turns, with no hook.
  writeFileSync(file("calc.js"), readFileSync(file("calc.js"), "utf8").replace("a - b;", "a - b; // checked by hand"));
  agent.prompt("make mul coerce its arguments");
  agent.say("mul should coerce.", "Number() on both sides of mul.");
  agent.edit("calc.js", readFileSync(file("calc.js"), "utf8").replace("a * b", "Number(a) * Number(b)"));
  agent.stop("mul coerces now.");
}

describe("forge blame through the hooks forge enable wrote", () => {
  let agent: FakeAgent;
  beforeEach(() => {
    ok(run(["enable", "claude-code"]));
    agent = agentFor("claude-code");
  });

  it("names the prompt that last wrote each line: the edit tool, a shell command, and not-an-agent for the user's edit between turns", () => {
    playCalc(agent);
    const b = blame(["calc.js"]);
    expect(b.lines.map((l) => l.text)).toEqual([
      "const add = (a, b) => a + b;",
      "const sub = (a, b) => a - b; // checked by hand",
      "const mul = (a, b) => Number(a) * Number(b);",
      "module.exports = { add, sub, mul };",
    ]);
    expect(who(b)).toEqual([1, "human", 3, 2]);
    expect(b.lines.map((l) => l.tool?.name ?? null)).toEqual(["Write", null, "Write", "Bash"]);
    expect(b.lines[1]?.note).toMatch(/between turns/);
    expect(b.lines[3]?.prompt?.text).toBe("export the helpers from the shell");
    // Every agent line names the same captured session, its own tool call id and the snapshot after it.
    const agentLines = b.lines.filter((l) => l.agent);
    expect(new Set(agentLines.map((l) => l.session?.id))).toEqual(new Set([agent.sessionId]));
    expect(agentLines.every((l) => /^toolu_fake\d+$/.test(l.tool?.id ?? ""))).toBe(true);
    expect(new Set(agentLines.map((l) => l.checkpoint?.id)).size).toBe(3);

    const text = ok(run(["blame", "calc.js"]));
    expect(text).toMatch(/prompt 1 Write .*1│ const add/);
    expect(text).toMatch(/not an agent .*2│ const sub/);
    expect(text).toContain("prompt 2 of claude-code");
    expect(text).toContain("export the helpers from the shell");
  });

  it("gives one JSON entry per line: line, text, agent, prompt {number, text} or null, session, tool, checkpoint", () => {
    playCalc(agent);
    const b = blame(["calc.js"]);
    expect(b).toMatchObject({ path: "calc.js", total: 4 });
    expect(b.lines.map((l) => l.line)).toEqual([1, 2, 3, 4]);
    for (const l of b.lines) {
      expect(Object.keys(l).sort()).toEqual(["agent", "checkpoint", "inferred", "line", "note", "prompt", "promptCheckpoint", "session", "text", "tool"]);
      if (l.agent) {
        expect(l.prompt).toEqual({ number: expect.any(Number), text: expect.any(String) });
        expect(l.session).toEqual({ name: `agent/claude-code/${agent.sessionId}`, host: "claude-code", id: agent.sessionId });
        expect(l.tool).toEqual({ name: expect.any(String), id: expect.any(String), input: expect.any(Object) });
        expect(l.promptCheckpoint).toMatch(/^[0-9A-Z]{26}$/);
      } else {
        expect([l.prompt, l.session, l.tool, l.promptCheckpoint]).toEqual([null, null, null, null]);
      }
      expect(l.checkpoint).toEqual({ id: expect.any(String), seq: expect.any(Number), createdAt: expect.any(String), message: expect.any(String) });
    }
    // The Write's input as the hook saw it; the prompt's checkpoint is the one `agent show` lists for it.
    expect(b.lines[0]?.tool?.input).toMatchObject({ file_path: file("calc.js") });
    const show = json<{ turns: { prompt: number; checkpoint: { id: string } }[] }>(run(["agent", "show", agent.sessionId, "--json"]));
    expect(b.lines[2]?.promptCheckpoint).toBe(show.turns.find((t) => t.prompt === 3)?.checkpoint.id);
  });

  it("limits the answer to PATH:A-B or PATH:N, and refuses lines the file does not have", () => {
    playCalc(agent);
    const range = blame(["calc.js:3-4"]);
    expect(range.lines.map((l) => [l.line, l.agent ? l.prompt?.number : "human"])).toEqual([
      [3, 3],
      [4, 2],
    ]);
    expect(range.total).toBe(4);
    expect(blame(["calc.js:2"]).lines.map((l) => [l.line, l.agent])).toEqual([[2, false]]);
    fails(run(["blame", "calc.js:3-9"]), 1, /calc\.js has 4 lines: no line 9/);
    fails(run(["blame", "calc.js:4-3"]), 1, /invalid line range in "calc\.js:4-3"/);
    // From a folder below the project, paths are the user's own.
    mkdirSync(file("sub"));
    writeFileSync(file("sub/x.txt"), "x\n");
    expect(json<BlameJson>(run(["blame", "../calc.js:1", "--json"], file("sub"))).lines[0]?.prompt?.number).toBe(1);
  });

  it("follows lines across later insertions and deletions above them, as git blame does", () => {
    agent.start();
    agent.prompt("write the list");
    agent.edit("list.txt", "alpha\nbeta\ngamma\n");
    agent.stop();
    agent.prompt("put a header on top and drop beta");
    agent.edit("list.txt", "# header\n\nalpha\ngamma\n");
    agent.stop();
    agent.prompt("add delta at the end");
    agent.shell(`printf 'delta\\n' >> list.txt`);
    agent.stop();
    const b = blame(["list.txt"]);
    expect(b.lines.map((l) => [l.text, l.agent ? l.prompt?.number : "human"])).toEqual([
      ["# header", 2],
      ["", 2],
      ["alpha", 1],
      ["gamma", 1],
      ["delta", 3],
    ]);
  });

  it("says not-an-agent for every line of a file no snapshot holds, and of one older than Forge", () => {
    agent.start();
    agent.prompt("look around");
    agent.stop();
    writeFileSync(file("fresh.txt"), "one\ntwo\n");
    const fresh = blame(["fresh.txt"]);
    expect(fresh.lines.map((l) => [l.agent, l.checkpoint])).toEqual([
      [false, null],
      [false, null],
    ]);
    expect(fresh.lines[0]?.note).toMatch(/in no snapshot/);
    // README.md was committed before Forge was enabled.
    const old = blame(["README.md"]);
    expect(old.lines.map((l) => l.agent)).toEqual([false]);
    expect(old.lines[0]?.note).toMatch(/before Forge's first snapshot/);
    expect(old.lines[0]?.checkpoint?.message).toBe("claude-code: at session-start");
    // A line added on disk since the last snapshot of a file the snapshots hold.
    appendFileSync(file("README.md"), "more\n");
    expect(blame(["README.md"]).lines[1]?.note).toMatch(/changed since the last snapshot/);
    // An empty file has no lines to blame.
    writeFileSync(file("empty.txt"), "");
    expect(blame(["empty.txt"]).lines).toEqual([]);
  });

  it("blames a file deleted and created again by the prompt that created it again", () => {
    agent.start();
    agent.prompt("create notes");
    agent.edit("notes.txt", "keep\nold\n");
    agent.stop();
    agent.prompt("delete notes");
    agent.shell("rm notes.txt");
    agent.stop();
    agent.prompt("bring notes back");
    agent.shell(`printf 'keep\\nnew\\n' > notes.txt`);
    agent.stop();
    expect(who(blame(["notes.txt"]))).toEqual([3, 3]);
    // As it was at the first prompt's snapshot, every line is prompt 1's.
    const log = json<{ snapshots: { id: string; message: string }[] }>(run(["files", "log", "--json"]));
    const afterWrite = log.snapshots.find((s) => s.message === "claude-code: after Write");
    expect(who(blame(["notes.txt", "--at", afterWrite?.id as string]))).toEqual([1, 1]);
  });

  it("refuses a binary file, a path outside the project, a folder, a missing file and a link out of it, naming each", () => {
    agent.start();
    writeFileSync(file("blob.bin"), Buffer.from([0x7f, 0x45, 0x00, 0x01]));
    fails(run(["blame", "blob.bin"]), 1, /blob\.bin is a binary file/);
    fails(run(["blame", "../outside.js"]), 1, /\.\.\/outside\.js is outside the project/);
    fails(run(["blame", "nope.js"]), 1, /nope\.js does not exist in the project/);
    mkdirSync(file("src"));
    fails(run(["blame", "src"]), 1, /src is a folder/);
    mkdirSync(join(dir.path, "elsewhere"));
    writeFileSync(join(dir.path, "elsewhere", "secret.txt"), "s\n");
    symlinkSync(join(dir.path, "elsewhere"), file("out"));
    fails(run(["blame", "out/secret.txt"]), 1, /out\/secret\.txt leads outside the project/);
    fails(run(["why", "calc.js"]), 1, /name the line/);
  });
});

describe("forge why", () => {
  beforeEach(() => ok(run(["enable", "claude-code"])));

  it("prints the prompt's whole text, the reasoning of that turn, the tool call and how to rewind to it", () => {
    const agent = agentFor("claude-code");
    playCalc(agent);
    const text = ok(run(["why", "calc.js:3"]));
    expect(text).toContain("calc.js:3  const mul = (a, b) => Number(a) * Number(b);");
    expect(text).toContain(`written by prompt 3 of claude-code session ${agent.sessionId}`);
    expect(text).toContain("make mul coerce its arguments");
    expect(text).toContain("(thinking) Number() on both sides of mul.");
    expect(text).toMatch(/tool call Write \(toolu_fake\d+\)/);
    expect(text).toContain("content:");
    expect(text).toContain(`forge rewind ${agent.sessionId} --to-prompt 3`);
    expect(text).not.toContain("create calc.js with add");

    const human = ok(run(["why", "calc.js:2"]));
    expect(human).toContain("not written by an agent: changed between turns");
    expect(human).not.toContain("prompt 3");

    const j = json<{
      line: LineJson;
      call: { name: string; id: string; input: { content: string } };
      reasoning: { kind: string; text: string }[];
      reply: string[];
      rewind: string;
    }>(run(["why", "calc.js:4", "--json"]));
    expect(j.line).toMatchObject({ line: 4, agent: true, prompt: { number: 2, text: "export the helpers from the shell" } });
    expect(j.call.name).toBe("Bash");
    expect(j.call.input).toMatchObject({ command: expect.stringContaining(">> calc.js") });
    expect(j.rewind).toBe(`forge rewind ${agent.sessionId} --to-prompt 2`);
    expect(j.reply).toContain("Exported them.");
  });
});

describe("blame across sessions and hosts, and over stores written before write records", () => {
  it("gives each line to its newest writer, whichever session or host wrote it", () => {
    ok(run(["enable", "claude-code"]));
    ok(run(["enable", "codex"]));
    const claude = agentFor("claude-code");
    const codex = agentFor("codex");
    claude.start();
    claude.prompt("start the config");
    claude.edit("config.ini", "[main]\nname = demo\nport = 80\n");
    claude.stop();
    codex.start();
    codex.prompt("use port 8080");
    codex.edit("config.ini", "[main]\nname = demo\nport = 8080\n");
    codex.stop();
    claude.prompt("add a debug flag");
    claude.shell(`printf 'debug = true\\n' >> config.ini`);
    claude.stop();
    const b = blame(["config.ini"]);
    expect(b.lines.map((l) => [l.text, l.session?.host ?? null, l.prompt?.number ?? null])).toEqual([
      ["[main]", "claude-code", 1],
      ["name = demo", "claude-code", 1],
      ["port = 8080", "codex", 1],
      ["debug = true", "claude-code", 2],
    ]);
    expect(b.lines[2]?.tool?.name).toBe("apply_patch");
    expect(b.lines[2]?.session?.id).toBe(codex.sessionId);
  });

  it("matches the tool snapshots of a store with no write records to their prompts by time", () => {
    ok(run(["enable", "claude-code"]));
    const agent = agentFor("claude-code");
    playCalc(agent);
    // As a store captured before Forge kept write records: the records' session is gone.
    ok(run(["session", "delete", "workspace/agent-writes", "--yes"]));
    const b = blame(["calc.js"]);
    expect(who(b)).toEqual([1, "human", 3, 2]);
    expect(b.lines.filter((l) => l.agent).every((l) => l.inferred && l.tool?.id === null)).toBe(true);
    expect(ok(run(["why", "calc.js:3"]))).toContain("matched by time");
  });
});

describe("write records", () => {
  it("record the tool call, its prompt and the paths an edit tool names, beside the workspace's snapshots", () => {
    ok(run(["enable", "claude-code"]));
    const agent = agentFor("claude-code");
    agent.start();
    agent.prompt("two files");
    agent.edit("a.txt", "a\n");
    agent.shell("printf 'b\\n' > b.txt");
    agent.stop();
    const list = json<{ checkpoints: { trigger: string; metadata: Record<string, unknown> }[] }>(
      run(["checkpoint", "list", "--session", "workspace/agent-writes", "--json"]),
    );
    const records = list.checkpoints.map((c) => c.metadata);
    expect(records).toEqual([
      expect.objectContaining({
        host: "claude-code",
        hostSession: agent.sessionId,
        prompt: 1,
        tool: expect.objectContaining({ name: "Write" }),
        paths: ["a.txt"],
      }),
      expect.objectContaining({ prompt: 1, tool: expect.objectContaining({ name: "Bash" }) }),
    ]);
    expect(records[1]).not.toHaveProperty("paths");
    expect(list.checkpoints.every((c) => c.trigger === "agent-write")).toBe(true);
    // A change the edit tool did not make, caught in its snapshot, is not put down to it.
    agent.prompt("one more");
    appendFileSync(file("b.txt"), "by hand\n");
    agent.edit("a.txt", "a\na2\n");
    agent.stop();
    const b = blame(["b.txt"]);
    expect(b.lines.map((l) => l.agent)).toEqual([true, false]);
    expect(b.lines[1]?.note).toBe("changed while Write ran, but not by it (it wrote a.txt)");
    expect(blame(["a.txt"]).lines.map((l) => l.prompt?.number)).toEqual([1, 2]);
  });
});
