// The eight automatic checkpoint triggers. Each fires on a save after its event, makes a
// checkpoint tagged "auto" and the trigger's name with trigger = that name, and commits it
// in the same write as the working state it describes.
import { describe, expect, it } from "vitest";
import type { Checkpoint } from "../../src/index.js";
import type { ReasoningSession } from "../../src/domains/reasoning/reasoning-session.js";
import type { ReasoningState } from "../../src/domains/reasoning/model.js";
import { gitRepo, ids, MINUTE, nodeArgv, reasoningBench, writeFile } from "./support.js";

/** The checkpoint a save made, failing the test when there is none. */
async function saveExpectingCheckpoint(rs: ReasoningSession): Promise<Checkpoint> {
  const saved = await rs.save();
  expect(saved.checkpoint, "the save should have made an automatic checkpoint").not.toBeNull();
  return saved.checkpoint as Checkpoint;
}

async function expectNoCheckpoint(rs: ReasoningSession): Promise<void> {
  const saved = await rs.save();
  expect(saved.checkpoint, `unexpected checkpoint: ${saved.checkpoint?.message ?? ""}`).toBeNull();
  expect(saved.events).toEqual([]);
}

/** Asserts the shape every automatic checkpoint of one trigger has. */
function expectAuto(cp: Checkpoint, trigger: string, significant: boolean): void {
  expect(cp.trigger).toBe(trigger);
  expect(cp.tags).toContain("auto");
  expect(cp.tags).toContain(trigger);
  if (significant) expect(cp.tags).toContain("significant");
  else expect(cp.tags).not.toContain("significant");
  expect(cp.message).toMatch(/^auto: /);
}

/** The checkpoint and the working state are one write: the same state root, and it holds the change. */
async function expectCommittedWithWorkingState(rs: ReasoningSession, cp: Checkpoint): Promise<ReasoningState> {
  const working = await rs.session.working();
  expect(working?.root).toBe(cp.stateRoot);
  const head = await rs.session.head();
  expect(head.checkpoint?.id).toBe(cp.id);
  return (await rs.stateAt(cp.id)).state;
}

describe("the hypothesis-status trigger", () => {
  it("checkpoints when a hypothesis changes status, tagged auto and hypothesis-status", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("the cache is stale");
    await expectNoCheckpoint(rs);
    rs.hypotheses.update("H1", { status: "testing" });
    const cp = await saveExpectingCheckpoint(rs);
    expectAuto(cp, "hypothesis-status", false);
    expect(cp.message).toBe("auto: H1 testing");
    const state = await expectCommittedWithWorkingState(rs, cp);
    expect(state.hypotheses[0]?.status).toBe("testing");
  });

  it("tags the checkpoint significant when a hypothesis is confirmed", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x", { status: "testing" });
    await rs.save();
    rs.hypotheses.update("H1", { status: "confirmed" });
    expectAuto(await saveExpectingCheckpoint(rs), "hypothesis-status", true);
  });

  it("tags the checkpoint significant when a hypothesis is rejected", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x", { status: "testing" });
    await rs.save();
    rs.hypotheses.update("H1", { status: "rejected" });
    expectAuto(await saveExpectingCheckpoint(rs), "hypothesis-status", true);
  });

  it("does not tag an abandoned hypothesis significant", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x", { status: "testing" });
    await rs.save();
    rs.hypotheses.update("H1", { status: "abandoned" });
    expectAuto(await saveExpectingCheckpoint(rs), "hypothesis-status", false);
  });

  it("does not fire for a change of confidence or wording, or for setting the same status", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x", { status: "testing" });
    await rs.save();
    rs.hypotheses.update("H1", { confidence: 0.9, statement: "x, reworded", status: "testing" });
    rs.hypotheses.addEvidence("H1", { kind: "supports", content: "more" });
    await expectNoCheckpoint(rs);
    expect(await rs.session.list()).toEqual([]);
  });

  it("makes no automatic checkpoint when autoCheckpoints is off", async () => {
    const { rs } = await reasoningBench("quiet", { autoCheckpoints: false });
    rs.hypotheses.add("x");
    rs.hypotheses.update("H1", { status: "confirmed" });
    await expectNoCheckpoint(rs);
    expect((await rs.session.working())?.state).toMatchObject({ hypotheses: [{ status: "confirmed" }] });
  });
});

describe("the contradiction trigger", () => {
  it("checkpoints, significant, when a save finds a new contradiction", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("the service is stateless");
    await expectNoCheckpoint(rs);
    rs.beliefs.add("the service keeps sessions in memory", { contradicts: ["B1"] });
    const cp = await saveExpectingCheckpoint(rs);
    expectAuto(cp, "contradiction", true);
    expect(cp.message).toMatch(/B1 and B2/);
    await expectCommittedWithWorkingState(rs, cp);
  });

  it("does not fire again for a contradiction that was already there at the last save", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("a");
    rs.beliefs.add("not a", { contradicts: ["B1"] });
    await saveExpectingCheckpoint(rs);
    rs.notes.add("still looking");
    await expectNoCheckpoint(rs);
    rs.beliefs.update("B2", { confidence: 0.2 });
    await expectNoCheckpoint(rs);
  });

  it("does not fire for a contradiction already stored when another session object loads it", async () => {
    const bench = await reasoningBench();
    bench.rs.beliefs.add("a");
    bench.rs.beliefs.add("not a", { contradicts: ["B1"] });
    await saveExpectingCheckpoint(bench.rs);
    const { rs: other } = await bench.reopen();
    const { saved } = await other.update((r) => r.notes.add("picked up in another process"));
    expect(saved.checkpoint).toBeNull();
  });

  it("fires again for a second, different contradiction", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("a");
    rs.beliefs.add("not a", { contradicts: ["B1"] });
    await saveExpectingCheckpoint(rs);
    rs.hypotheses.add("h");
    rs.beliefs.add("rests on h", { dependsOn: ["H1"] });
    await expectNoCheckpoint(rs);
    rs.hypotheses.update("H1", { status: "abandoned" });
    const cp = await saveExpectingCheckpoint(rs);
    // The status change and the contradiction fire together: the first trigger names it, both tag it.
    expect(cp.trigger).toBe("hypothesis-status");
    expect(cp.tags).toEqual(expect.arrayContaining(["auto", "hypothesis-status", "contradiction", "significant"]));
    expect(cp.message).toMatch(/B3 is held but rests on H1 \(abandoned\)/);
  });
});

describe("the verification trigger", () => {
  it("checkpoints when a verification completes, passed or failed", async () => {
    const { rs } = await reasoningBench();
    await rs.verify("unit tests", nodeArgv("process.exit(0)"));
    const passed = await saveExpectingCheckpoint(rs);
    expectAuto(passed, "verification", false);
    expect(passed.message).toBe('auto: V1 "unit tests" passed');
    const state = await expectCommittedWithWorkingState(rs, passed);
    expect(ids(state.verifications)).toEqual(["V1"]);
    await rs.verify("lint", ["forge-test-no-such-linter-xyz"]);
    const failed = await saveExpectingCheckpoint(rs);
    expectAuto(failed, "verification", false);
    expect(failed.message).toBe('auto: V2 "lint" failed');
  });

  it("does not fire for a plain command run", async () => {
    const { rs } = await reasoningBench();
    await rs.run(nodeArgv("process.exit(0)"));
    await expectNoCheckpoint(rs);
  });
});

describe("the branch-switch trigger", () => {
  it("checkpoints the work since the last checkpoint before branching, and starts the branch there", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("on main");
    await rs.checkpoint("start");
    rs.hypotheses.add("unsaved work");
    const { saved } = await rs.branch("experiment");
    expect(saved).not.toBeNull();
    const cp = saved as Checkpoint;
    expectAuto(cp, "branch-switch", false);
    expect(cp.branch).toBe("main");
    expect((await rs.stateAt(cp.id)).state.hypotheses.map((h) => h.statement)).toEqual(["on main", "unsaved work"]);
    const head = await rs.session.head();
    expect(head.branch).toBe("experiment");
    expect(head.checkpoint?.id).toBe(cp.id);
    expect(rs.hypotheses.list().map((h) => h.statement)).toEqual(["on main", "unsaved work"]);
  });

  it("checkpoints the branch's work before switching away, and switching restores each branch's state", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("shared");
    await rs.checkpoint("start");
    await rs.branch("experiment");
    rs.hypotheses.add("only on the experiment");
    const away = await rs.switch("main");
    expect(away.saved).not.toBeNull();
    expectAuto(away.saved as Checkpoint, "branch-switch", false);
    expect(away.saved?.branch).toBe("experiment");
    expect(rs.hypotheses.list().map((h) => h.statement)).toEqual(["shared"]);
    expect((await rs.session.working())?.state).toMatchObject({ hypotheses: [{ statement: "shared" }] });
    const back = await rs.switch("experiment");
    expect(back.checkpoint.id).toBe(away.saved?.id);
    expect(rs.hypotheses.list().map((h) => h.statement)).toEqual(["shared", "only on the experiment"]);
  });

  it("makes no checkpoint when there is no work since the last one", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x");
    await rs.checkpoint("start");
    const { saved } = await rs.branch("experiment");
    expect(saved).toBeNull();
    const back = await rs.switch("main");
    expect(back.saved).toBeNull();
    expect(await rs.session.list()).toHaveLength(1);
  });

  it("keeps unsaved work on the branch it was done on, not carried to the other", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x");
    await rs.checkpoint("start");
    await rs.branch("experiment", { switch: false });
    rs.notes.add("written on main, not checkpointed");
    await rs.switch("experiment");
    expect(rs.notes.list()).toEqual([]);
    await rs.switch("main");
    expect(rs.notes.list().map((n) => n.text)).toEqual(["written on main, not checkpointed"]);
  });
});

describe("the gap-filled trigger", () => {
  it("checkpoints when a gap is filled, but not when one is added", async () => {
    const { rs } = await reasoningBench();
    rs.gaps.add("which version runs in prod?", { priority: "high" });
    await expectNoCheckpoint(rs);
    rs.gaps.fill("G1", "2.4.1");
    const cp = await saveExpectingCheckpoint(rs);
    expectAuto(cp, "gap-filled", false);
    expect(cp.message).toBe("auto: G1 filled");
    const state = await expectCommittedWithWorkingState(rs, cp);
    expect(state.gaps[0]).toMatchObject({ status: "filled", answer: "2.4.1" });
  });
});

describe("the code-modified trigger", () => {
  it("does not fire for the first capture, which is a baseline", async () => {
    const { rs } = await reasoningBench();
    const repo = gitRepo();
    writeFile(repo.root, "app.txt", "changed\n");
    rs.captureCode({ cwd: repo.root });
    await expectNoCheckpoint(rs);
  });

  it("fires when a later capture finds a different patch", async () => {
    const { rs } = await reasoningBench();
    const repo = gitRepo();
    rs.captureCode({ cwd: repo.root });
    await rs.save();
    writeFile(repo.root, "app.txt", "two\n");
    rs.captureCode({ cwd: repo.root });
    const cp = await saveExpectingCheckpoint(rs);
    expectAuto(cp, "code-modified", false);
    expect(cp.message).toBe(`auto: code modified at ${repo.commit.slice(0, 8)}`);
    const state = await expectCommittedWithWorkingState(rs, cp);
    expect(state.code?.patch).toContain("+two");
  });

  it("does not fire when a later capture finds the same code", async () => {
    const { rs, clock } = await reasoningBench();
    const repo = gitRepo();
    writeFile(repo.root, "app.txt", "two\n");
    rs.captureCode({ cwd: repo.root });
    await rs.save();
    clock.advance(MINUTE);
    rs.captureCode({ cwd: repo.root });
    await expectNoCheckpoint(rs);
  });

  it("fires for a new commit or a new untracked file", async () => {
    const { rs } = await reasoningBench();
    const repo = gitRepo();
    rs.captureCode({ cwd: repo.root });
    await rs.save();
    writeFile(repo.root, "scratch.txt", "new\n");
    rs.captureCode({ cwd: repo.root });
    expectAuto(await saveExpectingCheckpoint(rs), "code-modified", false);
  });
});

describe("the time trigger", () => {
  it("fires after five minutes of work with a change, not before", async () => {
    const { rs, clock } = await reasoningBench();
    rs.hypotheses.add("x");
    await expectNoCheckpoint(rs);
    clock.advance(4 * MINUTE);
    rs.notes.add("four minutes in");
    await expectNoCheckpoint(rs);
    clock.advance(MINUTE);
    rs.notes.add("five minutes in");
    const cp = await saveExpectingCheckpoint(rs);
    expectAuto(cp, "time", false);
    expect(cp.message).toBe("auto: 5 minutes of work");
    const state = await expectCommittedWithWorkingState(rs, cp);
    expect(state.notes.map((n) => n.text)).toEqual(["four minutes in", "five minutes in"]);
  });

  it("does not fire without a change, however much time passed", async () => {
    const { rs, clock } = await reasoningBench();
    rs.hypotheses.add("x");
    await rs.save();
    clock.advance(30 * MINUTE);
    await expectNoCheckpoint(rs);
    clock.advance(3 * 60 * MINUTE);
    await expectNoCheckpoint(rs);
  });

  it("fires at most once per five minutes, counting from the last checkpoint", async () => {
    const { rs, clock } = await reasoningBench();
    rs.hypotheses.add("x");
    await rs.save();
    clock.advance(6 * MINUTE);
    rs.notes.add("a");
    expectAuto(await saveExpectingCheckpoint(rs), "time", false);
    clock.advance(2 * MINUTE);
    rs.notes.add("b");
    await expectNoCheckpoint(rs);
    clock.advance(2 * MINUTE);
    rs.notes.add("c");
    await expectNoCheckpoint(rs);
    clock.advance(MINUTE);
    rs.notes.add("d");
    expectAuto(await saveExpectingCheckpoint(rs), "time", false);
    expect((await rs.session.list()).map((c) => c.trigger)).toEqual(["time", "time"]);
  });

  it("counts from any checkpoint, manual ones too", async () => {
    const { rs, clock } = await reasoningBench();
    rs.hypotheses.add("x");
    clock.advance(10 * MINUTE);
    await rs.checkpoint("by hand");
    clock.advance(4 * MINUTE);
    rs.notes.add("soon after");
    await expectNoCheckpoint(rs);
  });

  it("honours a custom significantTimeMs", async () => {
    const { rs, clock } = await reasoningBench("fast", { significantTimeMs: MINUTE });
    rs.hypotheses.add("x");
    await rs.save();
    clock.advance(MINUTE);
    rs.notes.add("a minute later");
    expectAuto(await saveExpectingCheckpoint(rs), "time", false);
  });

  it("is not added when another trigger fires in the same save", async () => {
    const { rs, clock } = await reasoningBench();
    rs.hypotheses.add("x");
    await rs.save();
    clock.advance(10 * MINUTE);
    rs.hypotheses.update("H1", { status: "testing" });
    const cp = await saveExpectingCheckpoint(rs);
    expect(cp.trigger).toBe("hypothesis-status");
    expect(cp.tags).not.toContain("time");
  });
});

describe("the compaction-warning trigger", () => {
  it("checkpoints even when nothing changed", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x");
    await rs.checkpoint("by hand");
    const first = await rs.compactionWarning();
    expectAuto(first, "compaction-warning", false);
    const second = await rs.compactionWarning();
    expectAuto(second, "compaction-warning", false);
    expect(second.id).not.toBe(first.id);
    expect(second.stateRoot).toBe(first.stateRoot);
    expect((await rs.session.list()).map((c) => c.trigger)).toEqual(["manual", "compaction-warning", "compaction-warning"]);
  });

  it("carries the unsaved work and the events pending with it", async () => {
    const { rs } = await reasoningBench();
    rs.gaps.add("q");
    rs.gaps.fill("G1", "a");
    const cp = await rs.compactionWarning();
    expect(cp.trigger).toBe("gap-filled");
    expect(cp.tags).toEqual(expect.arrayContaining(["auto", "gap-filled", "compaction-warning"]));
    const state = await expectCommittedWithWorkingState(rs, cp);
    expect(state.gaps[0]?.status).toBe("filled");
  });
});

describe("several triggers in one save", () => {
  it("makes one checkpoint named after the first trigger in the design's order, tagged with all of them", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x");
    rs.gaps.add("q");
    await rs.save();
    rs.gaps.fill("G1", "a");
    await rs.verify("check", nodeArgv("process.exit(0)"));
    rs.hypotheses.update("H1", { status: "confirmed" });
    const cp = await saveExpectingCheckpoint(rs);
    expect(cp.trigger).toBe("hypothesis-status");
    expect(cp.tags).toEqual(["auto", "hypothesis-status", "verification", "gap-filled", "significant"]);
    expect(await rs.session.list()).toHaveLength(1);
  });

  it("records what fired in the checkpoint's metadata and the save's events", async () => {
    const { rs } = await reasoningBench();
    rs.gaps.add("q");
    await rs.save();
    rs.gaps.fill("G1", "a");
    const saved = await rs.save();
    expect(saved.events.map((e) => e.trigger)).toEqual(["gap-filled"]);
    expect(saved.checkpoint?.metadata).toEqual({ events: [{ trigger: "gap-filled", what: "G1 filled" }] });
  });
});
