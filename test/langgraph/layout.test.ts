// Where ForgeSaver keeps what (entry format 2): pending writes as side records of the
// thread's session, a first read that looks at the newest checkpoint row only, carried
// channels stored once, search left to the next search —
// and threads written by ForgeSaver before all that (format 1: every putWrites a new entry,
// writes-only entries) read and continued as they were.
import Database from "better-sqlite3";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { JsonPlusSerializer, uuid6, type CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ForgeSaver } from "../../src/integrations/langgraph/index.js";
import { threadSessionName } from "../../src/integrations/langgraph/thread-log.js";
import { Session } from "../../src/timeline/session.js";
import { openStore, type Store } from "../../src/timeline/store.js";
import { dropSchema, pgStoreUrl } from "../support/postgres.js";
import { checkpointOf, loopMetadata, openSaver, prose, sqliteSaver, tempDir, threadConfig } from "./support.js";

afterEach(() => {
  vi.restoreAllMocks();
});

const ids = (n: number): string[] => Array.from({ length: n }, () => uuid6(-1));

// ---------------------------------------------------------------- a thread of format 1

interface OldWrite {
  task: string;
  idx: number;
  channel: string;
  value: { json: unknown };
  path: string;
}

/**
 * Writes a thread as ForgeSaver wrote them before side records (entry format 1): a put was an
 * entry with every channel as `channel:NAME` and LangGraph's metadata in the state and the
 * row; a putWrites appended a copy of the checkpoint's newest entry with the writes merged
 * in; writes before their checkpoint's put made a writes-only entry.
 */
async function writeFormat1(store: Store, threadId: string) {
  const session = await store.session(threadSessionName("langgraph", threadId), { kind: "langgraph", metadata: { threadId } });
  const [cp1, cp2] = ids(2) as [string, string];
  const metadata = { source: "input", step: -1, parents: {} };
  const head1 = { format: 1, thread: threadId, ns: "", id: cp1, parent: null, versions: { x: 1, msgs: 1 } };
  const entry1 = {
    langgraph: head1,
    checkpoint: { json: { v: 4, id: cp1, ts: "2026-01-01T00:00:00.000Z", channel_versions: { x: 1, msgs: 1 }, versions_seen: {} } },
    metadata: { json: metadata },
    "channel:x": { json: 1 },
    "channel:msgs": { json: ["a"] },
    writes: [] as OldWrite[],
  };
  const append = (state: unknown, row: Record<string, unknown>, trigger: string) =>
    session.setWorking(state, { checkpoint: () => ({ trigger, message: "old", metadata: { langgraph: row } }) });
  await append(entry1, { ns: "", id: cp1, parent: null, checkpoint: true, metadata }, "langgraph");
  const w1: OldWrite = { task: "t1", idx: 0, channel: "msgs", value: { json: ["b"] }, path: "" };
  await append({ ...entry1, writes: [w1] }, { ns: "", id: cp1, parent: null, checkpoint: true, metadata }, "langgraph-writes");
  const early: OldWrite = { task: "t0", idx: 0, channel: "x", value: { json: 2 }, path: "" };
  await append(
    { langgraph: { format: 1, thread: threadId, ns: "", id: cp2, parent: null, versions: {} }, checkpoint: null, metadata: null, writes: [early] },
    { ns: "", id: cp2, parent: null, checkpoint: false },
    "langgraph-writes",
  );
  return { cp1, cp2 };
}

describe("a thread written before side records (entry format 1)", () => {
  it("reads back as it was, takes new writes as side records, and goes on", async () => {
    const dir = tempDir();
    const url = `sqlite:${dir.path}/forge.db`;
    const store = await openStore(url);
    const { cp1, cp2 } = await writeFormat1(store, "old");
    await store.close();

    const saver = await openSaver(url);
    const first = await saver.getTuple(threadConfig("old"));
    expect(first?.config.configurable?.["checkpoint_id"]).toBe(cp1);
    expect(first?.checkpoint.channel_values).toEqual({ x: 1, msgs: ["a"] });
    expect(first?.metadata).toEqual({ source: "input", step: -1, parents: {} });
    expect(first?.pendingWrites).toEqual([["t1", "msgs", ["b"]]]);

    // A new write of cp1 is a side record; the old one (in an entry) stays, and a repeat of it is ignored.
    await saver.putWrites(threadConfig("old", cp1), [["msgs", ["c"]]], "t2");
    await saver.putWrites(threadConfig("old", cp1), [["msgs", ["ignored"]]], "t1");
    expect((await saver.getTuple(threadConfig("old", cp1)))?.pendingWrites).toEqual([
      ["t1", "msgs", ["b"]],
      ["t2", "msgs", ["c"]],
    ]);

    // cp2's put takes in the writes its writes-only entry held, and carries `x` from cp1.
    const c2 = await saver.put(threadConfig("old", cp1), { ...checkpointOf({ x: 1, msgs: ["a", "b", "c"] }, { x: 1, msgs: 2 }), id: cp2 }, loopMetadata(0), {
      msgs: 2,
    });
    for (const s of [saver, await openSaver(url)]) {
      const latest = await s.getTuple(threadConfig("old"));
      expect(latest?.config).toEqual(c2);
      expect(latest?.checkpoint.channel_values).toEqual({ x: 1, msgs: ["a", "b", "c"] });
      expect(latest?.pendingWrites).toEqual([["t0", "x", 2]]);
      expect(latest?.parentConfig?.configurable?.["checkpoint_id"]).toBe(cp1);
      const listed = [];
      for await (const t of s.list(threadConfig("old"))) listed.push([t.config.configurable?.["checkpoint_id"], t.pendingWrites?.length]);
      expect(listed).toEqual([
        [cp2, 1],
        [cp1, 2],
      ]);
      expect(await s.getDeltaChannelHistory({ config: c2, channels: ["msgs"] })).toEqual({
        msgs: {
          writes: [
            ["t1", "msgs", ["b"]],
            ["t2", "msgs", ["c"]],
          ],
          seed: ["a"],
        },
      });
    }
  });
});

// ---------------------------------------------------------------- pending writes as side records

describe("pending writes as side records", () => {
  it("are rows of the thread's session, not checkpoints", async () => {
    const { saver } = await sqliteSaver();
    const config = await saver.put(threadConfig("t"), checkpointOf({ x: 0 }, { x: 1 }), loopMetadata(0), { x: 1 });
    for (let i = 0; i < 5; i++) await saver.putWrites(config, [["x", i]], `task-${i}`);
    const session = await saver.store.getSession(threadSessionName("langgraph", "t"));
    expect(await session.count()).toBe(1);
    expect(await session.sideRecords()).toHaveLength(5);
  });

  it("go with deleteThread: a thread of the same id begins without them", async () => {
    const { saver, url } = await sqliteSaver();
    const id = uuid6(-1);
    const c = await saver.put(threadConfig("t"), { ...checkpointOf({ x: 0 }, { x: 1 }), id }, loopMetadata(0), { x: 1 });
    await saver.putWrites(c, [["x", "old"]], "task");
    await saver.deleteThread("t");
    // Deleted with the session, not left behind.
    const db = new Database(url.slice("sqlite:".length), { readonly: true });
    expect(db.prepare("SELECT count(*) AS n FROM side_records").get()).toEqual({ n: 0 });
    db.close();
    const again = await openSaver(url);
    await again.put(threadConfig("t"), { ...checkpointOf({ x: 0 }, { x: 1 }), id }, loopMetadata(0), { x: 1 });
    expect((await again.getTuple(threadConfig("t")))?.pendingWrites).toEqual([]);
    expect((await saver.getTuple(threadConfig("t")))?.pendingWrites).toEqual([]);
  });

  it("have their secrets redacted like any state", async () => {
    const { saver } = await sqliteSaver();
    const config = await saver.put(threadConfig("t"), checkpointOf({ x: 0 }, { x: 1 }), loopMetadata(0), { x: 1 });
    const key = "AKIAQWERTYUIOPASDFGH";
    await saver.putWrites(config, [["x", { note: `aws configure set aws_access_key_id ${key}` }]], "task");
    const [, , value] = (await saver.getTuple(config))?.pendingWrites?.[0] ?? [];
    expect(JSON.stringify(value)).not.toContain(key);
    expect(JSON.stringify(value)).toContain("REDACTED");
  });

  it("keep LangGraph's semantics on PostgreSQL too: special channels replace, others keep the first", async () => {
    const url = pgStoreUrl("lgw");
    try {
      const saver = await openSaver(url);
      const config = await saver.put(threadConfig("t"), checkpointOf({}, {}), loopMetadata(0), {});
      await saver.putWrites(config, [["x", "first"]], "task");
      await saver.putWrites(config, [["x", "second"]], "task");
      await saver.putWrites(config, [["__error__", "boom"]], "task");
      await saver.putWrites(config, [["__error__", "boom again"]], "task");
      expect((await saver.getTuple(config))?.pendingWrites).toEqual([
        ["task", "__error__", "boom again"],
        ["task", "x", "first"],
      ]);
      await saver.close();
    } finally {
      await dropSchema(url);
    }
  });

  it("go into entries on a store that keeps no side records (memory), with the same semantics", async () => {
    const saver = await openSaver("memory:");
    expect(saver.store.keepsSideRecords).toBe(false);
    const id = uuid6(-1);
    await saver.putWrites(threadConfig("t", id), [["x", "early"]], "early-task");
    const config = await saver.put(threadConfig("t"), { ...checkpointOf({ x: 0 }, { x: 1 }), id }, loopMetadata(0), { x: 1 });
    await saver.putWrites(config, [["x", "first"]], "task");
    await saver.putWrites(config, [["x", "second"]], "task");
    expect((await saver.getTuple(config))?.pendingWrites).toEqual([
      ["early-task", "x", "early"],
      ["task", "x", "first"],
    ]);
    const session = await saver.store.getSession(threadSessionName("langgraph", "t"));
    expect((await session.list()).map((c) => c.trigger)).toEqual(["langgraph-writes", "langgraph", "langgraph-writes"]);
  });
});

// ---------------------------------------------------------------- the first read of a process

describe("a fresh saver's first getTuple", () => {
  async function thread(n: number) {
    const { saver, url } = await sqliteSaver();
    let config = threadConfig("t");
    for (let i = 1; i <= n; i++) {
      config = await saver.put(config, checkpointOf({ n: i }, { n: i }), loopMetadata(i), { n: i });
      await saver.putWrites(config, [["n", i + 1]], `task-${i}`);
    }
    await saver.close();
    return { url, config };
  }

  it("reads the newest checkpoint row only, not the thread's", async () => {
    const { url, config } = await thread(30);
    const list = vi.spyOn(Session.prototype, "list");
    const fresh = await openSaver(url);
    const tuple = await fresh.getTuple(threadConfig("t"));
    expect(tuple?.config).toEqual(config);
    expect(tuple?.checkpoint.channel_values).toEqual({ n: 30 });
    expect(tuple?.pendingWrites).toEqual([["task-30", "n", 31]]);
    expect(list.mock.calls.map(([filter]) => filter)).toEqual([{ order: "desc", limit: 1 }]);
    // And its next put (from that checkpoint) needs no more.
    await fresh.put(config, checkpointOf({ n: 31 }, { n: 31 }), loopMetadata(31), { n: 31 });
    expect(list.mock.calls).toHaveLength(1);
  });

  it("reads every row when the newest is not its namespace's latest", async () => {
    const { saver, url } = await sqliteSaver();
    const [a, b, c] = ids(3) as [string, string, string];
    await saver.put(threadConfig("t"), { ...checkpointOf({ v: "b" }, { v: 1 }), id: b }, loopMetadata(0), { v: 1 });
    // Newest row, older id: not the latest of "".
    await saver.put(threadConfig("t"), { ...checkpointOf({ v: "a" }, { v: 1 }), id: a }, loopMetadata(0), { v: 1 });
    expect((await (await openSaver(url)).getTuple(threadConfig("t")))?.checkpoint.channel_values).toEqual({ v: "b" });
    // Newest row in another namespace.
    await saver.put(threadConfig("t", undefined, "child:1"), { ...checkpointOf({ v: "c" }, { v: 1 }), id: c }, loopMetadata(0), { v: 1 });
    const fresh = await openSaver(url);
    expect((await fresh.getTuple(threadConfig("t")))?.checkpoint.channel_values).toEqual({ v: "b" });
    expect((await fresh.getTuple(threadConfig("t", undefined, "child:1")))?.checkpoint.channel_values).toEqual({ v: "c" });
  });

  it("leaves a fork from an older checkpoint as right as a saver that read every row", async () => {
    const { saver, url } = await sqliteSaver();
    const c1 = await saver.put(threadConfig("t"), checkpointOf({ doc: "d", n: 1 }, { doc: 1, n: 1 }), loopMetadata(0), { doc: 1, n: 1 });
    await saver.put(c1, checkpointOf({ doc: "d", n: 2 }, { doc: 1, n: 2 }), loopMetadata(1), { n: 2 });
    const fresh = await openSaver(url);
    await fresh.getTuple(threadConfig("t"));
    // A fork of c1 (not the newest): `doc` is carried from c1, which the first read did not see.
    const fork = await fresh.put(c1, checkpointOf({ doc: "d", n: 9 }, { doc: 1, n: 3 }), loopMetadata(1), { n: 3 });
    expect((await (await openSaver(url)).getTuple(fork))?.checkpoint.channel_values).toEqual({ doc: "d", n: 9 });
    expect((await fresh.getTuple(threadConfig("t")))?.config).toEqual(fork);
  });

  it("sees another process's puts made after it", async () => {
    const { url } = await thread(3);
    const reader = await openSaver(url);
    const writer = await openSaver(url);
    const latest = (await reader.getTuple(threadConfig("t")))?.config ?? {};
    const next = await writer.put(latest, checkpointOf({ n: 4 }, { n: 4 }), loopMetadata(4), { n: 4 });
    expect((await reader.getTuple(threadConfig("t")))?.config).toEqual(next);
    // And a put of its own from the stale view is redone on the fresh one.
    const after = await reader.put(next, checkpointOf({ n: 5 }, { n: 5 }), loopMetadata(5), { n: 5 });
    expect((await writer.getTuple(threadConfig("t")))?.config).toEqual(after);
  });
});

// ---------------------------------------------------------------- what an entry holds

describe("entries", () => {
  it("store a group of small unchanged channels once, not in every checkpoint's root", async () => {
    const { saver } = await sqliteSaver();
    const system = prose(3, 1500);
    let config = threadConfig("t");
    for (let turn = 1; turn <= 4; turn++) {
      config = await saver.put(
        config,
        checkpointOf({ system, profile: { name: "Ada" }, turn }, { system: 1, profile: 1, turn }),
        loopMetadata(turn),
        turn === 1 ? { system: 1, profile: 1, turn } : { turn },
      );
    }
    const session = await saver.store.getSession(threadSessionName("langgraph", "t"));
    const [, ...later] = await session.list();
    // From the second entry on the group is carried: each root points at one and the same object for it.
    const refs = await Promise.all(later.map(async (cp) => (await saver.store.objects.getNode(cp.stateRoot)) as unknown as { refs: string[][] }));
    const carried = refs.map((node) => node.refs.filter((r) => r[1] === "carried").map((r) => r[0]));
    expect(carried[0]).toHaveLength(1);
    expect(new Set(carried.flat()).size).toBe(1);
    for (const cp of later) expect(cp.sizes.newBytes).toBeLessThan(1000);
    expect((await saver.getTuple(config))?.checkpoint.channel_values).toEqual({ system, profile: { name: "Ada" }, turn: 4 });
  });

  it("keep LangGraph's metadata exactly, key order too, on PostgreSQL (whose jsonb row copy reorders keys)", async () => {
    const url = pgStoreUrl("lgm");
    try {
      const saver = await openSaver(url);
      const metadata = { source: "input", step: -1, parents: {}, writer: "me" } as CheckpointMetadata;
      const config = await saver.put(threadConfig("t"), checkpointOf({ x: 1 }, { x: 1 }), metadata, { x: 1 });
      expect(JSON.stringify((await (await openSaver(url)).getTuple(config))?.metadata)).toBe(JSON.stringify(metadata));
      const found = [];
      for await (const t of saver.list(threadConfig("t"), { filter: { writer: "me" } })) found.push(t.metadata);
      expect(found).toEqual([metadata]);
      await saver.close();
    } finally {
      await dropSchema(url);
    }
  });

  it("are left to the next search to index, which finds them", async () => {
    const { saver } = await sqliteSaver();
    await saver.put(
      threadConfig("t"),
      checkpointOf({ messages: [new HumanMessage({ content: "where is the quarterly zeppelin report", id: "m1" })] }, { messages: 1 }),
      loopMetadata(0),
      { messages: 1 },
    );
    expect((await saver.store.searchIndexStats()).checkpoints).toBe(0);
    const found = await saver.store.search("zeppelin");
    expect(found.indexed).toBe(1);
    expect(found.results.map((h) => [h.checkpoint.session, h.sessionKind])).toEqual([[threadSessionName("langgraph", "t"), "langgraph"]]);
  });
});

// ---------------------------------------------------------------- LangChain messages read back

describe("LangChain messages read back", () => {
  it("are what the serializer revives, class and fields, for every kind and shape", async () => {
    const { saver, url } = await sqliteSaver();
    const { SystemMessage, ToolMessage, AIMessageChunk } = await import("@langchain/core/messages");
    const messages = [
      new SystemMessage({ content: "be brief", id: "s" }),
      new HumanMessage({ content: [{ type: "text", text: "hi" }], id: "h", name: "ada", additional_kwargs: { extra: { deep: [1, 2] } } }),
      new AIMessage({
        content: "",
        id: "a",
        tool_calls: [{ id: "call-1", name: "search", args: { query: "zeppelin", limit: 3 } }],
        usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
        response_metadata: { model: "m" },
      }),
      new ToolMessage({ content: "found", tool_call_id: "call-1", id: "t", status: "success" }),
      new AIMessageChunk({ content: "part", id: "c" }),
      // Something the serializer revives inside a message: it goes the serializer's way.
      new AIMessage({ content: "with a set", id: "x", additional_kwargs: { tags: new Set(["a"]) } }),
    ];
    const config = await saver.put(threadConfig("t"), checkpointOf({ messages }, { messages: 1 }), loopMetadata(0), { messages: 1 });
    await saver.close();
    // Read twice by fresh savers: the first object of each class teaches the direct way, the next uses it.
    for (let round = 0; round < 2; round++) {
      const loads = vi.spyOn(JsonPlusSerializer.prototype, "loadsTyped");
      const read = (await (await openSaver(url)).getTuple(config))?.checkpoint.channel_values["messages"] as unknown[];
      // The second time only the message holding a Set (and the check that `load` is the serializer's) go through the serializer.
      if (round === 1) expect(loads.mock.calls.length).toBeLessThanOrEqual(2);
      loads.mockRestore();
      const expected = (await saver.serde.loadsTyped(
        "json",
        JSON.stringify(await saver.serde.dumpsTyped(messages).then(([, b]) => JSON.parse(new TextDecoder().decode(b)))),
      )) as unknown[];
      expect(read).toHaveLength(expected.length);
      for (const [i, m] of read.entries()) {
        expect(Object.getPrototypeOf(m)).toBe(Object.getPrototypeOf(expected[i]));
        expect(m).toEqual(expected[i]);
      }
    }
  });
});

// ---------------------------------------------------------------- ForgeSaver.open on a new store

describe("threads on a store that keeps side records", () => {
  it("are marked so, and threads of older savers are not", async () => {
    const { saver } = await sqliteSaver();
    await saver.put(threadConfig("t"), checkpointOf({ x: 1 }, { x: 1 }), loopMetadata(0), { x: 1 });
    const info = await (await saver.store.getSession(threadSessionName("langgraph", "t"))).info();
    expect(info.metadata).toEqual({ threadId: "t", pendingWrites: "side-records" });
    const memory = await ForgeSaver.open("memory:");
    await memory.put(threadConfig("t"), checkpointOf({ x: 1 }, { x: 1 }), loopMetadata(0), { x: 1 });
    expect((await (await memory.store.getSession(threadSessionName("langgraph", "t"))).info()).metadata).toEqual({ threadId: "t" });
    await memory.close();
  });
});
