// ConversationSession as the time-travel app's checkpoint manager: messages kept exactly,
// saves named "Checkpoint N", branching and linear restore, list/get/latest, delete, clear,
// refusal of sessions that hold something else, and appenders at once on one conversation:
// two objects in one process (their writes interleave and retry on CONFLICT) and two
// processes on one SQLite file (append-writer.mjs, real concurrency). Every message arrives
// exactly once, each writer's in its own order, and every save is named after its own seq.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { ConversationSession, ReasoningSession, type Message } from "../../src/index.js";
import { rejectsWith } from "../support/errors.js";
import { requireBuiltLibrary } from "../support/processes.js";
import { conversationBench, MINUTE, transcript } from "./support.js";

const user = (content: string): Message => ({ role: "user", content });
const assistant = (content: string): Message => ({ role: "assistant", content });

describe("messages", () => {
  it("gives back every kind of message exactly as appended, tool calls and tool results included", async () => {
    const { cs, reopen } = await conversationBench();
    const all = transcript();
    await cs.append(all.slice(0, 4));
    await cs.append(all.slice(4));
    expect(await cs.messages()).toEqual(all);
    // Another process sees the same.
    const other = await reopen();
    expect(await other.cs.messages()).toEqual(all);
  });

  it("restore gives back tool messages and tool calls exactly as saved (the anchor app lost them)", async () => {
    const { cs } = await conversationBench();
    const all = transcript();
    await cs.append(all);
    await cs.save();
    await cs.append([user("forget all that"), assistant("ok")]);
    const r = await cs.restore("Checkpoint 1");
    expect(r.messages).toEqual(all);
    expect(await cs.messages()).toEqual(all);
    const toolMessages = r.messages.filter((m) => m.role === "tool");
    expect(toolMessages.map((m) => m.toolCallId ?? null)).toEqual(["call_1", "call_2", null, "call_3"]);
    expect(r.messages[3]?.toolCalls?.map((c) => c.id)).toEqual(["call_1", "call_2"]);
  });

  it("append checks every message first: a bad one at index 2 of a batch writes nothing", async () => {
    const { cs } = await conversationBench();
    await cs.append(user("hi"));
    const version = await cs.session.workVersion();
    const err = await rejectsWith(
      cs.append([user("a"), assistant("b"), { role: "tool", content: "answer without a call id" }]),
      "INVALID_ARGUMENT",
      /^message 2: /,
    );
    expect(err.data).toEqual({ index: 2, field: "toolCallId" });
    expect(await cs.messages()).toEqual([user("hi")]);
    expect(await cs.session.workVersion()).toBe(version);
  });

  it("names the message index and the field in validation errors", async () => {
    const { cs } = await conversationBench();
    await rejectsWith(
      cs.append([user("a"), { role: "robot", content: "x" }], { format: "forge" }),
      "INVALID_ARGUMENT",
      /^message 1: role "robot" is not one of system, user, assistant, tool/,
    );
    await rejectsWith(
      cs.append({ role: "user", content: 42 }, { format: "forge" }),
      "INVALID_ARGUMENT",
      /^message 0: content must be a string or a list of content parts, not a number/,
    );
    await rejectsWith(
      cs.append({ role: "assistant", content: "", toolCalls: [{ id: "c", name: "f", arguments: "{}" }] }, { format: "forge" }),
      "INVALID_ARGUMENT",
      /^message 0: toolCalls\[0\]\.arguments must be a JSON object, not a string/,
    );
    await rejectsWith(
      cs.append({ role: "user", content: "x", toolCallId: "c" }),
      "INVALID_ARGUMENT",
      /^message 0: toolCallId belongs to tool messages, not user messages/,
    );
    await rejectsWith(cs.append({ role: "user", content: "x", extra: { at: new Date(0) } }), "INVALID_ARGUMENT", /^message 0: extra\.at is a Date, not JSON/);
    await rejectsWith(cs.append({ role: "user", content: "x", colour: "red" }, { format: "forge" }), "INVALID_ARGUMENT", /^message 0: unknown field "colour"/);
    expect(await cs.messages()).toEqual([]);
  });

  it("replace swaps the whole list", async () => {
    const { cs } = await conversationBench();
    await cs.append([user("a"), assistant("b")]);
    const r = await cs.replace([user("c")]);
    expect(r.count).toBe(1);
    expect(await cs.messages()).toEqual([user("c")]);
  });
});

describe("save", () => {
  it('names checkpoints "Checkpoint N", N counting every save the session has had, deleted ones included', async () => {
    const { cs } = await conversationBench();
    await cs.append(user("one"));
    expect((await cs.save()).name).toBe("Checkpoint 1");
    await cs.append(assistant("two"));
    const second = await cs.save();
    expect([second.name, second.seq, second.message]).toEqual(["Checkpoint 2", 2, "Checkpoint 2"]);
    await cs.delete("Checkpoint 2");
    expect((await cs.save()).name).toBe("Checkpoint 3");
    expect((await cs.list()).map((c) => c.name)).toEqual(["Checkpoint 1", "Checkpoint 3"]);
  });

  it("records a given name, the description, tags and the message count", async () => {
    const { cs } = await conversationBench();
    await cs.append(transcript());
    const cp = await cs.save("before the tools", { description: "the plan is set", tags: ["plan"] });
    expect([cp.name, cp.description, cp.messageCount, cp.tags]).toEqual(["before the tools", "the plan is set", 10, ["plan"]]);
    expect(cp.metadata).toEqual({ name: "before the tools", description: "the plan is set", messageCount: 10 });
    const [listed] = await cs.list();
    expect(listed?.name).toBe("before the tools");
    await rejectsWith(cs.save("  "), "INVALID_ARGUMENT", /must not be empty/);
  });

  it("two savers at once each get the name of their own seq", async () => {
    const { cs, store } = await conversationBench();
    await cs.append(user("hi"));
    // A second object on the same session (one store handle: its transactions take turns).
    const other = { cs: await ConversationSession.open(store, cs.name) };
    const saved = await Promise.all([cs.save(), other.cs.save(), cs.save(), other.cs.save()]);
    for (const cp of saved) expect(cp.name).toBe(`Checkpoint ${cp.seq}`);
    expect((await cs.list()).map((c) => c.name)).toEqual(["Checkpoint 1", "Checkpoint 2", "Checkpoint 3", "Checkpoint 4"]);
  });
});

describe("restore", () => {
  /** Three saves: 1 message, 2, 3. */
  async function threeSaves() {
    const bench = await conversationBench();
    const { cs, clock } = bench;
    for (const [i, m] of [user("q1"), assistant("a1"), user("q2")].entries()) {
      clock.advance(MINUTE);
      await cs.append(m);
      await cs.save(undefined, { description: `save ${i + 1}` });
    }
    return bench;
  }

  it("branching (the default) keeps later checkpoints on their branch; the next save starts a new branch", async () => {
    const { cs } = await threeSaves();
    const r = await cs.restore("#1");
    expect(r.discarded).toEqual([]);
    expect(r.messages).toEqual([user("q1")]);
    expect(r.head).toEqual({ branch: null, checkpointId: r.checkpoint.id });
    expect((await cs.list()).map((c) => c.name)).toEqual(["Checkpoint 1", "Checkpoint 2", "Checkpoint 3"]);
    await cs.append(assistant("another answer"));
    const fork = await cs.save();
    expect([fork.name, fork.parentId, fork.branch]).toEqual(["Checkpoint 4", r.checkpoint.id, "main-from-1"]);
    // The old future is still reachable, with its messages.
    expect((await cs.get("Checkpoint 3")).messages).toEqual([user("q1"), assistant("a1"), user("q2")]);
    expect((await cs.get("main")).checkpoint.name).toBe("Checkpoint 3");
  });

  it("linear discards every later checkpoint", async () => {
    const { cs } = await threeSaves();
    const r = await cs.restore("Checkpoint 1", { linear: true });
    expect(r.discarded.map((c) => c.name)).toEqual(["Checkpoint 2", "Checkpoint 3"]);
    expect(r.head.branch).toBe("main");
    expect((await cs.list()).map((c) => c.name)).toEqual(["Checkpoint 1"]);
    expect(await cs.messages()).toEqual([user("q1")]);
    await cs.append(assistant("a1'"));
    const next = await cs.save();
    expect([next.name, next.branch, next.parentId]).toEqual(["Checkpoint 4", "main", r.checkpoint.id]);
  });

  it("finds checkpoints by name, #N, id prefix and HEAD~N; an unknown one is CHECKPOINT_NOT_FOUND", async () => {
    const { cs } = await threeSaves();
    const second = (await cs.list())[1];
    expect((await cs.get("Checkpoint 2")).checkpoint.id).toBe(second?.id);
    expect((await cs.get("#2")).checkpoint.id).toBe(second?.id);
    expect((await cs.get(second?.id.slice(0, 8) ?? "")).checkpoint.id).toBe(second?.id);
    expect((await cs.get("HEAD~1")).checkpoint.id).toBe(second?.id);
    await rejectsWith(cs.restore("Checkpoint 9"), "CHECKPOINT_NOT_FOUND", /no checkpoint matches "Checkpoint 9"/);
  });

  it("a name two checkpoints share is ambiguous, and #N picks one", async () => {
    const { cs } = await conversationBench();
    await cs.append(user("a"));
    await cs.save("draft");
    await cs.append(user("b"));
    await cs.save("draft");
    await rejectsWith(cs.restore("draft"), "AMBIGUOUS_REF", /"draft" names 2 checkpoints: #1, #2/);
    expect((await cs.restore("#1")).messages).toEqual([user("a")]);
  });

  it("refuses a checkpoint of another session", async () => {
    const { cs, store } = await conversationBench();
    const other = await ConversationSession.open(store, "other");
    await other.append(user("elsewhere"));
    const cp = await other.save();
    await cs.append(user("here"));
    await cs.save();
    await rejectsWith(cs.restore(cp.id), "INVALID_REF", /belongs to another session/);
    expect(await cs.messages()).toEqual([user("here")]);
  });
});

describe("list, latest, delete, clear", () => {
  it("latest is the checkpoint saved last, on any branch; undefined before the first save", async () => {
    const { cs } = await conversationBench();
    expect(await cs.latest()).toBeUndefined();
    await cs.append(user("a"));
    await cs.save();
    await cs.append(user("b"));
    await cs.save();
    await cs.restore("#1");
    await cs.append(user("c"));
    await cs.save("fork");
    const latest = await cs.latest();
    expect(latest?.checkpoint.name).toBe("fork");
    expect(latest?.messages).toEqual([user("a"), user("c")]);
  });

  it("delete removes checkpoints, re-links a child to its grandparent, and leaves the messages", async () => {
    const { cs } = await conversationBench();
    for (const t of ["a", "b", "c"]) {
      await cs.append(user(t));
      await cs.save();
    }
    const before = await cs.list();
    const gone = await cs.delete(["Checkpoint 2"]);
    expect(gone.map((c) => c.name)).toEqual(["Checkpoint 2"]);
    const after = await cs.list();
    expect(after.map((c) => c.name)).toEqual(["Checkpoint 1", "Checkpoint 3"]);
    expect(after[1]?.parentId).toBe(before[0]?.id);
    expect(await cs.messages()).toEqual([user("a"), user("b"), user("c")]);
    expect((await cs.get("Checkpoint 3")).messages).toEqual([user("a"), user("b"), user("c")]);
  });

  it("deleting the newest checkpoint moves the branch back, so latest and HEAD follow", async () => {
    const { cs } = await conversationBench();
    await cs.append(user("a"));
    await cs.save();
    await cs.append(user("b"));
    await cs.save();
    await cs.delete("HEAD");
    expect((await cs.latest())?.checkpoint.name).toBe("Checkpoint 1");
    expect((await cs.session.head()).checkpoint?.seq).toBe(1);
  });

  it("clear deletes every checkpoint on every branch and empties the messages", async () => {
    const { cs } = await conversationBench();
    await cs.append(user("a"));
    await cs.save();
    await cs.append(user("b"));
    await cs.save();
    await cs.restore("#1");
    await cs.append(user("c"));
    await cs.save();
    const r = await cs.clear();
    expect(r.deleted.map((c) => c.name)).toEqual(["Checkpoint 1", "Checkpoint 2", "Checkpoint 3"]);
    expect(r.messages).toBe(2);
    expect(await cs.list()).toEqual([]);
    expect(await cs.messages()).toEqual([]);
    expect(await cs.latest()).toBeUndefined();
    expect(await cs.session.branches()).toEqual([]);
    // The session goes on: the next save is a new root.
    await cs.append(user("fresh"));
    const next = await cs.save();
    expect([next.name, next.parentId, next.messageCount]).toEqual(["Checkpoint 4", null, 1]);
  });
});

describe("sessions of other kinds", () => {
  it("open refuses a reasoning session by name", async () => {
    const { store } = await conversationBench();
    const rs = await ReasoningSession.open(store, "debugging");
    await rs.update((r) => r.setTask("find the bug"));
    await rejectsWith(ConversationSession.open(store, "debugging"), "INVALID_ARGUMENT", /session "debugging" is a reasoning session, not a conversation/);
  });

  it("open takes a generic session that holds nothing yet, and refuses one that holds another state", async () => {
    const { store } = await conversationBench();
    await store.session("blank");
    const cs = await ConversationSession.open(store, "blank");
    await cs.append({ role: "user", content: "hi" });
    expect(await cs.messages()).toEqual([{ role: "user", content: "hi" }]);
    const generic = await store.session("states");
    await generic.checkpoint({ some: "state" });
    await rejectsWith(ConversationSession.open(store, "states"), "INVALID_ARGUMENT", /session "states" holds a state that is not a conversation/);
  });

  it("create refuses a name that is taken", async () => {
    const { store } = await conversationBench("taken");
    await rejectsWith(ConversationSession.create(store, "taken"), "SESSION_EXISTS");
    const cs = await ConversationSession.create(store, "fresh", { messages: [{ role: "system", content: "be brief" }] });
    expect(await cs.messages()).toEqual([{ role: "system", content: "be brief" }]);
    expect((await cs.session.info()).kind).toBe("conversation");
  });
});

const WRITER = fileURLToPath(new URL("./append-writer.mjs", import.meta.url));

/** The texts of `messages` that `writer` wrote, in order. */
function by(writer: string, messages: readonly Message[]): string[] {
  return messages.map((m) => m.content as string).filter((t) => t.startsWith(`${writer}:`));
}

describe("concurrent appends", () => {
  it("two session objects appending at once in one process lose nothing", async () => {
    const { cs, store } = await conversationBench();
    const other = await ConversationSession.open(store, cs.name);
    const writer = async (s: ConversationSession, name: string) => {
      for (let n = 0; n < 25; n++) await s.append({ role: "user", content: `${name}:${n}` });
    };
    await Promise.all([writer(cs, "a"), writer(other, "b")]);
    const messages = await cs.messages();
    expect(messages).toHaveLength(50);
    expect(by("a", messages)).toEqual(Array.from({ length: 25 }, (_, n) => `a:${n}`));
    expect(by("b", messages)).toEqual(Array.from({ length: 25 }, (_, n) => `b:${n}`));
  });

  describe("two processes on one SQLite file", () => {
    beforeAll(() => requireBuiltLibrary());

    it("append 30 messages each at once; every message arrives once, in each writer's order", async () => {
      const { url, cs } = await conversationBench("shared");
      const children = ["p", "q"].map((name) => {
        const child = spawn(process.execPath, [WRITER, url, "shared", name, "30"], { stdio: ["pipe", "pipe", "pipe"] });
        let stderr = "";
        child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
        const ready = new Promise<void>((resolve) => createInterface({ input: child.stdout }).once("line", () => resolve()));
        const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
        return { name, child, ready, exited, stderr: () => stderr };
      });
      await Promise.all(children.map((c) => c.ready));
      for (const c of children) c.child.stdin.end("go\n");
      for (const c of children) expect(await c.exited, c.stderr()).toBe(0);

      const messages = await cs.messages();
      expect(messages).toHaveLength(60);
      expect(by("p", messages)).toEqual(Array.from({ length: 30 }, (_, n) => `p:${n}`));
      expect(by("q", messages)).toEqual(Array.from({ length: 30 }, (_, n) => `q:${n}`));
      const saves = await cs.list();
      expect(saves).toHaveLength(12);
      for (const cp of saves) expect(cp.name).toBe(`Checkpoint ${cp.seq}`);
    });
  });
});
