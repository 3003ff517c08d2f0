// ForgeSaver beyond LangGraph's validation suite: forks that reach one channel version with
// different values, a real compiled StateGraph (history, updateState, replay) on a SQLite
// store, a second saver over the same file, deleteThread, and deduplication.
import { Annotation, END, START, StateGraph, type StateSnapshot } from "@langchain/langgraph";
import { JsonPlusSerializer, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { ForgeError } from "../../src/core/errors.js";
import { threadSessionName, type ForgeSaver } from "../../src/integrations/langgraph/index.js";
import { checkpointOf, loopMetadata, openSaver, prose, sqliteSaver, tempDir, threadConfig } from "./support.js";

describe("forks", () => {
  it("two forks that reach the same channel version with different values each read back their own", async () => {
    const { saver } = await sqliteSaver();
    const root = await saver.put(threadConfig("t"), checkpointOf({ topic: "start", n: 0 }, { topic: 1, n: 1 }), loopMetadata(0), { topic: 1, n: 1 });
    // Both forks write `topic` at version 2: savers that key values by (channel, version) keep only one.
    const left = await saver.put(root, checkpointOf({ topic: "left", n: 0 }, { topic: 2, n: 1 }), loopMetadata(1), { topic: 2 });
    const right = await saver.put(root, checkpointOf({ topic: "right", n: 0 }, { topic: 2, n: 1 }), loopMetadata(1), { topic: 2 });
    // Their children change only `n` and carry `topic` from their own parent.
    const leftChild = await saver.put(left, checkpointOf({ topic: "left", n: 5 }, { topic: 2, n: 2 }), loopMetadata(2), { n: 2 });
    const rightChild = await saver.put(right, checkpointOf({ topic: "right", n: 7 }, { topic: 2, n: 2 }), loopMetadata(2), { n: 2 });

    const values = async (config: typeof root) => (await saver.getTuple(config))?.checkpoint.channel_values;
    expect(await values(root)).toEqual({ topic: "start", n: 0 });
    expect(await values(left)).toEqual({ topic: "left", n: 0 });
    expect(await values(right)).toEqual({ topic: "right", n: 0 });
    expect(await values(leftChild)).toEqual({ topic: "left", n: 5 });
    expect(await values(rightChild)).toEqual({ topic: "right", n: 7 });
  });

  it("a channel whose version differs from the parent's is not carried over", async () => {
    const { saver } = await sqliteSaver();
    const root = await saver.put(threadConfig("t"), checkpointOf({ a: "x", b: "y" }, { a: 1, b: 1 }), loopMetadata(0), { a: 1, b: 1 });
    // `b` moved to version 2 without being in newVersions: the parent's value is not this version's.
    const child = await saver.put(root, checkpointOf({ a: "x", b: "z" }, { a: 1, b: 2 }), loopMetadata(1), {});
    expect((await saver.getTuple(child))?.checkpoint.channel_values).toEqual({ a: "x" });
  });
});

// ---------------------------------------------------------------- a real graph

const State = Annotation.Root({
  log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  count: Annotation<number>({ reducer: (_a, b) => b, default: () => 0 }),
});

function compile(saver: ForgeSaver) {
  return new StateGraph(State)
    .addNode("a", (s) => ({ log: [`a${s.count}`], count: s.count + 1 }))
    .addNode("b", (s) => ({ log: [`b${s.count}`], count: s.count + 1 }))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", END)
    .compile({ checkpointer: saver });
}

async function history(graph: ReturnType<typeof compile>, threadId: string): Promise<StateSnapshot[]> {
  const out: StateSnapshot[] = [];
  for await (const s of graph.getStateHistory({ configurable: { thread_id: threadId } })) out.push(s);
  return out;
}

const idOf = (s: StateSnapshot): string => s.config.configurable?.["checkpoint_id"] as string;
const summary = (s: StateSnapshot) => ({ values: s.values as unknown, next: [...s.next], source: s.metadata?.source, step: s.metadata?.step });

describe("a compiled StateGraph on a SQLite store", () => {
  async function twoRuns() {
    const { saver, url } = await sqliteSaver();
    const graph = compile(saver);
    const config = { configurable: { thread_id: "chat" } };
    await graph.invoke({ log: ["in"] }, config);
    await graph.invoke({ log: ["in2"] }, config);
    return { saver, url, graph, config };
  }

  it("getStateHistory lists every step newest first, each with its parent", async () => {
    const { graph } = await twoRuns();
    const h = await history(graph, "chat");
    expect(h.map(summary)).toEqual([
      { values: { log: ["in", "a0", "b1", "in2", "a2", "b3"], count: 4 }, next: [], source: "loop", step: 6 },
      { values: { log: ["in", "a0", "b1", "in2", "a2"], count: 3 }, next: ["b"], source: "loop", step: 5 },
      { values: { log: ["in", "a0", "b1", "in2"], count: 2 }, next: ["a"], source: "loop", step: 4 },
      { values: { log: ["in", "a0", "b1"], count: 2 }, next: ["__start__"], source: "input", step: 3 },
      { values: { log: ["in", "a0", "b1"], count: 2 }, next: [], source: "loop", step: 2 },
      { values: { log: ["in", "a0"], count: 1 }, next: ["b"], source: "loop", step: 1 },
      { values: { log: ["in"], count: 0 }, next: ["a"], source: "loop", step: 0 },
      { values: { log: [], count: 0 }, next: ["__start__"], source: "input", step: -1 },
    ]);
    for (let i = 0; i + 1 < h.length; i++) expect(h[i]?.parentConfig?.configurable?.["checkpoint_id"]).toBe(idOf(h[i + 1] as StateSnapshot));
    expect(h.at(-1)?.parentConfig).toBeUndefined();
  });

  it("updateState on an old checkpoint forks from it and leaves the rest of the history as it was", async () => {
    const { graph, config } = await twoRuns();
    const before = await history(graph, "chat");
    const afterA0 = before[5] as StateSnapshot; // step 1: log [in, a0], next b
    const forked = await graph.updateState(afterA0.config, { log: ["edited"] });

    const fork = await graph.getState(forked);
    expect(fork.values).toEqual({ log: ["in", "a0", "edited"], count: 1 });
    expect(fork.parentConfig?.configurable?.["checkpoint_id"]).toBe(idOf(afterA0));
    // The fork is the thread's latest checkpoint now; the old branch still reads as it did.
    expect((await graph.getState(config)).values).toEqual({ log: ["in", "a0", "edited"], count: 1 });
    expect((await graph.getState(before[0]?.config as typeof config)).values).toEqual({ log: ["in", "a0", "b1", "in2", "a2", "b3"], count: 4 });
    const after = await history(graph, "chat");
    expect(after.length).toBe(before.length + 1);
    expect(after.slice(1).map(summary)).toEqual(before.map(summary));

    // Running on from the fork continues it with the edited log.
    expect(await graph.invoke(null, forked)).toEqual({ log: ["in", "a0", "edited", "b1"], count: 2 });
  });

  it("replays from a checkpoint_id: a fork of it, then the steps after it run again", async () => {
    const { graph } = await twoRuns();
    const before = await history(graph, "chat");
    const afterA0 = before[5] as StateSnapshot; // step 1: log [in, a0], next b
    const result = await graph.invoke(null, { configurable: { thread_id: "chat", checkpoint_id: idOf(afterA0) } });
    expect(result).toEqual({ log: ["in", "a0", "b1"], count: 2 });
    const after = await history(graph, "chat");
    const [rerun, fork] = after as [StateSnapshot, StateSnapshot];
    // LangGraph copies the checkpoint it replays from (source "fork"), as with its MemorySaver.
    expect(summary(fork)).toEqual({ values: { log: ["in", "a0"], count: 1 }, next: ["b"], source: "fork", step: 2 });
    expect(fork.parentConfig?.configurable?.["checkpoint_id"]).toBe(idOf(afterA0));
    expect(summary(rerun)).toEqual({ values: { log: ["in", "a0", "b1"], count: 2 }, next: [], source: "loop", step: 3 });
    expect(rerun.parentConfig?.configurable?.["checkpoint_id"]).toBe(idOf(fork));
    // The original run after that checkpoint is still there.
    expect(after.slice(2).map(summary)).toEqual(before.map(summary));
  });

  it("a new ForgeSaver over the same SQLite file sees the same history", async () => {
    const { saver, url, graph } = await twoRuns();
    const expected = (await history(graph, "chat")).map((s) => ({ id: idOf(s), ...summary(s) }));
    await saver.close();

    const again = compile(await openSaver(url));
    const seen = (await history(again, "chat")).map((s) => ({ id: idOf(s), ...summary(s) }));
    expect(seen).toEqual(expected);
    // And it goes on from there.
    expect(await again.invoke({ log: ["in3"] }, { configurable: { thread_id: "chat" } })).toEqual({
      log: ["in", "a0", "b1", "in2", "a2", "b3", "in3", "a4", "b5"],
      count: 6,
    });
  });
});

// ---------------------------------------------------------------- threads

describe("threads", () => {
  it("deleteThread removes every namespace of the thread and leaves other threads", async () => {
    const { saver } = await sqliteSaver();
    const put = (thread: string, ns: string) =>
      saver.put(threadConfig(thread, undefined, ns), checkpointOf({ x: `${thread}/${ns}` }, { x: 1 }), loopMetadata(0), { x: 1 });
    const kept = await put("2", "");
    await put("1", "");
    await put("1", "child:42");
    await saver.putWrites((await saver.getTuple(threadConfig("1")))?.config ?? {}, [["x", "pending"]], "task");

    await saver.deleteThread("1");
    expect(await saver.getTuple(threadConfig("1"))).toBeUndefined();
    expect(await saver.getTuple(threadConfig("1", undefined, "child:42"))).toBeUndefined();
    const left = [];
    for await (const t of saver.list({ configurable: {} })) left.push(t.config.configurable);
    expect(left).toEqual([kept.configurable]);
    expect((await saver.store.listSessions()).map((s) => s.name)).toEqual([threadSessionName("langgraph", "2")]);
  });

  it("two savers over one SQLite file take turns on a thread, each seeing the other's checkpoints", async () => {
    const { saver: first, url } = await sqliteSaver();
    const second = await openSaver(url);
    const c1 = await first.put(threadConfig("t"), checkpointOf({ doc: "d1", n: 1 }, { doc: 1, n: 1 }), loopMetadata(0), { doc: 1, n: 1 });
    const c2 = await second.put(c1, checkpointOf({ doc: "d1", n: 2 }, { doc: 1, n: 2 }), loopMetadata(1), { n: 2 });
    await second.putWrites(c2, [["n", 3]], "task");
    // `first` last looked before c2 existed: its write must notice and build on c2 all the same.
    const c3 = await first.put(c2, checkpointOf({ doc: "d1", n: 3 }, { doc: 1, n: 3 }), loopMetadata(2), { n: 3 });
    await first.putWrites(c2, [["n", 4]], "other-task");

    for (const saver of [first, second]) {
      expect((await saver.getTuple(threadConfig("t")))?.checkpoint.channel_values).toEqual({ doc: "d1", n: 3 });
      expect((await saver.getTuple(c2))?.pendingWrites).toEqual([
        ["other-task", "n", 4],
        ["task", "n", 3],
      ]);
      const ids = [];
      for await (const t of saver.list(threadConfig("t"))) ids.push(t.config.configurable?.["checkpoint_id"]);
      expect(ids).toEqual([c3, c2, c1].map((c) => c.configurable?.["checkpoint_id"]));
    }
  });

  it("a thread id no session name can hold is kept as it was given", async () => {
    const { saver } = await sqliteSaver();
    const threadId = "user@example.com/conversation #1 ✓";
    const config = await saver.put(threadConfig(threadId), checkpointOf({ x: 1 }, { x: 1 }), loopMetadata(0), { x: 1 });
    expect(config.configurable?.["thread_id"]).toBe(threadId);
    const all = [];
    for await (const t of saver.list({})) all.push(t.config.configurable?.["thread_id"]);
    expect(all).toEqual([threadId]);
    await saver.deleteThread(threadId);
    expect(await saver.getTuple(threadConfig(threadId))).toBeUndefined();
    await saver.deleteThread("never-seen"); // nothing to delete is not an error
  });

  it.each(["memory", "file"])("works on a %s store too", async (kind) => {
    const saver = await openSaver(kind === "memory" ? "memory:" : `file:${tempDir().path}/store`);
    const c1 = await saver.put(threadConfig("t"), checkpointOf({ doc: "d", n: 1 }, { doc: 1, n: 1 }), loopMetadata(0), { doc: 1, n: 1 });
    await saver.putWrites(c1, [["n", 2]], "task");
    const c2 = await saver.put(c1, checkpointOf({ doc: "d", n: 2 }, { doc: 1, n: 2 }), loopMetadata(1), { n: 2 });
    const tuple = await saver.getTuple(threadConfig("t"));
    expect(tuple?.config).toEqual(c2);
    expect(tuple?.checkpoint.channel_values).toEqual({ doc: "d", n: 2 });
    expect((await saver.getTuple(c1))?.pendingWrites).toEqual([["task", "n", 2]]);
  });

  it("put without a thread_id fails naming the missing field", async () => {
    const { saver } = await sqliteSaver();
    const err = await saver.put({ configurable: { checkpoint_ns: "" } }, checkpointOf({}, {}), loopMetadata(0), {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForgeError);
    expect((err as ForgeError).code).toBe("INVALID_ARGUMENT");
    expect((err as ForgeError).message).toMatch(/config\.configurable\.thread_id is missing/);
  });
});

// ---------------------------------------------------------------- storage

/** Stored bytes a thread's checkpoints were the first to write. */
async function newBytes(saver: ForgeSaver, threadId: string): Promise<number[]> {
  const session = await saver.store.getSession(threadSessionName("langgraph", threadId));
  return (await session.list()).map((c) => c.sizes.newBytes);
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

describe("deduplication", () => {
  it("a large channel value equal in two threads is stored once", async () => {
    const { saver } = await sqliteSaver();
    const docs = Array.from({ length: 300 }, (_, i) => ({ id: `doc-${i}`, text: prose(i + 1, 1000) }));
    for (const thread of ["a", "b"]) {
      await saver.put(threadConfig(thread), checkpointOf({ docs, question: `asked in ${thread}` }, { docs: 1, question: 1 }), loopMetadata(0), {
        docs: 1,
        question: 1,
      });
    }
    const [a, b] = [sum(await newBytes(saver, "a")), sum(await newBytes(saver, "b"))];
    expect(a).toBeGreaterThan(100_000);
    expect(b).toBeLessThan(a / 50);
  });

  it("a growing message list stores its new messages, not the list", async () => {
    const { saver } = await sqliteSaver();
    const messages: { role: string; content: string }[] = [];
    let config = threadConfig("chat");
    for (let turn = 1; turn <= 150; turn++) {
      messages.push({ role: "user", content: prose(turn * 2, 300) }, { role: "assistant", content: prose(turn * 2 + 1, 600) });
      config = await saver.put(
        config,
        checkpointOf({ messages: [...messages], tools: "search,calc" }, { messages: turn, tools: 1 }),
        loopMetadata(turn),
        turn === 1 ? { messages: 1, tools: 1 } : { messages: turn },
      );
    }
    const perPut = (await newBytes(saver, "chat")).slice(100);
    const json = JSON.stringify(messages).length;
    expect(json).toBeGreaterThan(130_000);
    // Two new messages are ~900 characters; the list's chunk tree adds a few small nodes.
    for (const bytes of perPut) expect(bytes).toBeLessThan(json / 20);
    expect((await saver.getTuple(threadConfig("chat")))?.checkpoint.channel_values).toEqual({ messages, tools: "search,calc" });
  });

  it("a put serializes only the channels named in newVersions and carries the others", async () => {
    const seen: unknown[] = [];
    // A serializer that is not JsonPlusSerializer itself, so every value goes through it.
    const serde: SerializerProtocol = {
      dumpsTyped: (v: unknown) => {
        seen.push(v);
        return new JsonPlusSerializer().dumpsTyped(v);
      },
      loadsTyped: (type: string, data: Uint8Array | string) => new JsonPlusSerializer().loadsTyped(type, data),
    };
    const { saver } = await sqliteSaver({ serde });
    const big = { text: prose(7, 5000) };
    const root = await saver.put(threadConfig("t"), checkpointOf({ big, n: 1 }, { big: 1, n: 1 }), loopMetadata(0), { big: 1, n: 1 });
    seen.length = 0;
    const child = await saver.put(root, checkpointOf({ big, n: 2 }, { big: 1, n: 2 }), loopMetadata(1), { n: 2 });
    expect(seen).toContain(2);
    expect(seen).not.toContain(big);
    expect((await saver.getTuple(child))?.checkpoint.channel_values).toEqual({ big, n: 2 });
  });
});
