// What a fresh saver (a resumed agent's first call) relies on after the cold-path work: the
// session's row as read when it was looked up (Session.opened) stands for its info and
// working-state version; a session of the thread's name that is not the thread's is still
// refused; a write whose checkpoint options are given as they are (no facts asked) makes the
// same checkpoint as one that decides from facts; and a growing thread reads back whole from
// a fresh saver, put after put, including after another saver appended to it.
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { threadSessionName } from "../../src/integrations/langgraph/thread-log.js";
import { openStore } from "../../src/timeline/store.js";
import { checkpointOf, loopMetadata, openSaver, sqliteSaver, tempDir, threadConfig } from "./support.js";

describe("a fresh saver", () => {
  it("refuses a session of the thread's name that is another kind's", async () => {
    const url = `sqlite:${tempDir().path}/forge.db`;
    const store = await openStore(url);
    await store.session(threadSessionName("langgraph", "t1"), { kind: "reasoning", metadata: {} });
    await store.close();
    const saver = await openSaver(url);
    await expect(saver.getTuple(threadConfig("t1"))).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("reasoning session") });
  });

  it("reads the newest checkpoint of a growing thread, also after another saver appended", async () => {
    const { saver, url } = await sqliteSaver();
    let config = threadConfig("chat");
    const messages: unknown[] = [];
    for (let step = 0; step < 40; step++) {
      messages.push(
        new HumanMessage({ content: `q${step}`, id: `h${step}` }),
        step % 3 === 0 ? { type: "ai", content: `a${step}` } : new AIMessage({ content: `a${step}`, id: `a${step}` }),
      );
      const cp = checkpointOf({ messages: [...messages], step }, { messages: step + 1, step: step + 1 });
      config = await saver.put(config, cp, loopMetadata(step), { messages: step + 1, step: step + 1 });
      if (step % 10 === 9) {
        const fresh = await openSaver(url);
        const tuple = await fresh.getTuple(threadConfig("chat"));
        expect(tuple?.checkpoint.id).toBe(cp.id);
        expect(JSON.stringify(tuple?.checkpoint.channel_values)).toBe(JSON.stringify({ messages, step }));
        // The fresh saver appends; the first saver then reads what it wrote.
        const next = checkpointOf({ messages: [...messages], step: step + 100 }, { messages: step + 1, step: step + 101 });
        await fresh.put(tuple?.config ?? config, next, loopMetadata(step + 100), { step: step + 101 });
        const seen = await saver.getTuple(threadConfig("chat"));
        expect(seen?.checkpoint.id).toBe(next.id);
        expect(JSON.stringify(seen?.checkpoint.channel_values)).toBe(JSON.stringify({ messages, step: step + 100 }));
        config = seen?.config ?? config;
      }
    }
  });
});

describe("Session.opened and checkpoint options given as they are", () => {
  it("holds the row as read when the session was looked up", async () => {
    const store = await openStore(`sqlite:${tempDir().path}/forge.db`);
    try {
      const s = await store.session("s1", { kind: "k", metadata: { a: 1 } });
      expect(s.opened).toMatchObject({ name: "s1", kind: "k", metadata: { a: 1 }, workVersion: 0 });
      await s.setWorking({ x: 1 });
      expect(s.opened.workVersion).toBe(0);
      const again = await store.getSession("s1");
      expect(again.opened.workVersion).toBe(await s.workVersion());
      expect(again.opened.workVersion).toBe(1);
    } finally {
      await store.close();
    }
  });

  it("makes the same checkpoint from options given as they are as from a function that returns them", async () => {
    const store = await openStore(`sqlite:${tempDir().path}/forge.db`);
    try {
      const a = await store.session("a");
      const b = await store.session("b");
      const facts: unknown[] = [];
      for (const [i, state] of [{ n: 1 }, { n: 1 }, { n: 2 }].entries()) {
        const options = { message: `put ${i}`, trigger: "test", metadata: { i } };
        const ra = await a.setWorking(state, { checkpoint: options });
        const rb = await b.setWorking(state, {
          checkpoint: (f) => {
            facts.push(f);
            return options;
          },
        });
        expect(ra.checkpoint).not.toBeNull();
        const same = (c: typeof ra.checkpoint) =>
          c && { seq: c.seq, branch: c.branch, message: c.message, trigger: c.trigger, metadata: c.metadata, root: c.stateRoot };
        expect(same(ra.checkpoint)).toEqual(same(rb.checkpoint));
        expect(ra.root).toBe(rb.root);
      }
      // The function is still told the facts: the second write changed nothing and HEAD held it.
      expect(facts[1]).toMatchObject({ changed: false, unsaved: false, nextSeq: 2 });
      expect((await a.list()).map((c) => c.message)).toEqual(["put 0", "put 1", "put 2"]);
    } finally {
      await store.close();
    }
  });
});
