// Claude Code's capture: its hook payloads as HostEvents, its JSONL transcript read whole and a
// piece at a time as it is written, and cut at a prompt into a new session `claude --resume`
// finds under the config folder.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ForgeError } from "../../src/core/errors.js";
import { capture } from "../../src/integrations/hosts/capture/claude-code.js";
import type { TranscriptFormat } from "../../src/integrations/hosts/types.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { bytesOf, copyFixture, everyLineAndHalf, expectPairsIntact, expectValid, hostRecords, readInSteps, readWhole, textOf } from "./transcript-support.js";

const HOST = "claude-code";
const FIXTURE = "session.jsonl";
const SESSION = "7c4e2a10-5b1d-4f3e-9a8c-2d6f0e1b3a47";
const format = capture.transcript as TranscriptFormat;

let dir: TempDir;
beforeEach(() => {
  dir = makeTempDir("claude-capture");
  vi.stubEnv("CLAUDE_CONFIG_DIR", join(dir.path, "claude-config"));
});
afterEach(() => {
  vi.unstubAllEnvs();
  dir.remove();
});

const common = {
  session_id: SESSION,
  transcript_path: "/home/dev/.claude/projects/-home-dev-kernel/s.jsonl",
  cwd: "/home/dev/kernel",
  permission_mode: "default",
};

describe("Claude Code hook payloads", () => {
  it("SessionStart gives the session, folder, transcript and source", () => {
    const e = capture.normalize("session-start", { ...common, hook_event_name: "SessionStart", source: "resume", model: "claude-sonnet-4-5" });
    expect(e).toMatchObject({
      host: HOST,
      kind: "session-start",
      sessionId: SESSION,
      cwd: "/home/dev/kernel",
      transcriptPath: common.transcript_path,
      source: "resume",
    });
  });

  it("UserPromptSubmit gives the prompt text", () => {
    expect(capture.normalize("prompt", { ...common, hook_event_name: "UserPromptSubmit", prompt: "Set it to 1" }).prompt).toBe("Set it to 1");
  });

  it("PostToolUse of Edit may write and names the file it edited", () => {
    const input = { file_path: "/home/dev/kernel/kernel.c", old_string: "2", new_string: "1" };
    const e = capture.normalize("tool", {
      ...common,
      hook_event_name: "PostToolUse",
      tool_name: "Edit",
      tool_input: input,
      tool_response: { filePath: input.file_path },
    });
    expect(e.tool).toEqual({ name: "Edit", input, response: { filePath: input.file_path }, mayWrite: true, editedPaths: ["/home/dev/kernel/kernel.c"] });
  });

  it("NotebookEdit names its notebook_path; Bash may write but names no file", () => {
    expect(capture.normalize("tool", { tool_name: "NotebookEdit", tool_input: { notebook_path: "a.ipynb" } }).tool?.editedPaths).toEqual(["a.ipynb"]);
    expect(capture.normalize("tool", { tool_name: "Bash", tool_input: { command: "rm x" } }).tool).toMatchObject({ mayWrite: true, editedPaths: [] });
  });

  it("reads and searches do not write; unknown and MCP tools may", () => {
    for (const name of ["Read", "Grep", "Glob", "LS", "WebFetch", "WebSearch", "TodoWrite"])
      expect(capture.normalize("tool", { tool_name: name }).tool?.mayWrite).toBe(false);
    for (const name of ["Task", "mcp__db__write", "SomethingNew"]) expect(capture.normalize("tool", { tool_name: name }).tool?.mayWrite).toBe(true);
  });

  it("PreCompact gives the trigger; Stop and SessionEnd carry only the common fields", () => {
    expect(capture.normalize("pre-compact", { ...common, trigger: "auto", custom_instructions: "" }).trigger).toBe("auto");
    const stop = capture.normalize("stop", { ...common, hook_event_name: "Stop", stop_hook_active: false });
    expect(stop).toMatchObject({ kind: "stop", sessionId: SESSION });
    expect(stop.tool).toBeUndefined();
    expect(capture.normalize("session-end", { ...common, reason: "prompt_input_exit" }).raw["reason"]).toBe("prompt_input_exit");
  });

  it("a __proto__ key in a payload stays data", () => {
    const payload = JSON.parse(
      '{"session_id":"s","__proto__":{"polluted":true},"tool_name":"Write","tool_input":{"file_path":"a","__proto__":{"x":1}}}',
    ) as Record<string, unknown>;
    const e = capture.normalize("tool", payload);
    expect(Object.hasOwn(e.raw, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.getPrototypeOf(e.raw)).toBe(Object.prototype);
    expect(e.tool?.editedPaths).toEqual(["a"]);
  });

  it("prints context as plain text at SessionStart and UserPromptSubmit, nothing elsewhere", () => {
    expect(capture.output("session-start", "brief")).toBe("brief");
    expect(capture.output("prompt", "note")).toBe("note");
    expect(capture.output("session-start", "")).toBe("");
    for (const kind of ["tool", "stop", "pre-compact", "session-end"] as const) expect(capture.output(kind, "x")).toBe("");
  });
});

describe("Claude Code transcript", () => {
  it("reads every complete line, one message per line keyed by its uuid, leaving the half-written last line", () => {
    const messages = readWhole(format, copyFixture(HOST, FIXTURE, dir.path));
    expectValid(messages);
    expect(messages).toHaveLength(21);
    expect(messages.filter((m) => m.prompt).map(textOf)).toEqual(["Why does scale come out doubled? Check kernel.c", "Set it to 1", "Now run the tests"]);
    expect(messages.map((m) => m.key)).not.toContain("00000013-1111-4a2b-8c3d-000000000013");
    expect(messages.find((m) => m.key === "00000002-1111-4a2b-8c3d-000000000002")?.at).toBe("2026-08-20T10:15:03.100Z");
  });

  it("maps thinking, tool calls and tool results, with is_error and the line's fields kept", () => {
    const messages = readWhole(format, copyFixture(HOST, FIXTURE, dir.path));
    const byKey = (n: number) =>
      messages.find((m) => m.key === `${n.toString(16).padStart(8, "0")}-1111-4a2b-8c3d-${n.toString(16).padStart(12, "0")}`)?.message;
    expect(byKey(2)?.content).toEqual([
      { type: "thinking", thinking: expect.stringContaining("find where scale is set"), signature: "EqQBCkgIBxABGAIiQFx2ZXJ5LXNpZ25lZC10aGlua2luZw==" },
    ]);
    expect(byKey(4)).toMatchObject({
      role: "assistant",
      content: null,
      toolCalls: [{ id: "toolu_01Bash", name: "Bash", arguments: { command: "grep -n scale kernel.c", description: "Find uses of scale" } }],
    });
    expect(byKey(5)).toMatchObject({ role: "tool", toolCallId: "toolu_01Bash", content: "1:int scale = 2;", extra: { is_error: false } });
    expect(byKey(5)?.extra?.["record"]).toMatchObject({
      toolUseResult: {
        stdout: "1:int scale = 2;",
        stderr: "",
        interrupted: false,
        isImage: false,
      },
    });
    expect(byKey(3)?.extra?.["message"]).toMatchObject({ id: "msg_01HZk3fixture" });
    expectPairsIntact(messages);
  });

  it("counts only typed prompts: commands, compaction summaries and meta messages are user messages but not prompts", () => {
    const messages = readWhole(format, copyFixture(HOST, FIXTURE, dir.path));
    const notPrompts = messages.filter((m) => m.message.role === "user" && !m.prompt).map(textOf);
    expect(notPrompts).toEqual([
      expect.stringMatching(/^<command-name>\/compact/),
      expect.stringMatching(/^This session is being continued/),
      expect.stringMatching(/^<local-command-caveat>/),
      expect.stringMatching(/^<local-command-stdout>/),
    ]);
  });

  it("keeps summary, snapshot, system and unknown lines whole as host records", () => {
    const records = hostRecords(readWhole(format, copyFixture(HOST, FIXTURE, dir.path)));
    expect(records.map((r) => `${r["type"]}${r["subtype"] ? `/${r["subtype"]}` : ""}`)).toEqual([
      "summary",
      "file-history-snapshot",
      "system/turn_duration",
      "system/compact_boundary",
      "queue-operation",
    ]);
    const path = join(dir.path, "future.jsonl");
    const future = { type: "x-future-record", uuid: "f1", payload: { a: [1, 2] } };
    writeFileSync(path, `${JSON.stringify(future)}\nnot json\n`);
    const [kept, broken] = readWhole(format, path);
    expect(kept?.message.content).toEqual([{ type: "host-record", host: HOST, record: future }]);
    expect(broken?.message.content).toEqual([{ type: "host-record", host: HOST, record: "not json", error: "not JSON" }]);
  });

  it("read a piece at a time as it is written, gives exactly what one read gives", () => {
    const path = copyFixture(HOST, FIXTURE, dir.path);
    const bytes = bytesOf(path);
    const whole = readWhole(format, path);
    expect(readInSteps(format, join(dir.path, "growing.jsonl"), bytes, everyLineAndHalf(bytes))).toEqual(whole);
  });

  it("reads a replaced file again from its start", () => {
    const path = copyFixture(HOST, FIXTURE, dir.path);
    const first = format.read(path, null);
    writeFileSync(path, `${JSON.stringify({ type: "summary", summary: "other", leafUuid: "x" })}\n`);
    const again = format.read(path, first.cursor);
    expect(again.reset).toBe(true);
    expect(hostRecords(again.messages)).toEqual([{ type: "summary", summary: "other", leafUuid: "x" }]);
  });

  it("a missing transcript is an error naming it", () => {
    const path = join(dir.path, "nope.jsonl");
    expect(() => format.read(path, null)).toThrow(ForgeError);
    expect(() => format.read(path, null)).toThrow(path);
    expect(() => format.cut(path, 1, { cwd: dir.path })).toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
  });
});

describe("Claude Code transcript cut", () => {
  it("writes the lines before prompt 2 under a new session id in the project's folder, leaving the original as it was", () => {
    const path = copyFixture(HOST, FIXTURE, dir.path);
    const before = createHash("sha256").update(readFileSync(path)).digest("hex");
    const project = join(dir.path, "my.project_x");
    mkdirSync(project);
    const cut = format.cut(path, 2, { cwd: project });
    expect(cut.path).toBe(join(dir.path, "claude-config", "projects", `${project.replace(/[^a-zA-Z0-9]/g, "-")}`, `${cut.sessionId}.jsonl`));
    expect(cut.resume).toBe(`claude --resume ${cut.sessionId}`);
    expect(cut.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const original = readFileSync(path, "utf8").split("\n").slice(0, 9);
    expect(readFileSync(cut.path, "utf8")).toBe(original.map((l) => `${l.split(SESSION).join(cut.sessionId)}\n`).join(""));
    expect(createHash("sha256").update(readFileSync(path)).digest("hex")).toBe(before);
    const read = readWhole(format, cut.path);
    expect(read.filter((m) => m.prompt).map(textOf)).toEqual(["Why does scale come out doubled? Check kernel.c"]);
  });

  it("cut before prompt 1 keeps only what came before the first prompt", () => {
    const cut = format.cut(copyFixture(HOST, FIXTURE, dir.path), 1, { cwd: dir.path });
    expect(hostRecords(readWhole(format, cut.path)).map((r) => r["type"])).toEqual(["file-history-snapshot"]);
  });

  it("drops a summary whose leaf is cut away (Claude Code would call the session missing)", () => {
    const path = join(dir.path, "s.jsonl");
    const user = (uuid: string, text: string) => ({ type: "user", uuid, sessionId: "old", message: { role: "user", content: text } });
    writeFileSync(
      path,
      [{ type: "summary", summary: "t", leafUuid: "u2" }, user("u1", "one"), user("u2", "two")].map((r) => `${JSON.stringify(r)}\n`).join(""),
    );
    const cut = format.cut(path, 2, { cwd: dir.path });
    expect(readFileSync(cut.path, "utf8")).toBe(`${JSON.stringify(user("u1", "one")).replace('"old"', JSON.stringify(cut.sessionId))}\n`);
  });

  it("refuses a prompt the session does not have, or one that is not a number ≥ 1", () => {
    const path = copyFixture(HOST, FIXTURE, dir.path);
    expect(() => format.cut(path, 4, { cwd: dir.path })).toThrow(/has 3 prompts/);
    expect(() => format.cut(path, 0, { cwd: dir.path })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });

  it("locates a transcript from the session id and folder when the payload names none", () => {
    const project = join(dir.path, "proj");
    mkdirSync(project);
    const cut = format.cut(copyFixture(HOST, FIXTURE, dir.path), 2, { cwd: project });
    const event = capture.normalize("stop", { session_id: cut.sessionId, cwd: project });
    expect(capture.locateTranscript?.(event)).toBe(cut.path);
    expect(capture.locateTranscript?.(capture.normalize("stop", { session_id: "nope", cwd: project }))).toBeUndefined();
  });
});
