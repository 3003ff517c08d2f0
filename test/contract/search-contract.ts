// Full-text search, the same on every backend: found where the text first appeared, indexed
// once however many checkpoints share it, ranked, filtered, and caught up on a store whose
// index is missing. Run by the contract.*.test.ts files beside the backend contract.
import { describe, expect, it, onTestFinished } from "vitest";
import { ConversationSession, ManualClock, RunStore, Store, type Session } from "../../src/index.js";
import { parseQuery } from "../../src/backends/search/tokenize.js";
import { blobRaw } from "../../src/objects/node.js";
import { buildTree, fileObjects } from "../../src/objects/file-tree.js";
import { sha256 } from "../../src/objects/hash.js";
import { backendOf } from "../../src/timeline/store-internals.js";
import type { MakeStore } from "./backend-contract.js";

const HOUR = 3_600_000;
const T0 = Date.UTC(2025, 0, 20, 12, 0, 0);
const PHRASE = "connection pool exhausted under burst load";

/** A long text (its own object: over the 2 KB split) holding `word` once. */
function manual(word: string): string {
  return `Operations manual. ${"Restart the worker, check the queue depth, read the logs. ".repeat(50)}The rare word is ${word}.`;
}

export function runSearchContract(name: string, makeStore: MakeStore): void {
  describe(`search contract: ${name}`, () => {
    async function open(): Promise<{ store: Store; clock: ManualClock }> {
      const { store, cleanup } = await makeStore();
      onTestFinished(() => cleanup());
      const clock = new ManualClock(T0);
      return { store: Store.fromBackend(backendOf(store), { clock }), clock };
    }

    /** Five checkpoints of a small state (its root a new object each time); the phrase is a hypothesis from #3 on. */
    async function fiveSteps(session: Session, clock: ManualClock): Promise<void> {
      const notes: string[] = [];
      const hypotheses: { statement: string }[] = [];
      for (let k = 1; k <= 5; k++) {
        notes.push(`step ${k}: looked at the gateway logs`);
        if (k === 3) hypotheses.push({ statement: PHRASE });
        await session.checkpoint({ notes, hypotheses }, { message: `step ${k}` });
        clock.advance(HOUR);
      }
    }

    it("a phrase that appears in checkpoint 3 of 5 is found there, and first names #3", async () => {
      const { store, clock } = await open();
      await fiveSteps(await store.session("debug"), clock);
      const r = await store.search('"pool exhausted"');
      expect(r.results).toHaveLength(1);
      const [hit] = r.results;
      expect(hit?.where).toBe("hypotheses[0].statement");
      expect([hit?.first.seq, hit?.last.seq]).toEqual([3, 5]);
      expect(hit?.snippet).toContain(PHRASE);
      const first = await store.search("pool exhausted", { order: "first" });
      expect(first.results[0]?.checkpoint.seq).toBe(3);
      expect(first.results[0]?.checkpoint.session).toBe("debug");
    });

    it("last names the last checkpoint that held the text, not the newest", async () => {
      const { store } = await open();
      const s = await store.session("s");
      await s.checkpoint({ note: "warming up" });
      await s.checkpoint({ note: "ECONNRESET from the payments api" });
      await s.checkpoint({ note: "ECONNRESET from the payments api", more: 1 });
      await s.checkpoint({ note: "fixed by a retry" });
      const r = await store.search("ECONNRESET", { order: "last" });
      expect(r.results.map((h) => [h.checkpoint.seq, h.first.seq, h.last.seq])).toEqual([[3, 2, 3]]);
    });

    it("a phrase never written finds nothing", async () => {
      const { store, clock } = await open();
      await fiveSteps(await store.session("debug"), clock);
      expect((await store.search("quokka marmalade")).results).toEqual([]);
    });

    it("a text shared by many checkpoints is indexed once, with one posting, and found in all of them", async () => {
      const { store } = await open();
      const s = await store.session("s");
      const text = manual("quasar");
      const notes: string[] = [];
      for (let i = 1; i <= 30; i++) {
        notes.push(`note ${i}`);
        await s.checkpoint({ notes, manual: text });
      }
      const search = backendOf(store).search;
      const docs = await search.match(parseQuery("quasar"), {}, "rank", 100);
      expect(docs.map((d) => d.key)).toEqual([sha256(Buffer.from(`j[]\n${JSON.stringify(text)}`))]);
      expect((await search.postings(docs.map((d) => d.id))).map((p) => [p.delta, p.checkpoint.seq])).toEqual([[1, 1]]);
      const [hit] = (await store.search("quasar")).results;
      expect([hit?.first.seq, hit?.last.seq, hit?.where]).toEqual([1, 30, "manual"]);
      // The cost per checkpoint follows its change: a few postings each (the root that went and came), not one per document held.
      const stats = await store.searchIndexStats();
      expect(stats.checkpoints).toBe(30);
      expect(stats.postings).toBeLessThanOrEqual(30 * 2 + 1);
    });

    it("appending to a long list costs each checkpoint postings for the chunks it changed", async () => {
      const { store } = await open();
      const s = await store.session("s");
      const evidence: string[] = [];
      for (let i = 1; i <= 120; i++) {
        evidence.push(`evidence ${i}: the latency histogram of shard ${i} shows a second mode near ${i * 7} ms, unrelated to the pool`);
        await s.checkpoint({ evidence });
      }
      const stats = await store.searchIndexStats();
      expect(stats.postings / 120).toBeLessThan(6);
      const [hit] = (await store.search('"shard 57 shows"')).results;
      expect([hit?.where, hit?.first.seq, hit?.last.seq]).toEqual(["evidence[56]", 57, 120]);
    });

    it("ranks a document where the words are denser above one that mentions them in passing", async () => {
      const { store } = await open();
      await (await store.session("a")).checkpoint({ text: `${"The deploy went fine and the dashboards are green. ".repeat(20)} One timeout was seen.` });
      await (await store.session("b")).checkpoint({ text: "timeout after timeout: the gateway timeout is 30 s" });
      const r = await store.search("timeout");
      expect(r.results.map((h) => h.first.session)).toEqual(["b", "a"]);
      expect(r.results[0]?.score).toBeGreaterThan(r.results[1]?.score ?? Number.POSITIVE_INFINITY);
    });

    it("words are ANDed, a word matches the words it starts, and a phrase needs its words in order", async () => {
      const { store } = await open();
      await (await store.session("s")).checkpoint({ a: "the tensor shape mismatch in layer 12", b: "mismatch of the shape of a tensor" });
      expect((await store.search("tensor mism")).results.map((h) => h.where)).toEqual(["a"]);
      expect((await store.search('"tensor shape mismatch"')).results.map((h) => h.where)).toEqual(["a"]);
      expect((await store.search("tensor_shape")).results.map((h) => h.where)).toEqual(["a"]);
      expect((await store.search("tensor nowhere")).results).toEqual([]);
    });

    it("filters by session, kind and time", async () => {
      const { store, clock } = await open();
      const board = await store.session("board", { kind: "reasoning" });
      await board.checkpoint({ notes: ["the cache stampede at noon"] }, { message: "cache notes" });
      clock.advance(2 * HOUR);
      const chat = await ConversationSession.open(store, "chat");
      await chat.append({ role: "user", content: "why did the cache stampede happen?" });
      await chat.save("asked");
      clock.advance(2 * HOUR);
      const sessions = (opts: Parameters<Store["search"]>[1]) =>
        store.search("cache", opts).then((r) => r.results.map((h) => `${h.first.session}:${h.kind}`).sort());
      expect(await sessions({})).toEqual(["board:messages", "board:reasoning", "chat:conversation"]);
      expect(await sessions({ session: "chat" })).toEqual(["chat:conversation"]);
      expect(await sessions({ kind: "reasoning" })).toEqual(["board:reasoning"]);
      expect(await sessions({ kind: ["conversation", "messages"] })).toEqual(["board:messages", "chat:conversation"]);
      expect(await sessions({ since: new Date(T0 + HOUR) })).toEqual(["chat:conversation"]);
      expect(await sessions({ until: new Date(T0 + HOUR) })).toEqual(["board:messages", "board:reasoning"]);
      await expect(store.search("cache", { kind: "spreadsheets" })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
      await expect(store.search("cache", { session: "nope" })).rejects.toMatchObject({ code: "SESSION_NOT_FOUND" });
    });

    it("a text that was there before the window is found in the window's first checkpoint", async () => {
      const { store, clock } = await open();
      const s = await store.session("s");
      for (let i = 1; i <= 4; i++) {
        await s.checkpoint({ note: "the flaky integration test", i });
        clock.advance(HOUR);
      }
      const r = await store.search("flaky", { since: new Date(T0 + 2 * HOUR) });
      expect(r.results.map((h) => [h.first.seq, h.last.seq])).toEqual([[3, 4]]);
    });

    it("finds text files of a checkpoint's files tree, and run-store values, and says where", async () => {
      const { store } = await open();
      const source = Buffer.from("import net from 'node:net';\n// retry on ECONNRESET from the pool\nexport {};\n");
      const file = fileObjects(source);
      const binary = blobRaw(Buffer.from([0, 1, 2, 3]));
      const tree = buildTree({
        files: new Map([
          ["src/pool.ts", { type: "f" as const, mode: 0o644, size: source.length, hash: file.hash }],
          ["logo.png", { type: "f" as const, mode: 0o644, size: 4, hash: sha256(binary) }],
        ]),
        dirs: new Map([
          ["", { mode: 0o755 }],
          ["src", { mode: 0o755 }],
        ]),
      });
      await store.objects.putRaw(new Map([...file.objects, [sha256(binary), binary], ...tree.objects]));
      await (await store.session("workspace", { kind: "workspace" })).checkpoint({ files: 2 }, { filesRoot: tree.root });
      await new RunStore(store).save("nightly", "extract", new TextEncoder().encode('{"status":"ECONNRESET while fetching page 3"}'));
      const r = await store.search("ECONNRESET");
      expect(r.results.map((h) => [h.kind, h.where]).sort()).toEqual([
        ["files", "src/pool.ts:2"],
        ["runs", "data:1"],
      ]);
      expect((await store.search("ECONNRESET", { kind: "runs" })).results).toHaveLength(1);
    });

    it("finds checkpoint messages", async () => {
      const { store } = await open();
      const s = await store.session("s");
      await s.checkpoint({ a: 1 }, { message: "BEFORE THE milestone" });
      await s.checkpoint({ a: 2 }, { message: "after it" });
      const r = await store.search("before the");
      expect(r.results.map((h) => [h.kind, h.where, h.first.seq, h.last.seq])).toEqual([["messages", "message", 1, 1]]);
    });

    it("after a prune removes where a text appeared, it is found from the first checkpoint kept", async () => {
      const { store } = await open();
      const s = await store.session("s");
      const text = manual("nebula");
      for (let i = 1; i <= 5; i++) await s.checkpoint({ i, manual: text });
      await store.search("nebula");
      await s.deleteCheckpoints(["#1", "#2"]);
      const [hit] = (await store.search("nebula")).results;
      expect([hit?.first.seq, hit?.last.seq]).toEqual([3, 5]);
    });

    it("a store whose index is missing is indexed by the next search, and by reindex", async () => {
      const { store, clock } = await open();
      await fiveSteps(await store.session("debug"), clock);
      await backendOf(store).transaction((tx) => tx.search.clear());
      expect((await store.searchIndexStats()).checkpoints).toBe(0);
      const r = await store.search("pool exhausted", { order: "first" });
      expect(r.indexed).toBe(5);
      expect(r.results[0]?.checkpoint.seq).toBe(3);
      const stats = await store.reindex();
      expect(stats.checkpoints).toBe(5);
      expect((await store.search("pool exhausted")).indexed).toBe(0);
    });
  });
}
