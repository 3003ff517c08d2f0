// The behaviour every backend must give a Store: one suite, run against memory:, file:
// and sqlite: by the contract.*.test.ts files. Each case opens its own fresh store (a
// real SQLite file or store folder in a temp folder for the persistent backends).
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { DEFAULT_RETENTION, ForgeError, ManualClock, openStore, Store, type Backend, type Checkpoint, type Session } from "../../src/index.js";
import { rejectsWith } from "../support/errors.js";
import { backendOf } from "../../src/timeline/store-internals.js";

export interface StoreUnderTest {
  readonly store: Store;
  cleanup(): Promise<void>;
}

export type MakeStore = () => Promise<StoreUnderTest>;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A round moment for ManualClock stores: 2025-01-20 12:00:00 UTC. */
const T0 = Date.UTC(2025, 0, 20, 12, 0, 0);
const ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

const seqsOf = (cps: readonly Checkpoint[]): number[] => cps.map((c) => c.seq);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A state with a part unique to `n` and a part every such state shares. */
function distinctState(n: number): { n: number; text: string; common: string } {
  return { n, text: `state ${n} `.repeat(80), common: "shared text ".repeat(60) };
}

/** A copy of an object's stored bytes with one bit of its last byte flipped. */
async function flipStoredByte(backend: Backend, hash: string): Promise<void> {
  const stored = (await backend.getObjects([hash])).get(hash);
  if (!stored) throw new Error(`object ${hash} is not stored`);
  if (!backend.corruptObjectForTesting) throw new Error(`${backend.url} has no corruptObjectForTesting`);
  const damaged = Uint8Array.from(stored);
  const last = damaged.length - 1;
  damaged[last] = (damaged[last] ?? 0) ^ 0x01;
  await backend.corruptObjectForTesting(hash, damaged);
}

async function objectHashes(backend: Backend): Promise<string[]> {
  const out: string[] = [];
  for await (const o of backend.listObjects()) out.push(o.hash);
  return out.sort();
}

/** Everything a failed import must leave as it was. */
async function snapshot(store: Store): Promise<unknown> {
  const sessions = await store.listSessions();
  const checkpoints: unknown[] = [];
  for (const s of sessions) {
    const session = await store.getSession(s.name);
    checkpoints.push((await session.list()).map((c) => [c.id, c.seq, c.parentId, c.branch, c.tags]));
    checkpoints.push((await session.branches()).map((b) => [b.name, b.head.id, b.current]));
    checkpoints.push(await session.head());
  }
  return {
    sessions: sessions.map((s) => [s.id, s.name, s.checkpoints]),
    checkpoints,
    total: await backendOf(store).meta.countCheckpoints(),
    objects: await objectHashes(backendOf(store)),
  };
}

export function runBackendContract(name: string, makeStore: MakeStore): void {
  describe(`backend contract: ${name}`, () => {
    /** A fresh store, closed and deleted when the test ends. */
    async function open(): Promise<Store> {
      const { store, cleanup } = await makeStore();
      onTestFinished(() => cleanup());
      return store;
    }

    /** The same backend seen through a store whose clock only moves when told. */
    function withClock(store: Store, startMs = T0): { clock: ManualClock; store: Store } {
      const clock = new ManualClock(startMs);
      return { clock, store: Store.fromBackend(backendOf(store), { clock }) };
    }

    /** A second store over the same backend: its object cache is empty, so every read goes to storage. */
    function uncached(store: Store): Store {
      return Store.fromBackend(backendOf(store));
    }

    /** `count` checkpoints on main of states {step: 1..count}. */
    async function linear(session: Session, count: number, options: { trigger?: string } = {}): Promise<Checkpoint[]> {
      const out: Checkpoint[] = [];
      for (let i = 1; i <= count; i++) out.push(await session.checkpoint({ step: i }, options));
      return out;
    }

    describe("checkpoints", () => {
      it("a checkpoint gets a 26-character Crockford base-32 id", async () => {
        const session = await (await open()).session("s");
        const cp = await session.checkpoint({ a: 1 });
        expect(cp.id).toMatch(ID);
      });

      it("seqs in a session run 1, 2, 3", async () => {
        const session = await (await open()).session("s");
        const cps = await linear(session, 3);
        expect(seqsOf(cps)).toEqual([1, 2, 3]);
      });

      it("sizes give the state's JSON length and the stored bytes it was first to write", async () => {
        const session = await (await open()).session("s");
        const state = { goal: "find the bug", notes: ["a", "b"], depth: 3, done: false, extra: null };
        const first = await session.checkpoint(state);
        const again = await session.checkpoint(state);
        expect(first.sizes.logicalBytes).toBe(JSON.stringify(state).length);
        expect(first.sizes.newBytes).toBeGreaterThan(0);
        expect(again.sizes).toEqual({ logicalBytes: JSON.stringify(state).length, newBytes: 0 });
      });

      it("restore gives back a state deep-equal to the one saved", async () => {
        const session = await (await open()).session("s");
        const state = {
          text: "naïve café 🧪 𝄞 日本語",
          numbers: [0, -1, 1.5, 1e21, -2.5e-7, Number.MAX_SAFE_INTEGER],
          flags: [true, false, null],
          empty: { obj: {}, arr: [], str: "" },
          nested: { a: { b: { c: [{ d: "deep" }] } } },
          long: "x".repeat(5_000),
          many: Array.from({ length: 300 }, (_, i) => ({ i, sq: i * i })),
        };
        const cp = await session.checkpoint(state);
        await session.checkpoint({ other: true });
        const restored = await session.restore(cp.id);
        expect(isDeepStrictEqual(restored.state, state)).toBe(true);
      });

      it("a restored state is the caller's own copy: changing it does not change the checkpoint", async () => {
        const session = await (await open()).session("s");
        const cp = await session.checkpoint({ list: [1, 2, 3], inner: { v: "x" } });
        const first = (await session.restore(cp.id)).state as { list: number[]; inner: { v: string } };
        first.list.push(4);
        first.inner.v = "changed";
        expect((await session.restore(cp.id)).state).toEqual({ list: [1, 2, 3], inner: { v: "x" } });
      });

      it("properties whose value is undefined are dropped, as JSON.stringify does", async () => {
        const session = await (await open()).session("s");
        const cp = await session.checkpoint({ kept: 1, dropped: undefined });
        const state = await session.state(cp.id);
        expect(isDeepStrictEqual(state, { kept: 1 })).toBe(true);
      });

      it("checkpoint calls made at once in one process get distinct seqs and form one chain", async () => {
        const session = await (await open()).session("s");
        const cps = await Promise.all(Array.from({ length: 20 }, (_, i) => session.checkpoint({ i })));
        const listed = await session.list();
        expect(seqsOf(listed)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
        for (let i = 1; i < listed.length; i++) expect(listed[i]?.parentId).toBe(listed[i - 1]?.id);
        expect(new Set(cps.map((c) => c.id)).size).toBe(20);
      });
    });

    describe("sessions", () => {
      it("store.session() without a name uses the session named default", async () => {
        const store = await open();
        const cp = await (await store.session()).checkpoint({ a: 1 });
        const listed = await store.listSessions();
        expect(listed.map((s) => s.name)).toEqual(["default"]);
        expect((await (await store.getSession("default")).get("HEAD")).id).toBe(cp.id);
      });

      it("created sessions are found by getSession and listed with their checkpoint counts", async () => {
        const store = await open();
        const a = await store.createSession("alpha", { kind: "reasoning", metadata: { owner: "agent-1" } });
        await store.createSession("beta");
        await a.checkpoint({ x: 1 });
        await a.checkpoint({ x: 2 });
        const got = await store.getSession("alpha");
        expect(got.id).toBe(a.id);
        expect(await got.info()).toMatchObject({ name: "alpha", kind: "reasoning", metadata: { owner: "agent-1" } });
        const listed = await store.listSessions();
        expect(listed.map((s) => [s.name, s.checkpoints]).sort()).toEqual([
          ["alpha", 2],
          ["beta", 0],
        ]);
      });

      it("creating a session whose name is taken is SESSION_EXISTS", async () => {
        const store = await open();
        await store.createSession("alpha");
        await rejectsWith(store.createSession("alpha"), "SESSION_EXISTS");
      });

      it("getSession of a name no session has is SESSION_NOT_FOUND", async () => {
        const store = await open();
        await rejectsWith(store.getSession("nobody"), "SESSION_NOT_FOUND");
      });

      it("deleting a session removes it and its checkpoints", async () => {
        const store = await open();
        const doomed = await store.session("doomed");
        const cps = await linear(doomed, 3);
        const other = await store.session("other");
        await other.checkpoint({ stays: true });
        await store.deleteSession("doomed");
        expect((await store.listSessions()).map((s) => s.name)).toEqual(["other"]);
        expect(await backendOf(store).meta.countCheckpoints(doomed.id)).toBe(0);
        expect(await backendOf(store).meta.countCheckpoints()).toBe(1);
        for (const cp of cps) await rejectsWith(other.get(cp.id), "CHECKPOINT_NOT_FOUND");
        await rejectsWith(store.getSession("doomed"), "SESSION_NOT_FOUND");
      });

      it("a session's count follows checkpoints, deletes, a linear restore, squash, prune, imports and a deleted session", async () => {
        const store = await open();
        const session = await store.session("counted");
        const counted = async () => {
          const n = await session.count();
          expect(n).toBe((await session.list()).length);
          expect((await store.listSessions()).find((s) => s.name === "counted")?.checkpoints).toBe(n);
          return n;
        };
        expect(await counted()).toBe(0);
        await linear(session, 8);
        expect(await counted()).toBe(8);
        await session.deleteCheckpoints(["#2", "#3"]);
        expect(await counted()).toBe(6);
        await session.restore("#6", { discardFuture: true });
        expect(await counted()).toBe(4);
        await session.squash("#4", "#6");
        expect(await counted()).toBe(2);
        await linear(session, 3);
        await session.prune({ keepLast: 2 });
        expect(await counted()).toBe(2);
        const bundle = await store.export({ session: "counted" });
        await store.import(bundle.bytes, { as: "copy" });
        expect(await (await store.getSession("copy")).count()).toBe(2);
        await store.deleteSession("counted");
        expect(await backendOf(store).meta.countCheckpoints(session.id)).toBe(0);
        expect(await backendOf(store).meta.countCheckpoints()).toBe(2);
      });

      it("a second session's seqs start at 1", async () => {
        const store = await open();
        await linear(await store.session("first"), 3);
        const second = await store.session("second");
        expect(seqsOf(await linear(second, 2))).toEqual([1, 2]);
      });
    });

    describe("refs", () => {
      it("get finds a checkpoint by its full id", async () => {
        const session = await (await open()).session("s");
        const [a, b] = await linear(session, 2);
        expect((await session.get(a?.id ?? "")).seq).toBe(1);
        expect((await session.get(b?.id ?? "")).seq).toBe(2);
      });

      it("get finds a checkpoint by a unique id prefix of four or more characters, in upper or lower case", async () => {
        const store = await open();
        const session = await store.session("solo");
        const cp = await session.checkpoint({ only: true });
        for (const ref of [cp.id.slice(0, 4), cp.id.slice(0, 4).toLowerCase(), cp.id.slice(0, 12).toLowerCase(), cp.id.toLowerCase()]) {
          expect((await session.get(ref)).id, ref).toBe(cp.id);
        }
      });

      it("HEAD is the head of the current branch and HEAD~N walks back N parents", async () => {
        const session = await (await open()).session("s");
        const [a, b, c] = await linear(session, 3);
        expect((await session.get("HEAD")).id).toBe(c?.id);
        expect((await session.get("HEAD~1")).id).toBe(b?.id);
        expect((await session.get("HEAD~2")).id).toBe(a?.id);
      });

      it("#SEQ names the checkpoint with that seq", async () => {
        const session = await (await open()).session("s");
        const cps = await linear(session, 3);
        expect((await session.get("#2")).id).toBe(cps[1]?.id);
      });

      it("a branch name names that branch's head", async () => {
        const session = await (await open()).session("s");
        const [, b] = await linear(session, 3);
        await session.branch("experiment", { from: "#2" });
        expect((await session.get("experiment")).id).toBe(b?.id);
        expect((await session.get("main")).seq).toBe(3);
      });

      it("tag:NAME names the newest checkpoint with that tag", async () => {
        const session = await (await open()).session("s");
        await session.checkpoint({ n: 1 }, { tags: ["verified"] });
        const second = await session.checkpoint({ n: 2 }, { tags: ["verified", "q4"] });
        await session.checkpoint({ n: 3 });
        expect((await session.get("tag:verified")).id).toBe(second.id);
      });

      it("a ref that names nothing is CHECKPOINT_NOT_FOUND", async () => {
        const session = await (await open()).session("s");
        await linear(session, 3);
        for (const ref of ["no-such-branch", "#99", "tag:missing", "ZZZZZZZZ", "HEAD~9"]) {
          await rejectsWith(session.get(ref), "CHECKPOINT_NOT_FOUND");
        }
      });

      it("an id prefix two checkpoints share is AMBIGUOUS_REF listing both", async () => {
        // Make checkpoints in a scratch memory store until two ids share at least four
        // leading characters, then bring those two into the store under test by a bundle.
        const scratch = await openStore("memory:");
        onTestFinished(() => scratch.close());
        const gen = await scratch.session("ids");
        const byPrefix = new Map<string, string>();
        let pair: [string, string] | undefined;
        for (let i = 0; pair === undefined && i < 50_000; i++) {
          const id = (await gen.checkpoint({ i })).id;
          const seen = byPrefix.get(id.slice(0, 4));
          if (seen !== undefined) pair = [seen, id];
          byPrefix.set(id.slice(0, 4), id);
        }
        if (!pair) throw new Error("no two of 50,000 ids shared four leading characters");
        const [a, b] = pair;
        let common = 0;
        while (a[common] === b[common]) common++;
        const prefix = a.slice(0, common);
        const bundle = await scratch.export({ session: "ids", refs: [a, b] });

        const store = await open();
        await store.import(bundle.bytes);
        const session = await store.getSession("ids");
        for (const ref of [prefix, prefix.toLowerCase()]) {
          const error = await rejectsWith(session.get(ref), "AMBIGUOUS_REF");
          const candidates = (error.data["candidates"] ?? []) as string[];
          expect(candidates).toHaveLength(2);
          expect(candidates.some((c) => c.startsWith(a))).toBe(true);
          expect(candidates.some((c) => c.startsWith(b))).toBe(true);
          expect(error.message).toContain(a);
          expect(error.message).toContain(b);
        }
        // One more character than they share tells them apart.
        expect((await session.get(a.slice(0, common + 1))).id).toBe(a);
      });
    });

    describe("list", () => {
      /**
       * #1 t0 manual [a] · #2 t0+1h auto · #3 t0+2h auto [a, b] (main) ·
       * restore #2 · #4 t0+3h manual [b] · #5 t0+4h tool-call (branch main-from-2); now t0+4h.
       */
      async function listingFixture(): Promise<{ session: Session; clock: ManualClock }> {
        const { clock, store } = withClock(await open());
        const session = await store.session("listing");
        await session.checkpoint({ n: 1 }, { tags: ["a"] });
        clock.advance(HOUR);
        await session.checkpoint({ n: 2 }, { trigger: "auto" });
        clock.advance(HOUR);
        await session.checkpoint({ n: 3 }, { trigger: "auto", tags: ["a", "b"] });
        await session.restore("#2");
        clock.advance(HOUR);
        await session.checkpoint({ n: 4 }, { tags: ["b"] });
        clock.advance(HOUR);
        await session.checkpoint({ n: 5 }, { trigger: "tool-call" });
        return { session, clock };
      }

      it("lists every checkpoint of the session oldest first by default", async () => {
        const { session } = await listingFixture();
        expect(seqsOf(await session.list())).toEqual([1, 2, 3, 4, 5]);
      });

      it("filters by tag", async () => {
        const { session } = await listingFixture();
        expect(seqsOf(await session.list({ tag: "a" }))).toEqual([1, 3]);
      });

      it("filters by the branch a checkpoint was made on", async () => {
        const { session } = await listingFixture();
        expect(seqsOf(await session.list({ branch: "main-from-2" }))).toEqual([4, 5]);
        expect(seqsOf(await session.list({ branch: "main" }))).toEqual([1, 2, 3]);
      });

      it("filters by trigger", async () => {
        const { session } = await listingFixture();
        expect(seqsOf(await session.list({ trigger: "auto" }))).toEqual([2, 3]);
        expect(seqsOf(await session.list({ trigger: "manual" }))).toEqual([1, 4]);
      });

      it("since keeps checkpoints made at or after a time", async () => {
        const { session } = await listingFixture();
        expect(seqsOf(await session.list({ since: new Date(T0 + 2 * HOUR) }))).toEqual([3, 4, 5]);
      });

      it("until keeps checkpoints made at or before a time", async () => {
        const { session } = await listingFixture();
        expect(seqsOf(await session.list({ until: new Date(T0 + HOUR) }))).toEqual([1, 2]);
      });

      it("since and until read time expressions against the store's clock", async () => {
        const { session } = await listingFixture();
        expect(seqsOf(await session.list({ since: "2 hours ago" }))).toEqual([3, 4, 5]);
        expect(seqsOf(await session.list({ since: "3 hours ago", until: "1 hour ago" }))).toEqual([2, 3, 4]);
      });

      it("limit keeps the first N", async () => {
        const { session } = await listingFixture();
        expect(seqsOf(await session.list({ limit: 2 }))).toEqual([1, 2]);
      });

      it("order desc lists newest first, and limit then keeps the newest", async () => {
        const { session } = await listingFixture();
        expect(seqsOf(await session.list({ order: "desc" }))).toEqual([5, 4, 3, 2, 1]);
        expect(seqsOf(await session.list({ order: "desc", limit: 2 }))).toEqual([5, 4]);
      });

      it("filters combine", async () => {
        const { session } = await listingFixture();
        expect(seqsOf(await session.list({ tag: "b", since: new Date(T0 + 3 * HOUR) }))).toEqual([4]);
      });
    });

    describe("restore", () => {
      it("restoring an older checkpoint moves HEAD to it and deletes nothing", async () => {
        const session = await (await open()).session("s");
        const [a, , c] = await linear(session, 3);
        const result = await session.restore(a?.id ?? "");
        expect(result.head).toEqual({ branch: null, checkpointId: a?.id });
        expect(result.discarded).toEqual([]);
        const head = await session.head();
        expect(head.branch).toBeNull();
        expect(head.checkpoint?.id).toBe(a?.id);
        expect(seqsOf(await session.list())).toEqual([1, 2, 3]);
        expect((await session.get("main")).id).toBe(c?.id);
      });

      it("the next checkpoint after restoring an older one starts a new branch whose parent is the restored checkpoint", async () => {
        const session = await (await open()).session("s");
        const [a, , c] = await linear(session, 3);
        await session.restore("#1");
        const fork = await session.checkpoint({ step: "fork" });
        expect(fork.branch).not.toBe("main");
        expect(fork.parentId).toBe(a?.id);
        expect((await session.get("main")).id).toBe(c?.id);
        const head = await session.head();
        expect(head.branch).toBe(fork.branch);
        expect(head.checkpoint?.id).toBe(fork.id);
        expect((await session.branches()).map((b) => [b.name, b.head.id]).sort()).toEqual(
          [
            ["main", c?.id],
            [fork.branch, fork.id],
          ].sort(),
        );
      });

      it("restoring a branch head keeps HEAD on that branch", async () => {
        const session = await (await open()).session("s");
        const [, , c] = await linear(session, 3);
        await session.restore("#1");
        const result = await session.restore(c?.id ?? "");
        expect(result.head).toEqual({ branch: "main", checkpointId: c?.id });
        const next = await session.checkpoint({ step: 4 });
        expect(next.branch).toBe("main");
        expect(next.parentId).toBe(c?.id);
      });

      it("discardFuture deletes the checkpoints after the target on its branch", async () => {
        const session = await (await open()).session("s");
        const [, b] = await linear(session, 5);
        const result = await session.restore("#2", { discardFuture: true });
        expect(seqsOf(result.discarded).sort()).toEqual([3, 4, 5]);
        expect(result.head).toEqual({ branch: "main", checkpointId: b?.id });
        expect(seqsOf(await session.list())).toEqual([1, 2]);
        await rejectsWith(session.get("#3"), "CHECKPOINT_NOT_FOUND");
        expect((await session.head()).branch).toBe("main");
      });

      it("discardFuture keeps the checkpoints another branch stands on", async () => {
        const session = await (await open()).session("s");
        const cps = await linear(session, 5);
        await session.branch("keep", { from: "#4" });
        const result = await session.restore("#2", { discardFuture: true });
        expect(seqsOf(result.discarded)).toEqual([5]);
        expect(seqsOf(await session.list())).toEqual([1, 2, 3, 4]);
        expect((await session.get("keep")).id).toBe(cps[3]?.id);
        expect((await session.get("main")).id).toBe(cps[1]?.id);
      });

      it("restorePlan says what restore will do, and changes nothing", async () => {
        const session = await (await open()).session("s");
        const cps = await linear(session, 6);
        await session.branch("keep", { from: "#4" });
        const before = await session.timeline();
        const linearPlan = await session.restorePlan("#2", { discardFuture: true });
        const branchingPlan = await session.restorePlan("#2");
        expect(await session.timeline()).toEqual(before);
        expect(branchingPlan).toMatchObject({ head: { branch: null, checkpointId: cps[1]?.id }, discarded: [] });
        expect(seqsOf(linearPlan.discarded)).toEqual([5, 6]);
        const done = await session.restore("#2", { discardFuture: true });
        expect(done.discarded.map((c) => c.id)).toEqual(linearPlan.discarded.map((c) => c.id));
        expect(done.head).toEqual(linearPlan.head);
      });

      it("after discardFuture the next checkpoint continues the branch from the target with a new seq", async () => {
        const session = await (await open()).session("s");
        const [, b] = await linear(session, 5);
        await session.restore("#2", { discardFuture: true });
        const next = await session.checkpoint({ step: "again" });
        expect(next.seq).toBe(6);
        expect(next.branch).toBe("main");
        expect(next.parentId).toBe(b?.id);
      });

      it("discardFuture leaves no checkpoint whose parent was deleted", async () => {
        const store = await open();
        const session = await store.session("s");
        await linear(session, 3);
        // #4 grows from #3 on a branch whose name is then deleted: no branch head protects it.
        await session.branch("side", { from: "#3" });
        await session.switch("side");
        await session.checkpoint({ step: 4 });
        await session.switch("main");
        await session.deleteBranch("side");
        await session.restore("#1", { discardFuture: true });
        const remaining = await session.list();
        const ids = new Set(remaining.map((c) => c.id));
        const dangling = remaining.filter((c) => c.parentId !== null && !ids.has(c.parentId)).map((c) => `#${c.seq}`);
        expect(dangling).toEqual([]);
        expect((await store.fsck()).problems).toEqual([]);
      });
    });

    describe("branches", () => {
      it("branch creates a branch at HEAD without switching to it", async () => {
        const session = await (await open()).session("s");
        const [, b] = await linear(session, 2);
        const created = await session.branch("feature");
        expect(created).toMatchObject({ name: "feature", current: false });
        expect(created.head.id).toBe(b?.id);
        expect((await session.head()).branch).toBe("main");
      });

      it("branch with from creates the branch at that ref", async () => {
        const session = await (await open()).session("s");
        const [a] = await linear(session, 3);
        const created = await session.branch("old", { from: "HEAD~2" });
        expect(created.head.id).toBe(a?.id);
      });

      it("branches lists each branch with its head and marks the current one", async () => {
        const session = await (await open()).session("s");
        const [a, , c] = await linear(session, 3);
        await session.branch("old", { from: "#1" });
        const listed = (await session.branches()).map((b) => [b.name, b.head.id, b.current]).sort();
        expect(listed).toEqual([
          ["main", c?.id, true],
          ["old", a?.id, false],
        ]);
      });

      it("switch moves HEAD onto the branch, returns its head's state, and new checkpoints go on it", async () => {
        const session = await (await open()).session("s");
        const [a, , c] = await linear(session, 3);
        await session.branch("old", { from: "#1" });
        const switched = await session.switch("old");
        expect(switched.state).toEqual({ step: 1 });
        expect(switched.head).toEqual({ branch: "old", checkpointId: a?.id });
        const next = await session.checkpoint({ step: "on old" });
        expect(next.branch).toBe("old");
        expect(next.parentId).toBe(a?.id);
        expect((await session.get("old")).id).toBe(next.id);
        expect((await session.get("main")).id).toBe(c?.id);
      });

      it("deleting a branch removes its name but not its checkpoints", async () => {
        const session = await (await open()).session("s");
        await linear(session, 2);
        await session.branch("gone", { from: "#1" });
        await session.deleteBranch("gone");
        expect((await session.branches()).map((b) => b.name)).toEqual(["main"]);
        expect(seqsOf(await session.list())).toEqual([1, 2]);
        await rejectsWith(session.get("gone"), "CHECKPOINT_NOT_FOUND");
      });

      it("the branch HEAD is on cannot be deleted", async () => {
        const session = await (await open()).session("s");
        await linear(session, 2);
        await rejectsWith(session.deleteBranch("main"), "INVALID_ARGUMENT");
        expect((await session.branches()).map((b) => b.name)).toEqual(["main"]);
      });

      it("creating a branch whose name exists is BRANCH_EXISTS", async () => {
        const session = await (await open()).session("s");
        await linear(session, 2);
        await session.branch("feature", { from: "#1" });
        await rejectsWith(session.branch("feature"), "BRANCH_EXISTS");
        await rejectsWith(session.branch("main"), "BRANCH_EXISTS");
        expect((await session.get("feature")).seq).toBe(1);
      });

      it("switching to or deleting a branch that does not exist is BRANCH_NOT_FOUND", async () => {
        const session = await (await open()).session("s");
        await linear(session, 1);
        await rejectsWith(session.switch("nowhere"), "BRANCH_NOT_FOUND");
        await rejectsWith(session.deleteBranch("nowhere"), "BRANCH_NOT_FOUND");
      });
    });

    describe("tags", () => {
      it("tag adds tags that tag:NAME and list find", async () => {
        const session = await (await open()).session("s");
        await linear(session, 3);
        const tagged = await session.tag("#2", "verified", "q4");
        expect(tagged.tags).toEqual(["verified", "q4"]);
        expect((await session.get("tag:q4")).seq).toBe(2);
        expect(seqsOf(await session.list({ tag: "verified" }))).toEqual([2]);
        expect((await session.get("#2")).tags).toEqual(["verified", "q4"]);
      });

      it("untag removes a tag and leaves the others", async () => {
        const session = await (await open()).session("s");
        await session.checkpoint({ n: 1 }, { tags: ["verified", "q4"] });
        const untagged = await session.untag("#1", "verified");
        expect(untagged.tags).toEqual(["q4"]);
        expect((await session.get("#1")).tags).toEqual(["q4"]);
        await rejectsWith(session.get("tag:verified"), "CHECKPOINT_NOT_FOUND");
      });
    });

    describe("at", () => {
      /** #1 at t0, #2 at t0+30m, #3 at t0+150m; now t0+3h. */
      async function timedSession(): Promise<{ session: Session; cps: Checkpoint[] }> {
        const { clock, store } = withClock(await open());
        const session = await store.session("timed");
        const cps: Checkpoint[] = [];
        cps.push(await session.checkpoint({ n: 1 }));
        clock.advance(30 * 60_000);
        cps.push(await session.checkpoint({ n: 2 }));
        clock.advance(120 * 60_000);
        cps.push(await session.checkpoint({ n: 3 }));
        clock.advance(30 * 60_000);
        return { session, cps };
      }

      it("at(Date) is the last checkpoint made at or before that moment", async () => {
        const { session, cps } = await timedSession();
        expect((await session.at(new Date(T0 + 45 * 60_000)))?.id).toBe(cps[1]?.id);
        expect((await session.at(new Date(T0 + 30 * 60_000)))?.id).toBe(cps[1]?.id);
      });

      it("at(ISO time) is the last checkpoint made at or before it", async () => {
        const { session, cps } = await timedSession();
        expect((await session.at("2025-01-20T12:10:00Z"))?.id).toBe(cps[0]?.id);
        expect((await session.at("2025-01-20T14:40:00.000Z"))?.id).toBe(cps[2]?.id);
      });

      it('at("2 hours ago") counts back from the store\'s clock', async () => {
        const { session, cps } = await timedSession();
        expect((await session.at("2 hours ago"))?.id).toBe(cps[1]?.id);
      });

      it("at a time before the first checkpoint is undefined", async () => {
        const { session } = await timedSession();
        expect(await session.at(new Date(T0 - 1))).toBeUndefined();
      });

      it("of checkpoints made in the same millisecond, at(t) is the one with the highest seq", async () => {
        const { clock, store } = withClock(await open());
        const session = await store.session("burst");
        await linear(session, 3);
        clock.advance(1);
        const last = await session.checkpoint({ step: 4 });
        clock.advance(1);
        await session.checkpoint({ step: 5 });
        expect((await session.at(new Date(T0)))?.seq).toBe(3);
        expect((await session.at(new Date(T0 + 1)))?.id).toBe(last.id);
        expect(seqsOf(await session.list({ until: new Date(T0 + 1), order: "desc", limit: 2 }))).toEqual([4, 3]);
      });

      it("when a clock went back, at(t) is still the highest-seq checkpoint made at or before t", async () => {
        const { clock, store } = withClock(await open());
        const session = await store.session("skewed");
        const one = await session.checkpoint({ n: 1 }); // T0
        clock.advance(60 * 60_000);
        await session.checkpoint({ n: 2 }); // T0 + 60m
        clock.set(T0 + 30 * 60_000);
        const three = await session.checkpoint({ n: 3 }); // T0 + 30m: made after #2, stamped before it
        clock.set(T0 + 3 * HOUR);
        expect((await session.at(new Date(T0 + 10 * 60_000)))?.id).toBe(one.id);
        expect((await session.at(new Date(T0 + 45 * 60_000)))?.id).toBe(three.id);
        expect((await session.at(new Date(T0 + 90 * 60_000)))?.id).toBe(three.id);
        expect(seqsOf(await session.list({ until: new Date(T0 + 45 * 60_000) }))).toEqual([1, 3]);
        expect(seqsOf(await session.list({ until: new Date(T0 + 45 * 60_000), order: "desc", limit: 1 }))).toEqual([3]);
        expect(seqsOf(await session.list({ since: new Date(T0 + 45 * 60_000), limit: 1 }))).toEqual([2]);
      });

      it("at(t) and time windows agree with reading every checkpoint, whether times go back or not", async () => {
        for (const goesBack of [false, true]) {
          const { clock, store } = withClock(await open());
          const session = await store.session(goesBack ? "back" : "forward");
          let seed = goesBack ? 7 : 3;
          const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
          for (let i = 1; i <= 40; i++) {
            // Steps of 0–2 minutes (ties included); with goesBack, now and then 5 minutes back.
            clock.advance(goesBack && next() < 0.2 ? -5 * 60_000 : Math.floor(next() * 3) * 60_000);
            await session.checkpoint({ i });
          }
          const all = await session.list();
          const times = all.map((c) => c.createdAt.getTime());
          for (let probe = Math.min(...times) - 60_000; probe <= Math.max(...times) + 60_000; probe += 30_000) {
            const made = all.filter((c) => c.createdAt.getTime() <= probe);
            expect((await session.at(new Date(probe)))?.seq, `at ${probe - T0}`).toBe(made.at(-1)?.seq);
            expect(seqsOf(await session.list({ until: new Date(probe), order: "desc", limit: 3 }))).toEqual(seqsOf(made.slice(-3).reverse()));
            const since = all.filter((c) => c.createdAt.getTime() >= probe);
            expect(seqsOf(await session.list({ since: new Date(probe), limit: 3 }))).toEqual(seqsOf(since.slice(0, 3)));
            expect(seqsOf(await session.list({ since: new Date(probe), until: new Date(probe + 5 * 60_000) }))).toEqual(
              seqsOf(since.filter((c) => c.createdAt.getTime() <= probe + 5 * 60_000)),
            );
          }
        }
      });

      it("an imported history whose times are out of seq order answers at(t) by seq", async () => {
        const store = await open();
        const times = [0, 50, 20, 40, 10].map((m) => T0 + m * 60_000);
        const session = await store.importHistory({
          name: "imported",
          kind: "generic",
          checkpoints: times.map((t, i) => ({
            key: `k${i + 1}`,
            seq: i + 1,
            parent: i === 0 ? null : `k${i}`,
            branch: "main",
            createdAt: t,
            message: "",
            tags: [],
            trigger: "manual",
            metadata: {},
            state: { i: i + 1 },
          })),
          branches: [{ name: "main", checkpoint: "k5" }],
          head: { branch: "main" },
        });
        expect((await session.at(new Date(T0 + 15 * 60_000)))?.seq).toBe(5);
        expect((await session.at(new Date(T0 + 45 * 60_000)))?.seq).toBe(5);
        expect((await session.at(new Date(T0 + 5 * 60_000)))?.seq).toBe(1);
        expect(seqsOf(await session.list({ until: new Date(T0 + 30 * 60_000), order: "desc", limit: 2 }))).toEqual([5, 3]);
        expect(await session.count()).toBe(5);
      });

      it("at(an expression that is not a time) is INVALID_TIME quoting the input", async () => {
        const { session } = await timedSession();
        const error = await rejectsWith(session.at("the blue moon sometime"), "INVALID_TIME");
        expect(error.message).toContain('"the blue moon sometime"');
        expect(error.data["input"]).toBe("the blue moon sometime");
      });
    });

    describe("compare", () => {
      const before = { keep: 1, changeMe: "old", removeMe: true, nested: { x: 1 }, list: [1, 2, 3] };
      const after = { keep: 1, changeMe: "new", nested: { x: 1, y: [1, 2] }, list: [1, 2, 3, 4], addMe: null };

      it("compare reports each added, removed and changed path with old and new values", async () => {
        const session = await (await open()).session("s");
        await session.checkpoint(before);
        await session.checkpoint(after);
        const cmp = await session.compare("#1", "#2");
        const changes = [...cmp.changes].sort((x, y) => x.at.localeCompare(y.at));
        expect(changes).toEqual([
          { kind: "added", path: ["addMe"], at: "addMe", newValue: null },
          { kind: "changed", path: ["changeMe"], at: "changeMe", oldValue: "old", newValue: "new" },
          { kind: "added", path: ["list", 3], at: "list[3]", newValue: 4 },
          { kind: "added", path: ["nested", "y"], at: "nested.y", newValue: [1, 2] },
          { kind: "removed", path: ["removeMe"], at: "removeMe", oldValue: true },
        ]);
        expect(cmp.counts).toEqual({ added: 3, removed: 1, changed: 1 });
      });

      it("the summary counts the changes and names the first of them", async () => {
        const session = await (await open()).session("s");
        await session.checkpoint(before);
        await session.checkpoint(after);
        const { summary } = await session.compare("#1", "#2");
        expect(summary).toContain("1 changed");
        expect(summary).toContain("3 added");
        expect(summary).toContain("1 removed");
        expect(summary).toContain("#1 → #2");
        expect(summary).toContain('changeMe "old" → "new"');
      });

      it("comparing identical states reports no changes", async () => {
        const session = await (await open()).session("s");
        await session.checkpoint(before);
        await session.checkpoint({ ...before });
        const cmp = await session.compare("#1", "#2");
        expect(cmp.changes).toEqual([]);
        expect(cmp.counts).toEqual({ added: 0, removed: 0, changed: 0 });
        expect(cmp.summary).toMatch(/^no changes/);
      });

      it("comparing two large states that differ in one place reports exactly that change", async () => {
        const session = await (await open()).session("s");
        const items = Array.from({ length: 5_000 }, (_, i) => ({ id: i, text: `observation ${i}`, score: (i * 37) % 101 }));
        const edited = items.map((item) => (item.id === 2_500 ? { ...item, text: "revised" } : item));
        await session.checkpoint({ title: "big", items, meta: { pages: Array.from({ length: 200 }, (_, i) => `page ${i}`) } });
        await session.checkpoint({ title: "big", items: edited, meta: { pages: Array.from({ length: 200 }, (_, i) => `page ${i}`) } });
        const cmp = await session.compare("#1", "#2");
        expect(cmp.changes).toEqual([
          { kind: "changed", path: ["items", 2_500, "text"], at: "items[2500].text", oldValue: "observation 2500", newValue: "revised" },
        ]);
      });
    });

    describe("prune", () => {
      it("keepLast keeps the newest N checkpoints", async () => {
        const session = await (await open()).session("s");
        await linear(session, 6, { trigger: "auto" });
        const report = await session.prune({ keepLast: 2 });
        expect(seqsOf(report.deleted)).toEqual([1, 2, 3, 4]);
        expect(seqsOf(await session.list())).toEqual([5, 6]);
      });

      it("keepDays keeps checkpoints made in the last N days of the store's clock", async () => {
        const { clock, store } = withClock(await open());
        const session = await store.session("s");
        for (let day = 0; day < 10; day++) {
          if (day > 0) clock.advance(DAY);
          await session.checkpoint({ day }, { trigger: "auto" });
        }
        const report = await session.prune({ keepDays: 3 });
        expect(seqsOf(report.deleted)).toEqual([1, 2, 3, 4, 5, 6]);
        expect(seqsOf(await session.list())).toEqual([7, 8, 9, 10]);
      });

      it("keepTags keeps checkpoints with any of the tags", async () => {
        const session = await (await open()).session("s");
        await session.checkpoint({ n: 1 }, { trigger: "auto" });
        await session.checkpoint({ n: 2 }, { trigger: "auto", tags: ["keep-me"] });
        await session.checkpoint({ n: 3 }, { trigger: "auto", tags: ["other"] });
        await session.checkpoint({ n: 4 }, { trigger: "auto", tags: ["also"] });
        await session.checkpoint({ n: 5 }, { trigger: "auto" });
        await session.prune({ keepTags: ["keep-me", "also"] });
        expect(seqsOf(await session.list())).toEqual([2, 4, 5]);
      });

      it("keepManual keeps checkpoints made by hand", async () => {
        const session = await (await open()).session("s");
        for (const trigger of ["manual", "auto", "manual", "tool-call", "auto"]) await session.checkpoint({ trigger }, { trigger });
        const report = await session.prune({ keepManual: true });
        expect(seqsOf(report.deleted)).toEqual([2, 4]);
        expect(seqsOf(await session.list())).toEqual([1, 3, 5]);
      });

      it("dryRun reports what would go and deletes nothing", async () => {
        const session = await (await open()).session("s");
        await linear(session, 5, { trigger: "auto" });
        const report = await session.prune({ keepLast: 1, dryRun: true });
        expect(report.dryRun).toBe(true);
        expect(seqsOf(report.deleted)).toEqual([1, 2, 3, 4]);
        expect(seqsOf(await session.list())).toEqual([1, 2, 3, 4, 5]);
      });

      it("branch heads are always kept", async () => {
        const session = await (await open()).session("s");
        await linear(session, 5, { trigger: "auto" });
        await session.branch("old", { from: "#2" });
        const report = await session.prune({ keepLast: 1 });
        expect(seqsOf(await session.list())).toEqual([2, 5]);
        expect(report.kept.map((k) => [k.checkpoint.seq, k.reason]).sort()).toEqual([
          [2, "branch head"],
          [5, "branch head"],
        ]);
      });

      it("children of deleted checkpoints are re-linked to their nearest kept ancestor", async () => {
        const session = await (await open()).session("s");
        const tagsFor = (i: number) => (i === 1 || i === 4 ? ["keep"] : []);
        const cps: Checkpoint[] = [];
        for (let i = 1; i <= 6; i++) cps.push(await session.checkpoint({ i }, { trigger: "auto", tags: tagsFor(i) }));
        await session.prune({ keepTags: ["keep"] });
        expect(seqsOf(await session.list())).toEqual([1, 4, 6]);
        expect((await session.get("#1")).parentId).toBeNull();
        expect((await session.get("#4")).parentId).toBe(cps[0]?.id);
        expect((await session.get("#6")).parentId).toBe(cps[3]?.id);
        expect((await session.get("HEAD~2")).id).toBe(cps[0]?.id);
      });

      it("a detached HEAD whose checkpoint is pruned moves to the nearest kept ancestor, and the report says so", async () => {
        const session = await (await open()).session("s");
        const cps: Checkpoint[] = [];
        for (let i = 1; i <= 5; i++) cps.push(await session.checkpoint({ i }, { trigger: "auto", tags: i === 1 ? ["keep"] : [] }));
        await session.restore("#3");
        const report = await session.prune({ keepTags: ["keep"] });
        expect(report.headMoved).toEqual({ from: cps[2]?.id, to: cps[0]?.id });
        const head = await session.head();
        expect(head.branch).toBeNull();
        expect(head.checkpoint?.id).toBe(cps[0]?.id);
      });

      it("deleteCheckpoints removes the named ones, re-links children and moves a branch head back", async () => {
        const session = await (await open()).session("s");
        const [a, b, c, d] = await linear(session, 4);
        await session.branch("side", { from: "#2" });
        const deleted = await session.deleteCheckpoints(["#4", b?.id ?? ""]);
        expect(deleted.map((x) => x.id)).toEqual([b?.id, d?.id]);
        expect(seqsOf(await session.list())).toEqual([1, 3]);
        expect((await session.get("#3")).parentId).toBe(a?.id);
        // main's head (#4) went: main now ends at #3; side's head (#2) went: side moves to #1.
        expect((await session.get("main")).id).toBe(c?.id);
        expect((await session.get("side")).id).toBe(a?.id);
        const next = await session.checkpoint({ step: 5 });
        expect([next.seq, next.parentId]).toEqual([5, c?.id]);
        expect((await session.state("HEAD~1")) as unknown).toEqual({ step: 3 });
      });

      it("deleteCheckpoints of a branch's only checkpoints deletes the branch; unknown refs change nothing", async () => {
        const session = await (await open()).session("s");
        await linear(session, 2);
        await session.branch("side", { from: "#1" });
        await session.deleteCheckpoints(["#1", "#2"]);
        expect(await session.list()).toEqual([]);
        expect(await session.branches()).toEqual([]);
        const fresh = await session.checkpoint({ again: true });
        expect([fresh.seq, fresh.parentId, fresh.branch]).toEqual([3, null, "main"]);
        await rejectsWith(session.deleteCheckpoints(["#3", "#99"]), "CHECKPOINT_NOT_FOUND");
        expect(seqsOf(await session.list())).toEqual([3]);
      });

      it("with no rule, prune applies the default retention", async () => {
        const { clock, store } = withClock(await open());
        const session = await store.session("s");
        for (let i = 1; i <= 60; i++) await session.checkpoint({ i }, { trigger: "auto" });
        clock.advance(30 * DAY);
        const report = await session.prune();
        expect(report.policy).toEqual(DEFAULT_RETENTION);
        // Of 60 automatic checkpoints a month old, only the default's "last 50" keeps any.
        expect(seqsOf(report.deleted)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        expect(await session.list()).toHaveLength(50);
      });
    });

    describe("gc", () => {
      /** Five checkpoints of distinct states; all but #3 and the head (#5) pruned. */
      async function prunedSession(store: Store): Promise<Session> {
        const session = await store.session("s");
        for (let i = 1; i <= 5; i++) await session.checkpoint(distinctState(i), { trigger: "auto", tags: i === 3 ? ["keep"] : [] });
        await session.prune({ keepTags: ["keep"] });
        // Objects are swept only if written before the gc starts; let the clock move on.
        await sleep(25);
        return session;
      }

      it("gc after a prune deletes the objects only pruned checkpoints used", async () => {
        const store = await open();
        await prunedSession(store);
        const before = (await objectHashes(backendOf(store))).length;
        const report = await store.gc({ graceMs: 0 });
        expect(report.deleted).toBeGreaterThan(0);
        expect(report.bytesFreed).toBeGreaterThan(0);
        expect((await objectHashes(backendOf(store))).length).toBe(before - report.deleted);
        expect((await store.gc({ graceMs: 0 })).deleted).toBe(0);
      });

      it("every checkpoint left after prune and gc still restores", async () => {
        const store = await open();
        await prunedSession(store);
        await store.gc({ graceMs: 0 });
        const reader = await uncached(store).getSession("s");
        const left = await reader.list();
        expect(seqsOf(left)).toEqual([3, 5]);
        for (const cp of left) {
          expect(isDeepStrictEqual((await reader.restore(cp.id)).state, distinctState(cp.seq))).toBe(true);
        }
        expect((await store.fsck()).ok).toBe(true);
      });

      it("gc keeps unused objects younger than the grace period", async () => {
        const store = await open();
        await prunedSession(store);
        const report = await store.gc();
        expect(report.deleted).toBe(0);
        expect(report.young).toBeGreaterThan(0);
      });
    });

    describe("fsck and damage", () => {
      it("fsck of a healthy store is ok", async () => {
        const store = await open();
        const session = await store.session("s");
        for (let i = 1; i <= 4; i++) await session.checkpoint(distinctState(i));
        await session.restore("#2");
        await session.checkpoint({ forked: true });
        const report = await store.fsck();
        expect(report).toMatchObject({ ok: true, checkpoints: 5, corrupt: [], missing: [], problems: [] });
        expect(report.objects).toBeGreaterThan(0);
      });

      it("fsck reports a corrupted object by its hash, with the checkpoints that use it", async () => {
        const store = await open();
        const session = await store.session("s");
        const cps: Checkpoint[] = [];
        for (let i = 1; i <= 3; i++) cps.push(await session.checkpoint(distinctState(i)));
        const victim = cps[1] as Checkpoint;
        await flipStoredByte(backendOf(store), victim.stateRoot);
        const report = await store.fsck();
        expect(report.ok).toBe(false);
        expect(report.corrupt.map((c) => [c.hash, c.checkpoints])).toEqual([[victim.stateRoot, [victim.id]]]);
      });

      it("restoring a checkpoint whose object is corrupt fails with CORRUPT_OBJECT and leaves HEAD where it was", async () => {
        const store = await open();
        const session = await store.session("s");
        const cps: Checkpoint[] = [];
        for (let i = 1; i <= 3; i++) cps.push(await session.checkpoint(distinctState(i)));
        const victim = cps[1] as Checkpoint;
        await flipStoredByte(backendOf(store), victim.stateRoot);
        const reader = await uncached(store).getSession("s");
        const error = await rejectsWith(reader.restore(victim.id), "CORRUPT_OBJECT");
        expect(error.data["hash"]).toBe(victim.stateRoot);
        expect(await reader.head()).toMatchObject({ branch: "main", checkpoint: { id: cps[2]?.id } });
      });

      it("checkpoints that do not use a corrupt object still restore", async () => {
        const store = await open();
        const session = await store.session("s");
        const cps: Checkpoint[] = [];
        for (let i = 1; i <= 3; i++) cps.push(await session.checkpoint(distinctState(i)));
        await flipStoredByte(backendOf(store), (cps[1] as Checkpoint).stateRoot);
        const reader = await uncached(store).getSession("s");
        for (const i of [1, 3]) expect(isDeepStrictEqual((await reader.restore(`#${i}`)).state, distinctState(i))).toBe(true);
      });

      it("bytes getObjects returns are the caller's: changing them does not change the stored object", async () => {
        const store = await open();
        const cp = await (await store.session("s")).checkpoint(distinctState(1));
        const first = (await backendOf(store).getObjects([cp.stateRoot])).get(cp.stateRoot);
        if (!first) throw new Error("the state's root object is not stored");
        const original = Uint8Array.from(first);
        first[0] = (first[0] ?? 0) ^ 0xff;
        const again = (await backendOf(store).getObjects([cp.stateRoot])).get(cp.stateRoot);
        expect(again && Buffer.from(again).equals(original)).toBe(true);
        expect((await store.fsck()).ok).toBe(true);
      });
    });

    describe("export and import", () => {
      /** Session "work": main #1..#3, a branch "idea" from #2 with #4, HEAD back on main. */
      async function sourceSession(store: Store): Promise<{ session: Session; states: Map<string, unknown> }> {
        const session = await store.session("work", { kind: "reasoning", metadata: { task: "bundle" } });
        const states = new Map<string, unknown>();
        const save = async (state: unknown, tags: string[] = []) =>
          states.set((await session.checkpoint(state, { tags, message: `m${states.size}` })).id, state);
        await save({ step: 1, text: "alpha ".repeat(200) });
        await save({ step: 2, list: Array.from({ length: 3_000 }, (_, i) => ({ i, note: `n${i}` })) }, ["verified"]);
        await save({ step: 3, unicode: "𝄞 ünïcödé 🧪" });
        await session.branch("idea", { from: "#2" });
        await session.switch("idea");
        await save({ step: 4, idea: true });
        await session.switch("main");
        return { session, states };
      }

      it("export then import into a fresh store restores identical states", async () => {
        const source = await open();
        const { states } = await sourceSession(source);
        const bundle = await source.export({ session: "work" });
        expect(bundle).toMatchObject({ sessions: 1, checkpoints: 4 });
        const target = await open();
        await target.import(bundle.bytes);
        const imported = await uncached(target).getSession("work");
        for (const [id, state] of states) expect(isDeepStrictEqual((await imported.restore(id)).state, state), id).toBe(true);
        expect((await target.fsck()).ok).toBe(true);
      });

      it("import keeps ids, seqs, parents, tags, messages, branches and HEAD", async () => {
        const source = await open();
        const { session } = await sourceSession(source);
        const target = await open();
        await target.import((await source.export({ session: "work" })).bytes);
        const imported = await target.getSession("work");
        const shape = (cps: readonly Checkpoint[]) => cps.map((c) => [c.id, c.seq, c.parentId, c.branch, c.tags, c.message, c.stateRoot]);
        expect(shape(await imported.list())).toEqual(shape(await session.list()));
        expect((await imported.branches()).map((b) => [b.name, b.head.id, b.current])).toEqual(
          (await session.branches()).map((b) => [b.name, b.head.id, b.current]),
        );
        expect((await imported.head()).checkpoint?.id).toBe((await session.head()).checkpoint?.id);
        expect(await imported.info()).toMatchObject({ kind: "reasoning", metadata: { task: "bundle" } });
      });

      it("import keeps a detached HEAD on the checkpoint it was detached at", async () => {
        const source = await open();
        const { session } = await sourceSession(source);
        await session.restore("#1");
        const target = await open();
        await target.import((await source.export({ session: "work" })).bytes);
        const head = await (await target.getSession("work")).head();
        expect({ branch: head.branch, seq: head.checkpoint?.seq }).toEqual({ branch: null, seq: 1 });
      });

      it("a bundle cut short anywhere is INVALID_BUNDLE", async () => {
        const source = await open();
        const session = await source.session("work");
        await session.checkpoint({ a: 1 });
        await session.checkpoint({ a: 2, text: "t".repeat(700) });
        const { bytes } = await source.export({ session: "work" });
        const target = await open();
        for (let length = 0; length < bytes.length; length++) {
          await rejectsWith(target.import(bytes.subarray(0, length)), "INVALID_BUNDLE");
        }
      });

      it("a bundle with any one byte flipped is INVALID_BUNDLE", async () => {
        const source = await open();
        const session = await source.session("work");
        await session.checkpoint({ a: 1 });
        await session.checkpoint({ a: 2, text: "t".repeat(700) });
        const { bytes } = await source.export({ session: "work" });
        const target = await open();
        for (let i = 0; i < bytes.length; i++) {
          const damaged = Buffer.from(bytes);
          damaged[i] = (damaged[i] ?? 0) ^ 0x20;
          await rejectsWith(target.import(damaged), "INVALID_BUNDLE");
        }
      });

      it("a refused bundle leaves the target store unchanged", async () => {
        const source = await open();
        await sourceSession(source);
        const { bytes } = await source.export({ session: "work" });
        const target = await open();
        const own = await target.session("own");
        await own.checkpoint({ mine: true });
        const before = await snapshot(target);
        const flipped = Buffer.from(bytes);
        const middle = Math.floor(flipped.length / 2);
        flipped[middle] = (flipped[middle] ?? 0) ^ 0x01;
        await rejectsWith(target.import(flipped), "INVALID_BUNDLE");
        await rejectsWith(target.import(bytes.subarray(0, bytes.length - 1)), "INVALID_BUNDLE");
        expect(await snapshot(target)).toEqual(before);
      });

      it("importing a session whose name the store already uses is IMPORT_CONFLICT", async () => {
        const source = await open();
        await sourceSession(source);
        const { bytes } = await source.export({ session: "work" });
        const target = await open();
        await (await target.session("work")).checkpoint({ theirs: true });
        const before = await snapshot(target);
        await rejectsWith(target.import(bytes), "IMPORT_CONFLICT");
        const after = (await snapshot(target)) as { objects: unknown };
        // Objects may have been written before the conflict was found; metadata must not change.
        expect({ ...after, objects: null }).toEqual({ ...(before as object), objects: null });
      });

      it("import with {as} brings the session in under another name when its own is taken", async () => {
        const source = await open();
        const { states } = await sourceSession(source);
        const target = await open();
        const theirs = await target.session("work");
        const mine = await theirs.checkpoint({ theirs: true });
        const report = await target.import((await source.export({ session: "work" })).bytes, { as: "work-2" });
        expect(report.sessions).toEqual([{ name: "work-2", created: true, checkpoints: 4, skipped: 0, milestones: 0, milestonesSkipped: 0 }]);
        const imported = await target.getSession("work-2");
        for (const [id, state] of states) expect(isDeepStrictEqual(await imported.state(id), state)).toBe(true);
        expect((await theirs.list()).map((c) => c.id)).toEqual([mine.id]);
      });

      it("import with {as} into a store that already holds the bundle's session creates the named session or refuses", async () => {
        const store = await open();
        await sourceSession(store);
        const { bytes } = await store.export({ session: "work" });
        const outcome = await store.import(bytes, { as: "copy" }).then(
          async () => ((await store.listSessions()).some((s) => s.name === "copy") ? "created copy" : "reported success, but no session is named copy"),
          (e: unknown) => (e instanceof ForgeError ? e.code : String(e)),
        );
        expect(["created copy", "IMPORT_CONFLICT"]).toContain(outcome);
      });
    });

    describe("invalid states", () => {
      class Point {
        constructor(
          readonly x: number,
          readonly y: number,
        ) {}
      }
      const cases: { what: string; state: unknown; path: string }[] = [
        { what: "undefined in an array", state: { items: [1, undefined, 3] }, path: "$.items[1]" },
        { what: "NaN", state: { score: Number.NaN }, path: "$.score" },
        { what: "Infinity", state: { limits: { max: Number.POSITIVE_INFINITY } }, path: "$.limits.max" },
        { what: "a Date", state: { when: new Date(T0) }, path: "$.when" },
        { what: "a function", state: { run: () => 1 }, path: "$.run" },
        { what: "a class instance", state: { at: new Point(1, 2) }, path: "$.at" },
        { what: "a Map", state: { index: new Map([["a", 1]]) }, path: "$.index" },
        { what: "a bigint", state: { big: 10n }, path: "$.big" },
        { what: "a hole in a sparse array", state: { holes: [1, undefined, 3] }, path: "$.holes[1]" },
        { what: "NaN deep inside", state: { a: { b: [0, { c: Number.NaN }] } }, path: "$.a.b[1].c" },
      ];
      for (const { what, state, path } of cases) {
        it(`a state holding ${what} is INVALID_STATE naming the path ${path}`, async () => {
          const session = await (await open()).session("s");
          const error = await rejectsWith(session.checkpoint(state), "INVALID_STATE");
          expect(error.data["path"]).toBe(path);
          expect(error.message).toContain(path);
        });
      }

      it("a refused state writes nothing: no objects, no checkpoint, no seq used", async () => {
        const store = await open();
        const session = await store.session("s");
        await rejectsWith(session.checkpoint({ big: "b".repeat(5_000), list: [1, 2, 3], bad: Number.NaN }), "INVALID_STATE");
        expect(await objectHashes(backendOf(store))).toEqual([]);
        expect(await session.list()).toEqual([]);
        expect((await session.checkpoint({ ok: true })).seq).toBe(1);
      });
    });

    describe("working state", () => {
      it("a new session has none, and setWorking stores one that working() reads back", async () => {
        const session = await (await open()).session("s");
        expect(await session.working()).toBeUndefined();
        const w = await session.setWorking({ board: ["h1"], n: 1 });
        expect(w).toMatchObject({ version: 1, changed: true });
        expect(await session.working()).toMatchObject({ state: { board: ["h1"], n: 1 }, version: 1 });
      });

      it("setting the same state again changes nothing and keeps the version", async () => {
        const session = await (await open()).session("s");
        await session.setWorking({ a: 1 });
        expect(await session.setWorking({ a: 1 })).toMatchObject({ version: 1, changed: false });
      });

      it("setWorking with a stale expectedVersion is CONFLICT and leaves the state as it was", async () => {
        const session = await (await open()).session("s");
        await session.setWorking({ a: 1 });
        await session.setWorking({ a: 2 }, { expectedVersion: 1 });
        await rejectsWith(session.setWorking({ a: 3 }, { expectedVersion: 1 }), "CONFLICT");
        expect((await session.working())?.state).toEqual({ a: 2 });
      });

      it("a checkpoint makes its state the working state, and restore and switch bring theirs back", async () => {
        const session = await (await open()).session("s");
        const one = await session.checkpoint({ n: 1 });
        await session.checkpoint({ n: 2 });
        expect((await session.working())?.state).toEqual({ n: 2 });
        await session.branch("side", { from: one.id });
        await session.restore(one.id);
        expect((await session.working())?.state).toEqual({ n: 1 });
        await session.switch("main");
        expect((await session.working())?.state).toEqual({ n: 2 });
      });

      it("checkpointWorking saves the working state; without one it is NO_CHECKPOINT", async () => {
        const session = await (await open()).session("s");
        await rejectsWith(session.checkpointWorking(), "NO_CHECKPOINT");
        await session.setWorking({ live: true });
        const cp = await session.checkpointWorking({ message: "from the board" });
        expect(await session.state(cp.id)).toEqual({ live: true });
      });

      it("gc keeps the objects of a working state no checkpoint uses, and fsck checks them", async () => {
        const store = await open();
        const session = await store.session("s");
        await session.checkpoint({ old: "o".repeat(3_000) });
        await session.setWorking({ live: "l".repeat(3_000) });
        await store.gc({ graceMs: 0 });
        expect((await session.working())?.state).toEqual({ live: "l".repeat(3_000) });
        expect((await store.fsck()).ok).toBe(true);
      });
    });

    describe("long arrays", () => {
      const items = Array.from({ length: 5_000 }, (_, i) => ({ id: i, text: `item ${i}: ${((i * 7_919) % 10_007).toString(36)}`, done: i % 3 === 0 }));

      it("appending one item to a 5,000-item array stores far fewer new bytes than the array", async () => {
        const session = await (await open()).session("s");
        const first = await session.checkpoint({ items });
        const appended = await session.checkpoint({ items: [...items, { id: 5_000, text: "one more", done: false }] });
        expect(first.sizes.newBytes).toBeGreaterThan(0);
        expect(appended.sizes.newBytes).toBeLessThan(appended.sizes.logicalBytes / 20);
        expect(appended.sizes.newBytes).toBeLessThan(first.sizes.newBytes / 4);
      });

      it("changing one item in the middle of a 5,000-item array stores far fewer new bytes than the array", async () => {
        const session = await (await open()).session("s");
        await session.checkpoint({ items });
        const edited = await session.checkpoint({ items: items.map((it) => (it.id === 2_500 ? { ...it, done: !it.done } : it)) });
        expect(edited.sizes.newBytes).toBeLessThan(edited.sizes.logicalBytes / 20);
      });
    });
  });
}
