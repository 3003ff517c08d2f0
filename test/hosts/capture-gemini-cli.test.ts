// Gemini CLI's capture: its hook payloads as HostEvents, its chat files (the JSONL log of 0.39
// and later, and the single JSON document before it) read whole and a piece at a time as they
// grow, and cut at a prompt into a new chat file `gemini --resume` finds.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ForgeError } from "../../src/core/errors.js";
import { capture } from "../../src/integrations/hosts/capture/gemini-cli.js";
import type { CapturedMessage, TranscriptCursor, TranscriptFormat } from "../../src/integrations/hosts/types.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import {
  bytesOf,
  copyFixture,
  everyLineAndHalf,
  expectPairsIntact,
  expectValid,
  fixture,
  hostRecords,
  readInSteps,
  readWhole,
  textOf,
} from "./transcript-support.js";

const HOST = "gemini-cli";
const SESSION = "3f9a2c1d-8e4b-4c2a-b1d0-7a6e5f4c3b2a";
const LOG = "session-2026-08-20T10-15-3f9a2c1d.jsonl";
const DOC = "session-2026-03-02T09-00-5d2e1f30.json";
const format = capture.transcript as TranscriptFormat;
const PROMPTS = ["Why does scale come out doubled? Check kernel.c", "Set it to 1", "Now run the tests"];

let dir: TempDir;
beforeEach(() => {
  dir = makeTempDir("gemini-capture");
  vi.stubEnv("GEMINI_CLI_HOME", join(dir.path, "home"));
});
afterEach(() => {
  vi.unstubAllEnvs();
  dir.remove();
});

const common = {
  session_id: SESSION,
  transcript_path: "/home/dev/.gemini/tmp/kernel/chats/s.jsonl",
  cwd: "/home/dev/kernel",
  timestamp: "2026-08-20T10:15:00.000Z",
};

describe("Gemini CLI hook payloads", () => {
  it("SessionStart gives the session, folder, chat file and source", () => {
    const e = capture.normalize("session-start", { ...common, hook_event_name: "SessionStart", source: "startup" });
    expect(e).toMatchObject({ host: HOST, sessionId: SESSION, cwd: "/home/dev/kernel", transcriptPath: common.transcript_path, source: "startup" });
  });

  it("BeforeAgent gives the prompt; an empty transcript_path (no recording) is left out", () => {
    const e = capture.normalize("prompt", { ...common, transcript_path: "", hook_event_name: "BeforeAgent", prompt: "Set it to 1" });
    expect(e.prompt).toBe("Set it to 1");
    expect(e).not.toHaveProperty("transcriptPath");
  });

  it("AfterTool of replace and write_file names the file; run_shell_command may write; reads do not", () => {
    const response = { llmContent: "ok", returnDisplay: "ok" };
    const e = capture.normalize("tool", {
      ...common,
      hook_event_name: "AfterTool",
      tool_name: "replace",
      tool_input: { file_path: "kernel.c", old_string: "2", new_string: "1" },
      tool_response: response,
    });
    expect(e.tool).toMatchObject({ name: "replace", response, mayWrite: true, editedPaths: ["kernel.c"] });
    expect(capture.normalize("tool", { tool_name: "write_file", tool_input: { file_path: "/a/b.txt", content: "x" } }).tool?.editedPaths).toEqual(["/a/b.txt"]);
    expect(capture.normalize("tool", { tool_name: "run_shell_command", tool_input: { command: "rm x" } }).tool).toMatchObject({
      mayWrite: true,
      editedPaths: [],
    });
    for (const name of ["read_file", "list_directory", "search_file_content", "grep_search", "glob", "google_web_search", "web_fetch"]) {
      expect(capture.normalize("tool", { tool_name: name }).tool?.mayWrite).toBe(false);
    }
    expect(capture.normalize("tool", { tool_name: "mcp_db_insert" }).tool?.mayWrite).toBe(true);
  });

  it("PreCompress gives the trigger", () => {
    expect(capture.normalize("pre-compact", { ...common, hook_event_name: "PreCompress", trigger: "auto" }).trigger).toBe("auto");
  });

  it("a __proto__ key in a payload stays data", () => {
    const e = capture.normalize("tool", JSON.parse('{"tool_name":"read_file","__proto__":{"polluted":true}}') as Record<string, unknown>);
    expect(Object.hasOwn(e.raw, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("always prints one JSON object, with context as hookSpecificOutput.additionalContext where the event takes it", () => {
    expect(JSON.parse(capture.output("session-start", "brief"))).toEqual({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "brief" } });
    expect(JSON.parse(capture.output("prompt", "note"))).toEqual({ hookSpecificOutput: { hookEventName: "BeforeAgent", additionalContext: "note" } });
    expect(JSON.parse(capture.output("tool", "t"))).toEqual({ hookSpecificOutput: { hookEventName: "AfterTool", additionalContext: "t" } });
    for (const kind of ["session-start", "stop", "pre-compact", "session-end"] as const) expect(capture.output(kind, "")).toBe("{}");
    expect(capture.output("stop", "ignored")).toBe("{}");
  });
});

/** The shape of the fixture's conversation: what both chat file formats must give. */
function expectFixtureConversation(messages: readonly CapturedMessage[]): void {
  expectValid(messages);
  expectPairsIntact(messages);
  expect(messages.filter((m) => m.prompt).map(textOf)).toEqual(PROMPTS);
  const calls = messages.flatMap((m) => m.message.toolCalls ?? []);
  expect(calls.map((c) => [c.name, c.arguments])).toEqual([
    ["run_shell_command", { command: "grep -n scale kernel.c", description: "Find uses of scale" }],
    ["replace", { file_path: "/home/dev/kernel/kernel.c", instruction: "Set scale to 1", old_string: "int scale = 2;", new_string: "int scale = 1;" }],
  ]);
  const results = messages.filter((m) => m.message.role === "tool");
  expect(results.map((m) => m.message.toolCallId)).toEqual(calls.map((c) => c.id));
  expect(textOf(results[1] as CapturedMessage)).toBe("Successfully modified file: /home/dev/kernel/kernel.c (1 replacements).");
  expect(results[0]?.message.extra).toMatchObject({ status: "success", resultDisplay: "1:int scale = 2;" });
  const thinking = messages.filter((m) => Array.isArray(m.message.content) && m.message.content[0]?.type === "thinking");
  expect(thinking.map((m) => (m.message.content as unknown as { thinking: string }[])[0]?.thinking)).toEqual([
    "I should find where scale is set before changing it.",
    "A one-line replace in kernel.c is enough.",
  ]);
}

describe("Gemini CLI chat log (JSONL, 0.39 and later)", () => {
  it("reads the log: prompts, thinking, tool calls with their results, the half-written record left", () => {
    const messages = readWhole(format, copyFixture(HOST, LOG, dir.path));
    expectFixtureConversation(messages);
    expect(messages.filter((m) => m.message.role === "user" && !m.prompt).map(textOf)).toEqual(["/compress"]);
    expect(messages.map((m) => m.key)).not.toContain("6b1e0c52-0d1f-4a8e-9c3b-1f2e3d4c5b06");
  });

  it("keeps metadata, $set (the /compress checkpoint too), info and tool-response records whole", () => {
    const records = hostRecords(readWhole(format, copyFixture(HOST, LOG, dir.path)));
    expect(records[0]).toMatchObject({ sessionId: SESSION, projectHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(records.filter((r) => r["type"] === "info").map((r) => r["content"])).toEqual(["Chat history compressed from 18234 to 2410 tokens."]);
    expect(records.filter((r) => r["type"] === "user")).toHaveLength(2);
    const checkpoint = records.find((r) => Array.isArray((r["$set"] as Record<string, unknown> | undefined)?.["messages"]));
    expect(checkpoint?.["$set"]).toMatchObject({ messages: [expect.anything(), expect.anything()] });
    expect(records.filter((r) => r["$set"] !== undefined)).toHaveLength(12);
  });

  it("read a piece at a time as it is written (a record appended again as it grows), gives exactly what one read gives", () => {
    const path = copyFixture(HOST, LOG, dir.path);
    const bytes = bytesOf(path);
    expect(readInSteps(format, join(dir.path, "growing.jsonl"), bytes, everyLineAndHalf(bytes))).toEqual(readWhole(format, path));
  });

  it("a message whose tool call is still running is held back until the call ends", () => {
    const path = join(dir.path, "s.jsonl");
    const g = (status: string) => ({
      id: "g1",
      type: "gemini",
      content: "Running it.",
      toolCalls: [
        {
          id: "c1",
          name: "run_shell_command",
          args: { command: "make" },
          status,
          ...(status === "success" && { result: [{ functionResponse: { id: "c1", name: "run_shell_command", response: { output: "ok" } } }] }),
        },
      ],
    });
    writeFileSync(path, `${JSON.stringify(g("executing"))}\n`);
    const first = format.read(path, null);
    expect(first.messages.map((m) => m.key)).toEqual(["g1"]);
    writeFileSync(path, `${JSON.stringify(g("executing"))}\n${JSON.stringify(g("success"))}\n`);
    expect(format.read(path, first.cursor).messages.map((m) => [m.key, textOf(m)])).toEqual([
      ["g1#call:c1", ""],
      ["g1#result:c1", "ok"],
    ]);
  });

  it("a missing chat file is an error naming it", () => {
    for (const name of ["nope.jsonl", "nope.json"]) {
      const path = join(dir.path, name);
      expect(() => format.read(path, null)).toThrow(ForgeError);
      expect(() => format.read(path, null)).toThrow(path);
    }
  });
});

describe("Gemini CLI chat document (before 0.39)", () => {
  it("reads the document to the same conversation", () => {
    const messages = readWhole(format, copyFixture(HOST, DOC, dir.path));
    expectFixtureConversation(messages);
    expect(hostRecords(messages)[0]).toMatchObject({ sessionId: "5d2e1f30-2222-4ccc-9ddd-0123456789ab" });
  });

  it("read as it is rewritten, message by message and a tool call added to the last one, gives what one read gives", () => {
    const doc = JSON.parse(readFileSync(fixture(HOST, DOC), "utf8")) as { messages: Record<string, unknown>[] };
    const path = join(dir.path, "growing.json");
    let cursor: TranscriptCursor | null = null;
    const got: CapturedMessage[] = [];
    const step = (messages: unknown[], text = `${JSON.stringify({ ...doc, messages }, null, 2)}\n`) => {
      writeFileSync(path, text);
      const r = format.read(path, cursor);
      expect(r.reset ?? false).toBe(false);
      got.push(...r.messages);
      cursor = r.cursor;
    };
    doc.messages.forEach((m, i) => {
      const before = doc.messages.slice(0, i);
      if (m["toolCalls"] !== undefined) step([...before, { ...m, toolCalls: undefined }]);
      step([...before, m], i === 3 ? JSON.stringify({ ...doc, messages: [...before, m] }).slice(0, 200) : undefined); // half-written: nothing yet
      if (i === 3) step([...before, m]);
    });
    expect(got).toEqual(readWhole(format, copyFixture(HOST, DOC, dir.path)));
  });

  it("a rewrite that shortened the document is read again from its start", () => {
    const path = copyFixture(HOST, DOC, dir.path);
    const first = format.read(path, null);
    const doc = JSON.parse(readFileSync(path, "utf8")) as { messages: unknown[] };
    writeFileSync(path, JSON.stringify({ ...doc, messages: doc.messages.slice(0, 2) }));
    const again = format.read(path, first.cursor);
    expect(again.reset).toBe(true);
    expect(again.messages.filter((m) => m.prompt).map(textOf)).toEqual([PROMPTS[0]]);
  });
});

describe("Gemini CLI chat cut and lookup", () => {
  it("writes the records before prompt 2 as a new chat file in the same chats folder, under a new session id", () => {
    const path = copyFixture(HOST, LOG, dir.path);
    const original = readFileSync(path, "utf8");
    const cut = format.cut(path, 2, { cwd: "/home/dev/kernel" });
    expect(dirname(cut.path)).toBe(dir.path);
    expect(basename(cut.path)).toMatch(new RegExp(`^session-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-${cut.sessionId.slice(0, 8)}\\.jsonl$`));
    expect(cut.resume).toBe(`gemini --resume ${cut.sessionId}`);
    const before = original.split("\n").slice(0, 10);
    const written = readFileSync(cut.path, "utf8").split("\n");
    expect(written).toEqual([before[0]?.replace(SESSION, cut.sessionId), ...before.slice(1), ""]);
    expect(readFileSync(path, "utf8")).toBe(original);
    expect(
      readWhole(format, cut.path)
        .filter((m) => m.prompt)
        .map(textOf),
    ).toEqual([PROMPTS[0]]);
  });

  it("gives a resumed session's $set of sessionId the new id too", () => {
    const path = join(dir.path, "session-2026-08-20T10-15-aaaaaaaa.jsonl");
    const lines = [
      { sessionId: "old", projectHash: "h", startTime: "t", lastUpdated: "t" },
      { id: "u1", timestamp: "t", type: "user", content: [{ text: "one" }] },
      { $set: { sessionId: "old" } },
      { id: "u2", timestamp: "t", type: "user", content: [{ text: "two" }] },
    ];
    writeFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
    const cut = format.cut(path, 2, { cwd: dir.path });
    const written = readFileSync(cut.path, "utf8").trim().split("\n");
    expect(written).toEqual([lines[0], lines[1], lines[2]].map((l) => JSON.stringify(l).replace('"old"', JSON.stringify(cut.sessionId))));
  });

  it("cuts a pre-0.39 document into a document", () => {
    const cut = format.cut(copyFixture(HOST, DOC, dir.path), 3, { cwd: "/home/dev/kernel" });
    expect(cut.path.endsWith(`-${cut.sessionId.slice(0, 8)}.json`)).toBe(true);
    const doc = JSON.parse(readFileSync(cut.path, "utf8")) as { sessionId: string; messages: unknown[] };
    expect(doc.sessionId).toBe(cut.sessionId);
    expect(doc.messages).toHaveLength(7);
  });

  it("refuses to cut before the first prompt (Gemini CLI does not resume a session without one) or past the last", () => {
    const path = copyFixture(HOST, LOG, dir.path);
    expect(() => format.cut(path, 1, { cwd: dir.path })).toThrow(/does not resume a session without a prompt/);
    expect(() => format.cut(path, 4, { cwd: dir.path })).toThrow(/has 3 prompts/);
  });

  it("finds a chat file by session id under GEMINI_CLI_HOME/.gemini/tmp/<project>/chats", () => {
    const chats = join(dir.path, "home", ".gemini", "tmp", "kernel", "chats");
    mkdirSync(chats, { recursive: true });
    const path = copyFixture(HOST, LOG, chats);
    copyFixture(HOST, DOC, chats);
    expect(capture.locateTranscript?.(capture.normalize("stop", { session_id: SESSION }))).toBe(path);
    expect(capture.locateTranscript?.(capture.normalize("stop", { session_id: "5d2e1f30-2222-4ccc-9ddd-0123456789ab" }))).toBe(join(chats, DOC));
    expect(capture.locateTranscript?.(capture.normalize("stop", { session_id: "3f9a2c1d-0000-4000-8000-000000000000" }))).toBeUndefined();
  });
});
