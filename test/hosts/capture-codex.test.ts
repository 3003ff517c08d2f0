// Codex's capture: its hook payloads as HostEvents, its rollout read whole and a piece at a time
// as it is written, found under $CODEX_HOME when a payload names none, and cut at a prompt into a
// new rollout `codex resume` finds.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ForgeError } from "../../src/core/errors.js";
import { capture } from "../../src/integrations/hosts/capture/codex.js";
import type { TranscriptFormat } from "../../src/integrations/hosts/types.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { bytesOf, copyFixture, everyLineAndHalf, expectPairsIntact, expectValid, hostRecords, readInSteps, readWhole, textOf } from "./transcript-support.js";

const HOST = "codex";
const THREAD = "0198c3a2-7f10-7b3e-9d2a-5c4e8f1a2b3c";
const FIXTURE = `rollout-2026-08-20T10-15-00-${THREAD}.jsonl`;
const format = capture.transcript as TranscriptFormat;

let dir: TempDir;
let codexHome: string;
beforeEach(() => {
  dir = makeTempDir("codex-capture");
  codexHome = join(dir.path, "codex-home");
  vi.stubEnv("CODEX_HOME", codexHome);
});
afterEach(() => {
  vi.unstubAllEnvs();
  dir.remove();
});

const common = {
  session_id: THREAD,
  turn_id: "t1",
  transcript_path: "/home/dev/.codex/sessions/2026/08/20/r.jsonl",
  cwd: "/home/dev/kernel",
  model: "gpt-5-codex",
  permission_mode: "default",
};

describe("Codex hook payloads", () => {
  it("SessionStart gives the thread id, folder, rollout path and source", () => {
    const e = capture.normalize("session-start", { ...common, hook_event_name: "SessionStart", source: "compact" });
    expect(e).toMatchObject({ host: HOST, sessionId: THREAD, cwd: "/home/dev/kernel", transcriptPath: common.transcript_path, source: "compact" });
  });

  it("a null transcript_path is left out", () => {
    expect(capture.normalize("prompt", { ...common, transcript_path: null, prompt: "hi" })).not.toHaveProperty("transcriptPath");
    expect(capture.normalize("prompt", { ...common, transcript_path: null, prompt: "hi" }).prompt).toBe("hi");
  });

  it("PostToolUse of apply_patch names every file the patch touches", () => {
    const patch =
      "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** Update File: src/b.c\n*** Move to: src/c.c\n@@\n-x\n+y\n*** Delete File: old.txt\n*** End Patch\n";
    const e = capture.normalize("tool", {
      ...common,
      hook_event_name: "PostToolUse",
      tool_name: "apply_patch",
      tool_use_id: "call_1",
      tool_input: { command: patch },
      tool_response: "Success",
    });
    expect(e.tool).toEqual({
      name: "apply_patch",
      id: "call_1",
      input: { command: patch },
      response: "Success",
      mayWrite: true,
      editedPaths: ["a.txt", "src/b.c", "src/c.c", "old.txt"],
    });
  });

  it("Bash and MCP tools may write; view_image and web_search do not", () => {
    expect(capture.normalize("tool", { tool_name: "Bash", tool_input: { command: "touch x" } }).tool).toMatchObject({ mayWrite: true, editedPaths: [] });
    expect(capture.normalize("tool", { tool_name: "mcp__fs__write" }).tool?.mayWrite).toBe(true);
    expect(capture.normalize("tool", { tool_name: "view_image" }).tool?.mayWrite).toBe(false);
  });

  it("PreCompact gives the trigger", () => {
    expect(capture.normalize("pre-compact", { ...common, hook_event_name: "PreCompact", trigger: "manual" }).trigger).toBe("manual");
  });

  it("a __proto__ key in a payload stays data", () => {
    const e = capture.normalize("prompt", JSON.parse('{"prompt":"p","__proto__":{"polluted":true}}') as Record<string, unknown>);
    expect(Object.hasOwn(e.raw, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("gives context as hookSpecificOutput.additionalContext (JSON-looking plain text would fail the hook), nothing when there is none", () => {
    expect(JSON.parse(capture.output("session-start", "{brief}"))).toEqual({
      hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "{brief}" },
    });
    expect(JSON.parse(capture.output("prompt", "note"))).toEqual({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "note" } });
    expect(capture.output("session-start", "")).toBe("");
    expect(capture.output("stop", "x")).toBe("");
  });
});

describe("Codex rollout", () => {
  it("reads every complete line: model-visible items mapped, typed prompts counted, the half-written line left", () => {
    const messages = readWhole(format, copyFixture(HOST, FIXTURE, dir.path));
    expectValid(messages);
    expect(messages).toHaveLength(26);
    expect(messages.filter((m) => m.prompt).map(textOf)).toEqual(["Why does scale come out doubled? Check kernel.c", "Set it to 1", "Now run the tests"]);
    expect(messages.filter((m) => m.message.role === "user" && !m.prompt).map((m) => textOf(m).split("\n")[0])).toEqual([
      "# AGENTS.md instructions for /home/dev/kernel",
      "<environment_context>",
    ]);
    expect(messages.every((m) => typeof m.at === "string")).toBe(true);
  });

  it("maps reasoning, function and custom tool calls and their outputs, in pairs", () => {
    const messages = readWhole(format, copyFixture(HOST, FIXTURE, dir.path)).map((m) => m.message);
    expect(messages.find((m) => Array.isArray(m.content) && m.content[0]?.type === "thinking")?.content).toEqual([
      expect.objectContaining({
        type: "thinking",
        thinking: expect.stringContaining("grep for scale"),
        encrypted_content: "gAAAAABoFixtureEncryptedReasoning==",
      }),
    ]);
    expect(messages.find((m) => m.toolCalls?.[0]?.name === "shell_command")?.toolCalls).toEqual([
      { id: "call_8bXk2Qf1", name: "shell_command", arguments: { command: "grep -n scale kernel.c", workdir: "/home/dev/kernel" } },
    ]);
    expect(messages.find((m) => m.toolCalls?.[0]?.name === "apply_patch")?.toolCalls?.[0]?.arguments).toEqual({
      input: expect.stringContaining("*** Update File: kernel.c"),
    });
    expect(messages.filter((m) => m.role === "tool").map((m) => m.toolCallId)).toEqual(["call_8bXk2Qf1", "call_patch1"]);
    expect(messages.find((m) => m.role === "system" && m.additionalKwargs?.["__openai_role__"] === "developer")).toBeDefined();
    expectPairsIntact(readWhole(format, copyFixture(HOST, FIXTURE, dir.path)));
  });

  it("keeps session_meta, turn_context, event_msg, compacted, web search and unknown lines whole", () => {
    const records = hostRecords(readWhole(format, copyFixture(HOST, FIXTURE, dir.path)));
    const kinds = records.map((r) => `${r["type"]}/${(r["payload"] as Record<string, unknown>)["type"] ?? ""}`);
    expect(kinds).toEqual([
      "session_meta/",
      "turn_context/",
      "event_msg/user_message",
      "event_msg/agent_message",
      "event_msg/token_count",
      "turn_context/",
      "event_msg/user_message",
      "response_item/web_search_call",
      "compacted/",
      "event_msg/context_compacted",
      "inter_agent_communication_metadata/",
      "turn_context/",
      "event_msg/user_message",
    ]);
  });

  it("read a piece at a time as it is written, gives exactly what one read gives", () => {
    const path = copyFixture(HOST, FIXTURE, dir.path);
    const bytes = bytesOf(path);
    expect(readInSteps(format, join(dir.path, "growing.jsonl"), bytes, everyLineAndHalf(bytes))).toEqual(readWhole(format, path));
  });

  it("a missing rollout is an error naming it", () => {
    const path = join(dir.path, "rollout-x.jsonl");
    expect(() => format.read(path, null)).toThrow(ForgeError);
    expect(() => format.read(path, null)).toThrow(path);
  });
});

describe("Codex rollout cut and lookup", () => {
  it("writes the lines before prompt 2 as a new rollout under $CODEX_HOME/sessions/YYYY/MM/DD with the new id in session_meta", () => {
    const path = copyFixture(HOST, FIXTURE, dir.path);
    const original = readFileSync(path, "utf8");
    const cut = format.cut(path, 2, { cwd: "/home/dev/kernel" });
    const now = new Date();
    const day = join(codexHome, "sessions", String(now.getFullYear()), String(now.getMonth() + 1).padStart(2, "0"), String(now.getDate()).padStart(2, "0"));
    expect(cut.path.startsWith(`${day}/rollout-`)).toBe(true);
    expect(basename(cut.path)).toMatch(new RegExp(`^rollout-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-${cut.sessionId}\\.jsonl$`));
    expect(cut.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(cut.resume).toBe(`codex resume ${cut.sessionId}`);
    const before = original.split("\n").slice(0, 14);
    const written = readFileSync(cut.path, "utf8").split("\n");
    expect(written).toHaveLength(15);
    expect(written[0]).toBe(before[0]?.replace(`"id":"${THREAD}"`, `"id":"${cut.sessionId}"`));
    expect(written.slice(1, 14)).toEqual(before.slice(1));
    expect(readFileSync(path, "utf8")).toBe(original);
    expect(capture.locateTranscript?.(capture.normalize("stop", { session_id: cut.sessionId }))).toBe(cut.path);
  });

  it("finds a rollout by thread id in the dated folders, and nothing for an unknown one", () => {
    const folder = join(codexHome, "sessions", "2026", "08", "20");
    mkdirSync(folder, { recursive: true });
    const path = copyFixture(HOST, FIXTURE, folder);
    mkdirSync(join(codexHome, "sessions", "2026", "08", "21"), { recursive: true });
    expect(capture.locateTranscript?.(capture.normalize("stop", { session_id: THREAD }))).toBe(path);
    expect(capture.locateTranscript?.(capture.normalize("stop", { session_id: "0198c3a2-0000-7000-8000-000000000000" }))).toBeUndefined();
  });

  it("refuses a prompt the rollout does not have, and a file without session_meta", () => {
    const path = copyFixture(HOST, FIXTURE, dir.path);
    expect(() => format.cut(path, 4, { cwd: dir.path })).toThrow(/has 3 prompts/);
    const bare = join(dir.path, "bare.jsonl");
    writeFileSync(
      bare,
      `${JSON.stringify({ timestamp: "t", type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "a" }] } })}\n`.repeat(
        2,
      ),
    );
    expect(() => format.cut(bare, 2, { cwd: dir.path })).toThrow(/no session_meta/);
  });
});
