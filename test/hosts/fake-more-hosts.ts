// A deterministic fake of Factory Droid, Windsurf's Cascade, Cline and Kiro (CLI and IDE) for
// end-to-end tests: it plays the host's documented hook sequence — session start where the
// host has one, prompts, an edit tool and shell commands that really change files in the
// project, the end of each turn — by running the hooks the project's configuration holds (the
// files `forge enable` writes, the user's own hooks among them), each the way the host's
// documentation says it runs them, with the documented payload. A hook that fails, or answers
// what the host would refuse, fails the test loudly.
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export type MoreHost = "factory-droid" | "windsurf" | "cline" | "kiro-cli" | "kiro-ide";

export interface FakeHostOptions {
  /** The project folder: the workspace root the host runs in. */
  readonly project: string;
  /** The home folder the hooks see. */
  readonly home: string;
  /** More variables for the hooks (PATH, FORGE_HOOK_STRICT, …). */
  readonly env?: Readonly<Record<string, string>>;
  /** Kiro CLI: the agent the chat runs (its `.kiro/agents/<agent>.json` hooks run). */
  readonly agent?: string;
}

/** One hook the host ran. */
export interface HostHookRun {
  readonly event: string;
  readonly command: string;
  readonly stdout: string;
}

type Tool =
  | { readonly kind: "edit"; readonly path: string; readonly content: string }
  | { readonly kind: "shell"; readonly command: string; readonly output: string };

interface Hook {
  readonly command: string;
  /** Runs the command as the host does: a shell line, or an executable file (Cline). */
  readonly exec: "sh" | "bash" | "file";
}

/** One session of the host, played step by step; every method runs the hooks of its events. */
export class FakeHostSession {
  /** The host's session id where its payloads carry one (Droid's session, Cascade's trajectory, Cline's task). */
  readonly sessionId = randomUUID();
  readonly runs: HostHookRun[] = [];
  #clock = Date.parse("2026-11-20T10:00:00Z");

  constructor(
    readonly host: MoreHost,
    readonly options: FakeHostOptions,
  ) {}

  /** The session starts (Droid's SessionStart, Cline's TaskStart, Kiro CLI's agentSpawn; Cascade and the Kiro IDE have none). */
  start(firstTask = ""): void {
    if (this.host === "factory-droid") this.#fire("SessionStart", { source: "startup" });
    else if (this.host === "cline")
      this.#fire("TaskStart", { taskStart: { taskMetadata: { taskId: this.sessionId, ulid: "01JD0000000000000000000000", initialTask: firstTask } } });
    else if (this.host === "kiro-cli") this.#fire("agentSpawn", {});
  }

  /** The user submits a prompt. */
  prompt(text: string): void {
    if (this.host === "factory-droid") this.#fire("UserPromptSubmit", { prompt: text });
    else if (this.host === "windsurf") this.#fire("pre_user_prompt", { tool_info: { user_prompt: text } });
    else if (this.host === "cline") this.#fire("UserPromptSubmit", { userPromptSubmit: { prompt: text, attachments: [] } });
    else if (this.host === "kiro-cli") this.#fire("userPromptSubmit", { prompt: text }, { USER_PROMPT: text });
    else this.#fire("promptSubmit", undefined, { USER_PROMPT: text });
  }

  /** The agent's edit tool writes `path` (relative to the project), then the host's post-tool hooks run. */
  edit(path: string, content: string): void {
    const abs = join(this.options.project, path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    this.#tool({ kind: "edit", path, content });
  }

  /** The agent runs a shell command in the project, then the host's post-tool hooks run. */
  shell(command: string): void {
    const r = spawnSync("sh", ["-c", command], { cwd: this.options.project, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`the fake ${this.host}'s command failed: ${command}: ${r.stderr}`);
    this.#tool({ kind: "shell", command, output: r.stdout });
  }

  /** The agent ends its turn with `reply`. */
  stop(reply = "Done."): void {
    if (this.host === "factory-droid") this.#fire("Stop", { stop_hook_active: false });
    else if (this.host === "windsurf") this.#fire("post_cascade_response", { tool_info: { response: `### Planner Response\n\n${reply}` } });
    else if (this.host === "cline")
      this.#fire("TaskComplete", { taskComplete: { taskMetadata: { taskId: this.sessionId, ulid: "01JD0000000000000000000000" } } });
    else if (this.host === "kiro-cli") this.#fire("stop", {});
    else this.#fire("agentStop", undefined);
  }

  #tool(tool: Tool): void {
    const { project } = this.options;
    if (this.host === "factory-droid") {
      const payload =
        tool.kind === "edit"
          ? {
              tool_name: "Create",
              tool_input: { file_path: join(project, tool.path), content: tool.content },
              tool_response: { filePath: join(project, tool.path), success: true },
            }
          : { tool_name: "Execute", tool_input: { command: tool.command }, tool_response: { output: tool.output, success: true } };
      this.#fire("PostToolUse", payload, {}, payload.tool_name);
    } else if (this.host === "windsurf") {
      if (tool.kind === "edit")
        this.#fire("post_write_code", { tool_info: { file_path: join(project, tool.path), edits: [{ old_string: "", new_string: tool.content }] } });
      else this.#fire("post_run_command", { tool_info: { command_line: tool.command, cwd: project } });
    } else if (this.host === "cline") {
      const use =
        tool.kind === "edit"
          ? { toolName: "write_to_file", parameters: { path: tool.path, content: tool.content }, result: `The content was successfully saved to ${tool.path}.` }
          : {
              toolName: "execute_command",
              parameters: { command: tool.command, requires_approval: "false" },
              result: `Command executed.\nOutput:\n${tool.output}`,
            };
      this.#fire("PostToolUse", { postToolUse: { ...use, success: true, executionTimeMs: 12 } });
    } else if (this.host === "kiro-cli") {
      const payload =
        tool.kind === "edit"
          ? {
              tool_name: "fs_write",
              tool_input: { command: "create", path: join(project, tool.path), file_text: tool.content },
              tool_response: { success: true, result: [""] },
            }
          : { tool_name: "execute_bash", tool_input: { command: tool.command }, tool_response: { success: true, result: [tool.output] } };
      this.#fire("postToolUse", payload, {}, payload.tool_name);
    } else {
      this.#fire("postToolUse", undefined, {}, tool.kind === "edit" ? "write" : "shell");
      if (tool.kind === "edit") this.#fire("fileEdited", undefined, {}, tool.path);
    }
  }

  /** Runs the hooks of `event` with the host's payload (undefined: none on stdin, as the Kiro IDE). */
  #fire(event: string, fields: Record<string, unknown> | undefined, env: Record<string, string> = {}, subject?: string): void {
    const payload = fields === undefined ? undefined : { ...this.#common(event), ...fields };
    for (const hook of this.#hooks(event, subject)) this.#run(event, hook, payload, env);
  }

  /** The fields every payload of the host carries. */
  #common(event: string): Record<string, unknown> {
    const at = new Date((this.#clock += 1000)).toISOString();
    const { project, home } = this.options;
    if (this.host === "factory-droid") {
      const transcript = join(home, ".factory/projects", project.replace(/\//g, "-"), `${this.sessionId}.jsonl`);
      return { session_id: this.sessionId, transcript_path: transcript, cwd: project, permission_mode: "off", hook_event_name: event };
    }
    if (this.host === "windsurf") return { agent_action_name: event, trajectory_id: this.sessionId, execution_id: randomUUID(), timestamp: at };
    if (this.host === "cline")
      return { clineVersion: "3.36.0", hookName: event, timestamp: String(Date.parse(at)), taskId: this.sessionId, workspaceRoots: [project], userId: "u-1" };
    return { hook_event_name: event, cwd: project };
  }

  /** The hooks the project's configuration runs at `event` (for a tool event, those whose matcher takes `subject`). */
  #hooks(event: string, subject: string | undefined): Hook[] {
    const { project } = this.options;
    const json = (rel: string): Record<string, unknown> | undefined =>
      existsSync(join(project, rel)) ? (JSON.parse(readFileSync(join(project, rel), "utf8")) as Record<string, unknown>) : undefined;
    if (this.host === "factory-droid") {
      // Droid reads .factory/hooks.json when there is one, else the hooks key of settings.json.
      const file = json(".factory/hooks.json");
      const hooks = (file ? (file["hooks"] ?? file) : json(".factory/settings.json")?.["hooks"]) as
        | Record<string, { matcher?: string; hooks: { command: string }[] }[]>
        | undefined;
      return (hooks?.[event] ?? [])
        .filter((g) => matches(g.matcher, subject))
        .flatMap((g) => g.hooks.map((h) => ({ command: h.command, exec: "sh" as const })));
    }
    if (this.host === "windsurf") {
      const hooks = json(".windsurf/hooks.json")?.["hooks"] as Record<string, { command: string }[]> | undefined;
      return (hooks?.[event] ?? []).map((h) => ({ command: h.command, exec: "sh" as const }));
    }
    if (this.host === "cline") {
      const script = join(project, ".clinerules/hooks", event);
      return existsSync(script) ? [{ command: script, exec: "file" }] : [];
    }
    if (this.host === "kiro-cli") {
      const agent = json(`.kiro/agents/${this.options.agent ?? "dev"}.json`);
      const hooks = agent?.["hooks"] as Record<string, { matcher?: string; command: string }[]> | undefined;
      return (hooks?.[event] ?? [])
        .filter((h) => subject === undefined || matches(h.matcher, subject))
        .map((h) => ({ command: h.command, exec: "bash" as const }));
    }
    const dir = join(project, ".kiro/hooks");
    const files = existsSync(dir)
      ? readdirSync(dir)
          .filter((n) => n.endsWith(".kiro.hook"))
          .sort()
      : [];
    return files.flatMap((n) => {
      const h = JSON.parse(readFileSync(join(dir, n), "utf8")) as {
        enabled: boolean;
        when: { type: string; toolTypes?: string[]; patterns?: string[] };
        then: { type: string; command?: string };
      };
      if (!h.enabled || h.when.type !== event || h.then.type !== "runCommand" || h.then.command === undefined) return [];
      if (event === "postToolUse" && !(h.when.toolTypes ?? []).some((t) => t === "*" || t === subject)) return [];
      if (event === "fileEdited" && !(h.when.patterns ?? []).some((p) => globMatches(p, subject ?? ""))) return [];
      return [{ command: h.then.command, exec: "sh" as const }];
    });
  }

  #run(event: string, hook: Hook, payload: Record<string, unknown> | undefined, env: Record<string, string>): void {
    const { project, home } = this.options;
    const inherited = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
    const hookEnv = { ...inherited, HOME: home, FACTORY_PROJECT_DIR: project, ...this.options.env, ...env };
    const [file, args] = hook.exec === "file" ? [hook.command, []] : [hook.exec, ["-c", hook.command]];
    const r = spawnSync(file, args, {
      cwd: project,
      env: hookEnv,
      encoding: "utf8",
      input: payload === undefined ? "" : JSON.stringify(payload),
      timeout: 60_000,
    });
    // A hook that does not read its input closes the pipe early: the host goes on (EPIPE is no failure).
    if (r.error && (r.error as NodeJS.ErrnoException).code !== "EPIPE")
      throw new Error(`the fake ${this.host} could not run its ${event} hook ${hook.command}: ${r.error.message}`);
    if (r.status !== 0) throw new Error(`the fake ${this.host}'s ${event} hook ${hook.command} exited ${r.status}: ${r.stderr}`);
    if (this.host === "cline") {
      // Cline reads the last JSON object on stdout; output that is not one blocks the action.
      const last = r.stdout.trim().split("\n").at(-1) ?? "";
      let answer: { cancel?: unknown };
      try {
        answer = JSON.parse(last) as { cancel?: unknown };
      } catch {
        throw new Error(`the fake cline cannot parse the ${event} hook's answer: ${JSON.stringify(r.stdout)}`);
      }
      if (answer.cancel !== false) throw new Error(`the ${event} hook cancelled the action: ${last}`);
    }
    this.runs.push({ event, command: hook.command, stdout: r.stdout });
  }
}

/** Whether a hook matcher (a regex, `*`, empty or absent for all) takes the tool `subject`. */
function matches(matcher: string | undefined, subject: string | undefined): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*" || subject === undefined) return true;
  return new RegExp(`^(?:${matcher})$`).test(subject);
}

/** A file pattern as the Kiro IDE's file triggers take them (`**` any folders, `*` within a name). */
function globMatches(pattern: string, path: string): boolean {
  const re = pattern
    .split("**/")
    .map((part) => part.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*"))
    .join("(?:.*/)?");
  return new RegExp(`^${re}$`).test(path);
}
