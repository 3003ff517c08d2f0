// "Reconstruct the full debugging session from checkpoints alone": a session with every
// part populated is checkpointed in this process and then changed further; a new Node
// process (reconstruct-state.mjs, on the built library in dist/) opens the same SQLite
// store, restores that checkpoint and prints its reasoning state, which must equal, field
// for field, the state this process had when it made the checkpoint.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import type { ReasoningState } from "../../src/domains/reasoning/model.js";
import { requireBuiltLibrary } from "../support/processes.js";
import { gitRepo, MINUTE, nodeArgv, reasoningBench, writeFile, type Bench } from "./support.js";

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
