// `forge runs …` on a SQLite store that workflow code filled through the library.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, afterAll, describe, expect, it } from "vitest";
import { ManualClock, RunStore, Store } from "../../src/index.js";
import { forge as runForge, type Run } from "../support/cli.js";
import { makeTempDir, type TempDir } from "../support/temp.js";

const DAY = 24 * 3_600_000;

let dir: TempDir;
let url: string;

/** `forge --store URL ARGS` in the test's folder. */
function forge(args: string[]): Run {
  return runForge(dir.path, ["--store", url, ...args]);
}

beforeAll(async () => {
  dir = makeTempDir("runs-cli");
  url = `sqlite:${dir.path}/forge.db`;
  const clock = new ManualClock(Date.now() - 40 * DAY);
  const store = await Store.open(url, { clock });
  const runs = new RunStore(store);
  await runs.save("nightly-0401", "extract", new TextEncoder().encode('{"rows":3}'));
  clock.advance(39 * DAY);
  await runs.save("nightly-0510", "extract", new TextEncoder().encode('{"rows":5}'));
  await runs.save("nightly-0510", "load", Uint8Array.from([0, 1, 2, 255]));
  await runs.save("nightly-0510", "extract", new TextEncoder().encode('{"rows":6}'));
  await store.close();
});
afterAll(() => dir?.remove());

describe("forge runs", () => {
  it("list shows each run with its nodes and saves, newest first", () => {
    const r = forge(["runs", "list", "--json"]);
    expect(r.stderr).toBe("");
    const runs = (JSON.parse(r.stdout) as { runs: { runId: string; nodes: number; saves: number }[] }).runs;
    expect(runs.map((x) => [x.runId, x.nodes, x.saves])).toEqual([
      ["nightly-0510", 2, 3],
      ["nightly-0401", 1, 1],
    ]);
    expect(forge(["runs", "list"]).stdout).toMatch(/nightly-0510 {2}2 nodes, 3 saves, last/);
  });

  it("show gives the current save per node; --history every save", () => {
    const current = JSON.parse(forge(["runs", "show", "nightly-0510", "--json"]).stdout) as { saves: { nodeId: string; sequence: number }[] };
    expect(current.saves.map((s) => [s.nodeId, s.sequence])).toEqual([
      ["load", 2],
      ["extract", 3],
    ]);
    const all = JSON.parse(forge(["runs", "show", "nightly-0510", "--history", "--json"]).stdout) as { saves: { sequence: number }[] };
    expect(all.saves.map((s) => s.sequence)).toEqual([1, 2, 3]);
  });

  it("load writes a node's bytes, or an earlier save's, exactly", () => {
    expect(forge(["runs", "load", "nightly-0510", "extract"]).stdout).toBe('{"rows":6}');
    expect(forge(["runs", "load", "nightly-0510", "--sequence", "1"]).stdout).toBe('{"rows":5}');
    expect(forge(["runs", "load", "nightly-0510", "load", "--output", "out.bin"]).code).toBe(0);
    expect([...readFileSync(join(dir.path, "out.bin"))]).toEqual([0, 1, 2, 255]);
    const missing = forge(["runs", "load", "nightly-0510", "nope"]);
    expect([missing.code, missing.stderr.trim()]).toEqual([
      1,
      'forge: no checkpoint of node "nope" in run "nightly-0510" (`forge runs show nightly-0510` lists its nodes)',
    ]);
    expect(forge(["runs", "load", "nightly-0510"]).code).toBe(2);
  });

  it("load --json gives the save it read, with its bytes in base64", () => {
    const r = JSON.parse(forge(["runs", "load", "nightly-0510", "load", "--json"]).stdout) as {
      runId: string;
      nodeId: string;
      sequence: number;
      size: number;
      timestamp: string;
      data: string;
    };
    expect([r.runId, r.nodeId, r.sequence, r.size, typeof r.timestamp]).toEqual(["nightly-0510", "load", 2, 4, "string"]);
    expect([...Buffer.from(r.data, "base64")]).toEqual([0, 1, 2, 255]);
    const earlier = JSON.parse(forge(["runs", "load", "nightly-0510", "--sequence", "1", "--json"]).stdout) as { nodeId: string; data: string };
    expect([earlier.nodeId, Buffer.from(earlier.data, "base64").toString()]).toEqual(["extract", '{"rows":5}']);
  });

  it("delete --older-than removes the runs not saved to since, and only those", () => {
    const r = forge(["runs", "delete", "--older-than", "30 days ago", "--json"]);
    expect(JSON.parse(r.stdout)).toEqual({ deletedRuns: ["nightly-0401"], deletedSaves: 1 });
    expect((JSON.parse(forge(["runs", "list", "--json"]).stdout) as { runs: unknown[] }).runs).toHaveLength(1);
    expect(forge(["runs", "delete", "nightly-0510", "load"]).stdout).toMatch(/deleted 1 save of node load/);
    expect(forge(["runs", "delete", "nightly-0510", "load"]).stdout).toMatch(/run "nightly-0510" has no node "load"/);
    expect(JSON.parse(forge(["runs", "prune", "nightly-0510", "--json"]).stdout)).toEqual({ runId: "nightly-0510", deletedSaves: 1 });
    expect(JSON.parse(forge(["runs", "delete", "nightly-0510", "--json"]).stdout)).toEqual({ deletedRuns: ["nightly-0510"], deletedSaves: 1 });
    expect(forge(["runs", "delete", "nightly-0510"]).stdout).toMatch(/no run "nightly-0510"/);
    expect(forge(["runs", "list"]).stdout).toMatch(/no runs/);
  });

  it("delete RUN says which run went", async () => {
    const store = await Store.open(url);
    await new RunStore(store).save("adhoc", "only", Uint8Array.from([1]));
    await store.close();
    expect(forge(["runs", "delete", "adhoc"]).stdout).toBe("deleted run adhoc\n");
  });
});
