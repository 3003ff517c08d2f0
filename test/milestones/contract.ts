// Milestones and squash, as every backend must give them: one suite, run against memory:,
// file:, sqlite: and postgres: by the *.test.ts files beside it (the pattern of
// test/contract/backend-contract.ts). Each case opens its own fresh store.
import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { describeMilestone, ManualClock, Store, type Checkpoint, type CompareResult, type Milestone, type Session } from "../../src/index.js";

/** A JSON comparison's changes (every session here holds plain JSON states). */
const changesOf = (c: CompareResult): unknown => (c.kind === "json" ? c.changes : c);
import { Workspace } from "../../src/domains/workspace/workspace.js";
import type { MakeStore } from "../contract/backend-contract.js";
import { rejectsWith } from "../support/errors.js";
import { makeTempDir } from "../support/temp.js";
import { backendOf } from "../../src/timeline/store-internals.js";

const seqsOf = (cps: readonly Checkpoint[]): number[] => cps.map((c) => c.seq);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const DAY = 24 * 3_600_000;
/** A round moment for ManualClock stores: 2025-01-20 12:00:00 UTC. */
const T0 = Date.UTC(2025, 0, 20, 12, 0, 0);

/** The same backend seen through a store whose clock the test moves. */
function withClock(store: Store): { clock: ManualClock; store: Store } {
  const clock = new ManualClock(T0);
  return { clock, store: Store.fromBackend(backendOf(store), { clock }) };
}

/** A state with a part unique to `n` (its own objects) and a part every such state shares. */
function distinctState(n: number): { n: number; text: string; common: string } {
  return { n, text: `state ${n} `.repeat(400), common: "shared text ".repeat(300) };
}

async function objectHashes(store: Store): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const o of backendOf(store).listObjects()) out.add(o.hash);
  return out;
}

interface BundledMilestone {
  name: string;
  from: string;
  to: string;
  description: string;
  createdAt: number;
}

interface BundleManifest {
  version: number;
  sessions: { id: string; milestones?: BundledMilestone[] }[];
}

function frame(kind: "M" | "E", payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head[0] = kind.charCodeAt(0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/**
 * The bundle with its manifest replaced by `edit(manifest)` and its end hash made good again:
 * what another writer (an older Forge, a newer one, a faulty one) would have written.
 */
function rewriteManifest(bytes: Uint8Array, edit: (manifest: BundleManifest) => unknown): Buffer {
  const buf = Buffer.from(bytes);
  const start = buf.indexOf(0x0a) + 1; // after the "FORGE-BUNDLE 1\n" header
  const parts: Buffer[] = [buf.subarray(0, start)];
  for (let pos = start; ; ) {
    const kind = String.fromCharCode(buf[pos] as number);
    const end = pos + 5 + buf.readUInt32BE(pos + 1);
    if (kind === "E") break;
    const manifest = kind === "M" ? (JSON.parse(buf.subarray(pos + 5, end).toString("utf8")) as BundleManifest) : undefined;
    parts.push(manifest ? frame("M", Buffer.from(JSON.stringify(edit(manifest)))) : buf.subarray(pos, end));
    pos = end;
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, frame("E", createHash("sha256").update(body).digest())]);
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
        expect(report.change.kind).toBe("json");
        expect(report.change.kind === "json" && report.change.changes).toEqual((await session.compare("#2", "#5")).changes);
        expect(seqsOf(report.checkpoints)).toEqual([2, 3, 4, 5]);
        expect(report.change.files).toBeNull();
      });

      it("prune keeps both ends, whatever the rules say", async () => {
        const store = await open();
        const session = await store.session("s");
        await linear(session, 6, { trigger: "auto" });
        await session.createMilestone("m", { from: "#2", to: "#4" });
        const before = changesOf((await describeMilestone(store, session, "m")).change);
        const report = await session.prune({ keepLast: 1 });
        expect(seqsOf(await session.list())).toEqual([2, 4, 6]);
        expect(report.kept.map((k) => [k.checkpoint.seq, k.reason])).toEqual([
          [2, "milestone"],
          [4, "milestone"],
          [6, "branch head"],
        ]);
        // #3 went; the milestone spans what is left and its change is the same.
        expect(seqsOf((await session.milestoneSpan("m")).checkpoints)).toEqual([2, 4]);
        expect(changesOf((await describeMilestone(store, session, "m")).change)).toEqual(before);
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
        await backendOf(store).transaction((tx) =>
          tx.setMilestone({ sessionId: session.id, name: "broken", fromId: a?.id ?? "", toId: "0000000000000000000000GONE", description: "", createdAt: 0 }),
        );
        const report = await store.fsck();
        expect(report.ok).toBe(false);
        expect(report.problems).toEqual([`milestone "broken" of "s" points at 0000000000000000000000GONE, which does not exist`]);
      });
    });

    describe("bundles", () => {
      /** What a milestone is, ids and all: the same in a store that imported it with its ids. */
      const shape = (ms: readonly Milestone[]) => ms.map((m) => [m.name, m.from.id, m.to.id, m.description, m.createdAt.getTime()]);
      /** What a milestone is by numbers: the same in a copy under new ids. */
      const bySeq = (ms: readonly Milestone[]) => ms.map((m) => [m.name, m.from.seq, m.to.seq, m.description, m.createdAt.getTime()]);

      /** Session "work": main #1..#5, branch "idea" from #2 with #6; milestones "parser" #1..#3 and "idea" #2..#6, an hour apart. */
      async function source(): Promise<{ store: Store; session: Session }> {
        const { clock, store } = withClock(await open());
        const session = await store.session("work");
        await linear(session, 5);
        await session.branch("idea", { from: "#2" });
        await session.switch("idea");
        await session.checkpoint(distinctState(6), { message: "idea" });
        await session.switch("main");
        await session.createMilestone("parser", { from: "#1", to: "#3", description: "rewrote the parser" });
        clock.advance(3_600_000);
        await session.createMilestone("idea", { from: "#2", to: "#6", description: "tried an idea" });
        return { store, session };
      }

      it("carry a session's milestones; import recreates them on the imported checkpoints, with their times and descriptions", async () => {
        const { store, session } = await source();
        const bundle = await store.export({ session: "work" });
        expect(bundle).toMatchObject({ sessions: 1, checkpoints: 6, milestones: 2, milestonesLeftOut: [] });
        const target = await open();
        const report = await target.import(bundle.bytes);
        expect(report.sessions).toEqual([{ name: "work", created: true, checkpoints: 6, skipped: 0, milestones: 2, milestonesSkipped: 0 }]);
        const imported = await target.getSession("work");
        expect(shape(await imported.milestones())).toEqual(shape(await session.milestones()));
        expect(seqsOf((await imported.milestoneSpan("idea")).checkpoints)).toEqual([2, 6]);
        expect((await imported.timeline()).milestones).toEqual((await session.timeline()).milestones);
        // They protect their ends in the new store too.
        await rejectsWith(imported.deleteCheckpoints(["#3"]), "PROTECTED", /#3 is the end of milestone "parser"/);
        expect((await target.fsck()).ok).toBe(true);
      });

      it("with {as} into a fresh store, the session keeps its ids and its milestones", async () => {
        const { store, session } = await source();
        const target = await open();
        const report = await target.import((await store.export({ session: "work" })).bytes, { as: "renamed" });
        expect(report.sessions[0]).toMatchObject({ name: "renamed", created: true, milestones: 2 });
        expect(shape(await (await target.getSession("renamed")).milestones())).toEqual(shape(await session.milestones()));
      });

      it("with {as} beside the original, the copy's milestones point at the copy's own checkpoints", async () => {
        const { store, session } = await source();
        const before = shape(await session.milestones());
        const report = await store.import((await store.export({ session: "work" })).bytes, { as: "copy" });
        expect(report.sessions).toEqual([{ name: "copy", created: true, checkpoints: 6, skipped: 0, milestones: 2, milestonesSkipped: 0 }]);
        const copy = await store.getSession("copy");
        const ms = await copy.milestones();
        expect(bySeq(ms)).toEqual(bySeq(await session.milestones()));
        const own = new Set((await copy.list()).map((c) => c.id));
        for (const m of ms) expect([own.has(m.from.id), own.has(m.to.id)], m.name).toEqual([true, true]);
        expect(shape(await session.milestones())).toEqual(before);
        expect((await store.fsck()).ok).toBe(true);
      });

      it("leave out, and name, the milestones whose stretch a partial export does not hold whole", async () => {
        const store = await open();
        const session = await store.session("work");
        await linear(session, 5);
        await session.createMilestone("a-gap", { from: "#2", to: "#4" });
        await session.createMilestone("b-whole", { from: "#4", to: "#5" });
        await session.createMilestone("c-start", { from: "#1", to: "#5" });
        await session.createMilestone("d-end", { from: "#2", to: "#3" });
        await session.createMilestone("e-both", { from: "#1", to: "#3" });
        const bundle = await store.export({ session: "work", refs: ["#2", "#4", "#5"] });
        expect(bundle.milestones).toBe(1);
        expect([...bundle.milestonesLeftOut].sort((x, y) => x.name.localeCompare(y.name))).toEqual([
          { session: "work", name: "a-gap", reason: "#3, between its ends, is not in the bundle" },
          { session: "work", name: "c-start", reason: "its start #1 is not in the bundle" },
          { session: "work", name: "d-end", reason: "its end #3 is not in the bundle" },
          { session: "work", name: "e-both", reason: "its ends #1 and #3 are not in the bundle" },
        ]);
        const target = await open();
        await target.import(bundle.bytes);
        expect(bySeq(await (await target.getSession("work")).milestones()).map((m) => m.slice(0, 3))).toEqual([["b-whole", 4, 5]]);
        expect((await target.fsck()).ok).toBe(true);
      });

      it("importing again skips the milestones already there; one of the same name with other ends is IMPORT_CONFLICT, and nothing is written", async () => {
        const { store, session } = await source();
        const target = await open();
        const first = (await store.export({ session: "work", refs: ["#1", "#2", "#3"] })).bytes;
        expect((await target.import(first)).sessions[0]).toMatchObject({ milestones: 1, milestonesSkipped: 0 });
        expect((await target.import(first)).sessions).toEqual([
          { name: "work", created: false, checkpoints: 0, skipped: 3, milestones: 0, milestonesSkipped: 1 },
        ]);
        // The target's own "idea" milestone runs elsewhere than the source's.
        const theirs = await target.getSession("work");
        await theirs.createMilestone("idea", { from: "#1", to: "#2" });
        const before = await snapshot(theirs);
        const whole = (await store.export({ session: "work" })).bytes;
        const error = await rejectsWith(
          target.import(whole),
          "IMPORT_CONFLICT",
          /session "work" already has a milestone "idea" from #1 to #2; the bundle's runs from #2 to #6/,
        );
        expect(error.hint).toMatch(/forge milestone delete idea.*--as NAME/);
        // Neither the checkpoints #4..#6 nor the "parser" milestone's skip went half-way.
        expect(await snapshot(theirs)).toEqual(before);
        expect(seqsOf(await theirs.list())).toEqual([1, 2, 3]);
        // Delete it, as the hint says, and the same bundle goes in.
        await theirs.deleteMilestone("idea");
        expect((await target.import(whole)).sessions).toEqual([
          { name: "work", created: false, checkpoints: 3, skipped: 3, milestones: 1, milestonesSkipped: 1 },
        ]);
        expect(shape(await theirs.milestones())).toEqual(shape(await session.milestones()));
        expect((await target.fsck()).ok).toBe(true);
      });

      it("a bundle of format version 1, from before milestones, still imports", async () => {
        const { store, session } = await source();
        const v2 = (await store.export({ session: "work" })).bytes;
        const v1 = rewriteManifest(v2, (m) => ({ ...m, version: 1, sessions: m.sessions.map(({ milestones: _m, ...s }) => s) }));
        const target = await open();
        const report = await target.import(v1);
        expect(report.sessions).toEqual([{ name: "work", created: true, checkpoints: 6, skipped: 0, milestones: 0, milestonesSkipped: 0 }]);
        const imported = await target.getSession("work");
        expect((await imported.list()).map((c) => c.id)).toEqual((await session.list()).map((c) => c.id));
        expect(await imported.milestones()).toEqual([]);
        expect((await target.fsck()).ok).toBe(true);
      });

      it("a bundle of a format version this Forge does not read is refused, naming the version", async () => {
        const { store } = await source();
        const v3 = rewriteManifest((await store.export({ session: "work" })).bytes, (m) => ({ ...m, version: 3 }));
        const target = await open();
        const error = await rejectsWith(target.import(v3), "INVALID_BUNDLE", /it is format version 3, and this Forge reads versions 1 and 2/);
        expect(error.hint).toMatch(/upgrade Forge/);
        // A version-2 manifest must list every session's milestones.
        const bare = rewriteManifest((await store.export({ session: "work" })).bytes, (m) => ({
          ...m,
          sessions: m.sessions.map(({ milestones: _m, ...s }) => s),
        }));
        await rejectsWith(target.import(bare), "INVALID_BUNDLE", /milestones/);
        expect(await target.listSessions()).toEqual([]);
      });

      it("a bundle whose milestone does not run between two of its session's checkpoints is INVALID_BUNDLE naming it, and nothing is written", async () => {
        const { store, session } = await source();
        const bytes = (await store.export({ session: "work", refs: ["#1", "#2", "#3"] })).bytes;
        const [c1, c2] = await session.list();
        const edit = (change: (m: BundledMilestone) => BundledMilestone[]) =>
          rewriteManifest(bytes, (m) => ({ ...m, sessions: m.sessions.map((s) => ({ ...s, milestones: s.milestones?.flatMap(change) })) }));
        const target = await open();
        await rejectsWith(
          target.import(edit((m) => [{ ...m, to: session.id }])),
          "INVALID_BUNDLE",
          /milestone "parser" of session "work" ends at .*, which is not one of the session's checkpoints in the bundle/,
        );
        await rejectsWith(
          target.import(edit((m) => [{ ...m, from: m.to, to: m.from }])),
          "INVALID_BUNDLE",
          /milestone "parser" of session "work" does not run from a checkpoint to a later one on its history/,
        );
        await rejectsWith(
          target.import(edit((m) => [{ ...m, from: c2?.id ?? "", to: c2?.id ?? "" }])),
          "INVALID_BUNDLE",
          /milestone "parser" .* does not run from a checkpoint to a later one/,
        );
        await rejectsWith(target.import(edit((m) => [m, { ...m, from: c1?.id ?? "" }])), "INVALID_BUNDLE", /session "work" has two milestones named "parser"/);
        await rejectsWith(target.import(edit((m) => [{ ...m, name: "bad name" }])), "INVALID_BUNDLE", /invalid milestone name "bad name"/);
        expect(await target.listSessions()).toEqual([]);
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
        expect(s).toMatchObject({
          seq: 4,
          parentId: cps[0]?.id,
          branch: "main",
          message: "step 2; step 3; step 4",
          stateRoot: to.stateRoot,
          filesRoot: null,
          trigger: "manual",
        });
        expect(s.id).not.toBe(to.id);
        expect(s.createdAt).toEqual(to.createdAt);
        expect(s.metadata["squashed"]).toMatchObject({
          replaced: cps
            .slice(1, 4)
            .map((c) => ({ id: c.id, seq: c.seq, message: c.message, createdAt: c.createdAt.toISOString(), trigger: "manual", tags: [] })),
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
          expect(r.checkpoint.metadata["squashed"]).toMatchObject({
            replaced: [{ seq: 2, tags: ["verified"] }, { seq: 3 }, { seq: 4, tags: ["significant"] }],
          });
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
          expect(changesOf((await describeMilestone(store, session, "before")).change)).toEqual((await session.compare("#1", "#5")).changes);
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
