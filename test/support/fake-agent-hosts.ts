// The three hosts the fake agent plays (fake-agent.ts): each one's hook event names and project
// hook file, the payload it documents for each event, where it keeps its transcript, and the
// records it appends there — shaped as in the fixtures of test/hosts (see their capture modules
// for the sources). Only what a session needs is written; the shapes are the hosts' own.
import { createHash, randomUUID } from "node:crypto";
import { join, relative } from "node:path";

/** The hosts the fake agent can play. */
export type FakeHost = "claude-code" | "codex" | "gemini-cli";

/** The moments the fake agent fires hooks at. */
export type AgentEvent = "start" | "prompt" | "preTool" | "postTool" | "stop" | "preCompact" | "end";

/** A tool call as the fake agent makes it. */
export interface FakeCall {
  readonly id: string;
  /** The name hooks see (Bash, Write, apply_patch, run_shell_command, write_file, …). */
  readonly name: string;
  readonly input: Record<string, unknown>;
  readonly kind: "shell" | "edit";
  /** For edits: the file (absolute), whether it existed, and its contents before. */
  readonly file?: { readonly path: string; readonly existed: boolean; readonly before: string; readonly after: string };
}

/** What a record writer knows of the session. */
export interface SessionContext {
  readonly host: FakeHost;
  readonly sessionId: string;
  readonly project: string;
  readonly model: string;
  /** The next timestamp (the fake clock moves one second per call). */
  now(): string;
  /** The uuid of the last conversation record (Claude Code chains records by parentUuid). */
  parent: string | null;
  turn: number;
}

/** One host's dialect. */
export interface HostDialect {
  /** The project hook config `forge enable` writes, relative to the project. */
  readonly hooksFile: string;
  readonly events: Readonly<Record<AgentEvent, string>>;
  /** Where the host keeps the session's transcript. */
  transcriptPath(s: SessionContext, dirs: HostDirs): string;
  /** Variables the host sets for its hook commands. */
  hookEnv(s: SessionContext, transcript: string): Record<string, string>;
  /** The hook payload of `event` (the common fields and the event's own). */
  payload(s: SessionContext, transcript: string, event: AgentEvent, fields: Record<string, unknown>): Record<string, unknown>;
  shellCall(command: string): Pick<FakeCall, "name" | "input">;
  editCall(file: NonNullable<FakeCall["file"]>, project: string): Pick<FakeCall, "name" | "input">;
  /** The tool_response hooks see after a call. */
  toolResponse(call: FakeCall, output: string, exitCode: number): unknown;
  records: {
    start(s: SessionContext, resumed: boolean): unknown[];
    prompt(s: SessionContext, text: string): unknown[];
    reply(s: SessionContext, text: string, thinking?: string): unknown[];
    /** The call (before it runs). */
    call(s: SessionContext, call: FakeCall): unknown[];
    /** Its result (after it ran). */
    result(s: SessionContext, call: FakeCall, output: string, exitCode: number): unknown[];
    compact(s: SessionContext, trigger: string): unknown[];
  };
}

/** The hosts' folders under the fake home (their override variables honoured). */
export interface HostDirs {
  readonly claude: string;
  readonly codex: string;
  readonly gemini: string;
}

const claude: HostDialect = {
  hooksFile: ".claude/settings.json",
  events: {
    start: "SessionStart",
    prompt: "UserPromptSubmit",
    preTool: "PreToolUse",
    postTool: "PostToolUse",
    stop: "Stop",
    preCompact: "PreCompact",
    end: "SessionEnd",
  },
  transcriptPath: (s, dirs) => join(dirs.claude, "projects", s.project.replace(/[^a-zA-Z0-9]/g, "-"), `${s.sessionId}.jsonl`),
  hookEnv: (s) => ({ CLAUDE_PROJECT_DIR: s.project }),
  payload: (s, transcript, event, fields) => ({
    session_id: s.sessionId,
    transcript_path: transcript,
    cwd: s.project,
    permission_mode: "default",
    hook_event_name: claude.events[event],
    ...fields,
  }),
  shellCall: (command) => ({ name: "Bash", input: { command, description: `Run ${command}` } }),
  editCall: (file) => ({ name: "Write", input: { file_path: file.path, content: file.after } }),
  toolResponse: (call, output, exitCode) =>
    call.kind === "shell"
      ? { stdout: output, stderr: "", interrupted: false, isImage: false, ...(exitCode !== 0 && { exitCode }) }
      : { type: call.file?.existed ? "update" : "create", filePath: call.file?.path, content: call.file?.after, structuredPatch: [] },
  records: {
    start: () => [],
    prompt: (s, text) => [claudeLine(s, "user", { role: "user", content: text })],
    reply: (s, text, thinking) => {
      const id = `msg_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
      const blocks = [...(thinking === undefined ? [] : [{ type: "thinking", thinking, signature: "EqQBCkgIBxABGAIiQGZha2U=" }]), { type: "text", text }];
      return blocks.map((b) => claudeLine(s, "assistant", claudeAssistant(s, id, [b], "end_turn")));
    },
    call: (s, call) => [
      claudeLine(s, "assistant", claudeAssistant(s, `msg_${call.id}`, [{ type: "tool_use", id: call.id, name: call.name, input: call.input }], "tool_use")),
    ],
    result: (s, call, output, exitCode) => [
      claudeLine(
        s,
        "user",
        { role: "user", content: [{ tool_use_id: call.id, type: "tool_result", content: output, is_error: exitCode !== 0 }] },
        { toolUseResult: claude.toolResponse(call, output, exitCode) },
      ),
    ],
    compact: (s, trigger) => {
      const boundary = {
        ...claudeEnvelope(s, "system", null),
        subtype: "compact_boundary",
        content: "Conversation compacted",
        isMeta: false,
        level: "info",
        compactMetadata: { trigger, preTokens: 18234 },
      };
      s.parent = boundary.uuid;
      const summary = claudeLine(
        s,
        "user",
        {
          role: "user",
          content: "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n(summary)",
        },
        { isCompactSummary: true, isVisibleInTranscriptOnly: true },
      );
      return [boundary, summary];
    },
  },
};

function claudeEnvelope(s: SessionContext, type: string, parent: string | null) {
  return {
    parentUuid: parent,
    isSidechain: false,
    userType: "external",
    cwd: s.project,
    sessionId: s.sessionId,
    version: "2.0.14",
    gitBranch: "main",
    type,
    uuid: randomUUID(),
    timestamp: s.now(),
  };
}

function claudeLine(s: SessionContext, type: string, message: unknown, extra: Record<string, unknown> = {}) {
  const line = { ...claudeEnvelope(s, type, s.parent), message, ...extra };
  s.parent = line.uuid;
  return line;
}

function claudeAssistant(s: SessionContext, id: string, content: unknown[], stop: string) {
  return {
    id,
    type: "message",
    role: "assistant",
    model: s.model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 4, output_tokens: 20 },
  };
}

const codex: HostDialect = {
  hooksFile: ".codex/hooks.json",
  events: {
    start: "SessionStart",
    prompt: "UserPromptSubmit",
    preTool: "PreToolUse",
    postTool: "PostToolUse",
    stop: "Stop",
    preCompact: "PreCompact",
    end: "SessionEnd",
  },
  transcriptPath: (s, dirs) => {
    const d = new Date(Date.parse(s.now()));
    const p = (n: number) => String(n).padStart(2, "0");
    const stamp = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}-${p(d.getMinutes())}-${p(d.getSeconds())}`;
    return join(dirs.codex, "sessions", String(d.getFullYear()), p(d.getMonth() + 1), p(d.getDate()), `rollout-${stamp}-${s.sessionId}.jsonl`);
  },
  hookEnv: () => ({}),
  payload: (s, transcript, event, fields) => ({
    session_id: s.sessionId,
    ...(event !== "start" && event !== "end" && { turn_id: `turn-${s.turn}` }),
    transcript_path: transcript,
    cwd: s.project,
    hook_event_name: codex.events[event],
    ...(event !== "end" && { model: s.model }),
    ...(event !== "end" && event !== "preCompact" && { permission_mode: "default" }),
    ...fields,
  }),
  shellCall: (command) => ({ name: "Bash", input: { command } }),
  editCall: (file, project) => ({ name: "apply_patch", input: { command: codexPatch(file, project) } }),
  toolResponse: (call, output, exitCode) =>
    call.kind === "shell"
      ? `Exit code: ${exitCode}\nOutput:\n${output}`
      : `Success. Updated the following files:\n${call.file?.existed ? "M" : "A"} ${call.file?.path}\n`,
  records: {
    start: (s, resumed) =>
      resumed
        ? []
        : [
            codexLine(s, "session_meta", {
              id: s.sessionId,
              timestamp: s.now(),
              cwd: s.project,
              originator: "codex_cli_rs",
              cli_version: "0.125.0",
              source: "cli",
              model_provider: "openai",
            }),
            codexLine(s, "response_item", {
              type: "message",
              role: "user",
              content: [{ type: "input_text", text: `<environment_context>\n  <cwd>${s.project}</cwd>\n</environment_context>` }],
            }),
          ],
    prompt: (s, text) => [
      codexLine(s, "turn_context", {
        turn_id: `turn-${s.turn}`,
        cwd: s.project,
        approval_policy: "on-request",
        sandbox_policy: { type: "workspace-write" },
        model: s.model,
        summary: "auto",
      }),
      codexLine(s, "response_item", { type: "message", role: "user", content: [{ type: "input_text", text }] }),
      codexLine(s, "event_msg", { type: "user_message", message: text, images: [] }),
    ],
    reply: (s, text, thinking) => [
      ...(thinking === undefined
        ? []
        : [
            codexLine(s, "response_item", {
              type: "reasoning",
              summary: [{ type: "summary_text", text: thinking }],
              content: null,
              encrypted_content: "gAAAAABfake",
            }),
          ]),
      codexLine(s, "response_item", { type: "message", role: "assistant", content: [{ type: "output_text", text }] }),
      codexLine(s, "event_msg", { type: "agent_message", message: text }),
    ],
    call: (s, call) =>
      call.kind === "shell"
        ? [
            codexLine(s, "response_item", {
              type: "function_call",
              name: "shell_command",
              arguments: JSON.stringify({ command: call.input["command"], workdir: s.project }),
              call_id: call.id,
            }),
          ]
        : [
            codexLine(s, "response_item", {
              type: "custom_tool_call",
              status: "completed",
              call_id: call.id,
              name: "apply_patch",
              input: call.input["command"],
            }),
          ],
    result: (s, call, output, exitCode) =>
      call.kind === "shell"
        ? [
            codexLine(s, "response_item", {
              type: "function_call_output",
              call_id: call.id,
              output: `Exit code: ${exitCode}\nWall time: 0 seconds\nOutput:\n${output}`,
            }),
          ]
        : [
            codexLine(s, "response_item", {
              type: "custom_tool_call_output",
              call_id: call.id,
              output: JSON.stringify({ output: codex.toolResponse(call, output, exitCode), metadata: { exit_code: 0, duration_seconds: 0 } }),
            }),
          ],
    compact: (s) => [
      codexLine(s, "compacted", { message: "Summary of the conversation so far.", replacement_history: [] }),
      codexLine(s, "event_msg", { type: "context_compacted" }),
    ],
  },
};

function codexLine(s: SessionContext, type: string, payload: unknown) {
  return { timestamp: s.now(), type, payload };
}

/** A Codex patch that writes `file` whole (an Add File, or an Update File replacing every line). */
function codexPatch(file: NonNullable<FakeCall["file"]>, project: string): string {
  const rel = relative(project, file.path);
  const lines = (text: string, sign: string) =>
    text === ""
      ? []
      : text
          .replace(/\n$/, "")
          .split("\n")
          .map((l) => `${sign}${l}`);
  const body = file.existed
    ? [`*** Update File: ${rel}`, "@@", ...lines(file.before, "-"), ...lines(file.after, "+")]
    : [`*** Add File: ${rel}`, ...lines(file.after, "+")];
  return ["*** Begin Patch", ...body, "*** End Patch", ""].join("\n");
}

const gemini: HostDialect = {
  hooksFile: ".gemini/settings.json",
  events: {
    start: "SessionStart",
    prompt: "BeforeAgent",
    preTool: "BeforeTool",
    postTool: "AfterTool",
    stop: "AfterAgent",
    preCompact: "PreCompress",
    end: "SessionEnd",
  },
  transcriptPath: (s, dirs) => {
    // Gemini CLI names the project folder from its registry; a hash of the path stands in for it.
    const project = createHash("sha256").update(s.project).digest("hex").slice(0, 16);
    const stamp = s.now().slice(0, 16).replace(/:/g, "-");
    return join(dirs.gemini, "tmp", project, "chats", `session-${stamp}-${s.sessionId.slice(0, 8)}.jsonl`);
  },
  hookEnv: (s) => ({ GEMINI_PROJECT_DIR: s.project, GEMINI_CWD: s.project, GEMINI_SESSION_ID: s.sessionId, CLAUDE_PROJECT_DIR: s.project }),
  payload: (s, transcript, event, fields) => ({
    session_id: s.sessionId,
    transcript_path: transcript,
    cwd: s.project,
    hook_event_name: gemini.events[event],
    timestamp: s.now(),
    ...fields,
  }),
  shellCall: (command) => ({ name: "run_shell_command", input: { command, description: `Run ${command}` } }),
  editCall: (file) => ({ name: "write_file", input: { file_path: file.path, content: file.after } }),
  toolResponse: (call, output) => ({ llmContent: geminiOutput(call, output), returnDisplay: call.kind === "shell" ? output : `Wrote ${call.file?.path}` }),
  records: {
    start: (s, resumed) =>
      resumed
        ? [{ $set: { sessionId: s.sessionId } }]
        : [{ sessionId: s.sessionId, projectHash: createHash("sha256").update(s.project).digest("hex"), startTime: s.now(), lastUpdated: s.now() }],
    prompt: (s, text) => [{ id: randomUUID(), timestamp: s.now(), type: "user", content: [{ text }] }, { $set: { lastUpdated: s.now() } }],
    reply: (s, text, thinking) => [
      {
        id: randomUUID(),
        timestamp: s.now(),
        type: "gemini",
        content: text,
        thoughts: thinking === undefined ? [] : [{ subject: "Thinking", description: thinking, timestamp: s.now() }],
        tokens: null,
        model: s.model,
      },
      { $set: { lastUpdated: s.now() } },
    ],
    call: () => [], // Gemini CLI records a tool call once it has completed, with its result
    result: (s, call, output, exitCode) => {
      const response = [{ functionResponse: { id: call.id, name: call.name, response: { output: geminiOutput(call, output) } } }];
      const record = {
        id: call.id,
        name: call.name,
        args: call.input,
        result: response,
        status: exitCode === 0 ? "success" : "error",
        timestamp: s.now(),
        resultDisplay: output,
        displayName: call.name,
        description: "",
        renderOutputAsMarkdown: false,
      };
      return [
        { id: randomUUID(), timestamp: s.now(), type: "gemini", content: "", toolCalls: [record], thoughts: [], tokens: null, model: s.model },
        { id: randomUUID(), timestamp: s.now(), type: "user", content: response },
        { $set: { lastUpdated: s.now() } },
      ];
    },
    compact: (s) => [
      { id: randomUUID(), timestamp: s.now(), type: "info", content: "Chat history compressed from 18234 to 2410 tokens." },
      {
        $set: {
          messages: [{ id: randomUUID(), timestamp: s.now(), type: "user", content: [{ text: "<state_snapshot>(summary)</state_snapshot>" }] }],
          lastUpdated: s.now(),
        },
      },
    ],
  },
};

function geminiOutput(call: FakeCall, output: string): string {
  return call.kind === "shell" ? `Command: ${String(call.input["command"])}\nOutput: ${output}` : `Successfully wrote to file: ${call.file?.path}.`;
}

/** The dialect of `host`. */
export const DIALECTS: Readonly<Record<FakeHost, HostDialect>> = { "claude-code": claude, codex, "gemini-cli": gemini };
