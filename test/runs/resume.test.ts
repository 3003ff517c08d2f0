// `resume` after a real crash: a child process (test/fixtures/resume-run.mjs) runs named
// steps through the run store and is killed with SIGKILL — once while a step hangs, once
// at a random moment of a fast run, when it may be in the middle of a save. Started again
// with the same run id, it carries on after the last completed step and ends with exactly
// the result an uninterrupted run gives.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RunStore, resume, type Step } from "../../src/index.js";
import { pgStoreUrl } from "../support/postgres.js";
import { requireBuiltLibrary, runFixture } from "../support/processes.js";
import { makeTempDir, type TempDir } from "../support/temp.js";

interface Result {
  state: { trail: string[]; value: number };
  resumedAfter: string | null;
  ran: string[];
  skipped: string[];
}

/** What an uninterrupted run of `count` steps ends with (the fixture's arithmetic). */
function expected(count: number): Result["state"] {
  let value = 7;
  const trail: string[] = [];
  for (let k = 0; k < count; k++) {
    value = (value * 31 + k + 1) % 1_000_000_007;
    trail.push(`step-${k + 1}`);
  }
  return { trail, value };
}

async function runToEnd(url: string, runId: string, work: string, steps: number): Promise<{ lines: readonly string[]; result: Result }> {
  const f = runFixture("resume-run.mjs", [url, runId, work, String(steps)]);
  const exit = await f.exited;
  expect([exit.code, f.stderr()]).toEqual([0, ""]);
  const done = f.lines.find((l) => l.startsWith("done "));
  if (!done) throw new Error(`no result line in ${JSON.stringify(f.lines)}`);
  return { lines: f.lines, result: JSON.parse(done.slice(5)) as Result };
}

const executions = (work: string) => readFileSync(join(work, "executions.log"), "utf8").trim().split("\n");

const dirs: TempDir[] = [];
afterAll(() => {
  for (const d of dirs) d.remove();
});

for (const backend of ["sqlite", "postgres"] as const) {
  describe(`resume after SIGKILL (${backend})`, () => {
    const storeUrl = (dir: string) => (backend === "sqlite" ? `sqlite:${dir}/forge.db` : pgStoreUrl("resume"));

    it("killed while step 3 of 5 hangs, the rerun skips steps 1-2, runs 3-5 and gets the uninterrupted result", async () => {
      requireBuiltLibrary();
      const dir = makeTempDir("resume");
      dirs.push(dir);
      const url = storeUrl(dir.path);
      writeFileSync(join(dir.path, "hang-at"), "step-3");
      const first = runFixture("resume-run.mjs", [url, "job-1", dir.path, "5"]);
      await first.waitForLines(3, 60_000);
      expect(first.lines.slice(0, 3)).toEqual(["start step-1", "start step-2", "start step-3"]);
      first.child.kill("SIGKILL");
      expect((await first.exited).signal).toBe("SIGKILL");

      writeFileSync(join(dir.path, "hang-at"), "");
      const second = await runToEnd(url, "job-1", dir.path, 5);
      expect(second.lines[0]).toBe("resumed after step-2");
      expect(second.result).toEqual({ state: expected(5), resumedAfter: "step-2", ran: ["step-3", "step-4", "step-5"], skipped: ["step-1", "step-2"] });
      expect(executions(dir.path)).toEqual(["step-1", "step-2", "step-3", "step-3", "step-4", "step-5"]);

      // A finished run started again does nothing and returns the same result.
      const third = await runToEnd(url, "job-1", dir.path, 5);
      expect(third.result).toEqual({ state: expected(5), resumedAfter: "step-5", ran: [], skipped: ["step-1", "step-2", "step-3", "step-4", "step-5"] });
      expect(executions(dir.path)).toHaveLength(6);
    });

    it("killed at a random moment of a 120-step run (perhaps mid-save), the rerun finishes with the uninterrupted result", async () => {
      requireBuiltLibrary();
      const dir = makeTempDir("resume-random");
      dirs.push(dir);
      const url = storeUrl(dir.path);
      const first = runFixture("resume-run.mjs", [url, "job-2", dir.path, "120"]);
      await first.waitForLines(10 + Math.floor(Math.random() * 60), 60_000);
      first.child.kill("SIGKILL");
      await first.exited;
      const started = first.lines.length;

      const second = await runToEnd(url, "job-2", dir.path, 120);
      expect(second.result.state).toEqual(expected(120));
      // It resumed after a step the killed run had started, and ran each step at most twice
      // in all (the killed one, at most, again).
      const resumedAt = Number(second.result.resumedAfter?.replace("step-", ""));
      expect(resumedAt).toBeGreaterThanOrEqual(started - 1);
      expect(resumedAt).toBeLessThanOrEqual(started);
      const log = executions(dir.path);
      const counts = new Map<string, number>();
      for (const s of log) counts.set(s, (counts.get(s) ?? 0) + 1);
      expect([...counts.values()].every((n) => n <= 2)).toBe(true);
      expect(counts.size).toBe(120);
    });
  });
}

describe("resume (in process)", () => {
  it("refuses steps without names or with duplicate names, before running anything", async () => {
    const runs = await RunStore.open("memory:");
    let ran = 0;
    const step = (name: string): Step<number> => ({ name, run: (n) => (ran++, n + 1) });
    await expect(resume(runs, "r", [step("a"), step("a")], { initial: 0 })).rejects.toThrow(/two steps are named "a"/);
    await expect(resume(runs, "r", [step("")], { initial: 0 })).rejects.toThrow(/step 1 needs a non-empty name/);
    expect(ran).toBe(0);
    await runs.close();
  });

  it("a step that throws leaves the earlier steps saved, and the next start retries from it", async () => {
    const runs = await RunStore.open("memory:");
    let failOnce = true;
    const steps: Step<string[]>[] = [
      { name: "a", run: (s) => [...s, "a"] },
      {
        name: "b",
        run: (s) => {
          if (failOnce) {
            failOnce = false;
            throw new Error("flaky");
          }
          return [...s, "b"];
        },
      },
      { name: "c", run: (s) => [...s, "c"] },
    ];
    await expect(resume(runs, "r", steps, { initial: [] })).rejects.toThrow("flaky");
    expect((await runs.list("r")).map((i) => i.nodeId)).toEqual(["a"]);
    const done = await resume(runs, "r", steps, { initial: [] });
    expect(done).toEqual({ state: ["a", "b", "c"], resumedAfter: "a", ran: ["b", "c"], skipped: ["a"] });
    await runs.close();
  });

  it("custom encode/decode carry non-JSON state", async () => {
    const runs = await RunStore.open("memory:");
    const steps: Step<Map<string, number>>[] = [
      { name: "one", run: (m) => new Map([...m, ["one", 1]]) },
      { name: "two", run: (m) => new Map([...m, ["two", 2]]) },
    ];
    const codec = {
      encode: (m: Map<string, number>) => new TextEncoder().encode(JSON.stringify([...m])),
      decode: (b: Uint8Array) => new Map(JSON.parse(new TextDecoder().decode(b)) as [string, number][]),
    };
    await resume(runs, "m", steps.slice(0, 1), { initial: new Map(), ...codec });
    const result = await resume(runs, "m", steps, { initial: new Map(), ...codec });
    expect([...result.state]).toEqual([
      ["one", 1],
      ["two", 2],
    ]);
    expect(result.ran).toEqual(["two"]);
    await runs.close();
  });
});
