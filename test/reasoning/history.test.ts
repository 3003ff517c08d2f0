// Looking back: the typed compare of two checkpoints (and of a checkpoint with the unsaved
// working state), time travel with at() on a ManualClock, briefs and recovery points, and
// "reconstruct the full debugging session from checkpoints alone": a session with every part
// populated is checkpointed and then changed further; a new Node process
// (reconstruct-state.mjs, on the built library in dist/) opens the same SQLite store,
// restores that checkpoint and prints its reasoning state, which must equal, field for
// field, the state this process had when it made the checkpoint.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import type { ReasoningChange } from "../../src/domains/reasoning/compare.js";
import type { ReasoningState } from "../../src/domains/reasoning/model.js";
import { rejectsWith } from "../support/errors.js";
import { requireBuiltLibrary } from "../support/processes.js";
import { gitRepo, HOUR, MINUTE, nodeArgv, reasoningBench, T0, writeFile, type Bench } from "./support.js";

/** A session with a first checkpoint "before" and a second "after" that differs in every part. */
async function twoCheckpoints() {
  const bench = await reasoningBench();
  const { rs, clock } = bench;
  rs.hypotheses.add("the cache is stale", { status: "testing" }); // H1: confirmed later
  rs.hypotheses.add("the index is missing"); // H2: confidence moves, statement reworded
  rs.hypotheses.add("a race in the writer", { status: "testing" }); // H3: rejected later
  rs.hypotheses.add("the disk is slow"); // H4: goes to testing
  rs.beliefs.add("requests hit the cache"); // B1: retracted later
  rs.beliefs.add("the writer holds a lock"); // B2: links change
  rs.gaps.add("which version runs in prod?", { priority: "high" }); // G1: filled later
  rs.notes.add("started on the ticket");
  const before = await rs.checkpoint("before");
  clock.advance(90 * MINUTE);
  rs.hypotheses.update("H1", { status: "confirmed" });
  rs.hypotheses.addEvidence("H2", { kind: "supports", content: "EXPLAIN shows a full scan", source: "psql" });
  rs.hypotheses.update("H2", { statement: "the orders index is missing" });
  rs.hypotheses.update("H3", { status: "rejected" });
  rs.hypotheses.update("H4", { status: "testing" });
  rs.hypotheses.add("a bad deploy"); // H5
  rs.hypotheses.addEvidence(null, { kind: "neutral", content: "traffic was normal" });
  rs.beliefs.update("B1", { status: "retracted" });
  rs.beliefs.add("the slowness is in the database", { dependsOn: ["H2"] }); // B3
  rs.beliefs.update("B2", { supports: ["B3"] });
  await rs.verify("slow query test", nodeArgv("process.exit(0)"), { hypothesisId: "H2" });
  rs.gaps.fill("G1", "2.4.1");
  rs.gaps.add("who changed the schema?", { priority: "low" }); // G2
  rs.notes.add("the full scan explains it");
  await rs.run(nodeArgv("process.exit(0)"));
  rs.setTask("find why checkout is slow");
  const after = await rs.checkpoint("after");
  return { ...bench, before, after };
}

describe("typed compare", () => {
  it("lists every kind of change between two checkpoints", async () => {
    const { rs, before, after } = await twoCheckpoints();
    const cmp = await rs.compare(before.id, after.id);
    const expected: ReasoningChange[] = [
      { type: "task-changed", old: null, new: "find why checkout is slow" },
      { type: "hypothesis-status", id: "H1", old: "testing", new: "confirmed" },
      { type: "hypothesis-confidence", id: "H2", old: 0.5, new: 0.8 },
      { type: "hypothesis-updated", id: "H2", field: "statement", old: "the index is missing", new: "the orders index is missing" },
      { type: "hypothesis-status", id: "H3", old: "testing", new: "rejected" },
      { type: "hypothesis-status", id: "H4", old: "proposed", new: "testing" },
      { type: "hypothesis-added", id: "H5", statement: "a bad deploy", status: "proposed", confidence: 0.5 },
      { type: "evidence-added", id: "E1", hypothesisId: "H2", kind: "supports", content: "EXPLAIN shows a full scan" },
      { type: "evidence-added", id: "E2", hypothesisId: null, kind: "neutral", content: "traffic was normal" },
      expect.objectContaining({ type: "evidence-added", id: "E3", hypothesisId: "H2", kind: "supports" }) as ReasoningChange,
      { type: "belief-status", id: "B1", old: "held", new: "retracted" },
      { type: "belief-updated", id: "B2", field: "supports", old: [], new: ["B3"] },
      { type: "belief-added", id: "B3", statement: "the slowness is in the database", confidence: 0.7 },
      { type: "verification-added", id: "V1", name: "slow query test", passed: true },
      { type: "gap-filled", id: "G1", question: "which version runs in prod?", answer: "2.4.1" },
      { type: "gap-added", id: "G2", question: "who changed the schema?", priority: "low" },
      { type: "note-added", id: "N2", text: "the full scan explains it" },
      expect.objectContaining({ type: "command-added", id: "C1", exitCode: 0 }) as ReasoningChange,
    ];
    expect(cmp.changes).toEqual(expected);
    expect(cmp.from).toEqual({ label: `#${before.seq}`, at: before.createdAt.toISOString() });
    expect(cmp.to).toEqual({ label: `#${after.seq}`, at: after.createdAt.toISOString() });
  });

  it("says in its summary which hypotheses were confirmed and which rejected", async () => {
    const { rs, before, after } = await twoCheckpoints();
    const { summary } = await rs.compare(before.id, after.id);
    expect(summary).toMatch(/H1 was confirmed/);
    expect(summary).toMatch(/H3 was rejected/);
    expect(summary).toMatch(/H4 went from proposed to testing/);
    expect(summary).toMatch(/1 belief was retracted/);
    expect(summary).toMatch(/1 gap filled/);
    expect(summary).toMatch(/1h 30m/);
  });

  it("reports beliefs' dependency and contradiction links that changed", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("a");
    rs.beliefs.add("b");
    rs.beliefs.add("c");
    const a = await rs.checkpoint("a");
    rs.beliefs.update("B3", { dependsOn: ["B1"], contradicts: ["B2"] });
    rs.beliefs.update("B1", { confidence: 0.3 });
    const b = await rs.checkpoint("b");
    expect((await rs.compare(a.id, b.id)).changes).toEqual([
      { type: "belief-confidence", id: "B1", old: 0.7, new: 0.3 },
      { type: "belief-updated", id: "B3", field: "dependsOn", old: [], new: ["B1"] },
      { type: "belief-updated", id: "B3", field: "contradicts", old: [], new: ["B2"] },
    ]);
  });

  it("compares a checkpoint with the unsaved working state", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x");
    const cp = await rs.checkpoint("start");
    rs.notes.add("not saved yet");
    const cmp = await rs.compare(cp.id, "working");
    expect(cmp.to.label).toBe("working state");
    expect(cmp.changes).toEqual([{ type: "note-added", id: "N1", text: "not saved yet" }]);
  });

  it("reports the code that changed between captures", async () => {
    const { rs } = await reasoningBench();
    const repo = gitRepo();
    rs.captureCode({ cwd: repo.root });
    const a = await rs.checkpoint("clean");
    writeFile(repo.root, "app.txt", "two\n");
    rs.captureCode({ cwd: repo.root });
    const b = await rs.checkpoint("patched");
    expect((await rs.compare(a.id, b.id)).changes).toEqual([{ type: "code-changed", oldCommit: repo.commit, newCommit: repo.commit, patchChanged: true }]);
  });

  it("says nothing changed between two checkpoints of the same state", async () => {
    const { rs, clock } = await reasoningBench();
    rs.hypotheses.add("x");
    const a = await rs.checkpoint("one");
    clock.advance(2 * MINUTE);
    const b = await rs.checkpoint("two");
    const cmp = await rs.compare(a.id, b.id);
    expect(cmp.changes).toEqual([]);
    expect(cmp.summary).toBe(`Nothing changed between #${a.seq} and #${b.seq} (2m 0s).`);
  });
});

describe("time travel with at()", () => {
  it("answers what the agent believed two hours ago: the checkpoint then and its state", async () => {
    const { rs, clock } = await reasoningBench();
    rs.hypotheses.add("the cache is stale", { status: "testing", confidence: 0.6 });
    rs.beliefs.add("requests hit the cache");
    const morning = await rs.checkpoint("morning"); // 09:00
    clock.advance(HOUR); // 10:00
    rs.hypotheses.addEvidence("H1", { kind: "supports", content: "the TTL is a day" });
    const mid = await rs.checkpoint("mid-morning");
    clock.advance(HOUR + 5 * MINUTE); // 11:05
    rs.hypotheses.update("H1", { status: "confirmed" });
    await rs.save();
    expect(rs.hypotheses.get("H1").status).toBe("confirmed");

    const then = await rs.at("2 hours ago"); // 09:05
    expect(then?.checkpoint.id).toBe(morning.id);
    expect(then?.state.hypotheses).toEqual([expect.objectContaining({ id: "H1", status: "testing", confidence: 0.6 })]);
    expect(then?.state.beliefs.map((b) => b.statement)).toEqual(["requests hit the cache"]);

    const later = await rs.at("1 hour ago"); // 10:05
    expect(later?.checkpoint.id).toBe(mid.id);
    expect(later?.state.hypotheses[0]).toMatchObject({ status: "testing", confidence: 0.75 });
  });

  it("takes an exact time as well as a phrase", async () => {
    const { rs, clock } = await reasoningBench();
    rs.hypotheses.add("x");
    const first = await rs.checkpoint("first");
    clock.advance(30 * MINUTE);
    rs.hypotheses.add("y");
    const second = await rs.checkpoint("second");
    expect((await rs.at(new Date(T0 + 29 * MINUTE)))?.checkpoint.id).toBe(first.id);
    expect((await rs.at(T0 + 30 * MINUTE))?.checkpoint.id).toBe(second.id);
    expect((await rs.at(new Date(T0 + 10 * MINUTE).toISOString()))?.state.hypotheses).toHaveLength(1);
  });

  it("returns undefined for a time before the first checkpoint", async () => {
    const { rs, clock } = await reasoningBench();
    clock.advance(3 * HOUR);
    rs.hypotheses.add("x");
    await rs.checkpoint("late");
    expect(await rs.at("2 hours ago")).toBeUndefined();
  });

  it("refuses a phrase that is not a time", async () => {
    const { rs } = await reasoningBench();
    await rs.checkpoint("x");
    await rejectsWith(rs.at("when the build broke"), "INVALID_TIME");
  });
});

describe("brief and recovery", () => {
  it("briefs the working state in Markdown: task, open hypotheses, contradictions, open questions", async () => {
    const { rs } = await reasoningBench("checkout-bug");
    rs.setTask("find why checkout is slow");
    rs.hypotheses.add("the index is missing", { status: "testing", confidence: 0.7 });
    rs.hypotheses.add("the cache is stale");
    rs.hypotheses.update("H2", { status: "rejected" });
    rs.beliefs.add("a", { dependsOn: ["H2"] });
    rs.gaps.add("who changed the schema?", { priority: "critical" });
    const cp = await rs.checkpoint("start");
    const { markdown, input } = await rs.brief();
    expect(markdown).toMatch(/^# Brief: checkout-bug \(branch main\)/);
    expect(markdown).toContain("**Task:** find why checkout is slow");
    expect(markdown).toContain(`**From:** checkpoint #1 ${cp.id.slice(0, 10)} "start"`);
    expect(markdown).toContain("H1 [testing, 0.70, evidence +0/−0] the index is missing");
    expect(markdown).toContain("H2 **rejected**");
    expect(markdown).toContain("⚠ contradiction: B1 is held but rests on H2 (rejected)");
    expect(markdown).toContain("G1 [critical] who changed the schema?");
    expect(markdown).not.toContain("there is work since it");
    expect(input.unsaved).toBe(false);
  });

  it("says there is work since the checkpoint when the working state was saved after it", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x");
    await rs.checkpoint("start");
    rs.notes.add("saved, not checkpointed");
    await rs.save();
    const { markdown, input } = await rs.brief();
    expect(input.unsaved).toBe(true);
    expect(markdown).toContain("there is work since it");
  });

  // brief() renders this object's in-memory state, so "unsaved" must compare that state
  // with HEAD too — not the stored working state, which does not have the note yet.
  it("says there is work since the checkpoint when the brief shows changes not saved yet", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x");
    await rs.checkpoint("start");
    rs.notes.add("in memory only");
    const { markdown, input } = await rs.brief();
    expect(markdown).toContain("in memory only");
    expect(input.unsaved).toBe(true);
    expect(markdown).toContain("there is work since it");
  });

  it("briefs a checkpoint as it was", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("old idea");
    const cp = await rs.checkpoint("first");
    rs.hypotheses.add("new idea");
    await rs.save();
    const { markdown, input } = await rs.brief(cp.id);
    expect(input.state.hypotheses).toHaveLength(1);
    expect(markdown).toContain("old idea");
    expect(markdown).not.toContain("new idea");
  });

  it("recovers from the latest checkpoint with the code, the environment and the commands to replay", async () => {
    const { rs } = await reasoningBench("rec");
    const repo = gitRepo();
    writeFile(repo.root, "app.txt", "two\n");
    rs.captureCode({ cwd: repo.root, env: { NODE_ENV: "test" } });
    await rs.run(nodeArgv("process.exit(0)"), { cwd: repo.root });
    rs.hypotheses.add("the fix works", { status: "testing" });
    const cp = await rs.checkpoint("before lunch");
    const r = await rs.recover();
    expect(r.checkpoint.id).toBe(cp.id);
    expect(r.patch).toContain("+two");
    expect(r.recentCommands).toHaveLength(1);
    const titles = r.steps.map((s) => s.title);
    expect(titles[0]).toBe("Bring back the reasoning state");
    expect(r.steps[0]?.commands[0]).toBe(`forge --session rec checkpoint restore ${cp.id.slice(0, 12)}`);
    const code = r.steps.find((s) => s.title === "Restore the code");
    expect(code?.commands).toContain(`git checkout ${repo.commit}`);
    expect(r.steps.find((s) => s.title === "Set the environment")?.commands).toEqual(["export NODE_ENV=test"]);
    expect(r.steps.at(-1)?.note).toMatch(/continue testing H1/);
  });

  it("refuses to recover a session without a checkpoint", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x");
    await rs.save();
    await rejectsWith(rs.recover(), "NO_CHECKPOINT");
  });
});

const FIXTURE = fileURLToPath(new URL("./reconstruct-state.mjs", import.meta.url));
const run = promisify(execFile);

/** Fills every part of the session, as a debugging session would over half an hour. */
async function debuggingSession(bench: Bench): Promise<void> {
  const { rs, clock } = bench;
  const repo = gitRepo();
  rs.setTask("find why checkout is slow since 2.4");
  rs.captureCode({ cwd: repo.root, env: { NODE_ENV: "test" } });
  rs.hypotheses.add("the orders index is missing", { status: "testing", confidence: 0.6 });
  rs.hypotheses.add("the cache is stale");
  rs.hypotheses.add("a race in the writer", { status: "testing" });
  rs.gaps.add("which version runs in prod?", { priority: "critical" });
  rs.gaps.add("who changed the schema?", { priority: "low" });
  await rs.save();
  clock.advance(6 * MINUTE);
  rs.hypotheses.addEvidence("H1", { kind: "supports", content: "EXPLAIN shows a full scan on orders", source: "psql", strength: 0.8 });
  rs.hypotheses.addEvidence("H2", { kind: "refutes", content: "cache hit ratio is 2%", source: "grafana" });
  rs.hypotheses.addEvidence(null, { kind: "neutral", content: "traffic was normal that day" });
  rs.beliefs.add("the slowness is in the database", { dependsOn: ["H1"], confidence: 0.8 });
  rs.beliefs.add("the app servers are fine", { supports: ["B1"] });
  rs.beliefs.add("the cache explains the slowness", { dependsOn: ["H2"], contradicts: ["B1"] });
  rs.notes.add("slow only for accounts with > 10k orders", ["perf"]);
  await rs.save(); // a contradiction checkpoint
  clock.advance(7 * MINUTE);
  await rs.run(nodeArgv("console.log('12034 rows'); console.error('warning: seq scan')"), { cwd: repo.root });
  await rs.verify("slow query under 100 ms", nodeArgv("process.exit(1)"), { hypothesisId: "H1", cwd: repo.root });
  await rs.verify("no such tool", ["forge-test-no-such-tool-xyz"], { cwd: repo.root });
  rs.hypotheses.update("H2", { status: "rejected" });
  rs.gaps.fill("G1", "2.4.1", { filledBy: "N1" });
  await rs.save();
  clock.advance(9 * MINUTE);
  writeFile(repo.root, "app.txt", "one\nadd index on orders(account_id)\n");
  writeFile(repo.root, "migrations/0042.sql", "create index ...;\n");
  rs.captureCode({ cwd: repo.root, env: { NODE_ENV: "test" } });
  await rs.verify("slow query under 100 ms", nodeArgv("process.exit(0)"), { hypothesisId: "H1", cwd: repo.root });
  rs.hypotheses.update("H1", { status: "confirmed" });
  rs.notes.add("the index fixes it locally");
}

describe("reconstructing a debugging session from its checkpoint alone", () => {
  beforeAll(() => requireBuiltLibrary());

  it("gives, in a new process, exactly the state the session had at the checkpoint", async () => {
    const bench = await reasoningBench("checkout-bug");
    await debuggingSession(bench);
    const cp = await bench.rs.checkpoint("fix found");
    const live: ReasoningState = bench.rs.state();

    // The fixture must have every part to restore.
    expect(live.hypotheses.map((h) => h.status)).toEqual(["confirmed", "rejected", "testing"]);
    expect(live.evidence.length).toBeGreaterThanOrEqual(5);
    expect(live.beliefs).toHaveLength(3);
    expect(live.gaps.map((g) => g.status)).toEqual(["filled", "open"]);
    expect(live.verifications.map((v) => v.passed)).toEqual([false, false, true]);
    expect(live.commands).toHaveLength(1);
    expect(live.notes).toHaveLength(2);
    expect(live.code?.patch).toContain("add index");
    expect(live.code?.untracked).toEqual(["migrations/0042.sql"]);
    expect(live.task).not.toBeNull();

    // Work goes on after the checkpoint, so restoring it has something to undo.
    bench.clock.advance(20 * MINUTE);
    bench.rs.hypotheses.add("something else entirely");
    bench.rs.beliefs.update("B1", { status: "retracted" });
    bench.rs.notes.add("after the checkpoint");
    await bench.rs.checkpoint("later");

    const { stdout, stderr } = await run(process.execPath, [FIXTURE, bench.url, "checkout-bug", cp.id], { maxBuffer: 16 * 1024 * 1024 });
    expect(stderr).toBe("");
    const restored = JSON.parse(stdout) as unknown;
    expect(restored).toEqual(live);

    // And the restore the other process made is what this one now loads.
    await bench.rs.reload();
    expect(bench.rs.state()).toEqual(live);
  });
});
