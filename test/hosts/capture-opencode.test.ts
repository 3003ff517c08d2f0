// OpenCode as Forge captures it: the plugin `forge enable` writes, run as OpenCode runs it (its
// handlers called with OpenCode's hook arguments, `forge` replaced by a recorder), and the
// payloads it sends normalized. OpenCode keeps no transcript file, so there is none to read.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { capture } from "../../src/integrations/hosts/capture/opencode.js";
import { config, OPENCODE_EVENTS, OPENCODE_PLUGIN_FILE, opencodePlugin } from "../../src/integrations/hosts/config/opencode.js";
import { CAPTURE_KINDS, type CaptureKind } from "../../src/integrations/hosts/types.js";
import { makeTempDir, type TempDir } from "../support/temp.js";

const payloads = JSON.parse(readFileSync(join(import.meta.dirname, "fixtures", "opencode", "payloads.json"), "utf8")) as Record<
  string,
  Record<string, unknown>
>;
const SESSION = "ses_5f3c1a2b3ffeXq1Yk0abcd";

/** Plugin hooks (@opencode-ai/plugin Hooks) and bus events (opencode.ai/docs/plugins, "Events") OpenCode documents. */
const DOCUMENTED = {
  hooks: ["event", "chat.message", "tool.execute.before", "tool.execute.after", "experimental.session.compacting", "experimental.chat.system.transform"],
  events: ["session.created", "session.compacted", "session.deleted", "session.diff", "session.error", "session.idle", "session.status", "session.updated"],
};

const payload = (name: string) => {
  const p = payloads[name];
  if (p === undefined) throw new Error(`no fixture payload ${name}`);
  return p;
};

describe("OpenCode plugin payloads", () => {
  it("session.created starts a session in its directory", () => {
    expect(capture.normalize("session-start", payload("session.created"))).toMatchObject({
      host: "opencode",
      sessionId: SESSION,
      cwd: "/work/project",
      source: "startup",
    });
  });

  it("chat.message carries the text the user typed", () => {
    expect(capture.normalize("prompt", payload("chat.message")).prompt).toBe("Rename foo to bar in src/a.ts");
  });

  it("an edit names its filePath; a read writes nothing", () => {
    expect(capture.normalize("tool", payload("tool.execute.after")).tool).toMatchObject({
      name: "edit",
      input: { filePath: "/work/project/src/a.ts" },
      response: { title: "src/a.ts", output: "" },
      mayWrite: true,
      editedPaths: ["/work/project/src/a.ts"],
    });
    expect(capture.normalize("tool", payload("tool.execute.after:read")).tool).toMatchObject({ name: "read", mayWrite: false, editedPaths: [] });
  });

  it("apply_patch names every file its patch adds, updates, moves to or deletes", () => {
    expect(capture.normalize("tool", payload("tool.execute.after:apply_patch")).tool?.editedPaths).toEqual([
      "src/new-file.ts",
      "src/existing.ts",
      "src/renamed.ts",
      "src/obsolete.ts",
    ]);
  });

  it("session.idle, compaction and session.deleted name the session", () => {
    for (const [kind, name] of [
      ["stop", "session.idle"],
      ["pre-compact", "experimental.session.compacting"],
      ["session-end", "session.deleted"],
    ] as const) {
      expect(capture.normalize(kind, payload(name)).sessionId).toBe(SESSION);
    }
  });

  it("reads own properties only: a __proto__ key stays data", () => {
    const e = capture.normalize("stop", JSON.parse(`{"__proto__": {"sessionID": "evil"}}`) as Record<string, unknown>);
    expect(e.sessionId).toBeUndefined();
    expect(Object.hasOwn(e.raw, "__proto__")).toBe(true);
  });

  it("has no transcript: OpenCode keeps its conversation in its own storage, not a file a hook can read", () => {
    expect(capture.transcript).toBeUndefined();
  });

  it("prints the session-start context as text for the plugin, nothing at the other events", () => {
    expect(capture.output("session-start", "brief")).toBe("brief");
    for (const kind of ["prompt", "tool", "stop", "pre-compact", "session-end"] as const) expect(capture.output(kind, "x")).toBe("");
  });
});

describe("the plugin forge enable writes", () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = makeTempDir("opencode");
  });
  afterEach(() => dir.remove());

  type Call = { argv: string[]; stdin: Record<string, unknown> };
  type Hooks = Record<string, (input: unknown, output?: unknown) => Promise<void>>;

  /** The plugin with `forge` replaced by a recorder of its arguments and stdin, loaded as OpenCode loads it. */
  async function loadPlugin(): Promise<{ hooks: Hooks; calls: () => Call[] }> {
    const log = join(dir.path, "calls.jsonl");
    const recorder = join(dir.path, "record.mjs");
    writeFileSync(
      recorder,
      `import { appendFileSync, readFileSync } from "node:fs";
const [log, ...argv] = process.argv.slice(2);
appendFileSync(log, JSON.stringify({ argv, stdin: JSON.parse(readFileSync(0, "utf8")) }) + "\\n");
if (argv[1] === "session-start") process.stdout.write("the brief\\n");
`,
    );
    const file = join(dir.path, "forge.mjs");
    writeFileSync(file, opencodePlugin(`"${process.execPath}" "${recorder}" "${log}"`));
    const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    expect(Object.keys(mod)).toEqual(["ForgePlugin"]); // one named plugin function, no default object
    const plugin = mod["ForgePlugin"] as (input: unknown) => Promise<Hooks>;
    const hooks = await plugin({ client: { app: { log: async () => undefined } }, directory: dir.path });
    const calls = () =>
      readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Call);
    return { hooks, calls };
  }

  const hook = (hooks: Hooks, name: string) => {
    const h = hooks[name];
    if (h === undefined) throw new Error(`the plugin has no ${name} hook`);
    return h;
  };

  it("runs `forge hook <kind> --host opencode` at each event with a payload Forge normalizes", async () => {
    const { hooks, calls } = await loadPlugin();
    const info = { id: SESSION, directory: dir.path, title: "t" };
    await hook(hooks, "event")({ event: { type: "session.created", properties: { info } } });
    await hook(hooks, "chat.message")(
      { sessionID: SESSION, agent: "build", messageID: "msg_1" },
      {
        message: { id: "msg_1" },
        parts: [
          { type: "text", text: "Rename foo" },
          { type: "text", text: "injected", synthetic: true },
        ],
      },
    );
    await hook(hooks, "tool.execute.before")({ tool: "edit", sessionID: SESSION, callID: "c1" }, { args: { filePath: "src/a.ts" } });
    await hook(hooks, "tool.execute.after")({ tool: "edit", sessionID: SESSION, callID: "c1" }, { title: "src/a.ts", output: "", metadata: {} });
    await hook(hooks, "experimental.session.compacting")({ sessionID: SESSION }, { context: [] });
    await hook(hooks, "event")({ event: { type: "session.idle", properties: { sessionID: SESSION } } });
    await hook(hooks, "event")({ event: { type: "session.deleted", properties: { info } } });

    const got = calls();
    expect(got.map((c) => c.argv)).toEqual(
      (["session-start", "prompt", "tool", "pre-compact", "stop", "session-end"] as const).map((k) => ["hook", k, "--host", "opencode"]),
    );
    const events = got.map((c) => capture.normalize(c.argv[1] as CaptureKind, c.stdin));
    expect(events.every((e) => e.sessionId === SESSION && e.cwd === dir.path)).toBe(true);
    expect(events[1]?.prompt).toBe("Rename foo");
    expect(events[2]?.tool).toMatchObject({ name: "edit", input: { filePath: "src/a.ts" }, editedPaths: ["src/a.ts"] });
  });

  it("gives the model what Forge printed at session start, and leaves sub-agent sessions to their parent", async () => {
    const { hooks, calls } = await loadPlugin();
    await hook(hooks, "event")({ event: { type: "session.created", properties: { info: { id: SESSION, directory: dir.path } } } });
    const system = { system: [] as string[] };
    await hook(hooks, "experimental.chat.system.transform")({ sessionID: SESSION }, system);
    expect(system.system).toEqual(["the brief"]);
    await hook(hooks, "event")({ event: { type: "session.created", properties: { info: { id: "ses_child", parentID: SESSION, directory: dir.path } } } });
    await hook(hooks, "tool.execute.after")(
      { tool: "write", sessionID: "ses_child", callID: "c9", args: { filePath: "x" } },
      { title: "", output: "", metadata: {} },
    );
    await hook(hooks, "event")({ event: { type: "session.idle", properties: { sessionID: "ses_child" } } });
    expect(calls().map((c) => c.argv[1])).toEqual(["session-start"]);
  });
});

describe("forge enable opencode", () => {
  const edits = config.edits("forge");

  it("writes its own plugin file handling only documented hooks and events, running `forge hook <kind> --host opencode`", () => {
    const plugin = edits.find((e) => e.file === OPENCODE_PLUGIN_FILE);
    if (plugin?.format !== "owned") throw new Error("expected an owned plugin file");
    expect(plugin.text).toContain('const COMMAND = "forge";');
    expect(plugin.text).toContain(["`$", "{COMMAND} hook $", "{kind} --host opencode`"].join(""));
    for (const name of Object.keys(OPENCODE_EVENTS)) expect([...DOCUMENTED.hooks, ...DOCUMENTED.events]).toContain(name);
    for (const [name, kind] of Object.entries(OPENCODE_EVENTS))
      expect(plugin.text).toMatch(new RegExp(`${name.replace(/\./g, "\\.")}[\\s\\S]*run\\("${kind}"`));
    expect(new Set(Object.values(OPENCODE_EVENTS))).toEqual(new Set(CAPTURE_KINDS));
    const handled = [...plugin.text.matchAll(/^ {4}"?([\w.]+)"?: async/gm)].map((m) => m[1]);
    expect(handled).toHaveLength(6);
    expect(handled.every((h) => DOCUMENTED.hooks.includes(h ?? ""))).toBe(true);
  });

  it("registers the MCP server in opencode.json with the lean profile", () => {
    expect(edits.find((e) => e.file === "opencode.json")).toEqual({
      file: "opencode.json",
      format: "json",
      ops: [{ op: "set", path: ["mcp", "forge"], value: { type: "local", command: ["forge", "mcp", "--profile", "lean"], enabled: true } }],
    });
  });

  it("detects a project by opencode.json or its .opencode folder", () => {
    expect(config.detect).toEqual(expect.arrayContaining(["opencode.json", ".opencode"]));
  });
});
