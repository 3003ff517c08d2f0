// Cursor as Forge captures it: the documented hook payloads normalized, the agent transcript
// read whole and line by line, the output Cursor parses, and the hooks `forge enable` writes.
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ForgeError } from "../../src/core/errors.js";
import { checkMessage } from "../../src/domains/conversation/model.js";
import { capture } from "../../src/integrations/hosts/capture/cursor.js";
import { config } from "../../src/integrations/hosts/config/cursor.js";
import type { CapturedMessage, JsonOp } from "../../src/integrations/hosts/types.js";
import { makeTempDir, type TempDir } from "../support/temp.js";

const FIXTURES = join(import.meta.dirname, "fixtures", "cursor");
const payloads = JSON.parse(readFileSync(join(FIXTURES, "payloads.json"), "utf8")) as Record<string, Record<string, unknown>>;
const transcriptText = readFileSync(join(FIXTURES, "transcript.jsonl"), "utf8");
const SESSION = "c0ffee00-1111-4222-8333-444455556666";
const format = capture.transcript;
if (format === undefined) throw new Error("the Cursor capture has no transcript format");

/** The agent hook events cursor.com/docs/hooks lists (2026-08-24). */
const DOCUMENTED_EVENTS = [
  "sessionStart",
  "sessionEnd",
  "preToolUse",
  "postToolUse",
  "postToolUseFailure",
  "subagentStart",
  "subagentStop",
  "beforeShellExecution",
  "afterShellExecution",
  "beforeMCPExecution",
  "afterMCPExecution",
  "beforeReadFile",
  "afterFileEdit",
  "beforeSubmitPrompt",
  "preCompact",
  "stop",
  "afterAgentResponse",
  "afterAgentThought",
];

let dir: TempDir;
beforeEach(() => {
  dir = makeTempDir("cursor");
});
afterEach(() => {
  vi.unstubAllEnvs();
  dir.remove();
});

const payload = (name: string) => {
  const p = payloads[name];
  if (p === undefined) throw new Error(`no fixture payload ${name}`);
  return p;
};

describe("Cursor hook payloads", () => {
  it("sessionStart names the conversation, the workspace root and the transcript", () => {
    const e = capture.normalize("session-start", payload("sessionStart"));
    expect(e).toMatchObject({ host: "cursor", kind: "session-start", sessionId: SESSION, cwd: "/work/project" });
    expect(e.transcriptPath).toMatch(/agent-transcripts\/c0ffee00.*\.jsonl$/);
    expect(e.source).toBeUndefined();
  });

  it("beforeSubmitPrompt carries the prompt text", () => {
    expect(capture.normalize("prompt", payload("beforeSubmitPrompt")).prompt).toBe("Fix the bug in main.ts");
  });

  it("afterFileEdit is a writing tool that names the edited file", () => {
    const e = capture.normalize("tool", payload("afterFileEdit"));
    expect(e.tool).toMatchObject({ name: "Write", mayWrite: true, editedPaths: ["/work/project/src/main.ts"] });
    expect(e.transcriptPath).toBeUndefined(); // transcript_path null: transcripts disabled
  });

  it("afterShellExecution is a Shell tool with its command and output", () => {
    const e = capture.normalize("tool", payload("afterShellExecution"));
    expect(e.tool).toMatchObject({
      name: "Shell",
      input: { command: "npm test" },
      response: { output: "All tests passed", duration: 1234 },
      mayWrite: true,
      editedPaths: [],
    });
  });

  it("afterMCPExecution parses the JSON strings Cursor sends as input and result", () => {
    const e = capture.normalize("tool", payload("afterMCPExecution"));
    expect(e.tool).toMatchObject({ name: "MCP:database_query", input: { query: "SELECT 1" }, response: { rows: [[1]] }, mayWrite: true });
  });

  it("postToolUse for a Read is a tool that writes nothing", () => {
    const e = capture.normalize("tool", {
      ...payload("stop"),
      hook_event_name: "postToolUse",
      tool_name: "Read",
      tool_input: { file_path: "a.ts" },
      tool_output: "{}",
    });
    expect(e.tool).toMatchObject({ name: "Read", mayWrite: false });
  });

  it("stop, preCompact and sessionEnd keep their fields; preCompact gives the trigger", () => {
    expect(capture.normalize("stop", payload("stop")).raw["status"]).toBe("completed");
    expect(capture.normalize("pre-compact", payload("preCompact")).trigger).toBe("auto");
    const end = capture.normalize("session-end", payload("sessionEnd"));
    expect(end).toMatchObject({ sessionId: SESSION, cwd: "/work/project" });
    expect(end.raw["reason"]).toBe("completed");
  });

  it("reads own properties only: a __proto__ key stays data and inherited fields are not read", () => {
    const parsed = JSON.parse(`{"__proto__": {"conversation_id": "evil"}, "prompt": "hi"}`) as Record<string, unknown>;
    const e = capture.normalize("prompt", parsed);
    expect(e.sessionId).toBeUndefined();
    expect(Object.hasOwn(e.raw, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>)["conversation_id"]).toBeUndefined();
    const inherited = Object.create({ conversation_id: "inherited" }) as Record<string, unknown>;
    expect(capture.normalize("stop", inherited).sessionId).toBeUndefined();
  });
});

describe("Cursor hook output", () => {
  it("gives the session-start context as additional_context, and {} when there is none", () => {
    expect(JSON.parse(capture.output("session-start", "brief"))).toEqual({ additional_context: "brief" });
    expect(JSON.parse(capture.output("session-start", ""))).toEqual({});
  });

  it("lets every prompt through and never asks for a follow-up at stop", () => {
    expect(JSON.parse(capture.output("prompt", "anything"))).toEqual({ continue: true });
    for (const kind of ["tool", "stop", "pre-compact", "session-end"] as const) expect(JSON.parse(capture.output(kind, ""))).toEqual({});
  });
});

describe("Cursor transcript", () => {
  const write = (text: string) => {
    const path = join(dir.path, `${SESSION}.jsonl`);
    writeFileSync(path, text);
    return path;
  };

  it("reads every line as a valid conversation message, keyed and in order", () => {
    const { messages, cursor } = format.read(write(transcriptText), null);
    for (const [i, m] of messages.entries()) checkMessage(m.message, i);
    expect(messages.map((m) => m.message.role)).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant", "system", "user", "assistant"]);
    expect(new Set(messages.map((m) => m.key)).size).toBe(messages.length);
    expect(cursor["offset"]).toBe(Buffer.byteLength(transcriptText));
  });

  it("marks as prompts only the lines the user typed", () => {
    const { messages } = format.read(write(transcriptText), null);
    expect(messages.filter((m) => m.prompt).map((m) => JSON.stringify(m.message.content))).toEqual([
      expect.stringContaining("Fix the bug in main.ts"),
      expect.stringContaining("Now add a test"),
    ]);
  });

  it("pairs each tool result with its call, by id or, without one, with the oldest open call", () => {
    const { messages } = format.read(write(transcriptText), null);
    const calls = messages.flatMap((m) => m.message.toolCalls ?? []);
    const results = messages.filter((m) => m.message.role === "tool");
    expect(calls.map((c) => c.name)).toEqual(["Read", "Write"]);
    expect(results.map((r) => r.message.toolCallId)).toEqual([calls[0]?.id, "toolu_01"]);
    expect(results[1]?.message.extra).toEqual({ is_error: false });
  });

  it("keeps a record it does not know whole, as a host record", () => {
    const { messages } = format.read(write(transcriptText), null);
    const unknown = messages.find((m) => m.message.role === "system");
    expect(unknown?.message.content).toEqual([{ type: "host-record", host: "cursor", record: { type: "turn_ended" } }]);
  });

  it("reads incrementally: a half-written last line waits for the next read, and the reads add up to the whole", () => {
    const whole = format.read(write(transcriptText), null).messages;
    const cut = transcriptText.indexOf("tool_use_id"); // inside line 5
    const path = write(transcriptText.slice(0, cut));
    const first = format.read(path, null);
    expect(first.messages.map((m) => m.key)).toEqual(whole.slice(0, 4).map((m) => m.key));
    const again = format.read(path, first.cursor);
    expect(again.messages).toEqual([]);
    appendFileSync(path, transcriptText.slice(cut));
    const rest = format.read(path, again.cursor);
    const joined: CapturedMessage[] = [...first.messages, ...rest.messages];
    expect(joined).toEqual(whole);
  });

  it("names a missing transcript in its error", () => {
    const missing = join(dir.path, "nope.jsonl");
    expect(() => format.read(missing, null)).toThrow(missing);
  });

  it("refuses to cut: Cursor cannot resume a chat from its transcript", () => {
    const path = write(transcriptText);
    const before = readFileSync(path, "utf8");
    let err: unknown;
    try {
      format.cut(path, 1, { cwd: dir.path });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ForgeError);
    expect((err as ForgeError).code).toBe("UNSUPPORTED");
    expect(readFileSync(path, "utf8")).toBe(before);
  });

  it("finds the transcript from CURSOR_TRANSCRIPT_PATH when the payload names none", () => {
    vi.stubEnv("CURSOR_TRANSCRIPT_PATH", "/tmp/t.jsonl");
    expect(capture.locateTranscript?.(capture.normalize("stop", payload("afterFileEdit")))).toBe("/tmp/t.jsonl");
  });
});

describe("forge enable cursor", () => {
  const edits = config.edits("forge");
  const hooksFile = edits.find((e) => e.file === ".cursor/hooks.json");
  const ops: readonly JsonOp[] = hooksFile?.format === "json" ? hooksFile.ops : [];

  it("wires only documented hook events, each to `forge hook <kind> --host cursor`", () => {
    const appends = ops.filter((o) => o.op === "append");
    expect(appends.length).toBeGreaterThan(0);
    const kinds = new Set<string>();
    for (const op of appends) {
      const [root, event] = op.path;
      expect(root).toBe("hooks");
      expect(DOCUMENTED_EVENTS).toContain(event);
      const command = (op.value as { command: string }).command;
      expect(command).toMatch(/^forge hook (session-start|prompt|tool|stop|pre-compact|session-end) --host cursor$/);
      kinds.add(command.split(" ")[2] ?? "");
    }
    expect([...kinds].sort()).toEqual(["pre-compact", "prompt", "session-end", "session-start", "stop", "tool"]);
    expect(ops).toContainEqual({ op: "set", path: ["version"], value: 1 });
  });

  it("registers the MCP server in .cursor/mcp.json with the lean profile", () => {
    const mcp = edits.find((e) => e.file === ".cursor/mcp.json");
    expect(mcp).toEqual({
      file: ".cursor/mcp.json",
      format: "json",
      ops: [{ op: "set", path: ["mcpServers", "forge"], value: { command: "forge", args: ["mcp", "--profile", "lean"] } }],
    });
  });

  it("detects a project by its .cursor folder and names its documentation", () => {
    expect(config.detect).toContain(".cursor");
    expect(config.docs.every((d) => d.url.startsWith("https://cursor.com/docs/") && d.version !== "")).toBe(true);
  });
});
