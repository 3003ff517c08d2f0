// Export to a versioned JSON document and import as a new session: everything comes back
// (checkpoints with names, descriptions, tags, times, seqs, parents, branches; HEAD; the
// messages), and a bad file — or a taken name — changes nothing in the store.
import { describe, expect, it } from "vitest";
import { ConversationSession, type ConversationDocument, type Message, type Store } from "../../src/index.js";
import { rejectsWith } from "../support/errors.js";
import { conversationBench, MINUTE, transcript } from "./support.js";
import { backendOf } from "../../src/timeline/store-internals.js";

const user = (content: string): Message => ({ role: "user", content });

/** A conversation with a branch: saves #1 #2 #3 on main, a restore of #2, #4 on a new branch, and unsaved messages. */
async function branchedConversation() {
  const bench = await conversationBench("trip");
  const { cs, clock } = bench;
  const all = transcript();
  await cs.append(all.slice(0, 3));
  await cs.save("question", { description: "what was asked", tags: ["start"] });
  clock.advance(MINUTE);
  await cs.append(all.slice(3, 7));
  await cs.save();
  clock.advance(MINUTE);
  await cs.append(all.slice(7));
  await cs.save("answer", { tags: ["done", "good"] });
  clock.advance(MINUTE);
  await cs.restore("#2");
  await cs.append(user("what about Berlin?"));
  await cs.save();
  await cs.append(user("and Madrid?"));
  return bench;
}

/** What a store holds: its sessions and how many objects. */
async function snapshot(store: Store): Promise<unknown> {
  return { sessions: (await store.listSessions()).map((s) => [s.name, s.kind, s.checkpoints]), objects: await backendOf(store).countObjects() };
}

describe("export", () => {
  it("writes a versioned document with the messages, every checkpoint with its metadata and messages, the branches and HEAD", async () => {
    const { cs } = await branchedConversation();
    const doc = await cs.export();
    expect([doc.format, doc.version, doc.session]).toEqual(["forge-conversation", 1, "trip"]);
    expect(doc.messages).toEqual([...transcript().slice(0, 7), user("what about Berlin?"), user("and Madrid?")]);
    expect(doc.checkpoints.map((c) => [c.seq, c.name, c.branch, c.messageCount, c.tags])).toEqual([
      [1, "question", "main", 3, ["start"]],
      [2, "Checkpoint 2", "main", 7, []],
      [3, "answer", "main", 10, ["done", "good"]],
      [4, "Checkpoint 4", "main-from-2", 8, []],
    ]);
    expect(doc.checkpoints[0]?.description).toBe("what was asked");
    expect(doc.checkpoints[3]?.parent).toBe(doc.checkpoints[1]?.id);
    expect(doc.checkpoints[2]?.messages).toEqual(transcript());
    expect(doc.branches).toEqual([
      { name: "main", checkpoint: doc.checkpoints[2]?.id },
      { name: "main-from-2", checkpoint: doc.checkpoints[3]?.id },
    ]);
    expect(doc.head).toEqual({ branch: "main-from-2", checkpoint: null });
    // A JSON document: it survives stringify/parse unchanged.
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });
});

describe("import", () => {
  it("creates a new session with the same checkpoints, branches, HEAD and messages", async () => {
    const { cs, store } = await branchedConversation();
    const doc = JSON.parse(JSON.stringify(await cs.export())) as ConversationDocument;
    const r = await ConversationSession.import(store, doc, { as: "trip-copy" });
    expect([r.session.name, r.checkpoints, r.messages]).toEqual(["trip-copy", 4, 9]);
    const copy = r.session;
    expect(await copy.messages()).toEqual(await cs.messages());
    const [a, b] = [await cs.list(), await copy.list()];
    const shape = (list: typeof a) => list.map((c) => [c.seq, c.name, c.description, c.tags, c.branch, c.createdAt.getTime(), c.messageCount, c.trigger]);
    expect(shape(b)).toEqual(shape(a));
    // New ids, the same links between them.
    expect(b.map((c) => c.id).some((id) => a.some((x) => x.id === id))).toBe(false);
    const seqOf = (list: typeof a, id: string | null) => list.find((c) => c.id === id)?.seq ?? null;
    expect(b.map((c) => seqOf(b, c.parentId))).toEqual(a.map((c) => seqOf(a, c.parentId)));
    for (const c of a) expect((await copy.get(`#${c.seq}`)).messages).toEqual((await cs.get(c.id)).messages);
    expect((await copy.session.head()).branch).toBe("main-from-2");
    expect((await copy.session.branches()).map((x) => [x.name, x.head.seq])).toEqual([
      ["main", 3],
      ["main-from-2", 4],
    ]);
    // It goes on as any session does: the next save is #5.
    expect((await copy.save()).name).toBe("Checkpoint 5");
    expect((await copy.session.info()).kind).toBe("conversation");
  });

  it("keeps a detached HEAD", async () => {
    const { cs, store } = await conversationBench();
    await cs.append(user("a"));
    await cs.save();
    await cs.append(user("b"));
    await cs.save();
    await cs.restore("#1");
    const doc = await cs.export();
    expect(doc.head).toEqual({ branch: null, checkpoint: doc.checkpoints[0]?.id });
    const copy = (await ConversationSession.import(store, doc, { as: "copy" })).session;
    const head = await copy.session.head();
    expect([head.branch, head.checkpoint?.seq]).toEqual([null, 1]);
    expect(await copy.messages()).toEqual([user("a")]);
  });

  it("takes the document's session name when not given another, into another store", async () => {
    const { cs } = await branchedConversation();
    const doc = await cs.export();
    const other = await conversationBench("unrelated");
    const r = await ConversationSession.import(other.store, doc);
    expect(r.session.name).toBe("trip");
    expect((await r.session.list()).map((c) => c.name)).toEqual(["question", "Checkpoint 2", "answer", "Checkpoint 4"]);
  });

  it("imports a plain list of OpenAI or LangChain messages as a session with no checkpoints", async () => {
    const { store } = await conversationBench();
    const r = await ConversationSession.import(
      store,
      [
        { role: "user", content: "hi" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
      ],
      { as: "from-openai" },
    );
    expect([r.checkpoints, r.messages]).toEqual([0, 2]);
    expect(await r.session.messages()).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: null, toolCalls: [{ id: "c1", name: "f", arguments: {} }] },
    ]);
    await rejectsWith(ConversationSession.import(store, [{ role: "user", content: "hi" }]), "INVALID_ARGUMENT", /a plain list of messages has no session name/);
  });

  it("never replaces a session: a taken name is IMPORT_CONFLICT and nothing is written", async () => {
    const { cs, store } = await branchedConversation();
    const doc = await cs.export();
    const before = await snapshot(store);
    await rejectsWith(ConversationSession.import(store, doc), "IMPORT_CONFLICT", /already has a session named "trip"/);
    expect(await snapshot(store)).toEqual(before);
    expect((await cs.list()).length).toBe(4);
  });
});

describe("bad files change nothing", () => {
  async function refused(mutate: (doc: Record<string, unknown>) => void, error: RegExp): Promise<void> {
    const { cs, store } = await branchedConversation();
    const doc = JSON.parse(JSON.stringify(await cs.export())) as Record<string, unknown>;
    mutate(doc);
    const before = await snapshot(store);
    await rejectsWith(ConversationSession.import(store, doc, { as: "imported" }), "INVALID_ARGUMENT", error);
    expect(await snapshot(store)).toEqual(before);
  }
  const checkpoint = (doc: Record<string, unknown>, i: number) => (doc["checkpoints"] as Record<string, unknown>[])[i] as Record<string, unknown>;

  it("a wrong version", async () => {
    await refused((d) => (d["version"] = 2), /version 2 is not supported \(this Forge reads version 1\)/);
  });

  it("another format", async () => {
    await refused((d) => (d["format"] = "forge-bundle"), /its format is "forge-bundle", not "forge-conversation"/);
  });

  it("a message with a bad role at index 3 of the messages: the error says message 3", async () => {
    await refused(
      (d) => ((d["messages"] as Record<string, unknown>[])[3] = { role: "robot", content: "beep" }),
      /^message 3: role "robot" is not one of system, user, assistant, tool/,
    );
  });

  it("a message with a bad role at index 3 of a checkpoint: the error names the checkpoint and message 3", async () => {
    await refused(
      (d) => ((checkpoint(d, 2)["messages"] as Record<string, unknown>[])[3] = { role: "robot", content: "beep" }),
      /^checkpoint #3 \("answer"\): message 3: role "robot"/,
    );
  });

  it("a tool message without the call it answers, in a checkpoint", async () => {
    await refused(
      (d) => delete (checkpoint(d, 1)["messages"] as Record<string, unknown>[])[5]?.["toolCallId"],
      /^checkpoint #2 \("Checkpoint 2"\): message 5: a tool message needs toolCallId/,
    );
  });

  it("a field of the wrong type", async () => {
    await refused((d) => (checkpoint(d, 0)["tags"] = "start"), /checkpoints\[0\]\.tags: /);
    await refused((d) => (checkpoint(d, 1)["createdAt"] = "last tuesday-ish"), /checkpoints\[1\]\.createdAt: not a date/);
  });

  it("a parent that is not an earlier checkpoint", async () => {
    await refused(
      (d) => (checkpoint(d, 0)["parent"] = checkpoint(d, 3)["id"]),
      /checkpoint #1 \("question"\): its parent .* is not an earlier checkpoint of the file/,
    );
  });

  it("a branch pointing nowhere", async () => {
    await refused(
      (d) => (d["branches"] as Record<string, unknown>[]).push({ name: "ghost", checkpoint: "NOPE" }),
      /branch "ghost" points at NOPE, which is not a checkpoint of the file/,
    );
  });

  it("a message count that does not match", async () => {
    await refused((d) => (checkpoint(d, 0)["messageCount"] = 99), /checkpoint #1 \("question"\): messageCount is 99 but it holds 3 messages/);
  });

  it("not an object at all", async () => {
    const { store } = await conversationBench();
    await rejectsWith(
      ConversationSession.import(store, "a string"),
      "INVALID_ARGUMENT",
      /not a valid conversation export: expected a JSON object, not a string/,
    );
  });
});
