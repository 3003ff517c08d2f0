// GitHub Copilot CLI as Forge captures it: the documented hook payloads normalized, the session
// event log read whole and line by line and cut for `copilot --resume`, the JSON Copilot reads
// on stdout, and the hooks file `forge enable` writes.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ForgeError } from "../../src/core/errors.js";
import { checkMessage } from "../../src/domains/conversation/model.js";
import { capture } from "../../src/integrations/hosts/capture/copilot.js";
import { config } from "../../src/integrations/hosts/config/copilot.js";
import { makeTempDir, type TempDir } from "../support/temp.js";

const FIXTURES = join(import.meta.dirname, "fixtures", "copilot");
const payloads = JSON.parse(readFileSync(join(FIXTURES, "payloads.json"), "utf8")) as Record<string, Record<string, unknown>>;
const eventsText = readFileSync(join(FIXTURES, "events.jsonl"), "utf8");
const SESSION = "8f0c2b6e-5d1a-4e8b-9c3f-2a7d6e1b0c94";
const format = capture.transcript;
if (format === undefined) throw new Error("the Copilot capture has no transcript format");

/** The hook events the Copilot CLI hooks reference lists (camelCase configuration names). */
const DOCUMENTED_EVENTS = [
  "agentStop",
  "errorOccurred",
  "notification",
  "permissionRequest",
  "postToolUse",
  "postToolUseFailure",
  "preCompact",
  "preToolUse",
  "sessionEnd",
  "sessionStart",
  "subagentStart",
  "subagentStop",
  "userPromptSubmitted",
];

let home: TempDir;
beforeEach(() => {
  home = makeTempDir("copilot-home");
  vi.stubEnv("HOME", home.path);
  vi.stubEnv("COPILOT_HOME", undefined);
});
afterEach(() => {
  vi.unstubAllEnvs();
  home.remove();
});

const payload = (name: string) => {
  const p = payloads[name];
  if (p === undefined) throw new Error(`no fixture payload ${name}`);
  return p;
};

/** The fixture session as Copilot keeps it under the temporary HOME. */
function installSession(text = eventsText): string {
  const dir = join(home.path, ".copilot", "session-state", SESSION);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "workspace.yaml"), readFileSync(join(FIXTURES, "workspace.yaml")));
  const path = join(dir, "events.jsonl");
  writeFileSync(path, text);
  return path;
}

describe("Copilot hook payloads", () => {
  it("sessionStart names the session, the folder and how it started", () => {
    expect(capture.normalize("session-start", payload("sessionStart"))).toMatchObject({
      host: "copilot",
      sessionId: SESSION,
      cwd: "/work/project",
      source: "new",
    });
  });

  it("userPromptSubmitted carries the prompt", () => {
    expect(capture.normalize("prompt", payload("userPromptSubmitted")).prompt).toBe("Fix the failing test");
  });

  it("postToolUse parses toolArgs from its JSON string and names the edited file", () => {
    const e = capture.normalize("tool", payload("postToolUse"));
    expect(e.tool).toEqual({
      name: "edit",
      input: { path: "src/a.ts", old_str: "1", new_str: "2" },
      response: { resultType: "success", textResultForLlm: "File src/a.ts updated" },
      mayWrite: true,
      editedPaths: ["src/a.ts"],
    });
  });

  it("a view writes nothing; a failed bash may have written and keeps its error", () => {
    expect(capture.normalize("tool", payload("postToolUseView")).tool).toMatchObject({ name: "view", mayWrite: false, editedPaths: [] });
    const failed = capture.normalize("tool", payload("postToolUseFailure")).tool;
    expect(failed).toMatchObject({ name: "bash", input: { command: "npm test" }, response: { error: "Command exited with code 1" }, mayWrite: true });
  });

  it("agentStop and preCompact name the transcript; preCompact gives its trigger", () => {
    expect(capture.normalize("stop", payload("agentStop")).transcriptPath).toMatch(/session-state\/8f0c.*\/events\.jsonl$/);
    expect(capture.normalize("pre-compact", payload("preCompact"))).toMatchObject({ trigger: "manual", transcriptPath: expect.any(String) });
    expect(capture.normalize("session-end", payload("sessionEnd")).raw["reason"]).toBe("user_exit");
  });

  it("reads the VS Code-compatible snake_case payload too", () => {
    const e = capture.normalize("tool", payload("PostToolUse"));
    expect(e).toMatchObject({ sessionId: SESSION, tool: { name: "create", mayWrite: true, editedPaths: ["src/b.ts"] } });
  });

  it("reads own properties only: a __proto__ key stays data", () => {
    const parsed = JSON.parse(`{"__proto__": {"sessionId": "evil"}, "cwd": "/w"}`) as Record<string, unknown>;
    const e = capture.normalize("stop", parsed);
    expect(e.sessionId).toBeUndefined();
    expect(Object.hasOwn(e.raw, "__proto__")).toBe(true);
  });
});

describe("Copilot hook output", () => {
  it("prints JSON at every event: additionalContext when there is context, {} otherwise, never a stop decision", () => {
    expect(JSON.parse(capture.output("session-start", "brief"))).toEqual({ additionalContext: "brief" });
    expect(JSON.parse(capture.output("prompt", ""))).toEqual({});
    for (const kind of ["tool", "stop", "pre-compact", "session-end"] as const) expect(JSON.parse(capture.output(kind, "x"))).toEqual({});
  });
});

describe("Copilot session event log", () => {
  it("reads every event as a valid message keyed by its own id, with its timestamp", () => {
    const { messages } = format.read(installSession(), null);
    for (const [i, m] of messages.entries()) checkMessage(m.message, i);
    expect(messages).toHaveLength(eventsText.trim().split("\n").length);
    expect(messages[1]).toMatchObject({
      key: "0b1e0c2a-0002-4000-8000-000000000002",
      at: "2026-08-20T10:00:01.000Z",
      message: { role: "user", content: "Fix the failing test" },
    });
    expect(messages.map((m) => m.message.role)).toEqual([
      "system",
      "user",
      "system",
      "assistant",
      "system",
      "tool",
      "assistant",
      "tool",
      "system",
      "system",
      "assistant",
      "system",
      "user",
      "user",
      "assistant",
    ]);
  });

  it("marks as prompts only what the user typed, not autopilot's continuation", () => {
    const { messages } = format.read(installSession(), null);
    expect(messages.filter((m) => m.prompt).map((m) => m.message.content)).toEqual(["Fix the failing test", "Now run the tests"]);
  });

  it("keeps tool calls and their results paired by toolCallId, failures with their message", () => {
    const { messages } = format.read(installSession(), null);
    const calls = messages.flatMap((m) => m.message.toolCalls ?? []);
    expect(calls.map((c) => [c.id, c.name])).toEqual([
      ["call_1", "view"],
      ["call_2", "edit"],
    ]);
    expect(calls[1]?.arguments).toEqual({ path: "/work/project/src/a.ts", old_str: "= 1", new_str: "= 2" });
    const results = messages.filter((m) => m.message.role === "tool").map((m) => [m.message.toolCallId, m.message.content]);
    expect(results).toEqual([
      ["call_1", "1. test('a', () => expect(a).toBe(2))"],
      ["call_2", "old_str not found in /work/project/src/a.ts"],
    ]);
    expect(messages[6]?.message.content).toBeNull(); // an assistant message that only calls a tool
  });

  it("keeps unknown events and sub-agent events whole, as host records", () => {
    const { messages } = format.read(installSession(), null);
    const records = messages
      .filter((m) => m.message.role === "system")
      .map((m) => (m.message.content as unknown as { record: { type: string } }[])[0]?.record.type);
    expect(records).toEqual(["session.start", "assistant.turn_start", "tool.execution_start", "subagent.started", "assistant.message", "assistant.turn_end"]);
  });

  it("reads incrementally: a half-written last line waits, and the reads add up to the whole", () => {
    const whole = format.read(installSession(), null).messages;
    const cut = eventsText.indexOf('"Fixed it');
    const path = installSession(eventsText.slice(0, cut));
    const first = format.read(path, null);
    expect(first.messages).toEqual(whole.slice(0, 10));
    expect(format.read(path, first.cursor).messages).toEqual([]);
    appendFileSync(path, eventsText.slice(cut));
    expect([...first.messages, ...format.read(path, first.cursor).messages]).toEqual(whole);
  });

  it("finds the session's log under ~/.copilot/session-state when the payload names none", () => {
    const path = installSession();
    expect(capture.locateTranscript?.(capture.normalize("prompt", payload("userPromptSubmitted")))).toBe(path);
    vi.stubEnv("COPILOT_HOME", join(home.path, "elsewhere"));
    expect(capture.locateTranscript?.(capture.normalize("prompt", payload("userPromptSubmitted")))).toBeUndefined();
  });

  it("refuses a session id that would leave the session-state folder", () => {
    expect(() => capture.locateTranscript?.(capture.normalize("prompt", { sessionId: "../../etc" }))).toThrow(ForgeError);
  });
});

describe("cutting a Copilot session", () => {
  it("writes a new session ending before prompt N, with its own id, that `copilot --resume` finds", () => {
    const path = installSession();
    const { path: copy, sessionId, resume } = format.cut(path, 2, { cwd: "/work/project" });
    expect(sessionId).not.toBe(SESSION);
    expect(copy).toBe(join(home.path, ".copilot", "session-state", sessionId, "events.jsonl"));
    expect(resume).toBe(`copilot --resume=${sessionId}`);
    const lines = readFileSync(copy, "utf8").trim().split("\n");
    const original = eventsText.trim().split("\n");
    expect(lines).toHaveLength(13); // everything before "Now run the tests", the autopilot continuation included
    expect(lines.slice(1)).toEqual(original.slice(1, 13));
    expect(JSON.parse(lines[0] ?? "").data.sessionId).toBe(sessionId);
    expect(readFileSync(join(copy, "..", "workspace.yaml"), "utf8")).toMatch(new RegExp(`^id: ${sessionId}\\ncwd: /work/project\\n`));
    expect(readFileSync(path, "utf8")).toBe(eventsText);
    const back = format.read(copy, null).messages;
    expect(back.filter((m) => m.prompt)).toHaveLength(1);
  });

  it("cut at prompt 1 keeps only what came before the first prompt", () => {
    const { path: copy } = format.cut(installSession(), 1, { cwd: "/work/project" });
    expect(readFileSync(copy, "utf8").trim().split("\n")).toHaveLength(1);
  });

  it("writes under COPILOT_HOME when it is set", () => {
    const path = installSession();
    vi.stubEnv("COPILOT_HOME", join(home.path, "copilot-home"));
    const { path: copy } = format.cut(path, 1, { cwd: "/w" });
    expect(copy.startsWith(join(home.path, "copilot-home", "session-state"))).toBe(true);
    expect(existsSync(copy)).toBe(true);
  });

  it("names the number of prompts when asked for one the session does not have", () => {
    expect(() => format.cut(installSession(), 3, { cwd: "/w" })).toThrow(/has 2 prompts, so it cannot be cut before prompt 3/);
  });
});

describe("forge enable copilot", () => {
  const edits = config.edits("forge");

  it("writes a hooks file of its own with only documented events, each running `forge hook <kind> --host copilot`", () => {
    const file = edits.find((e) => e.file === ".github/hooks/forge.json");
    if (file?.format !== "owned") throw new Error("expected an owned .github/hooks/forge.json");
    const parsed = JSON.parse(file.text) as {
      version: number;
      hooks: Record<string, { type: string; bash: string; powershell: string; timeoutSec: number }[]>;
    };
    expect(parsed.version).toBe(1);
    const kinds = new Set<string>();
    for (const [event, entries] of Object.entries(parsed.hooks)) {
      expect(DOCUMENTED_EVENTS).toContain(event);
      for (const h of entries) {
        expect(h.type).toBe("command");
        expect(h.bash).toMatch(/^forge hook (session-start|prompt|tool|stop|pre-compact|session-end) --host copilot$/);
        expect(h.powershell).toBe(h.bash);
        expect(h.timeoutSec).toBeGreaterThan(0);
        kinds.add(h.bash.split(" ")[2] ?? "");
      }
    }
    expect([...kinds].sort()).toEqual(["pre-compact", "prompt", "session-end", "session-start", "stop", "tool"]);
  });

  it("registers the MCP server in the repository's .github/mcp.json", () => {
    expect(edits.find((e) => e.file === ".github/mcp.json")).toEqual({
      file: ".github/mcp.json",
      format: "json",
      ops: [{ op: "set", path: ["mcpServers", "forge"], value: { type: "local", command: "forge", args: ["mcp", "--profile", "lean"], tools: ["*"] } }],
    });
  });

  it("detects a project by its Copilot files", () => {
    expect(config.detect).toEqual(expect.arrayContaining([".github/copilot-instructions.md", ".github/hooks"]));
  });
});
