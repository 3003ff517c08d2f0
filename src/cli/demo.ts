// `forge demo`: a short debugging story played against a real store, narrated for people.
// An agent hunts a Q4_0 dequantization bug over three hours (a manual clock stands in for
// the hours): it keeps hypotheses, evidence, beliefs and questions in a reasoning session,
// runs real commands and checks, gets automatic checkpoints when its beliefs move, tries a
// risky experiment on a branch and walks away from it, compares, asks what it believed two
// hours ago, reads its brief, and prunes.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { ManualClock } from "../core/clock.js";
import type { SaveResult } from "../domains/reasoning/reasoning-session.js";
import type { Checkpoint } from "../timeline/types.js";
import { run } from "./command.js";
import { reasoningChangeLine } from "./commands/reasoning.js";
import { bytes, c, localTime, printJson, println } from "./output.js";
import { renderTimeline } from "./timeline-graph.js";

export function demoCommand(): Command {
  return new Command("demo")
    .description("play a short debugging story on a store and narrate it (a fresh temporary store unless --store is given)")
    .action(
      run(async (ctx) => {
        const url = ctx.global.store ?? `sqlite:${join(mkdtempSync(join(tmpdir(), "forge-demo-")), ".forge", "forge.db")}`;
        const events = await playDemo(url, ctx.json ? () => undefined : println);
        if (ctx.json) printJson(events);
      }),
    );
}

/** `node -e <script>` as an argv: a real command the demo can run anywhere Forge runs. */
function node(script: string): string[] {
  return [process.execPath, "-e", script];
}

export async function playDemo(url: string, say: (line: string) => void): Promise<{ store: string; session: string; checkpoints: string[] }> {
  // Loaded here, not when the CLI starts: only the demo needs them.
  const [{ openStore }, { ReasoningSession }] = await Promise.all([import("../timeline/store.js"), import("../domains/reasoning/reasoning-session.js")]);
  const clock = new ManualClock(Date.now() - 3 * 3_600_000);
  const store = await openStore(url, { clock });
  const made: string[] = [];
  try {
    const rs = await ReasoningSession.open(store, `q4-dequant-${Date.now().toString(36)}`);
    const step = (minutes: number, text: string) => {
      clock.advance(minutes * 60_000);
      say(`${c.dim(localTime(new Date(clock.now())).slice(11, 16))}  ${text}`);
    };
    const show = (cp: Checkpoint, kind: string) => {
      made.push(cp.id);
      const tags = cp.tags.length ? c.magenta(` [${cp.tags.join(", ")}]`) : "";
      say(`       ${c.green("✓")} ${kind} checkpoint ${c.bold(`#${cp.seq}`)} "${cp.message}"${tags} — ${bytes(cp.sizes.logicalBytes)} of state, ${bytes(cp.sizes.newBytes)} new on disk`);
    };
    const auto = (saved: SaveResult) => {
      if (saved.checkpoint) show(saved.checkpoint, "auto");
    };

    say(c.bold("Forge demo: a debugging session, checkpointed"));
    say(c.dim(`store: ${store.url}  session: ${rs.name}`));
    say("");

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
    say(c.dim(`       $ dump → ${dump.result.stdout.preview.trim()}`));
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
    say(`       H1 confidence is now ${rs.hypotheses.get("H1").confidence} (evidence moves it in log-odds); H2 is rejected`);

    step(40, "It fixes the offset and runs the unit test as a verification of H1.");
    const verified = await rs.update((r) => r.verify("q4_0 unit test", node("console.log('test q4_0::dequant ... ok'); process.exit(0)"), { hypothesisId: "H1" }));
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
    say(`       the check failed (${simd.result.verification.stderr.preview.trim()}) and a contradiction appeared:`);
    for (const x of rs.contradictions()) say(`       ${c.red("⚠")} ${x.description}`);

    step(20, "Bad experiment. It switches back to main; the SIMD attempt stays on its branch.");
    const back = await rs.switch("main");
    say(`       on main at #${back.checkpoint.seq}; H1 is ${rs.hypotheses.get("H1").status} at ${rs.hypotheses.get("H1").confidence}, no contradictions`);

    step(20, "On main it adds a regression test and answers the open question.");
    await rs.update((r) => {
      r.notes.add("regression test tests/q4_0_scale.rs compares 256 blocks with llama.cpp");
      r.gaps.fill("G1", "layer 12 has the most blocks with large scales, so the doubled scale shows most there");
    });
    show(await rs.checkpoint("Regression test for the scale offset", { tags: ["q4_0"] }), "manual");

    say("");
    say(c.bold(`What changed between #1 and #${good.seq}?`));
    const cmp = await rs.compare("#1", `#${good.seq}`);
    say(`  ${cmp.summary}`);
    for (const ch of cmp.changes.filter((x) => x.type !== "command-added")) say(`  ${reasoningChangeLine(ch)}`);

    say("");
    say(c.bold("Time travel: what did the agent believe two hours ago?"));
    const then = await rs.at("2 hours ago");
    if (then) {
      say(`  checkpoint #${then.checkpoint.seq} "${then.checkpoint.message}" (${localTime(then.checkpoint.createdAt)}):`);
      for (const h of then.state.hypotheses) say(`    ${h.id} ${h.status.padEnd(9)} ${h.confidence.toFixed(2)}  ${h.statement}`);
    }

    say("");
    say(c.bold("The timeline:"));
    const { timelineJson } = await import("../operations/checkpoint/read.js");
    for (const line of renderTimeline(timelineJson(await rs.session.timeline()), clock.now())) say(`  ${line}`);

    say("");
    say(c.bold("The brief an agent reads after its context was compacted (forge brief):"));
    for (const line of (await rs.brief()).markdown.trimEnd().split("\n")) say(`  ${c.dim("│")} ${line}`);

    say("");
    say(c.bold("Pruning with the design's retention (last hour, manual, significant, one per hour), then gc:"));
    const pruned = await rs.prune();
    say(`  deleted ${pruned.deleted.map((d) => `#${d.seq}`).join(", ") || "nothing"}; kept ${pruned.kept.map((k) => `#${k.checkpoint.seq} (${k.reason})`).join(", ")}`);
    const gc = await store.gc({ graceMs: 0 });
    say(`  gc freed ${gc.deleted} objects (${bytes(gc.bytesFreed)}); ${gc.live} still in use`);
    const fsck = await store.fsck();
    say(`  fsck: ${fsck.ok ? c.green("the store is whole") : c.red("damaged!")} (${fsck.objects} objects, ${fsck.checkpoints} checkpoints)`);

    say("");
    say(c.bold("Try it yourself on this store:"));
    say(`  forge --store ${store.url} --session ${rs.name} brief`);
    say(`  forge --store ${store.url} --session ${rs.name} checkpoint diff '#1' '#${good.seq}'`);
    say(`  forge --store ${store.url} --session ${rs.name} checkpoint timeline`);
    return { store: store.url, session: rs.name, checkpoints: made };
  } finally {
    await store.close();
  }
}
