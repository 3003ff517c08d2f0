// A fake home folder for `forge agent import` tests: transcripts of Claude Code, Codex, Gemini
// CLI and Copilot CLI written where and as the hosts write them (record shapes from the hosts'
// documented schemas, as the capture tests' fixtures and the history check use), one clock
// second per record so every entry has a time of its own, and a zstd writer for compressed
// Codex rollouts.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { forge } from "../support/cli.js";

export interface ImportJson {
  since: string | null;
  hosts: { host: string; where: string; found: number }[];
  sessions: { host: string; sessionId: string; session: string; status: string; added: number; prompts: number; parent: string | null; error?: string }[];
  imported: { new: number; added: number; entries: number; prompts: number };
  note: string;
}
export interface ListJson {
  sessions: {
    host: string;
    sessionId: string;
    session: string;
    prompts: number;
    started: string;
    lastActivity: string;
    imported: { format: string; version: number } | null;
    parent: string | null;
  }[];
}
export interface ShowJson {
  sessionId: string;
  prompts: number;
  imported: { format: string; version: number; note: string } | null;
  turns: {
    prompt: number;
    text: string | null;
    imported: boolean;
    checkpoint: { createdAt: string; filesRoot: string | null; metadata: Record<string, unknown> };
    messages: { role: string; content: unknown; toolCalls?: { name: string }[] }[];
  }[];
}

/** `forge` in `cwd` with HOME at `home` and no host folder overrides. */
export function forgeIn(cwd: string, home: string, args: readonly string[]) {
  return forge(cwd, args, { env: { HOME: home, CLAUDE_CONFIG_DIR: "", CODEX_HOME: "", GEMINI_CLI_HOME: "", COPILOT_HOME: "" } });
}

export interface Turn {
  readonly prompt: string;
  readonly command: string;
  readonly thinking: string;
  readonly output: string;
  readonly reply: string;
}

/** A turn whose prompt is `prompt`: a shell command, its output, thinking before it and a reply after. */
export function turn(prompt: string, command = "npm test"): Turn {
  return { prompt, command, thinking: `Thinking about: ${prompt}`, output: "ok\n", reply: `Done with: ${prompt}` };
}

const jsonl = (records: readonly unknown[]) => records.map((r) => `${JSON.stringify(r)}\n`).join("");

function put(path: string, text: string | Buffer): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** The Claude Code project folder name of `cwd`. */
export const claudeSlug = (cwd: string) => cwd.replace(/[^a-zA-Z0-9]/g, "-");

export class FakeHome {
  #clock: number;

  constructor(
    readonly home: string,
    start = Date.now() - 2 * 86_400_000,
  ) {
    this.#clock = start;
  }

  /** The next record's time (one second after the last). */
  ts(): string {
    this.#clock += 1000;
    return new Date(this.#clock).toISOString();
  }

  /** A Claude Code session's records: a file-history snapshot, then per turn the prompt, thinking, a Bash call, its result and the reply. */
  claudeRecords(sessionId: string, cwd: string, turns: readonly Turn[], extra: Record<string, unknown> = {}): Record<string, unknown>[] {
    let parent: string | null = null;
    const out: Record<string, unknown>[] = [];
    const rec = (type: string, message: unknown, more: Record<string, unknown> = {}) => {
      const uuid = randomUUID();
      out.push({
        parentUuid: parent,
        isSidechain: false,
        userType: "external",
        cwd,
        sessionId,
        version: "2.1.39",
        gitBranch: "main",
        type,
        message,
        uuid,
        timestamp: this.ts(),
        ...extra,
        ...more,
      });
      parent = uuid;
    };
    const asst = (content: unknown[]) => ({
      id: `msg_${randomBytes(12).toString("hex")}`,
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content,
      stop_reason: null,
      stop_sequence: null,
    });
    out.push({ type: "file-history-snapshot", messageId: randomUUID(), snapshot: { trackedFileBackups: {}, timestamp: this.ts() }, isSnapshotUpdate: false });
    for (const t of turns) {
      rec("user", { role: "user", content: t.prompt });
      rec("assistant", asst([{ type: "thinking", thinking: t.thinking, signature: "c2ln" }]));
      const id = `toolu_${randomBytes(10).toString("hex")}`;
      rec("assistant", asst([{ type: "tool_use", id, name: "Bash", input: { command: t.command, description: "Run it" } }]));
      rec(
        "user",
        { role: "user", content: [{ tool_use_id: id, type: "tool_result", content: t.output, is_error: false }] },
        { toolUseResult: { stdout: t.output, stderr: "", interrupted: false, isImage: false } },
      );
      rec("assistant", asst([{ type: "text", text: t.reply }]));
    }
    return out;
  }

  /** ~/.claude/projects/<slug of cwd>/<session>.jsonl */
  claudePath(sessionId: string, cwd: string): string {
    return join(this.home, ".claude", "projects", claudeSlug(cwd), `${sessionId}.jsonl`);
  }

  claude(sessionId: string, cwd: string, turns: readonly Turn[]): string {
    return put(this.claudePath(sessionId, cwd), jsonl(this.claudeRecords(sessionId, cwd, turns)));
  }

  /** A sub-agent of a Claude Code session: <session>/subagents/agent-<id>.jsonl, sidechain records with its agentId. */
  claudeSubagent(parentId: string, agentId: string, cwd: string, task: Turn): string {
    const records = this.claudeRecords(parentId, cwd, [task], { isSidechain: true, agentId });
    const path = join(this.home, ".claude", "projects", claudeSlug(cwd), parentId, "subagents", `agent-${agentId}.jsonl`);
    put(path.replace(/\.jsonl$/, ".meta.json"), JSON.stringify({ agentType: "general-purpose", spawnDepth: 1 }));
    return put(path, jsonl(records.slice(1)));
  }

  /** A Codex rollout's records: session_meta, the environment context, then per turn turn_context, the prompt (response_item and event_msg), reasoning, a shell call and its output, the reply. */
  codexRecords(id: string, cwd: string, turns: readonly Turn[]): unknown[] {
    const line = (type: string, payload: unknown) => ({ timestamp: this.ts(), type, payload });
    const out: unknown[] = [
      line("session_meta", {
        id,
        timestamp: this.ts(),
        cwd,
        originator: "codex_cli_rs",
        cli_version: "0.63.0",
        instructions: null,
        source: "cli",
        model_provider: "openai",
      }),
      line("response_item", {
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: `<environment_context>\n  <cwd>${cwd}</cwd>\n</environment_context>` }],
      }),
    ];
    for (const t of turns) {
      const call = `call_${randomBytes(12).toString("hex")}`;
      out.push(
        line("turn_context", {
          cwd,
          approval_policy: "on-request",
          sandbox_policy: { type: "workspace-write" },
          model: "gpt-5-codex",
          effort: "medium",
          summary: "auto",
        }),
      );
      out.push(line("response_item", { type: "message", role: "user", content: [{ type: "input_text", text: t.prompt }] }));
      out.push(line("event_msg", { type: "user_message", message: t.prompt, images: [] }));
      out.push(line("response_item", { type: "reasoning", summary: [{ type: "summary_text", text: t.thinking }], content: null, encrypted_content: "gAAAAA" }));
      out.push(
        line("response_item", {
          type: "function_call",
          name: "shell",
          arguments: JSON.stringify({ command: ["bash", "-lc", t.command], workdir: cwd }),
          call_id: call,
        }),
      );
      out.push(
        line("response_item", { type: "function_call_output", call_id: call, output: JSON.stringify({ output: t.output, metadata: { exit_code: 0 } }) }),
      );
      out.push(line("response_item", { type: "message", role: "assistant", content: [{ type: "output_text", text: t.reply }] }));
      out.push(line("event_msg", { type: "agent_message", message: t.reply }));
    }
    return out;
  }

  /** ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl (`.jsonl.zst`: compressed). */
  codex(id: string, cwd: string, turns: readonly Turn[], options: { zst?: boolean; blockSize?: number } = {}): string {
    const d = new Date(this.#clock);
    const p2 = (n: number) => String(n).padStart(2, "0");
    const [y, m, day] = [String(d.getFullYear()), p2(d.getMonth() + 1), p2(d.getDate())];
    const name = `rollout-${y}-${m}-${day}T${p2(d.getHours())}-${p2(d.getMinutes())}-${p2(d.getSeconds())}-${id}.jsonl`;
    const path = join(this.home, ".codex", "sessions", y, m, day, name);
    const text = Buffer.from(jsonl(this.codexRecords(id, cwd, turns)));
    if (!options.zst) return put(path, text);
    return put(`${path}.zst`, zstdFrame(text, options.blockSize));
  }

  /** A Gemini CLI chat log: metadata line, user and gemini records, `$set` updates and, when `rewound` is given, a turn taken back with `$rewindTo`. */
  geminiRecords(sessionId: string, root: string, turns: readonly Turn[], rewound?: Turn): unknown[] {
    const user = (text: string) => ({ id: randomUUID(), timestamp: this.ts(), type: "user", content: [{ text }] });
    const gem = (t: Turn) => {
      const cid = `run_shell_command-${randomBytes(4).toString("hex")}`;
      return {
        id: randomUUID(),
        timestamp: this.ts(),
        type: "gemini",
        content: [{ text: t.reply }],
        thoughts: [{ subject: "Plan", description: t.thinking, timestamp: this.ts() }],
        model: "gemini-2.5-pro",
        toolCalls: [
          {
            id: cid,
            name: "run_shell_command",
            args: { command: t.command },
            result: [{ functionResponse: { id: cid, name: "run_shell_command", response: { output: t.output } } }],
            status: "success",
            timestamp: this.ts(),
          },
        ],
      };
    };
    const start = this.ts();
    const out: unknown[] = [{ sessionId, projectHash: createHash("sha256").update(root).digest("hex"), startTime: start, lastUpdated: start, kind: "main" }];
    const [first, ...rest] = turns as [Turn, ...Turn[]];
    out.push(user(first.prompt), gem(first), { $set: { lastUpdated: this.ts() } });
    if (rewound) {
      const u = user(rewound.prompt);
      out.push(u, gem(rewound), { $rewindTo: u.id });
    }
    for (const t of rest) out.push(user(t.prompt), gem(t));
    return out;
  }

  /** ~/.gemini/tmp/<slug>/chats/session-<time>-<id8>.jsonl, the slug registered in projects.json with its .project_root. */
  gemini(sessionId: string, root: string, slug: string, turns: readonly Turn[], rewound?: Turn): string {
    put(join(this.home, ".gemini", "tmp", slug, ".project_root"), root);
    const registry = join(this.home, ".gemini", "projects.json");
    const projects = existsSync(registry) ? (JSON.parse(readFileSync(registry, "utf8")) as { projects: Record<string, string> }) : { projects: {} };
    projects.projects[root] = slug;
    put(registry, JSON.stringify(projects, null, 2));
    const name = `session-${new Date(this.#clock).toISOString().slice(0, 16).replace(/:/g, "-")}-${sessionId.slice(0, 8)}.jsonl`;
    return put(join(this.home, ".gemini", "tmp", slug, "chats", name), jsonl(this.geminiRecords(sessionId, root, turns, rewound)));
  }

  /** ~/.copilot/session-state/<id>/events.jsonl: session.start with context.cwd, then per turn the user message, the tool request with its reasoning, the execution, the reply. */
  copilot(sessionId: string, cwd: string, turns: readonly Turn[]): string {
    let parent: string | null = null;
    const ev = (type: string, data: unknown) => {
      const id = randomUUID();
      const e = { type, data, id, timestamp: this.ts(), parentId: parent };
      parent = id;
      return e;
    };
    const out: unknown[] = [
      ev("session.start", {
        sessionId,
        version: 1,
        producer: "copilot-agent",
        copilotVersion: "0.0.407",
        startTime: this.ts(),
        context: { cwd, gitRoot: cwd },
      }),
    ];
    turns.forEach((t, i) => {
      const call = `toolu_${randomBytes(10).toString("hex")}`;
      out.push(ev("user.message", { content: t.prompt, transformedContent: t.prompt, attachments: [] }));
      out.push(ev("assistant.turn_start", { turnId: String(i) }));
      out.push(
        ev("assistant.message", {
          messageId: randomUUID(),
          content: "",
          toolRequests: [{ toolCallId: call, name: "bash", arguments: { command: t.command }, type: "function" }],
          reasoningText: t.thinking,
        }),
      );
      out.push(ev("tool.execution_start", { toolCallId: call, toolName: "bash", arguments: { command: t.command } }));
      out.push(ev("tool.execution_complete", { toolCallId: call, success: true, result: { content: t.output } }));
      out.push(ev("assistant.message", { messageId: randomUUID(), content: t.reply, toolRequests: [] }));
      out.push(ev("assistant.turn_end", { turnId: String(i) }));
    });
    return put(join(this.home, ".copilot", "session-state", sessionId, "events.jsonl"), jsonl(out));
  }
}

/**
 * `data` as one zstd frame (RFC 8878) of raw blocks: single segment, the content size in the
 * header, blocks of `blockSize` bytes (at most 128 KiB). Node 20 has no zstd encoder; a raw-block
 * frame is what any decoder must read, and it keeps the test free of a zstd binary.
 */
export function zstdFrame(data: Buffer, blockSize = 64 * 1024): Buffer {
  const header = Buffer.alloc(4 + 1 + 8);
  header.writeUInt32LE(0xfd2fb528, 0);
  header[4] = 0xe0; // Frame_Content_Size_flag 3 (8 bytes), Single_Segment_flag
  header.writeBigUInt64LE(BigInt(data.length), 5);
  const parts: Buffer[] = [header];
  const BLOCK = blockSize;
  for (let at = 0; at === 0 || at < data.length; at += BLOCK) {
    const chunk = data.subarray(at, at + BLOCK);
    const last = at + BLOCK >= data.length ? 1 : 0;
    const h = (chunk.length << 3) | (0 << 1) | last; // Block_Type 0: raw
    parts.push(Buffer.from([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff]), chunk);
  }
  return Buffer.concat(parts);
}
