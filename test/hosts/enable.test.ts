// `forge enable` / `forge disable` / `forge status` as a user runs them, on each host's own
// config files: the user's settings (their own hooks and keys, comments and odd formatting
// where the host allows them) survive enable, a second enable changes nothing, and disable
// gives back the user's bytes exactly; files and folders enable created go again.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fails, json, ok, forge as runForge } from "../support/cli.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { git, gitRepo } from "./git-support.js";

let dir: TempDir;
beforeEach(() => {
  dir = makeTempDir("enable");
  gitRepo(dir.path);
});
afterEach(() => dir.remove());

const forge = (...args: string[]) => runForge(dir.path, args);
const path = (rel: string) => join(dir.path, rel);
const read = (rel: string) => readFileSync(path(rel), "utf8");
function put(rel: string, text: string): void {
  mkdirSync(dirname(path(rel)), { recursive: true });
  writeFileSync(path(rel), text);
}

/** The commands of a Claude-Code-shaped hooks object at `event` (Claude Code, Gemini CLI and Codex share it). */
function commandsAt(settings: unknown, event: string): string[] {
  const groups = ((settings as { hooks?: Record<string, unknown[]> }).hooks?.[event] ?? []) as { hooks?: { command?: string }[] }[];
  return groups.flatMap((g) => (g.hooks ?? []).map((h) => h.command ?? ""));
}

interface HostCase {
  readonly host: string;
  /** The hooks file, and the user's original of it. */
  readonly file: string;
  readonly original: string;
  /** Forge's event for each of the host's events. */
  readonly events: Readonly<Record<string, string>>;
  /** What else must hold once enabled (the MCP server, the feature flag). */
  readonly alsoEnabled: () => void;
  /** Other files enable writes, absent before. */
  readonly created: readonly string[];
}

const CASES: readonly HostCase[] = [
  {
    host: "claude-code",
    file: ".claude/settings.json",
    original: `{
  "permissions": { "allow": ["Bash(npm test:*)"] },
  "env":   {"FOO": "bar"},
  "hooks": {
    "PostToolUse": [ { "matcher": "Write", "hooks": [ { "type": "command", "command": "echo user-hook" } ] } ]
  },
  "model": "opus"
}
`,
    events: {
      SessionStart: "session-start",
      UserPromptSubmit: "prompt",
      PostToolUse: "tool",
      Stop: "stop",
      PreCompact: "pre-compact",
      SessionEnd: "session-end",
    },
    alsoEnabled: () => expect(JSON.parse(read(".mcp.json"))).toEqual({ mcpServers: { forge: { command: "forge", args: ["mcp", "--profile", "lean"] } } }),
    created: [".mcp.json"],
  },
  {
    host: "gemini-cli",
    file: ".gemini/settings.json",
    original: `// project settings
{
\t"theme": "Default", // the user's theme
\t"hooks": {
\t\t"AfterTool": [
\t\t\t{ "matcher": "write_file", "hooks": [{ "type": "command", "command": "echo user-hook" }] },
\t\t],
\t},
\t/* servers of the user's */
\t"mcpServers": { "other": { "command": "other-server" } }
}
`,
    events: {
      SessionStart: "session-start",
      BeforeAgent: "prompt",
      AfterTool: "tool",
      AfterAgent: "stop",
      PreCompress: "pre-compact",
      SessionEnd: "session-end",
    },
    alsoEnabled: () => {
      const s = parseJsonc(read(".gemini/settings.json")) as { mcpServers: Record<string, unknown> };
      expect(s.mcpServers).toEqual({ other: { command: "other-server" }, forge: { command: "forge", args: ["mcp", "--profile", "lean"] } });
    },
    created: [],
  },
  {
    host: "codex",
    file: ".codex/hooks.json",
    original: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo user-hook", "timeout": 5}]}]},
 "description": "the user's hooks"}
`,
    events: {
      SessionStart: "session-start",
      UserPromptSubmit: "prompt",
      PostToolUse: "tool",
      Stop: "stop",
      PreCompact: "pre-compact",
      SessionEnd: "session-end",
    },
    alsoEnabled: () => {
      const c = parseToml(read(".codex/config.toml")) as Record<string, Record<string, unknown>>;
      expect(c["features"]).toEqual({ codex_hooks: true });
      expect(c["mcp_servers"]).toEqual({ forge: { command: "forge", args: ["mcp", "--profile", "lean"] } });
    },
    created: [".codex/config.toml"],
  },
];

describe.each(CASES)("forge enable $host", (c) => {
  it("keeps the user's settings, adds Forge's hooks, changes nothing the second time, and disable gives the original bytes back", () => {
    put(c.file, c.original);
    ok(forge("enable", c.host));
    const enabled = read(c.file);
    const settings = parseJsonc(enabled) as Record<string, unknown>;
    for (const key of Object.keys(parseJsonc(c.original) as object)) expect(settings).toHaveProperty(key);
    expect(enabled).toContain("echo user-hook");
    for (const [event, kind] of Object.entries(c.events)) expect(commandsAt(settings, event), event).toContain(`forge hook ${kind} --host ${c.host}`);
    c.alsoEnabled();

    ok(forge("enable", c.host));
    expect(read(c.file)).toBe(enabled);

    ok(forge("disable", c.host));
    expect(read(c.file)).toBe(c.original);
    for (const f of c.created) expect(existsSync(path(f)), f).toBe(false);
  });

  it("creates the files and folders it needs, and disable removes them again", () => {
    ok(forge("enable", c.host));
    const folder = dirname(c.file);
    expect(existsSync(path(c.file))).toBe(true);
    ok(forge("disable", c.host));
    expect(existsSync(path(folder)), folder).toBe(false);
    for (const f of [c.file, ...c.created]) expect(existsSync(path(f)), f).toBe(false);
  });

  it("refuses a malformed settings file, naming it and the place, and writes nothing", () => {
    put(c.file, '{\n  "hooks": {\n    "Stop": [,]\n  }\n}\n');
    const r = forge("enable", c.host);
    fails(r, 1, new RegExp(`${c.file.replaceAll(".", "\\.")} is not valid JSON: .* at line 3, column \\d+`));
    expect(read(c.file)).toBe('{\n  "hooks": {\n    "Stop": [,]\n  }\n}\n');
    expect(existsSync(path(".forge"))).toBe(false);
    for (const f of c.created) expect(existsSync(path(f)), f).toBe(false);
  });

  it("status says whether the hooks are installed and current, and when each event last fired", () => {
    type Status = { hosts: { host: string; enabled: boolean; installed: boolean; current: boolean; fired: Record<string, string | null> }[] };
    const mine = (s: Status) => s.hosts.find((h) => h.host === c.host);
    expect(mine(json<Status>(forge("status", "--json")))).toMatchObject({ enabled: false, installed: false, current: false });
    ok(forge("enable", c.host));
    const fired = path(`.forge/fired/${c.host}.prompt`);
    put(`.forge/fired/${c.host}.prompt`, "");
    const when = new Date("2026-11-20T10:00:00Z");
    utimesSync(fired, when, when);
    const after = mine(json<Status>(forge("status", "--json")));
    expect(after).toMatchObject({ enabled: true, installed: true, current: true });
    expect(after?.fired).toMatchObject({ prompt: when.toISOString(), tool: null });
    ok(forge("disable", c.host));
    expect(mine(json<Status>(forge("status", "--json")))).toMatchObject({ enabled: false, installed: false });
  });
});

describe("forge enable codex with a malformed config.toml", () => {
  it("refuses it, naming the file and the place, and writes nothing", () => {
    put(".codex/config.toml", 'model = "o3"\nmodel = "o4"\n');
    fails(forge("enable", "codex"), 1, /\.codex\/config\.toml is not valid TOML: Defining a key multiple times is invalid at line 2, column 1/);
    expect(existsSync(path(".codex/hooks.json"))).toBe(false);
    expect(existsSync(path(".forge"))).toBe(false);
  });
});

describe("forge disable after the user changed the file", () => {
  it("takes out only Forge's entries and keeps the user's later edits", () => {
    put(".claude/settings.json", '{\n  "model": "opus"\n}\n');
    ok(forge("enable", "claude-code"));
    const s = parseJsonc(read(".claude/settings.json")) as { hooks: Record<string, unknown[]> };
    s.hooks["Stop"]?.push({ hooks: [{ type: "command", command: "echo mine" }] });
    writeFileSync(path(".claude/settings.json"), `${JSON.stringify({ ...s, theme: "dark" }, null, 2)}\n`);
    ok(forge("disable", "claude-code"));
    expect(JSON.parse(read(".claude/settings.json"))).toEqual({
      model: "opus",
      hooks: { Stop: [{ hooks: [{ type: "command", command: "echo mine" }] }] },
      theme: "dark",
    });
  });

  it("in a TOML file too: Forge's keys and the table it created go, the user's new keys stay", () => {
    put(".codex/config.toml", '# mine\nmodel = "o3"\n\n[features]\nweb_search = true\n');
    ok(forge("enable", "codex"));
    writeFileSync(path(".codex/config.toml"), `${read(".codex/config.toml")}\n[profiles.fast]\nmodel = "o4-mini"\n`);
    ok(forge("disable", "codex"));
    expect(read(".codex/config.toml")).toBe('# mine\nmodel = "o3"\n\n[features]\nweb_search = true\n\n[profiles.fast]\nmodel = "o4-mini"\n');
  });
});

describe("choosing hosts", () => {
  it("with none named, enables the hosts whose files the project has", () => {
    put(".gemini/settings.json", '{ "theme": "Default" }\n');
    put(".codex/hooks.json", '{ "hooks": {} }\n');
    const r = json<{ chosen: string; hosts: { host: string }[] }>(forge("enable", "--json"));
    expect(r.chosen).toBe("found");
    expect(r.hosts.map((h) => h.host).sort()).toEqual(["codex", "gemini-cli"]);
    expect(existsSync(path(".claude"))).toBe(false);
  });

  it("with none named and none found, is a usage error naming the hosts", () => {
    const r = forge("enable");
    fails(r, 2, /found no agent host's files in .*; name one: forge enable claude-code \| codex \| gemini-cli/);
    expect(existsSync(path(".forge"))).toBe(false);
  });

  it("refuses a host it does not know, listing the ones it does", () => {
    fails(forge("enable", "vscode"), 2, /vscode.*claude-code, codex, gemini-cli, cursor, copilot, opencode/s);
  });

  it("disable with none named takes out every host enabled", () => {
    ok(forge("enable", "claude-code", "codex"));
    const r = json<{ hosts: { host: string; files: { action: string }[] }[] }>(forge("disable", "--json"));
    expect(r.hosts.map((h) => h.host).sort()).toEqual(["claude-code", "codex"]);
    for (const f of [".claude", ".mcp.json", ".codex", ".forge/hosts.json"]) expect(existsSync(path(f)), f).toBe(false);
  });
});

describe("forge enable and the store", () => {
  it("creates the store as forge init does, kept out of git", () => {
    const r = json<{ root: string; store: { created: boolean; gitWorkTree: string } | null }>(forge("enable", "claude-code", "--json"));
    expect(r.store).toMatchObject({ created: true, gitWorkTree: dir.path });
    expect(read(".forge/.gitignore")).toMatch(/^\*$/m);
    expect(git(dir.path, "status", "--porcelain")).not.toMatch(/\.forge/);
    expect(json<{ store: unknown }>(forge("enable", "claude-code", "--json")).store).toBeNull();
  });

  it("works from a subfolder on the project at the top of the git work tree", () => {
    mkdirSync(path("src/deep"), { recursive: true });
    ok(runForge(path("src/deep"), ["enable", "claude-code"]));
    expect(existsSync(path(".claude/settings.json"))).toBe(true);
    expect(existsSync(path(".forge"))).toBe(true);
    expect(existsSync(path("src/deep/.claude"))).toBe(false);
  });

  it("keeps a settings file's mode and writes through a symbolic link", () => {
    put("dotfiles/claude.json", '{ "model": "opus" }\n');
    chmodSync(path("dotfiles/claude.json"), 0o600);
    mkdirSync(path(".claude"));
    symlinkSync("../dotfiles/claude.json", path(".claude/settings.json"));
    ok(forge("enable", "claude-code"));
    expect(read("dotfiles/claude.json")).toContain("forge hook prompt --host claude-code");
    expect(statSync(path("dotfiles/claude.json")).mode & 0o777).toBe(0o600);
    ok(forge("disable", "claude-code"));
    expect(read("dotfiles/claude.json")).toBe('{ "model": "opus" }\n');
  });
});
