// Milestones and squash, as every backend must give them: one suite, run against memory:,
// file:, sqlite: and postgres: by the *.test.ts files beside it (the pattern of
// test/contract/backend-contract.ts). Each case opens its own fresh store.
import { isDeepStrictEqual } from "node:util";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { describeMilestone, ManualClock, Store, type Checkpoint, type Session } from "../../src/index.js";
import { Workspace } from "../../src/domains/workspace/workspace.js";
import type { MakeStore } from "../contract/backend-contract.js";
import { rejectsWith } from "../support/errors.js";
import { makeTempDir } from "../support/temp.js";

const seqsOf = (cps: readonly Checkpoint[]): number[] => cps.map((c) => c.seq);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const DAY = 24 * 3_600_000;
/** A round moment for ManualClock stores: 2025-01-20 12:00:00 UTC. */
const T0 = Date.UTC(2025, 0, 20, 12, 0, 0);

/** The same backend seen through a store whose clock the test moves. */
function withClock(store: Store): { clock: ManualClock; store: Store } {
  const clock = new ManualClock(T0);
  return { clock, store: Store.fromBackend(store.backend, { clock }) };
}

/** A state with a part unique to `n` (its own objects) and a part every such state shares. */
function distinctState(n: number): { n: number; text: string; common: string } {
  return { n, text: `state ${n} `.repeat(400), common: "shared text ".repeat(300) };
}

async function objectHashes(store: Store): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const o of store.backend.listObjects()) out.add(o.hash);
  return out;
}

/** Everything a refused operation must leave as it was. */
async function snapshot(session: Session): Promise<unknown> {
  return { timeline: await session.timeline(), head: await session.head() };
}

export function runMilestoneContract(name: string, makeStore: MakeStore): void {
  describe(`milestones and squash: ${name}`, () => {
    async function open(): Promise<Store> {
      const { store, cleanup } = await makeStore();
      onTestFinished(() => cleanup());
      return store;
    }

    /** `count` checkpoints on main, messages "step N", states distinctState(N). */
    async function linear(session: Session, count: number, options: { trigger?: string } = {}): Promise<Checkpoint[]> {
      const out: Checkpoint[] = [];
      for (let i = 1; i <= count; i++) out.push(await session.checkpoint(distinctState(i), { message: `step ${i}`, ...options }));
      return out;
    }

    describe("milestones", () => {
      it("are created, listed, shown with the checkpoints they span, and deleted", async () => {
        const session = await (await open()).session("s");
        const cps = await linear(session, 5);
        const made = await session.createMilestone("parser", { from: "#2", to: "#4", description: "rewrote the parser" });
        expect(made).toMatchObject({ name: "parser", session: "s", description: "rewrote the parser" });
        expect([made.from.id, made.to.id]).toEqual([cps[1]?.id, cps[3]?.id]);
        expect((await session.milestones()).map((m) => [m.name, m.from.seq, m.to.seq])).toEqual([["parser", 2, 4]]);
        expect(await session.milestone("parser")).toEqual(made);
        expect(seqsOf((await session.milestoneSpan("parser")).checkpoints)).toEqual([2, 3, 4]);
        expect((await session.timeline()).milestones).toEqual([{ name: "parser", fromId: cps[1]?.id, toId: cps[3]?.id, description: "rewrote the parser" }]);
        expect((await session.deleteMilestone("parser")).name).toBe("parser");
        expect(await session.milestones()).toEqual([]);
        expect(seqsOf(await session.list())).toEqual([1, 2, 3, 4, 5]);
        await rejectsWith(session.milestone("parser"), "MILESTONE_NOT_FOUND", /no milestone "parser"/);
        await rejectsWith(session.deleteMilestone("parser"), "MILESTONE_NOT_FOUND");
      });

      it("end at HEAD when no end is given", async () => {
        const session = await (await open()).session("s");
        const cps = await linear(session, 3);
        const m = await session.createMilestone("m", { from: "#1" });
        expect(m.to.id).toBe(cps[2]?.id);
      });

      it("are refused, naming the problem, when the start is not on the end's history, and nothing is written", async () => {
        const session = await (await open()).session("s");
        await linear(session, 4);
        await session.restore("#2");
        await session.checkpoint({ side: 1 }, { message: "side" }); // #5 on main-from-2
        await rejectsWith(session.createMilestone("m", { from: "#3", to: "#5" }), "INVALID_ARGUMENT", /#3 is not an ancestor of #5/);
        await rejectsWith(session.createMilestone("m", { from: "#4", to: "#2" }), "INVALID_ARGUMENT", /#4 is not an ancestor of #2/);
        await rejectsWith(session.createMilestone("m", { from: "#2", to: "#2" }), "INVALID_ARGUMENT", /both name #2/);
        await rejectsWith(session.createMilestone("m", { from: "#9", to: "#2" }), "CHECKPOINT_NOT_FOUND");
        await rejectsWith(session.createMilestone("bad name", { from: "#1", to: "#2" }), "INVALID_ARGUMENT", /invalid milestone name "bad name"/);
        expect(await session.milestones()).toEqual([]);
        // A fork's history runs through its base: #2 → #5 is a stretch.
        expect((await session.createMilestone("m", { from: "#1", to: "#5" })).to.seq).toBe(5);
      });

      it("names are unique within a session, and free in another", async () => {
        const store = await open();
        const a = await store.session("a");
        const b = await store.session("b");
        await linear(a, 2);
        await linear(b, 2);
        await a.createMilestone("m", { from: "#1", to: "#2" });
        await rejectsWith(a.createMilestone("m", { from: "#1", to: "#2" }), "MILESTONE_EXISTS", /already has a milestone "m"/);
        await b.createMilestone("m", { from: "#1", to: "#2" });
        expect((await a.milestones()).length).toBe(1);
        expect((await b.milestones()).length).toBe(1);
      });

      it("refuse an end in another session", async () => {
        const store = await open();
        const a = await store.session("a");
        const b = await store.session("b");
        await linear(a, 2);
        const [other] = await linear(b, 1);
        await rejectsWith(a.createMilestone("m", { from: other?.id ?? "", to: "#2" }), "INVALID_REF", /belongs to session "b"/);
      });

      it("a milestone's combined change equals the compare of its two ends", async () => {
        const store = await open();
        const session = await store.session("s");
        await linear(session, 5);
        await session.createMilestone("m", { from: "#2", to: "#5" });
        const report = await describeMilestone(store, session, "m");
        expect(report.change.state.kind).toBe("json");
        expect(report.change.state.comparison).toEqual(await session.compare("#2", "#5"));
        expect(seqsOf(report.checkpoints)).toEqual([2, 3, 4, 5]);
        expect(report.change.files).toBeNull();
      });

      it("prune keeps both ends, whatever the rules say", async () => {
        const store = await open();
        const session = await store.session("s");
        await linear(session, 6, { trigger: "auto" });
        await session.createMilestone("m", { from: "#2", to: "#4" });
        const before = (await describeMilestone(store, session, "m")).change.state.comparison.changes;
        const report = await session.prune({ keepLast: 1 });
        expect(seqsOf(await session.list())).toEqual([2, 4, 6]);
        expect(report.kept.map((k) => [k.checkpoint.seq, k.reason])).toEqual([
          [2, "milestone"],
          [4, "milestone"],
          [6, "branch head"],
        ]);
        // #3 went; the milestone spans what is left and its change is the same.
        expect(seqsOf((await session.milestoneSpan("m")).checkpoints)).toEqual([2, 4]);
        expect((await describeMilestone(store, session, "m")).change.state.comparison.changes).toEqual(before);
        expect((await store.fsck()).ok).toBe(true);
      });

      it("the default retention keeps both ends too", async () => {
        const { clock, store } = withClock(await open());
        const session = await store.session("s");
        await linear(session, 60, { trigger: "auto" });
        await session.createMilestone("m", { from: "#1", to: "#2" });
        clock.advance(10 * DAY);
        // Ten days on, the defaults keep the last 50 (#11–#60) and the newest of the hour (#60).
        const report = await session.prune();
        expect(seqsOf(report.deleted)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
        expect(report.kept.filter((k) => k.reason === "milestone").map((k) => k.checkpoint.seq)).toEqual([1, 2]);
      });

      it("deleting a milestone end is refused, naming the milestone, and nothing is deleted", async () => {
        const session = await (await open()).session("s");
        await linear(session, 4);
        await session.createMilestone("m", { from: "#2", to: "#3" });
        await rejectsWith(session.deleteCheckpoints(["#1", "#3"]), "PROTECTED", /cannot delete #1 #3: #3 is the end of milestone "m"/);
        expect(seqsOf(await session.list())).toEqual([1, 2, 3, 4]);
        await session.deleteMilestone("m");
        expect(seqsOf(await session.deleteCheckpoints(["#3"]))).toEqual([3]);
      });

      it("a linear restore that would discard a milestone end is refused, and HEAD stays", async () => {
        const session = await (await open()).session("s");
        const cps = await linear(session, 5);
        await session.createMilestone("m", { from: "#1", to: "#4" });
        const before = await snapshot(session);
        await rejectsWith(session.restore("#2", { discardFuture: true }), "PROTECTED", /#4 is the end of milestone "m"/);
        expect(await snapshot(session)).toEqual(before);
        expect((await session.restore("#4", { discardFuture: true })).discarded.map((c) => c.id)).toEqual([cps[4]?.id]);
      });

      it("go with their session", async () => {
        const store = await open();
        const session = await store.session("s");
        await linear(session, 2);
        await session.createMilestone("m", { from: "#1", to: "#2" });
        await store.deleteSession("s");
        const again = await store.session("s");
        await linear(again, 2);
        expect(await again.milestones()).toEqual([]);
        await again.createMilestone("m", { from: "#1", to: "#2" });
      });

      it("fsck reports a milestone that points at nothing", async () => {
        const store = await open();
        const session = await store.session("s");
        const [a] = await linear(session, 2);
        await store.backend.transaction((tx) =>
          tx.setMilestone({ sessionId: session.id, name: "broken", fromId: a?.id ?? "", toId: "0000000000000000000000GONE", description: "", createdAt: 0 }),
        );
        const report = await store.fsck();
        expect(report.ok).toBe(false);
        expect(report.problems).toEqual([`milestone "broken" of "s" points at 0000000000000000000000GONE, which does not exist`]);
      });
    });

    describe("squash", () => {
      it("replaces the run with one checkpoint holding TO's state exactly, and records what it replaced", async () => {
        const store = await open();
        const session = await store.session("s");
        const cps = await linear(session, 5);
        const report = await session.squash("#2", "#4");
        const s = report.checkpoint;
        const to = cps[3] as Checkpoint;
        expect(seqsOf(report.replaced)).toEqual([2, 3, 4]);
        expect(report.forced).toEqual([]);
        expect(s).toMatchObject({ seq: 4, parentId: cps[0]?.id, branch: "main", message: "step 2; step 3; step 4", stateRoot: to.stateRoot, filesRoot: null, trigger: "manual" });
        expect(s.id).not.toBe(to.id);
        expect(s.createdAt).toEqual(to.createdAt);
        expect(s.metadata["squashed"]).toMatchObject({
          replaced: cps.slice(1, 4).map((c) => ({ id: c.id, seq: c.seq, message: c.message, createdAt: c.createdAt.toISOString(), trigger: "manual", tags: [] })),
        });
        expect(isDeepStrictEqual(await session.state(s.id), distinctState(4))).toBe(true);
        expect(seqsOf(await session.list())).toEqual([1, 4, 5]);
        expect((await session.get("#5")).parentId).toBe(s.id);
        expect(report.reparented.map((r) => [r.checkpoint.seq, r.from, r.to])).toEqual([[5, to.id, s.id]]);
        expect((await session.get("#4")).id).toBe(s.id);
        expect((await session.get("HEAD~1")).id).toBe(s.id);
        for (const gone of cps.slice(1, 4)) await rejectsWith(session.get(gone.id), "CHECKPOINT_NOT_FOUND");
        expect((await store.fsck()).ok).toBe(true);
      });

      it("keeps TO's files snapshot exactly", async () => {
        const store = await open();
        const dir = makeTempDir("squash-files");
        onTestFinished(() => dir.remove());
        mkdirSync(join(dir.path, "src"));
        const ws = await Workspace.open(store, { root: dir.path });
        const session = await store.session("s");
        const cps: Checkpoint[] = [];
        for (let i = 1; i <= 3; i++) {
          writeFileSync(join(dir.path, "src", "main.txt"), `version ${i}\n`);
          writeFileSync(join(dir.path, `file-${i}.txt`), `only in ${i}\n`);
          const files = await ws.snapshot(`files ${i}`);
          cps.push(await session.checkpoint(distinctState(i), { message: `step ${i}`, filesRoot: files.snapshot.filesRoot }));
        }
        const { checkpoint } = await session.squash("#1", "#3");
        expect(checkpoint.filesRoot).toBe(cps[2]?.filesRoot);
        expect(checkpoint.stateRoot).toBe(cps[2]?.stateRoot);
        expect(checkpoint.parentId).toBeNull();
        expect((await store.fsck()).ok).toBe(true);
      });

      it("squashing up to the branch head moves the branch; HEAD stays on it and the next checkpoint follows", async () => {
        const session = await (await open()).session("s");
        await linear(session, 4);
        const working = await session.working();
        const { checkpoint, branches } = await session.squash("#3", "HEAD");
        expect(branches).toEqual([{ name: "main", from: expect.any(String) }]);
        const head = await session.head();
        expect([head.branch, head.checkpoint?.id]).toEqual(["main", checkpoint.id]);
        expect((await session.working())?.root).toBe(working?.root);
        const next = await session.checkpoint({ after: true });
        expect([next.seq, next.parentId]).toEqual([5, checkpoint.id]);
      });

      it("makes the replaced checkpoints' own objects garbage that gc frees", async () => {
        const store = await open();
        const session = await store.session("s");
        const cps = await linear(session, 5);
        const before = await objectHashes(store);
        await session.squash("#2", "#4");
        await sleep(25);
        const gc = await store.gc({ graceMs: 0 });
        expect(gc.deleted).toBeGreaterThan(0);
        const after = await objectHashes(store);
        expect(after.size).toBe(before.size - gc.deleted);
        for (const gone of [cps[1], cps[2]]) expect(after.has(gone?.stateRoot ?? "")).toBe(false);
        for (const kept of [cps[0], cps[3], cps[4]]) expect(after.has(kept?.stateRoot ?? "")).toBe(true);
        for (const cp of await session.list()) expect(isDeepStrictEqual(await session.state(cp.id), distinctState(cp.seq))).toBe(true);
        expect((await store.fsck()).ok).toBe(true);
      });

      it("refuses a range that is not a run of one line of history", async () => {
        const session = await (await open()).session("s");
        await linear(session, 3);
        await session.restore("#1");
        await session.checkpoint({ side: 1 }); // #4, forks from #1
        const before = await snapshot(session);
        await rejectsWith(session.squash("#3", "#1"), "INVALID_ARGUMENT", /#3 is not an ancestor of #1/);
        await rejectsWith(session.squash("#2", "#4"), "INVALID_ARGUMENT", /#2 is not an ancestor of #4/);
        await rejectsWith(session.squash("#2", "#2"), "INVALID_ARGUMENT", /nothing to squash/);
        await rejectsWith(session.squash("#2", "#9"), "CHECKPOINT_NOT_FOUND");
        expect(await snapshot(session)).toEqual(before);
      });

      describe("refuses, naming them, and changes nothing when in the run", () => {
        it("a branch head before TO", async () => {
          const session = await (await open()).session("s");
          await linear(session, 5);
          await session.branch("side", { from: "#3" });
          const before = await snapshot(session);
          const e = await rejectsWith(session.squash("#2", "#5"), "PROTECTED", /cannot squash #2..#5: #3 is the head of branch "side"/);
          expect(e.hint).toMatch(/--force folds them in: branch "side" moves to the squashed checkpoint/);
          expect(await snapshot(session)).toEqual(before);
        });

        it("a tagged checkpoint before TO", async () => {
          const session = await (await open()).session("s");
          await linear(session, 5);
          await session.tag("#3", "verified");
          const before = await snapshot(session);
          await rejectsWith(session.squash("#2", "#5"), "PROTECTED", /#3 is tagged verified/);
          expect(await snapshot(session)).toEqual(before);
        });

        it("a milestone end, TO included", async () => {
          const session = await (await open()).session("s");
          await linear(session, 5);
          await session.createMilestone("m", { from: "#1", to: "#3" });
          const before = await snapshot(session);
          await rejectsWith(session.squash("#2", "#3"), "PROTECTED", /#3 is the end of milestone "m"/);
          await rejectsWith(session.squash("#1", "#2"), "PROTECTED", /#1 is the start of milestone "m"/);
          expect(await snapshot(session)).toEqual(before);
        });

        it("a checkpoint another branch forks from", async () => {
          const session = await (await open()).session("s");
          await linear(session, 5);
          await session.restore("#3");
          await session.checkpoint({ side: 1 }); // #6 on main-from-3
          await session.switch("main");
          const before = await snapshot(session);
          await rejectsWith(session.squash("#2", "#5"), "PROTECTED", /#3 is on another branch's history: #6 \(branch main-from-3\) forks from it/);
          expect(await snapshot(session)).toEqual(before);
        });

        it("a detached HEAD before TO", async () => {
          const session = await (await open()).session("s");
          await linear(session, 5);
          await session.restore("#3");
          const before = await snapshot(session);
          await rejectsWith(session.squash("#2", "#5"), "PROTECTED", /#3 is where HEAD is detached/);
          expect(await snapshot(session)).toEqual(before);
        });

        it("several things at once, every one named", async () => {
          const session = await (await open()).session("s");
          await linear(session, 6);
          await session.tag("#2", "keep");
          await session.branch("b", { from: "#3" });
          await session.createMilestone("m", { from: "#4", to: "#6" });
          const e = await rejectsWith(session.squash("#2", "#5"), "PROTECTED");
          expect(e.message).toBe('cannot squash #2..#5: #2 is tagged keep; #3 is the head of branch "b"; #4 is the start of milestone "m"');
        });
      });

      describe("with force", () => {
        it("moves tags, branch heads and a detached HEAD to the squashed checkpoint and says so", async () => {
          const session = await (await open()).session("s");
          await linear(session, 5);
          await session.tag("#2", "verified");
          await session.tag("#4", "significant");
          await session.branch("side", { from: "#3" });
          await session.restore("#2");
          const r = await session.squash("#2", "#4", { force: true });
          expect(r.forced.map((f) => [f.kind, f.checkpoint.seq])).toEqual([
            ["detached-head", 2],
            ["tagged", 2],
            ["branch-head", 3],
          ]);
          expect(r.checkpoint.tags).toEqual(["significant", "verified"]);
          expect((await session.get("side")).id).toBe(r.checkpoint.id);
          expect((await session.head()).checkpoint?.id).toBe(r.checkpoint.id);
          expect(r.headMoved?.to).toBe(r.checkpoint.id);
          expect(r.checkpoint.metadata["squashed"]).toMatchObject({ replaced: [{ seq: 2, tags: ["verified"] }, { seq: 3 }, { seq: 4, tags: ["significant"] }] });
        });

        it("moves milestone ends, and deletes a milestone that lay wholly inside the run", async () => {
          const store = await open();
          const session = await store.session("s");
          await linear(session, 6);
          await session.createMilestone("before", { from: "#1", to: "#3" });
          await session.createMilestone("after", { from: "#4", to: "#6" });
          await session.createMilestone("inside", { from: "#3", to: "#4" });
          const r = await session.squash("#3", "#5", { force: true });
          const byName = <T extends { name: string }>(list: readonly T[]) => [...list].sort((a, b) => a.name.localeCompare(b.name));
          expect(byName(r.milestones)).toEqual([
            { name: "after", deleted: false },
            { name: "before", deleted: false },
            { name: "inside", deleted: true },
          ]);
          const ms = byName(await session.milestones());
          expect(ms.map((m) => [m.name, m.from.seq, m.to.seq])).toEqual([
            ["after", 5, 6],
            ["before", 1, 5],
          ]);
          expect(ms[1]?.to.id).toBe(r.checkpoint.id);
          expect((await describeMilestone(store, session, "before")).change.state.comparison).toEqual(await session.compare("#1", "#5"));
          expect((await store.fsck()).ok).toBe(true);
        });

        it("re-links a branch that forked inside the run to the checkpoint before it", async () => {
          const store = await open();
          const session = await store.session("s");
          const cps = await linear(session, 5);
          await session.restore("#3");
          const fork = await session.checkpoint({ side: 1 }); // #6 on main-from-3
          await session.checkpoint({ side: 2 }); // #7
          await session.createMilestone("on-fork", { from: "#3", to: "#7" });
          await session.switch("main");
          const r = await session.squash("#2", "#5", { force: true });
          expect(r.forced.map((f) => [f.kind, f.checkpoint.seq, f.effect])).toEqual([
            ["fork", 3, "#6 is re-linked to #1, the checkpoint before the run"],
            ["milestone-end", 3, 'milestone "on-fork" is deleted: its other end is on a branch that forks inside the run'],
          ]);
          expect((await session.get(fork.id)).parentId).toBe(cps[0]?.id);
          expect((await session.get("main-from-3~2")).id).toBe(cps[0]?.id);
          expect(await session.milestones()).toEqual([]);
          expect(isDeepStrictEqual(await session.state("main-from-3"), { side: 2 })).toBe(true);
          expect((await store.fsck()).ok).toBe(true);
        });

        it("a fork from a run that starts the timeline becomes a root", async () => {
          const store = await open();
          const session = await store.session("s");
          await linear(session, 3);
          await session.restore("#1");
          const fork = await session.checkpoint({ side: 1 });
          await session.switch("main");
          const r = await session.squash("#1", "#3", { force: true });
          expect(r.forced[0]?.effect).toBe("#4 becomes a root (the run starts the timeline)");
          expect((await session.get(fork.id)).parentId).toBeNull();
          expect((await store.fsck()).ok).toBe(true);
        });
      });

      it("a squashed checkpoint can be squashed again; its record keeps the earlier one", async () => {
        const session = await (await open()).session("s");
        await linear(session, 5);
        const first = await session.squash("#1", "#2");
        const second = await session.squash("#2", "#4", { message: "all of it" });
        expect(second.checkpoint.message).toBe("all of it");
        expect(seqsOf(second.replaced)).toEqual([2, 3, 4]);
        const replaced = (second.checkpoint.metadata["squashed"] as { replaced: { id: string; squashed?: unknown }[] }).replaced;
        expect(replaced[0]?.id).toBe(first.checkpoint.id);
        expect(replaced[0]?.squashed).toEqual(first.checkpoint.metadata["squashed"]);
        expect(seqsOf(await session.list())).toEqual([4, 5]);
      });
    });
  });
}
