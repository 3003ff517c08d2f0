// The fake agent (test/support/fake-agent.ts) against a hook config written by hand that runs a
// recording script: it fires each host's events in order with the host's payload, runs the
// hooks in the project folder under the fake home, really changes files, writes a transcript the
// host's capture module reads, and fails loudly when a hook does.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { capture as claude } from "../../src/integrations/hosts/capture/claude-code.js";
import { capture as codex } from "../../src/integrations/hosts/capture/codex.js";
import { capture as gemini } from "../../src/integrations/hosts/capture/gemini-cli.js";
import type { CaptureKind, HostCapture, TranscriptFormat } from "../../src/integrations/hosts/types.js";
import { FakeAgent, type FakeHost } from "../support/fake-agent.js";
import { DIALECTS } from "../support/fake-agent-hosts.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { expectPairsIntact, expectValid, textOf } from "./transcript-support.js";

const CAPTURES: Record<FakeHost, HostCapture> = { "claude-code": claude, codex, "gemini-cli": gemini };

/** A hook that appends what it was given (event, stdin, where it ran, its HOME) to hooks.log, and prints what the host expects. */
const RECORDER = `
import { appendFileSync, readFileSync } from "node:fs";
const [event, host] = process.argv.slice(2);
const payload = JSON.parse(readFileSync(0, "utf8"));
appendFileSync(process.env.LOG, JSON.stringify({ event, payload, cwd: process.cwd(), home: process.env.HOME }) + "\\n");
if (host === "gemini-cli") process.stdout.write("{}");
`;

let dir: TempDir;
let project: string;
let home: string;
beforeEach(() => {
  dir = makeTempDir("fake-agent");
  project = join(dir.path, "project");
  home = join(dir.path, "home");
  mkdirSync(project);
  mkdirSync(home);
  writeFileSync(join(dir.path, "record.mjs"), RECORDER);
  vi.stubEnv("HOME", home);
  for (const v of ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"]) vi.stubEnv(v, "");
});
afterEach(() => {
  vi.unstubAllEnvs();
  dir.remove();
});

/** Writes the host's project hook config: every event runs the recorder; one group's matcher selects no tool. */
function writeHooks(host: FakeHost, command = (event: string) => `node "${join(dir.path, "record.mjs")}" ${event} ${host}`): void {
  const dialect = DIALECTS[host];
  const hooks: Record<string, unknown> = {};
  for (const event of new Set(Object.values(dialect.events))) hooks[event] = [{ matcher: "*", hooks: [{ type: "command", command: command(event) }] }];
  (hooks[dialect.events.postTool] as unknown[]).push({ matcher: "NoSuchTool", hooks: [{ type: "command", command: "exit 9" }] });
  const file = join(project, dialect.hooksFile);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, JSON.stringify({ hooks }, null, 2));
}

function logged(): { event: string; payload: Record<string, unknown>; cwd: string; home: string }[] {
  return readFileSync(join(dir.path, "hooks.log"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { event: string; payload: Record<string, unknown>; cwd: string; home: string });
}

describe.each(["claude-code", "codex", "gemini-cli"] as const)("the fake %s", (host) => {
  it("plays a session through the project's hooks, changing real files and writing the host's transcript", () => {
    writeHooks(host);
    const agent = new FakeAgent(host, { project, home, env: { LOG: join(dir.path, "hooks.log") } });
    agent.start();
    agent.prompt("Create a file and clean up");
    agent.say("I'll make the folder first.", "The folder does not exist yet.");
    agent.shell("mkdir -p out && echo hi > out/a.txt && echo bye > b.txt && rm b.txt");
    agent.edit("src/k.c", "int scale = 1;\n");
    agent.stop("Done.");
    agent.prompt("Anything else?");
    agent.compact();
    agent.resume();
    agent.end();

    expect(readFileSync(join(project, "out", "a.txt"), "utf8")).toBe("hi\n");
    expect(existsSync(join(project, "b.txt"))).toBe(false);
    expect(readFileSync(join(project, "src", "k.c"), "utf8")).toBe("int scale = 1;\n");

    const e = DIALECTS[host].events;
    const afterCompact = host === "gemini-cli" ? [e.start] : [e.start, e.start];
    const log = logged();
    expect(log.map((r) => r.event)).toEqual([
      e.start,
      e.prompt,
      e.preTool,
      e.postTool,
      e.preTool,
      e.postTool,
      e.stop,
      e.prompt,
      e.preCompact,
      ...afterCompact,
      e.end,
    ]);
    expect(agent.runs.map((r) => r.event)).toEqual(log.map((r) => r.event));
    for (const r of log) {
      expect(r.payload).toMatchObject({ session_id: agent.sessionId, transcript_path: agent.transcriptPath, cwd: project, hook_event_name: r.event });
      expect(r.cwd).toBe(project);
      expect(r.home).toBe(home);
    }
    expect(log.filter((r) => r.event === e.start).map((r) => r.payload["source"])).toEqual([
      "startup",
      ...(host === "gemini-cli" ? [] : ["compact"]),
      "resume",
    ]);

    const cap = CAPTURES[host];
    const kinds = new Map<string, CaptureKind>([
      [e.prompt, "prompt"],
      [e.postTool, "tool"],
      [e.preCompact, "pre-compact"],
    ]);
    const events = log.flatMap((r) => {
      const kind = kinds.get(r.event);
      return kind === undefined ? [] : [cap.normalize(kind, r.payload)];
    });
    expect(events.filter((x) => x.kind === "prompt").map((x) => x.prompt)).toEqual(["Create a file and clean up", "Anything else?"]);
    expect(events.filter((x) => x.kind === "tool").map((x) => x.tool?.editedPaths)).toEqual([[], [host === "codex" ? "src/k.c" : join(project, "src", "k.c")]]);
    expect(events.find((x) => x.kind === "pre-compact")?.trigger).toBe("manual");

    expect(cap.locateTranscript?.(cap.normalize("stop", { session_id: agent.sessionId, cwd: project }))).toBe(agent.transcriptPath);
    const messages = (cap.transcript as TranscriptFormat).read(agent.transcriptPath, null).messages;
    expectValid(messages);
    expectPairsIntact(messages);
    expect(messages.filter((m) => m.prompt).map(textOf)).toEqual(["Create a file and clean up", "Anything else?"]);
    expect(messages.flatMap((m) => m.message.toolCalls ?? [])).toHaveLength(2);
    expect(messages.some((m) => Array.isArray(m.message.content) && m.message.content.some((p) => p.type === "thinking"))).toBe(true);
  });

  it("fails loudly when a hook exits non-zero", () => {
    writeHooks(host, () => "echo broken >&2; exit 3");
    const agent = new FakeAgent(host, { project, home });
    expect(() => agent.start()).toThrow(/exit 3[\s\S]*broken/);
  });

  it("runs nothing when the project has no hook config", () => {
    const agent = new FakeAgent(host, { project, home });
    expect(agent.start()).toEqual([]);
    expect(agent.prompt("hi")).toEqual([]);
  });
});

describe("the fake agent and the hosts' output protocols", () => {
  it("fails a Gemini CLI hook that prints something other than a JSON object", () => {
    writeHooks("gemini-cli", () => "echo not json");
    expect(() => new FakeAgent("gemini-cli", { project, home }).start()).toThrow(/cannot parse/);
  });

  it("fails a Codex hook that prints JSON-looking text that does not parse, and accepts plain text", () => {
    writeHooks("codex", () => "echo '{broken'");
    expect(() => new FakeAgent("codex", { project, home }).start()).toThrow(/cannot parse/);
    writeHooks("codex", () => "echo plain context");
    expect(new FakeAgent("codex", { project, home }).start()[0]?.stdout).toBe("plain context\n");
  });
});
