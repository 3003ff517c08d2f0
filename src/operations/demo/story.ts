// `forge demo`'s story: a debugging session played against a real store. An agent hunts a
// Q4_0 dequantization bug over three hours (a manual clock stands in for the hours): it
// keeps hypotheses, evidence, beliefs and questions in a reasoning session, runs real
// commands and checks, gets automatic checkpoints when its beliefs move, tries a risky
// experiment on a branch and walks away from it, compares, asks what it believed two hours
// ago, reads its brief, and prunes. What happens is told to a Narrator; how it looks is the
// CLI's.
import { ManualClock } from "../../core/clock.js";
import type { ReasoningChange } from "../../domains/reasoning/compare.js";
import { ReasoningSession, type SaveResult } from "../../domains/reasoning/reasoning-session.js";
import { openStore } from "../../timeline/store.js";
import type { Checkpoint } from "../../timeline/types.js";
import { timelineJson, type TimelineResult } from "../checkpoint/read.js";
import { checkpointJson, type CheckpointJson } from "../shared.js";

/** Who tells the story: each call is one thing that happened. */
export interface Narrator {
  /** A heading. */
  title(text: string): void;
  /** A line of the story. */
  line(text: string): void;
  /** A line of lesser weight (where the store is, a command's output). */
  aside(text: string): void;
  /** A step of the story at a time of the manual clock. */
  step(at: Date, text: string): void;
  /** A checkpoint was made, by hand or by a trigger. */
  checkpoint(kind: "manual" | "auto", cp: CheckpointJson): void;
  /** Something is wrong (a contradiction). */
  warning(text: string): void;
  /** Typed changes between two checkpoints. */
  changes(summary: string, changes: readonly ReasoningChange[]): void;
  /** The checkpoint a time-travel question found. */
  at(cp: CheckpointJson): void;
  timeline(tl: TimelineResult, now: number): void;
  /** A document quoted whole (the brief). */
  quote(markdown: string): void;
  gc(deleted: number, bytesFreed: number, live: number): void;
  fsck(ok: boolean, objects: number, checkpoints: number): void;
}

export interface DemoResult {
  readonly store: string;
  readonly session: string;
  /** The checkpoints the story made, in order. */
  readonly checkpoints: readonly string[];
}

/** `node -e <script>` as an argv: a real command the demo can run anywhere Forge runs. */
function node(script: string): string[] {
  return [process.execPath, "-e", script];
}

export async function playDemo(url: string, n: Narrator): Promise<DemoResult> {
  const clock = new ManualClock(Date.now() - 3 * 3_600_000);
  const store = await openStore(url, { clock });
  const made: string[] = [];
  try {
    const rs = await ReasoningSession.open(store, `q4-dequant-${Date.now().toString(36)}`);
    const step = (minutes: number, text: string) => {
      clock.advance(minutes * 60_000);
      n.step(new Date(clock.now()), text);
    };
    const show = (cp: Checkpoint, kind: "manual" | "auto") => {
      made.push(cp.id);
      n.checkpoint(kind, checkpointJson(cp));
    };
    const auto = (saved: SaveResult) => {
      if (saved.checkpoint) show(saved.checkpoint, "auto");
    };

    n.title("Forge demo: a debugging session, checkpointed");
    n.aside(`store: ${store.url}  session: ${rs.name}`);
    n.line("");

    step(0, "The agent starts on a bug: Q4_0 weights come out wrong. Two hypotheses, one open question.");
    await rs.update((r) => {
      r.setTask("Q4_0 dequantized weights differ from the reference by a constant factor");
      r.hypotheses.add("the block scale is read with the wrong byte offset", { confidence: 0.4 });
      r.hypotheses.add("nibbles are unpacked in the wrong order", { confidence: 0.3 });
      r.gaps.add("why does layer 12 diverge more than the others?", { priority: "high" });
    });
    show(await rs.checkpoint("Initial observations"), "manual");

    step(35, "It dumps block 0 and compares with the reference (a real command, recorded in the history).");
    const dump = await rs.update((r) => r.run(node("console.log('block 0: scale 0.0246, reference 0.0123; nibbles 32/32 match')")));
    n.aside(`       $ dump → ${dump.result.stdout.preview.trim()}`);
    auto(
      (
        await rs.update((r) => {
          r.hypotheses.update("H1", { status: "testing" });
          r.hypotheses.addEvidence("H1", { kind: "supports", content: "block 0 scale is exactly twice the reference", source: dump.result.id });
          r.hypotheses.addEvidence("H2", { kind: "refutes", content: "all 32 nibbles match the reference", source: dump.result.id, strength: 1 });
          r.hypotheses.update("H2", { status: "rejected" });
        })
      ).saved,
    );
    n.line(`       H1 confidence is now ${rs.hypotheses.get("H1").confidence} (evidence moves it in log-odds); H2 is rejected`);

    step(40, "It fixes the offset and runs the unit test as a verification of H1.");
    const verified = await rs.update((r) =>
      r.verify("q4_0 unit test", node("console.log('test q4_0::dequant ... ok'); process.exit(0)"), { hypothesisId: "H1" }),
    );
    auto(verified.saved);
    auto((await rs.update((r) => r.hypotheses.update("H1", { status: "confirmed" }))).saved);
    await rs.update((r) => r.beliefs.add("the kernel must read the scale at byte 0 of each block", { dependsOn: ["H1"], confidence: 0.9 }));
    const good = await rs.checkpoint("After verifying Q4_0 dequant", { tags: ["q4_0", "verified"] });
    show(good, "manual");

    step(25, "It tries a risky speed-up on an experiment branch: a SIMD rewrite.");
    await rs.branch("simd");
    const simd = await rs.update((r) => {
      r.beliefs.add("the SIMD path can share the scalar scale loader", { contradicts: ["B1"], confidence: 0.6 });
      return r.verify("q4_0 unit test (SIMD)", node("console.error('assertion failed: NaN in block 3'); process.exit(101)"), { hypothesisId: "H1" });
    });
    auto(simd.saved);
    n.line(`       the check failed (${simd.result.verification.stderr.preview.trim()}) and a contradiction appeared:`);
    for (const x of rs.contradictions()) n.warning(`       ${x.description}`);

    step(20, "Bad experiment. It switches back to main; the SIMD attempt stays on its branch.");
    const back = await rs.switch("main");
    n.line(`       on main at #${back.checkpoint.seq}; H1 is ${rs.hypotheses.get("H1").status} at ${rs.hypotheses.get("H1").confidence}, no contradictions`);

    step(20, "On main it adds a regression test and answers the open question.");
    await rs.update((r) => {
      r.notes.add("regression test tests/q4_0_scale.rs compares 256 blocks with llama.cpp");
      r.gaps.fill("G1", "layer 12 has the most blocks with large scales, so the doubled scale shows most there");
    });
    show(await rs.checkpoint("Regression test for the scale offset", { tags: ["q4_0"] }), "manual");

    n.line("");
    n.title(`What changed between #1 and #${good.seq}?`);
    const cmp = await rs.compare("#1", `#${good.seq}`);
    n.changes(
      cmp.summary,
      cmp.changes.filter((x) => x.type !== "command-added"),
    );

    n.line("");
    n.title("Time travel: what did the agent believe two hours ago?");
    const then = await rs.at("2 hours ago");
    if (then) {
      n.at(checkpointJson(then.checkpoint));
      for (const h of then.state.hypotheses) n.line(`    ${h.id} ${h.status.padEnd(9)} ${h.confidence.toFixed(2)}  ${h.statement}`);
    }

    n.line("");
    n.title("The timeline:");
    n.timeline(timelineJson(await rs.session.timeline()), clock.now());

    n.line("");
    n.title("The brief an agent reads after its context was compacted (forge brief):");
    n.quote((await rs.brief()).markdown);

    n.line("");
    n.title("Pruning with the design's retention (last hour, manual, significant, one per hour), then gc:");
    const pruned = await rs.prune();
    n.line(
      `  deleted ${pruned.deleted.map((d) => `#${d.seq}`).join(", ") || "nothing"}; kept ${pruned.kept.map((k) => `#${k.checkpoint.seq} (${k.reason})`).join(", ")}`,
    );
    const gc = await store.gc({ graceMs: 0 });
    n.gc(gc.deleted, gc.bytesFreed, gc.live);
    const fsck = await store.fsck();
    n.fsck(fsck.ok, fsck.objects, fsck.checkpoints);

    n.line("");
    n.title("Try it yourself on this store:");
    n.line(`  forge --store ${store.url} --session ${rs.name} brief`);
    n.line(`  forge --store ${store.url} --session ${rs.name} checkpoint diff '#1' '#${good.seq}'`);
    n.line(`  forge --store ${store.url} --session ${rs.name} checkpoint timeline`);
    return { store: store.url, session: rs.name, checkpoints: made };
  } finally {
    await store.close();
  }
}
