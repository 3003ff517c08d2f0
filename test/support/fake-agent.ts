// A deterministic fake of an agent host (Claude Code, Codex or Gemini CLI) for end-to-end tests:
// it plays the host's hook sequence — session start, prompts, tool calls that really change files
// in the project folder, stop, compaction, resume, end — by running the commands of the project's
// hook config (the file `forge enable` writes) with `sh -c` in the project folder, the host's
// documented payload on stdin, while it appends the host's own records to the host's transcript.
// A hook that exits non-zero (or breaks the host's output protocol) fails the test loudly.
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { type AgentEvent, DIALECTS, type FakeCall, type FakeHost, type HostDialect, type HostDirs, type SessionContext } from "./fake-agent-hosts.js";

export type { AgentEvent, FakeHost } from "./fake-agent-hosts.js";

export interface FakeAgentOptions {
  /** The project folder (the host's cwd); its hook config is read from there. */
  readonly project: string;
  /** The home folder the host (and the hooks it runs) sees. */
  readonly home: string;
  /** The session id (default: a random UUID). */
  readonly sessionId?: string;
  /** More variables for the hook commands (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME, FORGE_…). */
  readonly env?: Readonly<Record<string, string>>;
  /** When the fake clock starts (it moves one second per record or payload). */
  readonly startAt?: string;
}

/** One hook command the agent ran. */
export interface HookRun {
  readonly event: string;
  readonly command: string;
  readonly payload: Record<string, unknown>;
  readonly stdout: string;
  readonly stderr: string;
}

/** Variables that would point a hook at the real user's host folders: never inherited. */
const HOST_DIR_VARS = ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"];

/** One host session, played step by step (see the file comment); every method runs the hooks of its events and returns their runs. */
export class FakeAgent {
  /** The host's session id. */
  readonly sessionId: string;
  /** The host's transcript for the session (it exists once the host wrote a record). */
  readonly transcriptPath: string;
  /** Every hook command run so far, in order. */
  readonly runs: HookRun[] = [];
  readonly #dialect: HostDialect;
  readonly #session: SessionContext;
  readonly #options: FakeAgentOptions;
  #clock: number;
  #calls = 0;
  #lastPrompt = "";
  #lastReply = "";

  constructor(
    readonly host: FakeHost,
    options: FakeAgentOptions,
  ) {
    this.#options = options;
    this.#dialect = DIALECTS[host];
    this.#clock = Date.parse(options.startAt ?? "2026-08-20T10:15:00.000Z");
    this.sessionId = options.sessionId ?? randomUUID();
    this.#session = {
      host,
      sessionId: this.sessionId,
      project: options.project,
      model: { "claude-code": "claude-sonnet-4-5-20250929", codex: "gpt-5-codex", "gemini-cli": "gemini-2.5-pro" }[host],
      now: () => new Date((this.#clock += 1000)).toISOString(),
      parent: null,
      turn: 0,
    };
    this.transcriptPath = this.#dialect.transcriptPath(this.#session, this.#dirs());
  }

  /** The session starts (`source`: startup, clear, …): SessionStart. */
  start(source = "startup"): HookRun[] {
    this.#append(this.#dialect.records.start(this.#session, false));
    return this.#fire("start", { source, ...(this.host === "claude-code" && { model: this.#session.model }) }, source);
  }

  /** The user submits `text`; Claude Code records it before its hook, Codex and Gemini CLI after. */
  prompt(text: string): HookRun[] {
    this.#session.turn++;
    this.#lastPrompt = text;
    const records = this.#dialect.records.prompt(this.#session, text);
    if (this.host === "claude-code") this.#append(records);
    const runs = this.#fire("prompt", { prompt: text });
    if (this.host !== "claude-code") this.#append(records);
    return runs;
  }

  /** The agent writes a reply (and, when given, the thinking before it). */
  say(text: string, thinking?: string): void {
    this.#lastReply = text;
    this.#append(this.#dialect.records.reply(this.#session, text, thinking));
  }

  /**
   * The agent runs a shell command in the project: `effect` stands for it when given (called
   * with the project folder, returning the output), else `command` really runs with `sh -c`.
   */
  shell(command: string, effect?: (project: string) => string | undefined): HookRun[] {
    const call: FakeCall = { id: this.#callId(), kind: "shell", ...this.#dialect.shellCall(command) };
    return this.#tool(call, () => {
      if (effect !== undefined) return { output: effect(this.#options.project) ?? "", exitCode: 0 };
      const r = spawnSync("sh", ["-c", command], { cwd: this.#options.project, encoding: "utf8" });
      return { output: `${r.stdout}${r.stderr}`, exitCode: r.status ?? 1 };
    });
  }

  /** The agent writes `content` to `path` (relative to the project, or absolute) with the host's edit tool. */
  edit(path: string, content: string): HookRun[] {
    const abs = isAbsolute(path) ? path : join(this.#options.project, path);
    const existed = existsSync(abs);
    const file = { path: abs, existed, before: existed ? readFileSync(abs, "utf8") : "", after: content };
    const call: FakeCall = { id: this.#callId(), kind: "edit", file, ...this.#dialect.editCall(file, this.#options.project) };
    return this.#tool(call, () => {
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, content);
      return { output: "", exitCode: 0 };
    });
  }

  /** The agent ends its turn (with `reply` as its last message): Stop / AfterAgent. */
  stop(reply = "Done."): HookRun[] {
    this.say(reply);
    if (this.host === "gemini-cli") return this.#fire("stop", { prompt: this.#lastPrompt, prompt_response: this.#lastReply, stop_hook_active: false });
    if (this.host === "codex") return this.#fire("stop", { stop_hook_active: false, last_assistant_message: this.#lastReply });
    return this.#fire("stop", { stop_hook_active: false });
  }

  /** The context is compacted: PreCompact / PreCompress, the host's compaction records, then (Claude Code, Codex) SessionStart "compact". */
  compact(trigger: "manual" | "auto" = "manual"): HookRun[] {
    const runs = this.#fire("preCompact", { trigger, ...(this.host === "claude-code" && { custom_instructions: "" }) }, trigger);
    this.#append(this.#dialect.records.compact(this.#session, trigger));
    if (this.host === "gemini-cli") return runs;
    return [...runs, ...this.#fire("start", { source: "compact" }, "compact")];
  }

  /** The session is resumed (same id, same transcript): SessionStart "resume". */
  resume(): HookRun[] {
    this.#append(this.#dialect.records.start(this.#session, true));
    return this.#fire("start", { source: "resume" }, "resume");
  }

  /** The session ends: SessionEnd. */
  end(reason = this.host === "gemini-cli" ? "exit" : "other"): HookRun[] {
    return this.#fire("end", { reason }, reason);
  }

  #callId(): string {
    const n = ++this.#calls;
    return { "claude-code": `toolu_fake${n}`, codex: `call_fake${n}`, "gemini-cli": `tool-fake-${n}` }[this.host];
  }

  #tool(call: FakeCall, run: () => { output: string; exitCode: number }): HookRun[] {
    this.#append(this.#dialect.records.call(this.#session, call));
    const ids = { tool_name: call.name, tool_input: call.input, ...(this.host !== "gemini-cli" && { tool_use_id: call.id }) };
    const runs = this.#fire("preTool", ids, call.name);
    const { output, exitCode } = run();
    this.#append(this.#dialect.records.result(this.#session, call, output, exitCode));
    return [...runs, ...this.#fire("postTool", { ...ids, tool_response: this.#dialect.toolResponse(call, output, exitCode) }, call.name)];
  }

  #dirs(): HostDirs {
    const env = this.#options.env ?? {};
    const home = this.#options.home;
    return {
      claude: env["CLAUDE_CONFIG_DIR"] || join(home, ".claude"),
      codex: env["CODEX_HOME"] || join(home, ".codex"),
      gemini: join(env["GEMINI_CLI_HOME"] || home, ".gemini"),
    };
  }

  #append(records: readonly unknown[]): void {
    if (records.length === 0) return;
    mkdirSync(dirname(this.transcriptPath), { recursive: true });
    appendFileSync(this.transcriptPath, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
  }

  /** Runs the hook commands of `event` whose matcher fits `subject`, in config order. */
  #fire(event: AgentEvent, fields: Record<string, unknown>, subject?: string): HookRun[] {
    const name = this.#dialect.events[event];
    const payload = this.#dialect.payload(this.#session, this.transcriptPath, event, fields);
    const env: Record<string, string | undefined> = { ...process.env, HOME: this.#options.home, USERPROFILE: this.#options.home };
    for (const v of HOST_DIR_VARS) delete env[v];
    Object.assign(env, this.#dialect.hookEnv(this.#session, this.transcriptPath), this.#options.env ?? {});
    const runs: HookRun[] = [];
    for (const hook of hookCommands(this.host, join(this.#options.project, this.#dialect.hooksFile), name, subject)) {
      const r = spawnSync("sh", ["-c", hook.command], {
        cwd: this.#options.project,
        input: JSON.stringify(payload),
        env,
        encoding: "utf8",
        timeout: hook.timeoutMs,
      });
      // A hook that does not read its stdin may exit before the payload is written: the host
      // goes on (EPIPE on its side), and so does this fake.
      const unread = (r.error as NodeJS.ErrnoException | undefined)?.code === "EPIPE" && r.status !== null;
      if ((r.error !== undefined && !unread) || r.status !== 0) {
        throw new Error(`${this.host} ${name} hook failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`}): ${hook.command}\n${r.stderr}`);
      }
      checkOutput(this.host, name, hook.command, r.stdout);
      const run = { event: name, command: hook.command, payload, stdout: r.stdout, stderr: r.stderr };
      runs.push(run);
      this.runs.push(run);
    }
    return runs;
  }
}

/** The command hooks configured for `event` in a hook config file whose matcher fits `subject`. */
function hookCommands(host: FakeHost, file: string, event: string, subject: string | undefined): { command: string; timeoutMs: number }[] {
  if (!existsSync(file)) return [];
  const config = JSON.parse(readFileSync(file, "utf8")) as { hooks?: Record<string, unknown> };
  const groups = config.hooks?.[event];
  if (!Array.isArray(groups)) return [];
  const out: { command: string; timeoutMs: number }[] = [];
  for (const group of groups as { matcher?: string; hooks?: { type?: string; command?: string; timeout?: number }[] }[]) {
    if (!matches(group.matcher, subject)) continue;
    for (const h of group.hooks ?? []) {
      if (h.type !== "command" || typeof h.command !== "string") continue;
      // Gemini CLI gives timeouts in milliseconds; Claude Code and Codex in seconds.
      out.push({ command: h.command, timeoutMs: host === "gemini-cli" ? (h.timeout ?? 60_000) : (h.timeout ?? 60) * 1000 });
    }
  }
  return out;
}

/** Whether a group's matcher selects `subject` (none, "" and "*" select all; else a whole-name regex). */
function matches(matcher: string | undefined, subject: string | undefined): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*" || subject === undefined) return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(subject);
  } catch {
    return matcher === subject; // not a regex: an exact name
  }
}

/** What the host does with stdout: Gemini CLI parses it as a JSON object, Codex fails JSON-looking text that does not parse. */
function checkOutput(host: FakeHost, event: string, command: string, stdout: string): void {
  const text = stdout.trim();
  if (text === "") return;
  const parses = (() => {
    try {
      const v: unknown = JSON.parse(text);
      return typeof v === "object" && v !== null && !Array.isArray(v);
    } catch {
      return false;
    }
  })();
  if ((host === "gemini-cli" || (host === "codex" && /^[{[]/.test(text))) && !parses) {
    throw new Error(`${host} ${event} hook printed what the host cannot parse as its JSON output: ${command}\n${stdout}`);
  }
}
