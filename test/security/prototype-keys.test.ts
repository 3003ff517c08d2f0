// No decoded key reaches a prototype: "__proto__", "constructor" and "prototype" in any input
// a user or a host hands Forge are ordinary keys that come back as data, through every door —
// the CLI (states, --metadata, chat imports, hooks), the web API, MCP tool arguments and
// ForgeSaver's channels. Each test checks the round trip AND that no prototype changed: in
// this process (the web server and ForgeSaver run here), and in a `forge` child process by
// preloading test/fixtures/prototype-guard.mjs, which reports at exit whether Object.prototype
// and its kin are as they were at start.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import { ConversationSession } from "../../src/domains/conversation/conversation-session.js";
import { startUi, type RunningUi } from "../../src/ui/server.js";
import { startMcp } from "../mcp/support.js";
import { forge as runForge, type Run as CliRun } from "../support/cli.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { checkpointOf, loopMetadata, sqliteSaver, threadConfig } from "../langgraph/support.js";

const GUARD = pathToFileURL(resolve(__dirname, "..", "fixtures", "prototype-guard.mjs")).href;

/** Every own property of the built-in prototypes, to compare before and after. */
function prototypeProperties(): string[] {
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype].flatMap((p, i) => Reflect.ownKeys(p).map((k) => `${i}:${String(k)}`));
}
const BASELINE = prototypeProperties();

/** This process's prototypes are untouched: no marker readable on a fresh object, no property added or removed. */
function expectNoPollution(): void {
  expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  expect(([] as unknown as Record<string, unknown>)["polluted"]).toBeUndefined();
  expect(prototypeProperties()).toEqual(BASELINE);
}

/** JSON text of an object whose keys are all own data keys ("__proto__" too), as JSON.parse makes them. */
const data = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

/** What every state, metadata and message below carries: the three keys at several depths. */
const TRAPS = `"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"}`;

let dir: TempDir;
let runs = 0;

interface Run extends CliRun {
  /** The guard's lines: one per process, "<pid> clean" when no prototype changed. */
  readonly guard: string[];
}

/** `forge ARGS` in the test folder with the prototype guard loaded into the process. */
function forge(args: string[], options: { input?: string } = {}): Run {
  const report = join(dir.path, `guard-${++runs}.txt`);
  const r = runForge(dir.path, args, { input: options.input ?? "", env: { NODE_OPTIONS: `--import=${GUARD}`, PROTOTYPE_GUARD_REPORT: report } });
  const guard = existsSync(report) ? readFileSync(report, "utf8").trim().split("\n") : [];
  rmSync(report, { force: true });
  return { ...r, guard };
}

/** Runs forge, which must succeed without touching a prototype. */
function ok(args: string[], options: { input?: string } = {}): Run {
  const r = forge(args, options);
  expect(r.code, r.stderr).toBe(0);
  expectCleanChild(r);
  return r;
}

function expectCleanChild(r: Run): void {
  expect(r.guard, "the guard's report of the forge process").toEqual([expect.stringMatching(/^\d+ clean$/)]);
}

function json<T>(args: string[]): T {
  return JSON.parse(ok([...args, "--json"]).stdout) as T;
}

describe("the CLI", () => {
  beforeEach(() => {
    dir = makeTempDir("proto-cli");
    ok(["init"]);
  });
  afterEach(() => dir.remove());

  function roundTrip(stateText: string): void {
    writeFileSync(join(dir.path, "state.json"), stateText);
    json(["checkpoint", "create", "with keys", "--state", "state.json"]);
    const shown = json<{ state: Record<string, unknown> }>(["checkpoint", "show"]);
    expect(JSON.stringify(shown.state)).toBe(JSON.stringify(data(stateText)));
    expect(Object.hasOwn(shown.state, "__proto__")).toBe(true);
    ok(["checkpoint", "restore", "HEAD", "--output", "restored.json"]);
    expect(JSON.stringify(data(readFileSync(join(dir.path, "restored.json"), "utf8")))).toBe(JSON.stringify(data(stateText)));
    expectNoPollution();
  }

  it("a state with __proto__, constructor and prototype keys at several depths round-trips through create, show --json and restore --output", () => {
    roundTrip(`{${TRAPS},"a":{${TRAPS},"b":{"c":[{${TRAPS}}],${TRAPS}}},"list":[{${TRAPS}}]}`);
  });

  it("a state whose __proto__ and constructor.prototype values are split into child objects and chunks round-trips as data", () => {
    const pad = (n: number) => `"pad":"${String(n).repeat(2600)}"`; // over 2 KB: a child object of its own
    const items = Array.from({ length: 24 }, (_, i) => `{"__proto__":{"polluted":"yes","n":${i},"pad":"${"i".repeat(500)}${i}"}}`); // over 8 KB: chunked
    roundTrip(
      `{"__proto__":{"polluted":"yes",${pad(1)}},` +
        `"a":{"constructor":{"prototype":{"polluted":"yes",${pad(2)}}},"b":{"__proto__":{"__proto__":{"polluted":"yes",${pad(3)}}}}},` +
        `"constructor":{"prototype":{"polluted":"yes",${pad(4)}}},` +
        `"list":[${items.join(",")}]}`,
    );
  });

  it("--metadata keeps __proto__, constructor and prototype keys as metadata", () => {
    const metadata = `{${TRAPS},"nested":{${TRAPS}}}`;
    const r = ok(["checkpoint", "create", "meta", "--state", "-", "--metadata", metadata, "--json"], { input: "{}" });
    expect(JSON.stringify((JSON.parse(r.stdout) as { checkpoint: { metadata: unknown } }).checkpoint.metadata)).toBe(JSON.stringify(data(metadata)));
    const listed = json<{ checkpoints: { metadata: Record<string, unknown> }[] }>(["checkpoint", "list"]);
    expect(JSON.stringify(listed.checkpoints.at(-1)?.metadata)).toBe(JSON.stringify(data(metadata)));
    expectNoPollution();
  });

  it("an OpenAI transcript with __proto__ keys in tool-call arguments and extra fields imports and exports back unchanged", () => {
    const args = JSON.stringify(`{${TRAPS}}`); // the arguments are JSON text inside the message
    const transcript =
      `[{"role":"system","content":"be brief",${TRAPS}},` +
      `{"role":"user","content":"look it up","toString":"kept","hasOwnProperty":"kept"},` +
      `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":${args},${TRAPS}},${TRAPS}}],${TRAPS}},` +
      `{"role":"tool","content":"{}","tool_call_id":"call_1",${TRAPS}}]`;
    writeFileSync(join(dir.path, "chat.json"), transcript);
    ok(["chat", "import", "chat.json", "--as", "convo"]);
    const exported = ok(["--session", "convo", "chat", "export", "--format", "openai"]).stdout;
    expect(JSON.stringify(JSON.parse(exported))).toBe(JSON.stringify(JSON.parse(transcript)));
    expectNoPollution();
  });

  it("LangChain messages with __proto__ keys in args, additional_kwargs and other fields import and export back unchanged", () => {
    const ai =
      `{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"content":"",` +
      `"tool_calls":[{"id":"call_1","name":"lookup","args":{${TRAPS}},"type":"tool_call",${TRAPS}}],"invalid_tool_calls":[],` +
      `"additional_kwargs":{${TRAPS}},"response_metadata":{${TRAPS}},${TRAPS}}}`;
    const human = `{"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":"hi","additional_kwargs":{${TRAPS}},"response_metadata":{}}}`;
    const transcript = `[${human},${ai}]`;
    writeFileSync(join(dir.path, "chat.json"), transcript);
    ok(["chat", "import", "chat.json", "--as", "convo", "--format", "langchain"]);
    const exported = ok(["--session", "convo", "chat", "export", "--format", "langchain"]).stdout;
    expect(JSON.stringify(JSON.parse(exported))).toBe(JSON.stringify(JSON.parse(transcript)));
    expectNoPollution();
  });

  it("a LangChain message whose type or class is named like an Object.prototype member is refused, naming it", () => {
    ok(["chat", "new", "convo"]);
    const stored = forge(["--session", "convo", "chat", "append", '{"type":"constructor","data":{"content":"x"}}']);
    expect(stored.code).toBe(1);
    expect(stored.stderr).toMatch(/type "constructor" is not a LangChain message type/);
    expectCleanChild(stored);
    const serialized = forge([
      "--session",
      "convo",
      "chat",
      "append",
      '{"lc":1,"type":"constructor","id":["langchain_core","messages","constructor"],"kwargs":{"content":"x"}}',
    ]);
    expect(serialized.code).toBe(1);
    expect(serialized.stderr).toMatch(/"constructor" is not a LangChain message class/);
    expectCleanChild(serialized);
    expect(json<{ messages: unknown[] }>(["--session", "convo", "chat", "show"]).messages).toEqual([]);
    expectNoPollution();
  });

  it("a hook payload's __proto__ keys stay data in the checkpoint's metadata and change no prototype", () => {
    ok(["hypothesis", "add", "the scale is applied twice"]);
    const payload = `{${TRAPS},"session_id":{${TRAPS}},"transcript_path":"/tmp/t.jsonl","cwd":${JSON.stringify(dir.path)},"hook_event_name":"Stop","tool_input":{"__proto__":{"file_path":"kernel.c"}}}`;
    const r = ok(["hook", "stop", "--strict", "--no-files"], { input: payload });
    expect(r.stderr).toBe("");
    const last = json<{ checkpoints: { trigger: string; metadata: Record<string, unknown> }[] }>(["checkpoint", "list"]).checkpoints.at(-1);
    expect(last?.trigger).toBe("session-end");
    expect(JSON.stringify(last?.metadata)).toBe(JSON.stringify({ hook: "Stop", hostSession: data(`{${TRAPS}}`), transcript: "/tmp/t.jsonl" }));
    expectNoPollution();
  });
});

describe("the web API", () => {
  let store: Store;
  let ui: RunningUi;
  let base: string;

  beforeEach(async () => {
    dir = makeTempDir("proto-ui");
    store = await openStore(`sqlite:${dir.path}/forge.db`);
    await (await store.session("notes")).checkpoint({ a: 1 }, { message: "one" });
    await ConversationSession.create(store, "chat");
    ui = await startUi(store, { port: 0, pollMs: 50 });
    base = `http://127.0.0.1:${ui.port}`;
  });
  afterEach(async () => {
    await ui.close();
    await store.close();
    dir.remove();
  });

  // As the page sends them: its token, and its own origin on a POST.
  const post = (path: string, body: string) =>
    fetch(base + path, { method: "POST", headers: { "Content-Type": "application/json", Origin: base, Authorization: `Bearer ${ui.token}` }, body });
  const getText = async (path: string) => {
    const res = await fetch(base + path, { headers: { Authorization: `Bearer ${ui.token}` } });
    expect(res.status).toBe(200);
    return res.text();
  };

  it("a POST body with a __proto__ key is refused by the strict schema, naming it, and later answers carry no marker", async () => {
    const res = await post("/api/sessions/notes/restore", `{"ref":"#1","__proto__":{"polluted":"yes"}}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/__proto__/);
    expectNoPollution();
    for (const path of ["/api/sessions", "/api/sessions/notes", "/api/sessions/notes/checkpoints/%231"]) expect(await getText(path)).not.toMatch(/polluted/);
  });

  it("a message posted with __proto__ keys is appended with them kept as data", async () => {
    const args = JSON.stringify(`{${TRAPS}}`);
    const message = `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":${args}}}],${TRAPS}}`;
    const res = await post("/api/sessions/chat/messages", `{"message":${message}}`);
    expect(res.status, await res.clone().text()).toBe(200);
    const appended = (await res.json()) as { session: string; appended: unknown[]; count: number };
    expect([appended.session, appended.appended.length, appended.count]).toEqual(["chat", 1, 1]);
    const [m] = await (await ConversationSession.open(store, "chat")).messages();
    expect(JSON.stringify(m?.additionalKwargs)).toBe(JSON.stringify(data(`{${TRAPS}}`)));
    expect(JSON.stringify(m?.toolCalls?.[0]?.arguments)).toBe(JSON.stringify(data(`{${TRAPS}}`)));
    const page = JSON.parse(await getText("/api/sessions/chat")) as { working: { view: { messages: { toolCalls: { arguments: unknown }[] }[] } } };
    expect(JSON.stringify(page.working.view.messages[0]?.toolCalls[0]?.arguments)).toBe(JSON.stringify(data(`{${TRAPS}}`)));
    expectNoPollution();
    for (const path of ["/api/sessions", "/api/sessions/notes"]) expect(await getText(path)).not.toMatch(/polluted/);
  });
});

describe("the MCP server", () => {
  beforeEach(() => {
    dir = makeTempDir("proto-mcp");
    ok(["init"]);
  });
  afterEach(() => dir.remove());

  /** `forge mcp` with the guard; its report is read once the client has closed it. */
  async function serve() {
    const report = join(dir.path, "mcp-guard.txt");
    const mcp = await startMcp(dir.path, [], { NODE_OPTIONS: `--import=${GUARD}`, PROTOTYPE_GUARD_REPORT: report });
    return {
      mcp,
      async closeClean(): Promise<void> {
        await mcp.close();
        for (let i = 0; i < 100 && !existsSync(report); i++) await new Promise((r) => setTimeout(r, 50));
        expect(readFileSync(report, "utf8").trim().split("\n"), "the guard's report of forge mcp").toEqual([expect.stringMatching(/^\d+ clean$/)]);
      },
    };
  }

  it("checkpoint_create keeps a state's __proto__ and constructor keys as data, and checkpoint_show gives them back", async () => {
    const { mcp, closeClean } = await serve();
    const state = data(`{${TRAPS},"deep":{"a":{${TRAPS}}}}`);
    await mcp.ok("checkpoint_create", { message: "keys", state });
    const shown = await mcp.ok("checkpoint_show", {});
    expect(JSON.stringify(shown["state"])).toBe(JSON.stringify(state));
    await closeClean();
    expectNoPollution();
  });

  it("a tool call with a __proto__ argument is a tool error naming it, and the server keeps serving", async () => {
    const { mcp, closeClean } = await serve();
    expect(await mcp.fails("hypothesis_add", data(`{"statement":"the scale is applied twice","__proto__":{"polluted":"yes"}}`))).toMatch(/__proto__/);
    expect(await mcp.fails("hypothesis_add", data(`{"statement":"the scale is applied twice","constructor":{"prototype":{"polluted":"yes"}}}`))).toMatch(
      /constructor/,
    );
    const list = await mcp.ok("hypothesis_list", {});
    expect(list["hypotheses"]).toEqual([]);
    const sessions = await mcp.ok("session_list", {});
    expect(JSON.stringify([list, sessions])).not.toMatch(/polluted/);
    await closeClean();
    expectNoPollution();
  });
});

describe("ForgeSaver", () => {
  const VALUES = `{"__proto__":{"polluted":"yes"},"constructor":"the constructor channel","prototype":[1,2]}`;
  const VERSIONS = `{"__proto__":1,"constructor":1,"prototype":1}`;

  it("channels named __proto__, constructor and prototype round-trip, also when a child carries them over", async () => {
    const { saver } = await sqliteSaver();
    const root = await saver.put(
      threadConfig("t"),
      checkpointOf(data(VALUES), data(VERSIONS) as Record<string, number>),
      loopMetadata(0),
      data(VERSIONS) as Record<string, number>,
    );
    const childValues = data(VALUES);
    childValues["prototype"] = [1, 2, 3];
    const childVersions = data(`{"__proto__":1,"constructor":1,"prototype":2}`) as Record<string, number>;
    const child = await saver.put(root, checkpointOf(childValues, childVersions), loopMetadata(1), { prototype: 2 });

    const rootTuple = await saver.getTuple(root);
    expect(JSON.stringify(rootTuple?.checkpoint.channel_values)).toBe(VALUES);
    expect(JSON.stringify(rootTuple?.checkpoint.channel_versions)).toBe(VERSIONS);
    const childTuple = await saver.getTuple(child);
    expect(JSON.stringify(childTuple?.checkpoint.channel_values)).toBe(JSON.stringify(childValues));
    expect(Object.getPrototypeOf(childTuple?.checkpoint.channel_values)).toBe(Object.prototype);
    expectNoPollution();
  });

  it("getDeltaChannelHistory answers a channel named __proto__ under its own key", async () => {
    const { saver } = await sqliteSaver();
    const root = await saver.put(
      threadConfig("t"),
      checkpointOf(data(VALUES), data(VERSIONS) as Record<string, number>),
      loopMetadata(0),
      data(VERSIONS) as Record<string, number>,
    );
    const child = await saver.put(root, checkpointOf(data(VALUES), data(VERSIONS) as Record<string, number>), loopMetadata(1), {});
    const history = await saver.getDeltaChannelHistory({ config: child, channels: ["__proto__", "constructor"] });
    expect(Object.keys(history)).toEqual(["__proto__", "constructor"]);
    expect(JSON.stringify(history)).toBe(`{"__proto__":{"writes":[],"seed":{"polluted":"yes"}},"constructor":{"writes":[],"seed":"the constructor channel"}}`);
    expectNoPollution();
  });
});
