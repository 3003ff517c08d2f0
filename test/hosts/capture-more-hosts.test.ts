// Factory Droid, Windsurf, Cline and Kiro as Forge captures them: each host's documented hook
// payloads normalized (session, folder, prompt, tool with the paths an edit names, whether it
// may write), what each host reads on stdout, the conversation a payload carries when no
// transcript can be read, and the session Forge keeps for Kiro, whose payloads name none.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { checkMessage } from "../../src/domains/conversation/model.js";
import { capture as cline } from "../../src/integrations/hosts/capture/cline.js";
import { capture as droid } from "../../src/integrations/hosts/capture/factory-droid.js";
import { capture as kiro } from "../../src/integrations/hosts/capture/kiro.js";
import { capture as windsurf } from "../../src/integrations/hosts/capture/windsurf.js";
import { implicitSessionId } from "../../src/integrations/hosts/implicit-session.js";
import type { CapturedMessage, HostEvent } from "../../src/integrations/hosts/types.js";
import { makeTempDir, type TempDir } from "../support/temp.js";

const W = "/work/project";

describe("Factory Droid payloads (docs.factory.ai hooks reference)", () => {
  const common = { session_id: "abc123", transcript_path: "/home/u/.factory/projects/-work-project/abc123.jsonl", cwd: W, permission_mode: "off" };

  it("UserPromptSubmit names the session, the folder, the transcript path and the prompt", () => {
    const e = droid.normalize("prompt", { ...common, hook_event_name: "UserPromptSubmit", prompt: "Write a factorial function" });
    expect(e).toMatchObject({
      host: "factory-droid",
      sessionId: "abc123",
      cwd: W,
      transcriptPath: common.transcript_path,
      prompt: "Write a factorial function",
    });
  });

  it("PostToolUse: Create writes its file_path, Execute may write, Read does not", () => {
    const create = droid.normalize("tool", {
      ...common,
      hook_event_name: "PostToolUse",
      tool_name: "Create",
      tool_input: { file_path: "/work/project/a.txt", content: "x" },
      tool_response: { filePath: "/work/project/a.txt", success: true },
    });
    expect(create.tool).toMatchObject({ name: "Create", mayWrite: true, editedPaths: ["/work/project/a.txt"], response: { success: true } });
    expect(droid.normalize("tool", { ...common, tool_name: "Execute", tool_input: { command: "rm x" } }).tool).toMatchObject({
      mayWrite: true,
      editedPaths: [],
    });
    expect(droid.normalize("tool", { ...common, tool_name: "Read", tool_input: { file_path: "a" } }).tool).toMatchObject({ mayWrite: false, editedPaths: [] });
    const patch = { input: "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch" };
    expect(droid.normalize("tool", { ...common, tool_name: "ApplyPatch", tool_input: patch }).tool?.editedPaths).toEqual(["src/a.ts"]);
  });

  it("SessionStart gives its source, PreCompact its trigger; stdout is text for the context at SessionStart only", () => {
    expect(droid.normalize("session-start", { ...common, source: "resume" }).source).toBe("resume");
    expect(droid.normalize("pre-compact", { ...common, trigger: "auto", custom_instructions: "" }).trigger).toBe("auto");
    expect(droid.output("session-start", "brief")).toBe("brief");
    expect(droid.output("prompt", "brief")).toBe("");
    expect(droid.transcript).toBeUndefined();
  });
});

describe("Windsurf payloads (docs.windsurf.com Cascade hooks)", () => {
  const common = { trajectory_id: "traj-1", execution_id: "exec-1", timestamp: "2026-11-20T10:00:00Z" };

  it("pre_user_prompt carries the prompt in tool_info.user_prompt; the trajectory is the session", () => {
    expect(windsurf.normalize("prompt", { ...common, agent_action_name: "pre_user_prompt", tool_info: { user_prompt: "run echo hello" } })).toMatchObject({
      host: "windsurf",
      sessionId: "traj-1",
      prompt: "run echo hello",
    });
  });

  it("post_write_code names its file, post_run_command and post_mcp_tool_use may write, post_read_code does not", () => {
    const write = windsurf.normalize("tool", {
      ...common,
      agent_action_name: "post_write_code",
      tool_info: { file_path: "/p/file.py", edits: [{ old_string: "import os", new_string: "import os\nimport sys" }] },
    });
    expect(write.tool).toMatchObject({ name: "write_code", mayWrite: true, editedPaths: ["/p/file.py"] });
    const cmd = windsurf.normalize("tool", { ...common, agent_action_name: "post_run_command", tool_info: { command_line: "npm install x", cwd: "/p" } });
    expect(cmd.tool).toMatchObject({ name: "run_command", input: { command_line: "npm install x", cwd: "/p" }, mayWrite: true });
    const mcp = windsurf.normalize("tool", {
      ...common,
      agent_action_name: "post_mcp_tool_use",
      tool_info: { mcp_server_name: "github", mcp_tool_name: "list_commits", mcp_tool_arguments: { repo: "r" }, mcp_result: "..." },
    });
    expect(mcp.tool).toMatchObject({ name: "mcp:github/list_commits", input: { repo: "r" }, response: "...", mayWrite: true });
    expect(windsurf.normalize("tool", { ...common, agent_action_name: "post_read_code", tool_info: { file_path: "/p/a" } }).tool?.mayWrite).toBe(false);
  });

  it("post_cascade_response's reply becomes the assistant's message; Cascade reads no stdout", () => {
    const e = windsurf.normalize("stop", { ...common, agent_action_name: "post_cascade_response", tool_info: { response: "### Planner Response\n\nDone." } });
    const said = windsurf.payloadMessages?.(e, "hook:stop:4") ?? [];
    expect(said.map((m) => [m.key, m.message.role, m.message.content])).toEqual([["hook:stop:4", "assistant", "### Planner Response\n\nDone."]]);
    expect(windsurf.output("session-start", "brief")).toBe("");
  });
});

describe("Cline payloads (docs.cline.bot hook reference)", () => {
  const base = { clineVersion: "3.36.0", timestamp: "1763632800000", taskId: "task-1", workspaceRoots: [W, "/other"], userId: "u" };

  it("UserPromptSubmit: the task is the session, the first workspace root the folder", () => {
    expect(cline.normalize("prompt", { ...base, hookName: "UserPromptSubmit", userPromptSubmit: { prompt: "Add tests", attachments: [] } })).toMatchObject({
      sessionId: "task-1",
      cwd: W,
      prompt: "Add tests",
    });
  });

  it("PostToolUse: write_to_file names its path, execute_command may write, read_file does not", () => {
    const post = (toolName: string, parameters: unknown) =>
      cline.normalize("tool", { ...base, hookName: "PostToolUse", postToolUse: { toolName, parameters, result: "ok", success: true, executionTimeMs: 3 } })
        .tool;
    expect(post("write_to_file", { path: "src/a.ts", content: "x" })).toMatchObject({
      mayWrite: true,
      editedPaths: ["src/a.ts"],
      response: { result: "ok", success: true, executionTimeMs: 3 },
    });
    expect(post("execute_command", { command: "npm test" })).toMatchObject({ mayWrite: true, editedPaths: [] });
    expect(post("read_file", { path: "a" })).toMatchObject({ mayWrite: false });
  });

  it("TaskStart starts and TaskResume resumes; every answer is the JSON Cline reads, context as contextModification", () => {
    expect(cline.normalize("session-start", { ...base, hookName: "TaskStart" }).source).toBe("startup");
    expect(cline.normalize("session-start", { ...base, hookName: "TaskResume" }).source).toBe("resume");
    expect(JSON.parse(cline.output("tool", ""))).toEqual({ cancel: false });
    expect(JSON.parse(cline.output("session-start", "brief"))).toEqual({ cancel: false, contextModification: "brief" });
  });
});

describe("Kiro payloads (kiro.dev CLI hooks; IDE USER_PROMPT)", () => {
  beforeEach(() => vi.stubEnv("USER_PROMPT", undefined));
  afterEach(() => vi.unstubAllEnvs());

  it("the CLI's userPromptSubmit carries the prompt and cwd, and names no session", () => {
    const e = kiro.normalize("prompt", { hook_event_name: "userPromptSubmit", cwd: W, prompt: "fix it" });
    expect(e).toMatchObject({ host: "kiro", cwd: W, prompt: "fix it" });
    expect(e.sessionId).toBeUndefined();
    expect(kiro.implicitSession).toBe(true);
  });

  it("the IDE's prompt comes from USER_PROMPT when there is no payload", () => {
    vi.stubEnv("USER_PROMPT", "from the IDE");
    expect(kiro.normalize("prompt", {}).prompt).toBe("from the IDE");
  });

  it("postToolUse: fs_write names its path, execute_bash may write, fs_read does not; a payload-less tool may have written", () => {
    const tool = (tool_name: string, tool_input: unknown) =>
      kiro.normalize("tool", { hook_event_name: "postToolUse", cwd: W, tool_name, tool_input, tool_response: { success: true, result: [""] } }).tool;
    expect(tool("fs_write", { command: "create", path: "/work/project/a.rs", file_text: "fn main() {}" })).toMatchObject({
      mayWrite: true,
      editedPaths: ["/work/project/a.rs"],
    });
    expect(tool("execute_bash", { command: "ls" })).toMatchObject({ mayWrite: true, editedPaths: [] });
    expect(tool("fs_read", { operations: [] })).toMatchObject({ mayWrite: false });
    expect(kiro.normalize("tool", {}).tool).toMatchObject({ name: "unknown", mayWrite: true });
    expect(kiro.output("session-start", "brief")).toBe("brief");
    expect(kiro.output("prompt", "x")).toBe("");
  });
});

describe("the conversation a payload carries", () => {
  const roles = (ms: readonly CapturedMessage[]) => ms.map((m) => m.message.role);

  it("a prompt is the user's message, marked as a prompt", () => {
    const e = droid.normalize("prompt", { session_id: "s", prompt: "hello" });
    const said = droid.payloadMessages?.(e, "hook:prompt:0") ?? [];
    expect(said).toEqual([{ key: "hook:prompt:0", message: { role: "user", content: "hello" }, prompt: true }]);
  });

  it("a tool is an assistant call and its result, paired by an id made from the key, each a valid message", () => {
    const e: HostEvent = cline.normalize("tool", {
      taskId: "t",
      postToolUse: { toolName: "write_to_file", parameters: { path: "a.txt", content: "x" }, result: "saved", success: true },
    });
    const said = cline.payloadMessages?.(e, "hook:tool:7") ?? [];
    expect(roles(said)).toEqual(["assistant", "tool"]);
    expect(said[0]?.message.toolCalls).toEqual([{ id: "hook:tool:7#call", name: "write_to_file", arguments: { path: "a.txt", content: "x" } }]);
    expect(said[1]?.message).toMatchObject({ toolCallId: "hook:tool:7#call", name: "write_to_file" });
    expect(new Set(said.map((m) => m.key)).size).toBe(2);
    for (const m of said) expect(() => checkMessage(m.message, 0)).not.toThrow();
  });

  it("an event with nothing said (a stop without a reply) carries nothing", () => {
    expect(droid.payloadMessages?.(droid.normalize("stop", { session_id: "s" }), "k")).toEqual([]);
  });
});

describe("the session Forge keeps for Kiro", () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir("implicit-session");
    mkdirSync(join(dir.path, ".forge"));
  });
  afterEach(() => dir.remove());

  it("is new at each session-start and after a session-end, the same in between", async () => {
    const forgeDir = join(dir.path, ".forge");
    const first = await implicitSessionId(forgeDir, "kiro", "prompt");
    expect(first).toMatch(/^kiro-\d{8}T\d{6}-[0-9a-f]{6}$/);
    expect(await implicitSessionId(forgeDir, "kiro", "tool")).toBe(first);
    const second = await implicitSessionId(forgeDir, "kiro", "session-start");
    expect(second).not.toBe(first);
    expect(await implicitSessionId(forgeDir, "kiro", "stop")).toBe(second);
    expect(await implicitSessionId(forgeDir, "kiro", "session-end")).toBe(second);
    expect(await implicitSessionId(forgeDir, "kiro", "prompt")).not.toBe(second);
  });
});
