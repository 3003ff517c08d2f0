// `forge enable` / `forge disable` for Factory Droid, Windsurf, Cline and Kiro, as a user runs
// them, on configurations that already hold the user's own hooks and keys: enable keeps them,
// a second enable changes nothing, disable gives back every file byte for byte (and every
// mode), and what enable created goes again. The command-line aliases (droid, factory,
// cascade, kiro-cli, kiro-ide) name the same hosts.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fails, json, ok, forge as runForge } from "../support/cli.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { gitRepo } from "./git-support.js";

let dir: TempDir;
beforeEach(() => {
  dir = makeTempDir("enable-more");
  gitRepo(dir.path);
});
afterEach(() => dir.remove());

const forge = (...args: string[]) => runForge(dir.path, args);
const path = (rel: string) => join(dir.path, rel);
const read = (rel: string) => readFileSync(path(rel), "utf8");
const modeOf = (rel: string) => statSync(path(rel)).mode & 0o777;
function put(rel: string, text: string, mode?: number): void {
  mkdirSync(dirname(path(rel)), { recursive: true });
  writeFileSync(path(rel), text);
  if (mode !== undefined) chmodSync(path(rel), mode);
}

/** Every file of the project but .git and .forge: its mode and bytes. */
function tree(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of readdirSync(path(rel), { withFileTypes: true })) {
      const r = rel === "." ? e.name : `${rel}/${e.name}`;
      if (rel === "." && (e.name === ".git" || e.name === ".forge")) continue;
      if (e.isDirectory()) walk(r);
      else out[r] = `${modeOf(r).toString(8)} ${read(r)}`;
    }
  };
  walk(".");
  return out;
}

/** enable → enable → disable: the first changes what `check` looks at, the second nothing, disable gives back `before`. */
function roundTrip(host: string, check: () => void): void {
  const before = tree();
  ok(forge("enable", host));
  const once = tree();
  check();
  ok(forge("enable", host));
  expect(tree()).toEqual(once);
  ok(forge("disable", host));
  expect(tree()).toEqual(before);
}

const commandsAt = (hooks: Record<string, { hooks?: { command: string }[]; command?: string }[]> | undefined, event: string) =>
  (hooks?.[event] ?? []).flatMap((g) => (g.hooks ?? [g]).map((h) => h.command));

describe("forge enable factory-droid", () => {
  const settings = `{
  "model": "sonnet",
  "diffMode":   "github",
  "hooks": { "PostToolUse": [ { "matcher": "Edit|Create", "hooks": [ { "type": "command", "command": "echo user-hook" } ] } ] }
}
`;

  it("with no hooks.json: Forge's hooks in settings.json's hooks next to the user's, the MCP server in .factory/mcp.json", () => {
    put(".factory/settings.json", settings);
    roundTrip("factory-droid", () => {
      const s = JSON.parse(read(".factory/settings.json")) as { model: string; diffMode: string; hooks: Record<string, never[]> };
      expect([s.model, s.diffMode]).toEqual(["sonnet", "github"]);
      expect(commandsAt(s.hooks, "PostToolUse")).toEqual(["echo user-hook", "forge hook tool --host factory-droid"]);
      expect(s.hooks["PostToolUse"]?.[1]).toMatchObject({ matcher: "*" });
      for (const [event, kind] of [
        ["SessionStart", "session-start"],
        ["UserPromptSubmit", "prompt"],
        ["Stop", "stop"],
        ["PreCompact", "pre-compact"],
        ["SessionEnd", "session-end"],
      ])
        expect(commandsAt(s.hooks, event as string)).toEqual([`forge hook ${kind} --host factory-droid`]);
      expect(JSON.parse(read(".factory/mcp.json"))).toEqual({ mcpServers: { forge: { type: "stdio", command: "forge", args: ["mcp", "--profile", "lean"] } } });
    });
    expect(existsSync(path(".factory/mcp.json"))).toBe(false);
  });

  it("with a hooks.json, which Droid then reads instead: Forge's hooks go there and settings.json is left alone", () => {
    put(".factory/settings.json", settings);
    put(".factory/hooks.json", '{\n  "hooks": {\n    "Stop": [ { "hooks": [ { "type": "command", "command": "echo mine" } ] } ]\n  }\n}\n');
    roundTrip("factory-droid", () => {
      expect(read(".factory/settings.json")).toBe(settings);
      const h = JSON.parse(read(".factory/hooks.json")) as { hooks: Record<string, never[]> };
      expect(commandsAt(h.hooks, "Stop")).toEqual(["echo mine", "forge hook stop --host factory-droid"]);
      expect(commandsAt(h.hooks, "UserPromptSubmit")).toEqual(["forge hook prompt --host factory-droid"]);
    });
  });

  it("a hooks.json keyed by event at its top is edited in that shape", () => {
    put(".factory/hooks.json", '{ "PreToolUse": [ { "matcher": "Execute", "hooks": [ { "type": "command", "command": "guard" } ] } ] }\n');
    roundTrip("factory-droid", () => {
      const h = JSON.parse(read(".factory/hooks.json")) as Record<string, never[]>;
      expect(h["hooks"]).toBeUndefined();
      expect(commandsAt(h, "PreToolUse")).toEqual(["guard"]);
      expect(commandsAt(h, "PostToolUse")).toEqual(["forge hook tool --host factory-droid"]);
    });
  });
});

describe("forge enable windsurf", () => {
  it("keeps the user's hooks and formatting in .windsurf/hooks.json and adds Forge's", () => {
    put(
      ".windsurf/hooks.json",
      '{\n\t"hooks": {\n\t\t"post_write_code": [{ "command": "echo user-hook", "show_output": true }],\n\t\t"pre_run_command": [{ "command": "echo guard", "show_output": false }]\n\t}\n}\n',
    );
    roundTrip("windsurf", () => {
      const hooks = (JSON.parse(read(".windsurf/hooks.json")) as { hooks: Record<string, { command: string; show_output: boolean }[]> }).hooks;
      expect(hooks["post_write_code"]).toEqual([
        { command: "echo user-hook", show_output: true },
        { command: "forge hook tool --host windsurf", show_output: false },
      ]);
      expect(hooks["pre_run_command"]).toEqual([{ command: "echo guard", show_output: false }]);
      for (const [event, kind] of [
        ["pre_user_prompt", "prompt"],
        ["post_run_command", "tool"],
        ["post_mcp_tool_use", "tool"],
        ["post_cascade_response", "stop"],
      ])
        expect(hooks[event as string]?.map((h) => h.command)).toEqual([`forge hook ${kind} --host windsurf`]);
      expect(read(".windsurf/hooks.json")).toMatch(/^\t\t"pre_user_prompt"/m);
    });
  });

  it("creates .windsurf/hooks.json and its folder when there is none, and disable removes both", () => {
    ok(forge("enable", "windsurf"));
    expect(existsSync(path(".windsurf/hooks.json"))).toBe(true);
    ok(forge("disable", "windsurf"));
    expect(existsSync(path(".windsurf"))).toBe(false);
  });
});

describe("forge enable cline", () => {
  const userScript =
    '#!/usr/bin/env bash\ninput=$(cat)\necho "$input" > "$(dirname "$0")/../../seen.json"\necho \'{"cancel": false, "contextModification": "USER"}\'\n';

  it("moves the user's hook script beside Forge's (bytes and mode kept), runs it after Forge with the same input and gives Cline its answer; disable puts it back", () => {
    put(".clinerules/coding-style.md", "# Style\n- tabs\n");
    put(".clinerules/hooks/PostToolUse", userScript, 0o700);
    roundTrip("cline", () => {
      expect(read(".clinerules/hooks/PostToolUse.forge-chained")).toBe(userScript);
      expect(modeOf(".clinerules/hooks/PostToolUse.forge-chained")).toBe(0o700);
      expect(modeOf(".clinerules/hooks/PostToolUse") & 0o100).toBe(0o100);
      expect(read(".clinerules/hooks/PostToolUse")).toContain("forge hook tool --host cline");
      for (const hook of ["TaskStart", "TaskResume", "UserPromptSubmit", "TaskComplete", "TaskCancel", "PreCompact"])
        expect(modeOf(`.clinerules/hooks/${hook}`)).toBe(0o755);
      // Cline runs the file itself: with no forge on the PATH the user's answer still comes back, the input intact.
      const input = JSON.stringify({
        hookName: "PostToolUse",
        taskId: "t",
        workspaceRoots: [dir.path],
        postToolUse: { toolName: "read_file", parameters: {} },
      });
      const r = spawnSync(path(".clinerules/hooks/PostToolUse"), [], { cwd: dir.path, input, encoding: "utf8", env: { PATH: "/usr/bin:/bin" } });
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "")).toEqual({ cancel: false, contextModification: "USER" });
      expect(JSON.parse(read("seen.json"))).toEqual(JSON.parse(input));
      rmSync(path("seen.json"));
    });
  });

  it('a script of Forge\'s own answers {"cancel": false} even where forge is not on the PATH', () => {
    ok(forge("enable", "cline"));
    const r = spawnSync(path(".clinerules/hooks/UserPromptSubmit"), [], { cwd: dir.path, input: "{}", encoding: "utf8", env: { PATH: "/usr/bin:/bin" } });
    expect([r.status, JSON.parse(r.stdout)]).toEqual([0, { cancel: false }]);
    ok(forge("disable", "cline"));
    expect(existsSync(path(".clinerules"))).toBe(false);
  });

  it("refuses a .clinerules file (Cline's hooks need the folder), and a chained name in the way, writing nothing", () => {
    put(".clinerules", "- use tabs\n");
    fails(forge("enable", "cline"), 1, /\.clinerules is a file/);
    expect(existsSync(path(".forge"))).toBe(false);
    const status = json<{ hosts: { host: string; installed: boolean; files: { problem?: string }[] }[] }>(forge("status", "--json"));
    expect(status.hosts.find((h) => h.host === "cline")).toMatchObject({
      installed: false,
      files: [{ problem: expect.stringMatching(/\.clinerules is a file/) }],
    });
    dir.remove();
    mkdirSync(dir.path);
    gitRepo(dir.path);
    put(".clinerules/hooks/TaskStart", "#!/bin/sh\necho '{\"cancel\": false}'\n", 0o755);
    put(".clinerules/hooks/TaskStart.forge-chained", "old\n");
    fails(forge("enable", "cline"), 1, /TaskStart\.forge-chained is in the way/);
    expect(readdirSync(path(".clinerules/hooks")).sort()).toEqual(["TaskStart", "TaskStart.forge-chained"]);
  });

  it("leaves a script the user changed since enable, and says where their own is", () => {
    put(".clinerules/hooks/PostToolUse", userScript, 0o755);
    ok(forge("enable", "cline"));
    writeFileSync(path(".clinerules/hooks/PostToolUse"), `${read(".clinerules/hooks/PostToolUse")}# mine\n`);
    const r = json<{ hosts: { files: { file: string; action: string; warnings: string[] }[] }[] }>(forge("disable", "cline", "--json"));
    const post = r.hosts[0]?.files.find((f) => f.file === ".clinerules/hooks/PostToolUse");
    expect(post).toMatchObject({ action: "kept" });
    expect(post?.warnings.join(" ")).toMatch(/PostToolUse\.forge-chained/);
    expect(read(".clinerules/hooks/PostToolUse.forge-chained")).toBe(userScript);
  });
});

describe("forge enable kiro", () => {
  const userHook =
    '{\n  "version": "1.0.0",\n  "enabled": true,\n  "name": "lint-on-save",\n  "description": "Lint",\n  "when": { "type": "fileEdited", "patterns": ["src/**/*.ts"] },\n  "then": { "type": "runCommand", "command": "echo user-hook" }\n}\n';
  const dev =
    '{\n  "name": "dev",\n  "tools": ["*"],\n  "allowedTools": ["fs_read"],\n  "hooks": { "postToolUse": [ { "matcher": "fs_write", "command": "echo user-hook" } ] }\n}\n';

  it("adds Forge's IDE hook files and Forge's hooks to every CLI agent, keeping the user's hook file, keys and hooks", () => {
    put(".kiro/hooks/lint-on-save.kiro.hook", userHook);
    put(".kiro/agents/dev.json", dev);
    put(".kiro/agents/review.json", '{ "name": "review", "tools": ["fs_read"] }\n');
    roundTrip("kiro", () => {
      expect(read(".kiro/hooks/lint-on-save.kiro.hook")).toBe(userHook);
      const prompt = JSON.parse(read(".kiro/hooks/forge-prompt.kiro.hook")) as Record<string, unknown>;
      expect(prompt).toMatchObject({ enabled: true, when: { type: "promptSubmit" } });
      const action = prompt["then"] as { type: string; command: string };
      expect(action.type).toBe("runCommand");
      expect(action.command).toMatch(/^forge hook prompt --host kiro/);
      expect((JSON.parse(read(".kiro/hooks/forge-tool.kiro.hook")) as { when: unknown }).when).toEqual({ type: "postToolUse", toolTypes: ["*"] });
      expect((JSON.parse(read(".kiro/hooks/forge-stop.kiro.hook")) as { when: unknown }).when).toEqual({ type: "agentStop" });
      const a = JSON.parse(read(".kiro/agents/dev.json")) as { name: string; allowedTools: string[]; hooks: Record<string, never[]> };
      expect([a.name, a.allowedTools]).toEqual(["dev", ["fs_read"]]);
      expect(commandsAt(a.hooks, "postToolUse")).toEqual(["echo user-hook", "forge hook tool --host kiro"]);
      for (const [event, kind] of [
        ["agentSpawn", "session-start"],
        ["userPromptSubmit", "prompt"],
        ["stop", "stop"],
      ])
        expect(commandsAt(a.hooks, event as string)).toEqual([`forge hook ${kind} --host kiro`]);
      expect(commandsAt((JSON.parse(read(".kiro/agents/review.json")) as { hooks: Record<string, never[]> }).hooks, "userPromptSubmit")).toEqual([
        "forge hook prompt --host kiro",
      ]);
    });
  });

  it("with no agent of the project's own writes only the IDE hooks (it does not invent a CLI agent)", () => {
    ok(forge("enable", "kiro-ide"));
    expect(readdirSync(path(".kiro")).sort()).toEqual(["hooks"]);
    ok(forge("disable", "kiro"));
    expect(existsSync(path(".kiro"))).toBe(false);
  });
});

describe("host names", () => {
  it("takes the aliases droid, factory, cascade, kiro-cli and kiro-ide, and lists them in the help", () => {
    const r = json<{ hosts: { host: string }[] }>(forge("enable", "droid", "cascade", "kiro-cli", "kiro-ide", "--json"));
    expect(r.hosts.map((h) => h.host)).toEqual(["factory-droid", "windsurf", "kiro"]);
    const off = json<{ hosts: { host: string }[] }>(forge("disable", "factory", "--json"));
    expect(off.hosts.map((h) => h.host)).toEqual(["factory-droid"]);
    const help = forge("enable", "--help").stdout;
    for (const name of ["factory-droid", "windsurf", "cline", "kiro", "droid", "cascade", "kiro-cli", "kiro-ide"]) expect(help).toContain(`"${name}"`);
  });

  it("with none named, finds these hosts by their folders (an old single .clinerules file is no sign of Cline's hooks)", () => {
    put(".factory/settings.json", "{}\n");
    put(".windsurf/hooks.json", '{ "hooks": {} }\n');
    put(".kiro/steering/product.md", "# product\n");
    put(".clinerules", "- tabs\n");
    const r = json<{ chosen: string; hosts: { host: string }[] }>(forge("enable", "--json"));
    expect([r.chosen, r.hosts.map((h) => h.host)]).toEqual(["found", ["factory-droid", "windsurf", "kiro"]]);
    rmSync(path(".clinerules"));
    put(".clinerules/rules.md", "- tabs\n");
    expect(json<{ hosts: { host: string }[] }>(forge("enable", "--json")).hosts.map((h) => h.host)).toContain("cline");
  });

  it("status lists every host Forge wires, ten of them", () => {
    const s = json<{ hosts: { host: string; label: string }[]; unsupported: string[] }>(forge("status", "--json"));
    expect(s.hosts.map((h) => h.host)).toEqual([
      "claude-code",
      "codex",
      "gemini-cli",
      "cursor",
      "copilot",
      "opencode",
      "factory-droid",
      "windsurf",
      "cline",
      "kiro",
    ]);
    expect(s.unsupported).toEqual([]);
  });
});
