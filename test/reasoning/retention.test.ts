// Pruning a reasoning session with the design's retention (ReasoningSession.prune() without
// rules): everything from the last hour, every manual checkpoint, every one tagged
// significant, milestone or keep, and the newest of every hour for all older time.
// The fixture spans three days on a ManualClock; which checkpoints stay is written down
// next to each one by hand, and checked against the rule as stated — not the library's planner.
import { describe, expect, it } from "vitest";
import type { Checkpoint } from "../../src/index.js";
import type { ReasoningSession } from "../../src/domains/reasoning/reasoning-session.js";
import { MINUTE, reasoningBench, T0, type Bench } from "./support.js";

type Kind =
  | "manual" // rs.checkpoint()
  | "auto" // a compaction warning
  | "status" // a hypothesis moved to testing: auto, not significant
  | "time" // a change five minutes or more after the last checkpoint
  | "significant" // a hypothesis confirmed or rejected
  | "milestone" // an auto checkpoint tagged milestone afterwards
  | "keep"; // an auto checkpoint tagged keep afterwards

interface Entry {
  /** Minutes after T0 (09:00 UTC, on the hour), so hour buckets are floor(at / 60). */
  readonly at: number;
  readonly kind: Kind;
  /** Whether the default reasoning retention keeps it, and the rule that does. */
  readonly expect: "manual" | "tag" | "hourly" | "recent" | "branch head" | "pruned";
}

/** The prune runs at 60 h (3,600 min): "the last hour" is from 3,540 min on. */
const NOW = 3600;

const FIXTURE: readonly Entry[] = [
  // Day 1, hour 0 (0–59)
  { at: 10, kind: "manual", expect: "manual" },
  { at: 20, kind: "auto", expect: "pruned" },
  { at: 40, kind: "status", expect: "hourly" },
  // hour 1 (60–119)
  { at: 65, kind: "significant", expect: "tag" },
  { at: 75, kind: "auto", expect: "pruned" },
  { at: 105, kind: "auto", expect: "hourly" },
  // hour 3 (180–239)
  { at: 200, kind: "milestone", expect: "tag" },
  { at: 215, kind: "status", expect: "pruned" },
  { at: 230, kind: "auto", expect: "hourly" },
  // Day 2, hour 24 (1440–1499)
  { at: 1445, kind: "auto", expect: "pruned" },
  { at: 1470, kind: "significant", expect: "tag" },
  { at: 1490, kind: "status", expect: "hourly" },
  // hour 26 (1560–1619)
  { at: 1560, kind: "auto", expect: "pruned" },
  { at: 1580, kind: "time", expect: "hourly" },
  // Day 3, hour 48 (2880–2939)
  { at: 2880, kind: "auto", expect: "pruned" },
  { at: 2890, kind: "keep", expect: "tag" },
  { at: 2900, kind: "auto", expect: "hourly" },
  // hour 49 (2940–2999): the manual one is not the newest of its hour
  { at: 2950, kind: "manual", expect: "manual" },
  { at: 2955, kind: "auto", expect: "hourly" },
  // hour 58 (3480–3539): just before the last hour
  { at: 3500, kind: "status", expect: "pruned" },
  { at: 3530, kind: "auto", expect: "hourly" },
  // hour 59 (3540–3599): the last hour
  { at: 3545, kind: "auto", expect: "recent" },
  { at: 3560, kind: "status", expect: "recent" },
  { at: 3590, kind: "auto", expect: "branch head" },
];

/** The retention rule as the design states it, applied to the fixture's own description. */
function keptByTheRule(entries: readonly Entry[], now: number): Set<number> {
  const newestOfHour = new Map<number, number>();
  for (const e of entries) newestOfHour.set(Math.floor(e.at / 60), Math.max(newestOfHour.get(Math.floor(e.at / 60)) ?? -1, e.at));
  const last = Math.max(...entries.map((e) => e.at));
  return new Set(
    entries
      .filter(
        (e) =>
          e.kind === "manual" ||
          e.kind === "significant" ||
          e.kind === "milestone" ||
          e.kind === "keep" ||
          e.at >= now - 60 ||
          newestOfHour.get(Math.floor(e.at / 60)) === e.at ||
          e.at === last,
      )
      .map((e) => e.at),
  );
}

/** Makes one checkpoint of `kind` at the clock's time. */
async function make(rs: ReasoningSession, kind: Kind, n: number): Promise<Checkpoint> {
  switch (kind) {
    case "manual":
      rs.notes.add(`note ${n}`);
      return rs.checkpoint(`by hand ${n}`);
    case "auto":
      return rs.compactionWarning();
    case "status": {
      const h = rs.hypotheses.add(`idea ${n}`);
      rs.hypotheses.update(h.id, { status: "testing" });
      return expectCheckpoint(await rs.save());
    }
    case "time":
      rs.notes.add(`note ${n}`);
      return expectCheckpoint(await rs.save());
    case "significant": {
      const h = rs.hypotheses.add(`idea ${n}`, { status: "testing" });
      rs.hypotheses.update(h.id, { status: n % 2 === 0 ? "confirmed" : "rejected" });
      return expectCheckpoint(await rs.save());
    }
    case "milestone":
    case "keep": {
      const cp = await rs.compactionWarning();
      return rs.session.tag(cp.id, kind);
    }
  }
}

function expectCheckpoint(saved: { checkpoint: Checkpoint | null }): Checkpoint {
  expect(saved.checkpoint).not.toBeNull();
  return saved.checkpoint as Checkpoint;
}

/** Builds the fixture; returns the checkpoint made for each entry, by its minute. */
async function buildFixture(bench: Bench): Promise<Map<number, Checkpoint>> {
  const made = new Map<number, Checkpoint>();
  for (const [n, e] of FIXTURE.entries()) {
    bench.clock.set(T0 + e.at * MINUTE);
    made.set(e.at, await make(bench.rs, e.kind, n));
  }
  bench.clock.set(T0 + NOW * MINUTE);
  return made;
}

describe("reasoning retention", () => {
  it("builds the fixture it describes: one checkpoint per entry, of the intended kind", async () => {
    const bench = await reasoningBench();
    const made = await buildFixture(bench);
    const listed = await bench.rs.session.list();
    expect(listed.map((c) => c.id)).toEqual(FIXTURE.map((e) => made.get(e.at)?.id));
    const triggers: Record<Kind, string> = {
      manual: "manual",
      auto: "compaction-warning",
      status: "hypothesis-status",
      time: "time",
      significant: "hypothesis-status",
      milestone: "compaction-warning",
      keep: "compaction-warning",
    };
    for (const [i, e] of FIXTURE.entries()) {
      const cp = listed[i] as Checkpoint;
      expect(cp.trigger, `entry at ${e.at}`).toBe(triggers[e.kind]);
      expect(cp.createdAt.getTime()).toBe(T0 + e.at * MINUTE);
      expect(cp.tags.includes("significant"), `entry at ${e.at}`).toBe(e.kind === "significant");
    }
  });

  it("agrees, in the fixture's hand-written expectations, with the rule as the design states it", () => {
    const byRule = keptByTheRule(FIXTURE, NOW);
    expect(FIXTURE.filter((e) => e.expect !== "pruned").map((e) => e.at)).toEqual(FIXTURE.filter((e) => byRule.has(e.at)).map((e) => e.at));
  });

  it("keeps exactly the last hour, the manual and significant/milestone/keep ones, and the newest of each older hour", async () => {
    const bench = await reasoningBench();
    const made = await buildFixture(bench);
    const idOf = (at: number) => made.get(at)?.id as string;
    const report = await bench.rs.prune();
    expect(report.dryRun).toBe(false);
    expect(report.deleted.map((c) => c.id).sort()).toEqual(
      FIXTURE.filter((e) => e.expect === "pruned")
        .map((e) => idOf(e.at))
        .sort(),
    );
    expect(report.kept.map((k) => k.checkpoint.id).sort()).toEqual(
      FIXTURE.filter((e) => e.expect !== "pruned")
        .map((e) => idOf(e.at))
        .sort(),
    );
    const remaining = await bench.rs.session.list();
    expect(remaining.map((c) => c.id)).toEqual(FIXTURE.filter((e) => e.expect !== "pruned").map((e) => idOf(e.at)));
  });

  it("gives the rule that kept each checkpoint", async () => {
    const bench = await reasoningBench();
    const made = await buildFixture(bench);
    const report = await bench.rs.prune();
    const reasons = new Map(report.kept.map((k) => [k.checkpoint.id, k.reason]));
    for (const e of FIXTURE) {
      if (e.expect === "pruned") continue;
      expect(reasons.get(made.get(e.at)?.id as string), `entry at ${e.at}`).toBe(e.expect);
    }
  });

  it("deletes nothing on a dry run, reporting the same plan", async () => {
    const bench = await reasoningBench();
    await buildFixture(bench);
    const dry = await bench.rs.prune({ dryRun: true });
    expect(dry.dryRun).toBe(true);
    expect(dry.deleted).toHaveLength(FIXTURE.filter((e) => e.expect === "pruned").length);
    expect(await bench.rs.session.list()).toHaveLength(FIXTURE.length);
    const real = await bench.rs.prune();
    expect(real.deleted.map((c) => c.id)).toEqual(dry.deleted.map((c) => c.id));
  });

  it("leaves a history whose kept checkpoints still chain to each other and still restore", async () => {
    const bench = await reasoningBench();
    const made = await buildFixture(bench);
    await bench.rs.prune();
    const remaining = await bench.rs.session.list();
    const keptIds = new Set(remaining.map((c) => c.id));
    for (const [i, cp] of remaining.entries()) {
      expect(cp.parentId).toBe(i === 0 ? null : remaining[i - 1]?.id);
    }
    expect(keptIds.has(made.get(10)?.id as string)).toBe(true);
    await bench.rs.restore(made.get(10)?.id as string);
    expect(bench.rs.notes.list().map((n) => n.text)).toEqual(["note 0"]);
    expect(bench.rs.hypotheses.list()).toEqual([]);
  });

  it("uses the rules it is given instead of the default", async () => {
    const bench = await reasoningBench();
    const made = await buildFixture(bench);
    const report = await bench.rs.prune({ keepLast: 3 });
    expect((await bench.rs.session.list()).map((c) => c.id)).toEqual([3545, 3560, 3590].map((at) => made.get(at)?.id));
    expect(report.policy).toEqual({ keepLast: 3 });
  });
});
