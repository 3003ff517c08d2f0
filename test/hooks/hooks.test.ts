// `forge hook EVENT` as a host runs it: a child process with the host's JSON on stdin
// (Claude Code's hook input), in the project folder. It must do its job, keep stdout empty
// unless the host reads it, and never fail the host's action unless told to be strict.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forge as runForge, json as parseJson, type Run } from "../support/cli.js";
import { makeTempDir, type TempDir } from "../support/temp.js";

let dir: TempDir;

/** `forge ARGS` in the project folder (or `cwd`), with the host's JSON on stdin. */
function forge(args: string[], options: { input?: string; env?: Record<string, string>; cwd?: string } = {}): Run {
  return runForge(options.cwd ?? dir.path, args, { input: options.input ?? "", env: options.env ?? {} });
}

/** `forge ARGS --json`, expecting exit 0 (stderr is not checked). */
function json<T>(args: string[]): T {
  return parseJson<T>(forge([...args, "--json"]), { allowStderr: true });
}

type Cp = { seq: number; trigger: string; message: string; metadata: Record<string, unknown> };
const checkpoints = (session = "default") => json<{ checkpoints: Cp[] }>(["--session", session, "checkpoint", "list"]).checkpoints;

/** What Claude Code sends: the common fields and the event's own. */
function claude(event: string, fields: Record<string, unknown> = {}): string {
  return JSON.stringify({ session_id: "3f1c-test", transcript_path: "/tmp/transcript.jsonl", cwd: dir.path, hook_event_name: event, ...fields });
}

beforeEach(() => {
  dir = makeTempDir("hooks");
  expect(forge(["init"]).code).toBe(0);
  writeFileSync(join(dir.path, "kernel.c"), "int scale = 1;\n");
});
afterEach(() => dir.remove());

describe("forge hook pre-compact", () => {
  it("checkpoints the reasoning with the compaction trigger, silently, changed or not", () => {
    expect(forge(["hypothesis", "add", "the scale is applied twice"]).code).toBe(0);
    const r = forge(["hook", "pre-compact"], { input: claude("PreCompact", { trigger: "auto", custom_instructions: "" }) });
    expect(r).toMatchObject({ code: 0, stdout: "", stderr: "" });
    const again = forge(["hook", "pre-compact"], { input: claude("PreCompact", { trigger: "manual", custom_instructions: "keep the plan" }) });
    expect(again).toMatchObject({ code: 0, stdout: "" });
    expect(checkpoints().map((c) => c.trigger)).toEqual(["compaction-warning", "compaction-warning"]);
  });

  it("--files also snapshots the workspace, only when files changed", () => {
    const r = forge(["hook", "pre-compact", "--files", "--verbose"], { input: claude("PreCompact", { trigger: "auto" }) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/files: snapshot #1/);
    const again = forge(["hook", "pre-compact", "--files", "--verbose"], { input: claude("PreCompact", { trigger: "auto" }) });
    expect(again.stderr).toMatch(/files: unchanged since snapshot #1/);
    expect(checkpoints("workspace")).toHaveLength(1);
  });
});

describe("forge hook post-edit", () => {
  it("records the tool's edit as the agent's and snapshots; other changes are reported as outside the agent", () => {
    expect(forge(["files", "snapshot", "base"]).code).toBe(0);
    writeFileSync(join(dir.path, "kernel.c"), "int scale = 2;\n"); // the agent's Edit tool
    writeFileSync(join(dir.path, "build.log"), "made by a shell command\n"); // not through the agent's edit tool
    const r = forge(["hook", "post-edit"], {
      input: claude("PostToolUse", {
        tool_name: "Edit",
        tool_input: { file_path: join(dir.path, "kernel.c"), old_string: "1", new_string: "2" },
        tool_response: { filePath: join(dir.path, "kernel.c"), success: true },
      }),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/1 file\(s\) changed outside the agent: build\.log/);
    expect(r.stderr).not.toMatch(/kernel\.c/);
    const snaps = checkpoints("workspace");
    expect(snaps.map((s) => s.message)).toEqual(["base", `after Edit ${join(dir.path, "kernel.c")}`]);
    expect(forge(["files", "status"]).stdout).toMatch(/no changes/);
  });

  it("--strategy strict refuses the snapshot when something changed outside the agent, and still exits 0", () => {
    expect(forge(["files", "snapshot", "base"]).code).toBe(0);
    writeFileSync(join(dir.path, "other.c"), "outside\n");
    const r = forge(["hook", "post-edit", "--strategy", "strict"], {
      input: claude("PostToolUse", { tool_name: "Write", tool_input: { file_path: "kernel.c", content: "x" } }),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/forge hook post-edit: skipped: .*other\.c/s);
    expect(checkpoints("workspace")).toHaveLength(1);
  });

  it("--no-snapshot only records the edit", () => {
    expect(forge(["files", "snapshot", "base"]).code).toBe(0);
    writeFileSync(join(dir.path, "kernel.c"), "int scale = 3;\n");
    const r = forge(["hook", "post-edit", "--no-snapshot"], { input: claude("PostToolUse", { tool_name: "Edit", tool_input: { file_path: "kernel.c" } }) });
    expect(r).toMatchObject({ code: 0, stdout: "", stderr: "" });
    expect(checkpoints("workspace")).toHaveLength(1);
    const status = json<{ changes: { path: string }[]; unknown: string[] }>(["files", "status"]);
    expect(status.changes.map((c) => c.path)).toEqual(["kernel.c"]);
    expect(status.unknown).toEqual([]);
  });
});

describe("forge hook stop", () => {
  it("makes a closing checkpoint only when the reasoning changed, and snapshots only changed files", () => {
    expect(forge(["note", "first finding"]).code).toBe(0);
    const r = forge(["hook", "stop", "--verbose"], { input: claude("Stop", { stop_hook_active: false }) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    const [closing] = checkpoints();
    expect(closing).toMatchObject({ trigger: "session-end", message: "end of turn" });
    expect(closing?.metadata).toMatchObject({ hostSession: "3f1c-test", hook: "Stop" });
    expect(checkpoints("workspace")).toHaveLength(1);

    const idle = forge(["hook", "stop", "--verbose"], { input: claude("Stop", { stop_hook_active: true }) });
    expect(idle.stderr).toMatch(/reasoning unchanged since the last checkpoint: no checkpoint/);
    expect(idle.stderr).toMatch(/files: unchanged since snapshot #1/);
    expect(checkpoints()).toHaveLength(1);
    expect(checkpoints("workspace")).toHaveLength(1);
  });
});

describe("forge hook session-start", () => {
  it("prints the brief for the host after a compaction, and nothing at a fresh start", () => {
    expect(forge(["task", "find the 2x dequant bug"]).code).toBe(0);
    expect(forge(["hypothesis", "add", "the scale is applied twice"]).code).toBe(0);
    const after = forge(["hook", "session-start"], { input: claude("SessionStart", { source: "compact" }) });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toMatch(/^# Brief: default/);
    expect(after.stdout).toMatch(/find the 2x dequant bug/);
    expect(after.stdout).toMatch(/H1 \[proposed/);
    const fresh = forge(["hook", "session-start"], { input: claude("SessionStart", { source: "startup" }) });
    expect(fresh).toMatchObject({ code: 0, stdout: "", stderr: "" });
    expect(forge(["hook", "session-start", "--always"], { input: claude("SessionStart", { source: "startup" }) }).stdout).toMatch(/^# Brief/);
  });
});

describe("forge hook --host gemini", () => {
  it("always prints one JSON object on stdout, the brief as additionalContext", () => {
    expect(forge(["task", "find the 2x dequant bug"]).code).toBe(0);
    const gemini = (event: string, fields: Record<string, unknown>) =>
      JSON.stringify({
        session_id: "g1",
        transcript_path: "/tmp/t.json",
        cwd: dir.path,
        hook_event_name: event,
        timestamp: new Date().toISOString(),
        ...fields,
      });
    const start = forge(["hook", "session-start", "--host", "gemini"], { input: gemini("SessionStart", { source: "resume" }) });
    expect(start.code, start.stderr).toBe(0);
    const out = JSON.parse(start.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(out.hookSpecificOutput.hookEventName).toBe("SessionStart");
    expect(out.hookSpecificOutput.additionalContext).toMatch(/find the 2x dequant bug/);

    expect(forge(["files", "snapshot", "base"]).code).toBe(0);
    writeFileSync(join(dir.path, "kernel.c"), "int scale = 2;\n");
    const edit = forge(["hook", "post-edit", "--host", "gemini"], {
      input: gemini("AfterTool", {
        tool_name: "replace",
        tool_input: { file_path: join(dir.path, "kernel.c"), old_string: "1", new_string: "2" },
        tool_response: { llmContent: "ok" },
      }),
    });
    expect(edit).toMatchObject({ code: 0, stdout: "{}\n", stderr: "" });
    expect(forge(["hook", "pre-compact", "--host", "gemini"], { input: gemini("PreCompress", { trigger: "auto" }) })).toMatchObject({
      code: 0,
      stdout: "{}\n",
    });
    const broken = forge(["hook", "stop", "--host", "gemini"], { input: "{oops", env: { FORGE_STORE: `sqlite:${join(dir.path, "kernel.c", "x.db")}` } });
    expect(broken.code).toBe(0);
    expect(broken.stdout).toBe("{}\n");
  });
});

describe("forge hook loads only what its event uses", () => {
  /** The project's modules `forge ARGS` loads (paths under dist/), seen by a module hook. */
  function loaded(args: string[], input: string): string[] {
    const tools = makeTempDir("hooks-loader");
    try {
      const log = join(tools.path, "loaded.txt");
      writeFileSync(log, "");
      writeFileSync(
        join(tools.path, "loader.mjs"),
        `import { appendFileSync } from "node:fs";\nexport async function load(url, context, next) { if (url.includes("/dist/")) appendFileSync(${JSON.stringify(log)}, url + "\\n"); return next(url, context); }\n`,
      );
      writeFileSync(
        join(tools.path, "register.mjs"),
        `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(tools.path, "loader.mjs")).href)});\n`,
      );
      // The modules one by one (the bundle is one script): what the bundle evaluates follows the same dynamic imports.
      const r = forge(args, { input, env: { FORGE_NO_BUNDLE: "1", NODE_OPTIONS: `--import ${pathToFileURL(join(tools.path, "register.mjs")).href}` } });
      expect(r.code, r.stderr).toBe(0);
      return readFileSync(log, "utf8")
        .split("\n")
        .filter((u) => u !== "")
        .map((u) => u.slice(u.indexOf("/dist/") + 6));
    } finally {
      tools.remove();
    }
  }
  const reasoning = (mods: string[]) => mods.filter((m) => m.startsWith("domains/reasoning/"));
  const workspaceEngine = (mods: string[]) => mods.filter((m) => m === "domains/workspace/workspace.js");

  it("post-edit loads the workspace engine and not the reasoning session", () => {
    const mods = loaded(["hook", "post-edit"], claude("PostToolUse", { tool_name: "Edit", tool_input: { file_path: "kernel.c" } }));
    expect(workspaceEngine(mods)).toHaveLength(1);
    expect(reasoning(mods)).toEqual([]);
  });

  it("pre-compact, and stop --no-files, load the reasoning session and not the workspace engine; --files adds it", () => {
    for (const args of [
      ["hook", "pre-compact"],
      ["hook", "stop", "--no-files"],
    ]) {
      const mods = loaded(args, claude("PreCompact", { trigger: "auto" }));
      expect(mods, args.join(" ")).toContain("domains/reasoning/reasoning-session.js");
      expect(workspaceEngine(mods), args.join(" ")).toEqual([]);
    }
    expect(workspaceEngine(loaded(["hook", "pre-compact", "--files"], claude("PreCompact", { trigger: "auto" })))).toHaveLength(1);
  });

  it("session-start at a fresh start loads neither", () => {
    const mods = loaded(["hook", "session-start"], claude("SessionStart", { source: "startup" }));
    expect(reasoning(mods)).toEqual([]);
    expect(workspaceEngine(mods)).toEqual([]);
  });
});

describe("forge hook never fails the host", () => {
  it("malformed JSON: says so on stderr, still does its job, exits 0; strict exits 1", () => {
    const r = forge(["hook", "pre-compact"], { input: "{not json" });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^forge hook pre-compact: the hook input is not JSON/);
    expect(checkpoints().map((c) => c.trigger)).toEqual(["compaction-warning"]);
    const strict = forge(["hook", "pre-compact", "--strict"], { input: "[1, 2" });
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/error: the hook input is not JSON/);
    expect(forge(["hook", "stop"], { input: "42" }).stderr).toMatch(/not a JSON object/);
  });

  it("a store that cannot be opened: a message on stderr, exit 0; --strict or FORGE_HOOK_STRICT=1 exits 1", () => {
    writeFileSync(join(dir.path, "a-file"), "");
    const env = { FORGE_STORE: `sqlite:${join(dir.path, "a-file", "x.db")}` };
    for (const event of ["session-start", "pre-compact", "post-edit", "stop"]) {
      const r = forge(["hook", event], { input: claude("X"), env });
      expect(r.code, event).toBe(0);
      expect(r.stdout, event).toBe("");
      expect(r.stderr, event).toMatch(new RegExp(`^forge hook ${event}: skipped: `));
    }
    expect(forge(["hook", "pre-compact", "--strict"], { input: claude("PreCompact"), env }).code).toBe(1);
    expect(forge(["hook", "stop"], { input: claude("Stop"), env: { ...env, FORGE_HOOK_STRICT: "1" } }).code).toBe(1);
  });

  it("a folder without a Forge store is left alone: no store is created", () => {
    const elsewhere = makeTempDir("hooks-nostore");
    try {
      const r = forge(["hook", "stop"], { input: JSON.stringify({ hook_event_name: "Stop", cwd: elsewhere.path }), cwd: elsewhere.path });
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/no Forge store for .*run `forge init`/);
      expect(existsSync(join(elsewhere.path, ".forge"))).toBe(false);
    } finally {
      elsewhere.remove();
    }
  });

  it("an unknown event is a usage error (the wiring is wrong, not Forge)", () => {
    const r = forge(["hook", "post-compact"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'post-compact'/);
  });
});
