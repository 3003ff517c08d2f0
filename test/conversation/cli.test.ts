// `forge chat …` end to end, as a user or an agent drives it: `forge` as a real process
// (bin/forge.js on the built dist/) on a SQLite store in a temp folder. Checks the text a
// person reads, the --json shapes, exit codes, and what bad input says.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type AIMessage, type ToolMessage, mapStoredMessagesToChatMessages, type StoredMessage } from "@langchain/core/messages";
import { beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { ConversationSession, openStore, ReasoningSession, type Message } from "../../src/index.js";
import { fails, initStore, forge as runForge, json, ok, type ForgeOptions, type Run } from "../support/cli.js";
import { requireBuiltLibrary } from "../support/processes.js";
import { makeTempDir } from "../support/temp.js";

let dir: string;
let url: string;

/** `forge --store URL ARGS` in the test's folder, with stdin and extra environment if given. */
function forgeWith(args: readonly string[], options: Pick<ForgeOptions, "input" | "env"> = {}): Run {
  return runForge(dir, ["--store", url, ...args], { input: options.input ?? "", env: options.env ?? {} });
}

function forge(...args: string[]): Run {
  return forgeWith(args);
}

interface CheckpointJson {
  id: string;
  session: string;
  seq: number;
  name: string;
  description: string;
  messageCount: number;
  branch: string;
  tags: string[];
  createdAt: string;
}

/** The messages the session holds, read through the library. */
async function messagesOf(session: string): Promise<Message[]> {
  const store = await openStore(url);
  try {
    return await (await ConversationSession.open(store, session)).messages();
  } finally {
    await store.close();
  }
}

/** A conversation with a tool round trip, built through the CLI. */
function weatherChat(): void {
  ok(forge("chat", "new", "--system", "You are a weather assistant."));
  ok(forge("chat", "append", "--role", "user", "Weather in Paris?"));
  ok(forge("chat", "append", "--role", "assistant", "--tool-call", '{"id":"call_1","name":"weather","arguments":{"city":"Paris"}}'));
  ok(forge("chat", "append", "--role", "tool", "--tool-call-id", "call_1", "--name", "weather", '{"temp": 21}'));
}

beforeAll(() => requireBuiltLibrary());

beforeEach(async () => {
  const tmp = makeTempDir("chat-cli");
  onTestFinished(() => tmp.remove());
  dir = tmp.path;
  url = await initStore(dir, `sqlite:${join(dir, "forge.db")}`);
});

describe("forge chat: messages", () => {
  it("new, append in every form, and show: a transcript with the tool call and the call its result answers", async () => {
    weatherChat();
    ok(forge("chat", "append", '{"role":"assistant","content":"21 °C in Paris."}'));
    const show = ok(forge("chat", "show"));
    expect(show).toBe(
      [
        "[0] system: You are a weather assistant.",
        "[1] user: Weather in Paris?",
        "[2] assistant:",
        '    → weather {"city":"Paris"}  (call_1)',
        '[3] tool weather (answers call_1): {"temp": 21}',
        "[4] assistant: 21 °C in Paris.",
        "",
      ].join("\n"),
    );
    expect(await messagesOf("default")).toEqual([
      { role: "system", content: "You are a weather assistant." },
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: null, toolCalls: [{ id: "call_1", name: "weather", arguments: { city: "Paris" } }] },
      { role: "tool", content: '{"temp": 21}', name: "weather", toolCallId: "call_1" },
      { role: "assistant", content: "21 °C in Paris." },
    ]);
  });

  it("appends a list from a JSON file and from standard input, in OpenAI and LangChain formats", async () => {
    writeFileSync(
      join(dir, "openai.json"),
      JSON.stringify([
        { role: "user", content: "hi" },
        { role: "developer", content: "be brief" },
      ]),
    );
    expect(ok(forge("chat", "append", "openai.json"))).toMatch(/^appended 2 messages \(default now holds 2 messages\)/);
    const stored = JSON.stringify({ type: "ai", data: { content: "", tool_calls: [{ id: "c9", name: "f", args: { x: 1 }, type: "tool_call" }] } });
    const r = json<{ appended: Message[]; count: number }>(forgeWith(["chat", "append", "-", "--json"], { input: stored }));
    expect(r).toEqual({
      session: "default",
      appended: [{ role: "assistant", content: "", toolCalls: [{ id: "c9", name: "f", arguments: { x: 1 } }] }],
      count: 3,
    });
    ok(forgeWith(["chat", "append", "--role", "tool", "--tool-call-id", "c9", "-"], { input: "line one\nline two" }));
    expect((await messagesOf("default"))[3]).toEqual({ role: "tool", content: "line one\nline two", toolCallId: "c9" });
  });

  it("refuses bad messages with the index and field, writing nothing; usage mistakes exit 2", async () => {
    ok(forge("chat", "append", "--role", "user", "hello"));
    const batch = JSON.stringify([
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
      { role: "user", content: "c" },
      { role: "robot", content: "d" },
    ]);
    fails(forge("chat", "append", batch), 1, /^forge: message 3: role "robot" is not one of system, user, assistant, tool.* \(nothing was written\)\n$/);
    fails(
      forge("chat", "append", "--role", "assistant", "--tool-call", '{"name":"f"}'),
      1,
      /message 0: toolCalls\[0\]\.arguments must be a JSON object, not missing/,
    );
    fails(forge("chat", "append", "--role", "user", "hi", "--tool-call-id", "c1"), 1, /toolCallId belongs to tool messages, not user messages/);
    fails(forge("chat", "append", "{not json"), 1, /the message is not JSON/);
    fails(forge("chat", "append", "missing.json"), 1, /cannot read missing\.json: no such file/);
    fails(forge("chat", "append", "--role", "user"), 2, /give the message's text/);
    fails(forge("chat", "append", "--tool-call-id", "c1", "{}"), 2, /--name, --tool-call-id and --tool-call go with --role/);
    fails(forge("chat", "append", "--role", "robot", "x"), 2, /argument 'robot' is invalid/);
    expect(await messagesOf("default")).toEqual([{ role: "user", content: "hello" }]);
  });
});

describe("forge chat: checkpoints", () => {
  it('save names "Checkpoint N"; list shows names, counts, branches and HEAD', () => {
    weatherChat();
    expect(ok(forge("chat", "save"))).toMatch(/^saved Checkpoint 1 \(#1, 4 messages, main\)\n$/);
    ok(forge("chat", "append", "--role", "assistant", "21 °C."));
    const { checkpoint: cp } = json<{ checkpoint: CheckpointJson }>(
      forge("chat", "save", "answered", "--description", "the tool worked", "--tags", "done", "--json"),
    );
    expect([cp.seq, cp.name, cp.description, cp.messageCount, cp.tags]).toEqual([2, "answered", "the tool worked", 5, ["done"]]);
    const lines = ok(forge("chat", "list")).trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    // "#seq  name  count  branch  id  age  [tags]  — description", HEAD starred.
    expect(lines[0]).toMatch(/^ {2}#1 +Checkpoint 1 {2}4 messages {2}main {2}\w{10} {2}(just now|[\dhms ]+ ago)$/);
    expect(lines[1]).toMatch(/^\* #2 +answered {2}5 messages {2}main {2}\w{10} {2}(just now|[\dhms ]+ ago) {2}\[done\] {2}— the tool worked$/);
    const list = json<{ session: string; head: { branch: string; checkpoint: string }; checkpoints: CheckpointJson[] }>(forge("chat", "list", "--json"));
    expect(list.head).toEqual({ branch: "main", checkpoint: cp.id });
    expect(list.checkpoints.map((c) => c.name)).toEqual(["Checkpoint 1", "answered"]);
  });

  it("restore branches by default, keeping the future; --linear discards it", async () => {
    weatherChat();
    ok(forge("chat", "save"));
    ok(forge("chat", "append", "--role", "assistant", "21 °C."));
    ok(forge("chat", "save"));
    ok(forge("chat", "append", "--role", "user", "thanks"));
    ok(forge("chat", "save"));

    expect(ok(forge("chat", "restore", "Checkpoint 1"))).toBe(
      "restored Checkpoint 1 (#1): 4 messages\n  later checkpoints stay on their branch; the next save starts a new one\n",
    );
    expect((await messagesOf("default")).map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(ok(forge("chat", "save"))).toMatch(/^saved Checkpoint 4 \(#4, 4 messages, main-from-1\)/);
    expect(json<{ checkpoints: unknown[] }>(forge("chat", "list", "--json")).checkpoints).toHaveLength(4);

    const r = json<{ checkpoint: CheckpointJson; discarded: CheckpointJson[]; messages: Message[] }>(forge("chat", "restore", "#2", "--linear", "--json"));
    expect(r.checkpoint.name).toBe("Checkpoint 2");
    expect(r.discarded.map((c) => c.name)).toEqual(["Checkpoint 3"]);
    expect(r.messages).toHaveLength(5);
    expect(json<{ checkpoints: CheckpointJson[] }>(forge("chat", "list", "--json")).checkpoints.map((c) => c.name)).toEqual([
      "Checkpoint 1",
      "Checkpoint 2",
      "Checkpoint 4",
    ]);
    fails(
      forge("chat", "restore", "Checkpoint 3"),
      1,
      /^forge: no checkpoint matches "Checkpoint 3" \(run `forge chat list` to see the saved checkpoints\)\n$/,
    );
  });

  it("show REF prints a checkpoint's transcript; latest the newest save; delete and clear", () => {
    weatherChat();
    ok(forge("chat", "save", "first"));
    ok(forge("chat", "append", "--role", "assistant", "21 °C."));
    ok(forge("chat", "save"));
    const show = ok(forge("chat", "show", "first"));
    expect(show.split("\n")[0]).toMatch(/^first \(#1, main, [^)]+\)$/);
    expect(show).toContain('    → weather {"city":"Paris"}  (call_1)');
    expect(show).not.toContain("21 °C.");

    const latest = json<{ checkpoint: CheckpointJson; messages: Message[] }>(forge("chat", "latest", "--json"));
    expect([latest.checkpoint.name, latest.messages.length]).toEqual(["Checkpoint 2", 5]);
    expect(ok(forge("chat", "latest"))).toContain("[4] assistant: 21 °C.");

    expect(ok(forge("chat", "delete", "first"))).toBe("deleted #1 first\n");
    expect(json<{ checkpoints: CheckpointJson[] }>(forge("chat", "list", "--json")).checkpoints.map((c) => c.name)).toEqual(["Checkpoint 2"]);
    expect(ok(forge("chat", "clear"))).toBe("cleared default: deleted 1 checkpoint and 5 messages\n");
    expect(ok(forge("chat", "list"))).toMatch(/^no checkpoints yet/);
    expect(ok(forge("chat", "show"))).toMatch(/^no messages yet/);
    fails(forge("chat", "latest"), 1, /^forge: conversation "default" has no checkpoints \(`forge chat save` saves one\)\n$/);
  });
});

describe("forge chat: export and import", () => {
  it("export writes Forge's document; import --as makes a new session with the same checkpoints and messages", async () => {
    weatherChat();
    ok(forge("chat", "save", "asked"));
    ok(forge("chat", "append", "--role", "assistant", "21 °C."));
    ok(forge("chat", "save"));
    expect(ok(forge("chat", "export", "--output", "chat.json"))).toBe("exported 5 messages and 2 checkpoints of default to chat.json (forge)\n");
    const doc = JSON.parse(readFileSync(join(dir, "chat.json"), "utf8")) as { format: string; version: number; checkpoints: { name: string }[] };
    expect([doc.format, doc.version, doc.checkpoints.map((c) => c.name)]).toEqual(["forge-conversation", 1, ["asked", "Checkpoint 2"]]);
    expect(JSON.parse(ok(forge("chat", "export")))).toEqual({ ...doc, exportedAt: expect.any(String) });

    expect(ok(forge("chat", "import", "chat.json", "--as", "copy"))).toBe(
      "imported conversation copy: 2 checkpoints, 5 messages\n  use it with --session copy\n",
    );
    expect(json<{ checkpoints: CheckpointJson[] }>(forge("--session", "copy", "chat", "list", "--json")).checkpoints.map((c) => [c.seq, c.name])).toEqual([
      [1, "asked"],
      [2, "Checkpoint 2"],
    ]);
    expect(await messagesOf("copy")).toEqual(await messagesOf("default"));
    // The document's own name is taken: import refuses, and says how to go on.
    fails(forge("chat", "import", "chat.json"), 1, /^forge: this store already has a session named "default" \(import it under another name with --as NAME/);
  });

  it("a bad file is refused with what is wrong, and changes nothing", async () => {
    weatherChat();
    ok(forge("chat", "save"));
    ok(forge("chat", "export", "--output", "chat.json"));
    const doc = JSON.parse(readFileSync(join(dir, "chat.json"), "utf8")) as { version: number; messages: unknown[]; checkpoints: { messages: unknown[] }[] };
    writeFileSync(join(dir, "v2.json"), JSON.stringify({ ...doc, version: 2 }));
    fails(forge("chat", "import", "v2.json", "--as", "x"), 1, /version 2 is not supported \(this Forge reads version 1\)/);
    const badRole = structuredClone(doc);
    (badRole.checkpoints[0] as { messages: unknown[] }).messages[3] = { role: "robot", content: "beep" };
    writeFileSync(join(dir, "bad-role.json"), JSON.stringify(badRole));
    fails(forge("chat", "import", "bad-role.json", "--as", "x"), 1, /checkpoint #1 \("Checkpoint 1"\): message 3: role "robot"/);
    writeFileSync(join(dir, "broken.json"), "{");
    fails(forge("chat", "import", "broken.json", "--as", "x"), 1, /broken\.json is not JSON/);
    const sessions = json<{ sessions: { name: string }[] }>(forge("session", "list", "--json"));
    expect(sessions.sessions.map((s) => s.name)).toEqual(["default"]);
  });

  it("exports messages for OpenAI and LangChain, which LangChain revives; imports a plain list", async () => {
    weatherChat();
    const openai = JSON.parse(ok(forge("chat", "export", "--format", "openai"))) as unknown[];
    expect(openai[2]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }],
    });
    expect(openai[3]).toEqual({ role: "tool", content: '{"temp": 21}', name: "weather", tool_call_id: "call_1" });

    const stored = JSON.parse(ok(forge("chat", "export", "--format", "langchain-stored"))) as StoredMessage[];
    const revived = mapStoredMessagesToChatMessages(stored);
    expect((revived[2] as AIMessage).tool_calls).toEqual([{ id: "call_1", name: "weather", args: { city: "Paris" }, type: "tool_call" }]);
    expect((revived[3] as ToolMessage).tool_call_id).toBe("call_1");

    writeFileSync(join(dir, "openai.json"), JSON.stringify(openai));
    expect(ok(forge("chat", "import", "openai.json", "--as", "from-openai"))).toMatch(/^imported conversation from-openai: 0 checkpoints, 4 messages/);
    expect(await messagesOf("from-openai")).toEqual(await messagesOf("default"));
    fails(forge("chat", "export", "--format", "forge", "--ref", "HEAD"), 2, /--ref goes with --format openai/);
  });
});

describe("forge chat: sessions", () => {
  it("--session and FORGE_SESSION choose the conversation; new NAME says how to use it", async () => {
    expect(ok(forge("chat", "new", "trip", "--system", "plan a trip"))).toBe(
      "started conversation trip with 1 message\n  use it with --session trip (or FORGE_SESSION=trip)\n",
    );
    ok(forge("--session", "trip", "chat", "append", "--role", "user", "Rome in May?"));
    ok(forgeWith(["chat", "append", "--role", "assistant", "Go."], { env: { FORGE_SESSION: "trip" } }));
    expect((await messagesOf("trip")).map((m) => m.content)).toEqual(["plan a trip", "Rome in May?", "Go."]);
    fails(forge("chat", "new", "trip"), 1, /^forge: session "trip" already exists \(pick another name, or work in it with --session NAME\)\n$/);
  });

  it("reading a conversation that does not exist is SESSION_NOT_FOUND, and starts none; writing starts it", () => {
    for (const read of [["list"], ["show"], ["latest"], ["export"], ["restore", "#1"], ["delete", "#1"], ["clear"]]) {
      fails(
        forge("--session", "nope", "chat", ...read),
        1,
        /^forge: no conversation named "nope" \(`forge chat new NAME` starts one; `forge session list` lists the sessions\)\n$/,
      );
    }
    expect(json<{ sessions: unknown[] }>(forge("session", "list", "--json")).sessions).toEqual([]);
    const saved = json<{ checkpoint: CheckpointJson }>(forge("--session", "fresh", "chat", "save", "--json"));
    expect([saved.checkpoint.session, saved.checkpoint.name, saved.checkpoint.messageCount]).toEqual(["fresh", "Checkpoint 1", 0]);
    expect(json<{ sessions: { name: string; kind: string }[] }>(forge("session", "list", "--json")).sessions.map((x) => [x.name, x.kind])).toEqual([
      ["fresh", "conversation"],
    ]);
  });

  it("a session of another kind is a clear error", async () => {
    const store = await openStore(url);
    const rs = await ReasoningSession.open(store, "debug");
    await rs.update((r) => r.setTask("find the bug"));
    await store.close();
    fails(
      forge("--session", "debug", "chat", "append", "--role", "user", "hi"),
      1,
      /^forge: session "debug" is a reasoning session, not a conversation \(choose another session with --session NAME/,
    );
    fails(forge("--session", "debug", "chat", "list"), 1, /is a reasoning session, not a conversation/);
  });
});
