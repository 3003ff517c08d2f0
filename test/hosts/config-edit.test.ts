// The config editors under `forge enable`, on the file layouts users have: indentation and
// line endings followed, a user's own value never overwritten, an older Forge entry replaced
// rather than doubled, TOML tables found wherever they are, and a file Forge cannot edit
// safely refused with its name and place. The undo of every edit gives the bytes back.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ForgeError } from "../../src/core/errors.js";
import { applyJsonOps, jsonEntriesState, removeJsonEntries } from "../../src/integrations/hosts/config/edit-json.js";
import { applyTomlOps, removeTomlEntries } from "../../src/integrations/hosts/config/edit-toml.js";
import { ProjectFiles } from "../../src/integrations/hosts/config/project-files.js";
import { undoSteps } from "../../src/integrations/hosts/config/text-edits.js";
import { planDisableHost, planEnableHost } from "../../src/integrations/hosts/config/wiring.js";
import type { HostConfigSpec, JsonOp, TomlOp } from "../../src/integrations/hosts/types.js";
import { makeTempDir, type TempDir } from "../support/temp.js";

const stop = (command: string, matcher?: string): JsonOp => ({
  op: "append",
  path: ["hooks", "Stop"],
  value: { ...(matcher !== undefined && { matcher }), hooks: [{ type: "command", command }] },
});
const STOP = stop("forge hook stop --host claude-code");
const SERVER: JsonOp = { op: "set", path: ["mcpServers", "forge"], value: { command: "forge", args: ["mcp"] } };

/** The error `fn` throws. */
function thrown(fn: () => unknown): ForgeError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ForgeError) return e;
    throw e;
  }
  throw new Error("did not throw");
}

describe("JSON edits", () => {
  it("indent what they insert like the file, with its line endings, and undo to the same bytes", () => {
    const text = '{\r\n\t"model": "opus"\r\n}\r\n';
    const r = applyJsonOps("s.json", text, [STOP], []);
    expect(r.text).toMatch(/^\{\r\n\t"model": "opus",\r\n\t"hooks": \{\r\n\t\t"Stop": \[\r\n\t\t\t\{/);
    expect(r.text).not.toMatch(/[^\r]\n/);
    expect(undoSteps(r.text, r.undo)).toBe(text);
  });

  it("leave a value of the user's where Forge would set one, and say so", () => {
    const text = '{ "mcpServers": { "forge": { "command": "my-forge" } } }';
    const r = applyJsonOps("s.json", text, [SERVER], []);
    expect(r.text).toBe(text);
    expect(r.warnings).toEqual(['left "mcpServers.forge" in s.json as it is: it is not Forge\'s']);
    expect(jsonEntriesState("s.json", text, [SERVER])).toEqual({ installed: true, current: false });
  });

  it("update a value Forge set before", () => {
    const text = '{ "mcpServers": { "forge": { "command": "old" } } }';
    const r = applyJsonOps("s.json", text, [SERVER], [{ ...SERVER, value: { command: "old" } }]);
    expect(JSON.parse(r.text)).toEqual({ mcpServers: { forge: { command: "forge", args: ["mcp"] } } });
  });

  it("replace an older version's entry running the same command instead of adding a second", () => {
    const text = JSON.stringify({
      hooks: {
        Stop: [
          { hooks: [{ type: "command", command: "echo mine" }] },
          { matcher: "", hooks: [{ type: "command", command: "forge hook stop --host claude-code", timeout: 9 }] },
        ],
      },
    });
    const r = applyJsonOps("s.json", text, [STOP], []);
    expect(JSON.parse(r.text).hooks.Stop).toEqual([{ hooks: [{ type: "command", command: "echo mine" }] }, STOP.value]);
    expect(jsonEntriesState("s.json", text, [STOP])).toEqual({ installed: true, current: false });
  });

  it("give a blank file its bytes back on undo", () => {
    const r = applyJsonOps("s.json", "\n\n", [STOP], []);
    expect(JSON.parse(r.text)).toEqual({ hooks: { Stop: [STOP.value] } });
    expect(undoSteps(r.text, r.undo)).toBe("\n\n");
  });

  it("refuse a key of the wrong kind, naming it", () => {
    expect(thrown(() => applyJsonOps("s.json", '{ "hooks": [] }', [STOP], [])).message).toBe('s.json: "hooks" is a list, where an object was expected');
    expect(thrown(() => applyJsonOps("s.json", '{ "hooks": { "Stop": {} } }', [STOP], [])).message).toBe('s.json: "hooks.Stop" is not a list');
    expect(thrown(() => applyJsonOps("s.json", "[1]", [STOP], [])).message).toBe("s.json does not hold a JSON object");
  });

  it("when taken out structurally, remove every Forge entry of the host and the containers Forge made, nothing else", () => {
    const text = JSON.stringify({
      hooks: {
        Stop: [
          { hooks: [{ type: "command", command: "/opt/bin/forge hook stop --host claude-code" }] },
          { hooks: [{ type: "command", command: "forge hook stop --host codex" }] },
          { hooks: [{ type: "command", command: "echo mine" }] },
        ],
        Other: [],
      },
    });
    const out = removeJsonEntries("s.json", text, [STOP], [["hooks"], ["hooks", "Stop"], ["hooks", "Other"]], "claude-code");
    expect(JSON.parse(out)).toEqual({
      hooks: { Stop: [{ hooks: [{ type: "command", command: "forge hook stop --host codex" }] }, { hooks: [{ type: "command", command: "echo mine" }] }] },
    });
  });
});

describe("TOML edits", () => {
  const FLAG: TomlOp = { table: "features", key: "codex_hooks", value: true };
  const CMD: TomlOp = { table: "mcp_servers.forge", key: "command", value: "forge" };

  it("add a key after the last key of its table, keeping comments and the rest in place", () => {
    const text = '# mine\n[features]\nweb_search = true   # on\n\n[profiles.x]\nmodel = "o3"';
    const r = applyTomlOps("c.toml", text, [FLAG, CMD], []);
    expect(r.text).toBe(
      '# mine\n[features]\nweb_search = true   # on\ncodex_hooks = true\n\n[profiles.x]\nmodel = "o3"\n\n[mcp_servers.forge]\ncommand = "forge"\n',
    );
    expect(r.created).toEqual(["mcp_servers.forge"]);
    expect(undoSteps(r.text, r.undo)).toBe(text);
    expect(removeTomlEntries("c.toml", r.text, r.added, r.created)).toBe(text.endsWith("\n") ? text : `${text}\n`);
  });

  it("follow CRLF line endings", () => {
    const r = applyTomlOps("c.toml", "[features]\r\nx = 1\r\n", [FLAG], []);
    expect(r.text).toBe("[features]\r\nx = 1\r\ncodex_hooks = true\r\n");
  });

  it("leave a key the user set, and refuse a table written inline, naming the file", () => {
    const mine = applyTomlOps("c.toml", "[features]\ncodex_hooks = false\n", [FLAG], []);
    expect(mine.text).toBe("[features]\ncodex_hooks = false\n");
    expect(mine.warnings).toEqual(["left codex_hooks in [features] of c.toml as it is"]);
    const e = thrown(() => applyTomlOps("c.toml", "features = { web_search = true }\n", [FLAG], []));
    expect(e.message).toBe("cannot add codex_hooks to [features] in c.toml: the table is written in a form Forge does not edit");
    expect(e.hint).toMatch(/add `codex_hooks = true` to \[features\] yourself/);
  });

  it("refuse a file that is not TOML, naming the line and column", () => {
    const e = thrown(() => applyTomlOps("c.toml", 'model = "o3"\nmodel = "o4"\n', [FLAG], []));
    expect(e.message).toBe("c.toml is not valid TOML: Defining a key multiple times is invalid at line 2, column 1");
    expect(e.data).toMatchObject({ path: "c.toml", line: 2, column: 1 });
  });
});

describe("enabling a host twice and disabling it", () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir("wiring");
    mkdirSync(join(dir.path, ".host"));
  });
  afterEach(() => dir.remove());

  const spec = (ops: (forge: string) => JsonOp[]): HostConfigSpec => ({
    id: "claude-code",
    label: "Test",
    docs: [],
    detect: [],
    edits: (forge) => [
      { file: ".host/settings.json", format: "json", ops: ops(forge) },
      { file: ".host/plugin.js", format: "owned", text: `// ${forge}\n` },
    ],
  });
  const hooks = (forge: string) => [stop(`${forge} hook stop --host claude-code`)];

  it("starts again from the user's original when Forge's entries change, and disable still restores the bytes", () => {
    const original = '{ "model": "opus" }\n';
    writeFileSync(join(dir.path, ".host/settings.json"), original);
    const files = new ProjectFiles(dir.path);
    const first = planEnableHost(files, spec(hooks), "forge", undefined);
    files.commit();
    const second = planEnableHost(files, spec(hooks), "/opt/forge", first.record);
    files.commit();
    const settings = readFileSync(join(dir.path, ".host/settings.json"), "utf8");
    expect(settings).toContain("/opt/forge hook stop");
    expect(settings).not.toContain('"forge hook stop');
    expect(readFileSync(join(dir.path, ".host/plugin.js"), "utf8")).toBe("// /opt/forge\n");
    expect(planDisableHost(files, "claude-code", second.record).map((c) => c.action)).toEqual(["restored", "deleted"]);
    files.commit();
    expect(readFileSync(join(dir.path, ".host/settings.json"), "utf8")).toBe(original);
  });

  it("refuses to take over a file of the user's where Forge owns the whole file", () => {
    writeFileSync(join(dir.path, ".host/plugin.js"), "// the user's\n");
    const e = thrown(() => planEnableHost(new ProjectFiles(dir.path), spec(hooks), "forge", undefined));
    expect(e.message).toBe(".host/plugin.js exists and is not Forge's");
  });
});
