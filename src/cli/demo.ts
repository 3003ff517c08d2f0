// `forge demo`: a short debugging story played against a real store, narrated for people.
// An agent hunts a Q4_0 dequantization bug over three hours (a manual clock stands in for
// the hours), checkpoints as it goes, backs out of a bad experiment, branches, compares,
// asks what it believed two hours ago, and prunes.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { ManualClock } from "../core/clock.js";
import { openStore } from "../timeline/store.js";
import type { Checkpoint } from "../timeline/types.js";
import { changeLine } from "./commands/checkpoint.js";
import { run } from "./command.js";
import { bytes, c, localTime, printJson, println } from "./output.js";
import { renderTimeline } from "./timeline-graph.js";

interface Hypothesis {
  id: string;
  statement: string;
  status: "proposed" | "testing" | "confirmed" | "rejected";
  confidence: number;
  evidence: { kind: "supports" | "refutes"; content: string }[];
}

interface DebugState {
  task: string;
  hypotheses: Hypothesis[];
  notes: string[];
  commands: { cmd: string; exit: number }[];
  code: { file: string; patch: string };
}

export function demoCommand(): Command {
  return new Command("demo")
    .description("play a short debugging story on a store and narrate it (a fresh temporary store unless --store is given)")
    .action(
      run(async (ctx) => {
        const url = ctx.options.store ?? `sqlite:${join(mkdtempSync(join(tmpdir(), "forge-demo-")), ".forge", "forge.db")}`;
        const events = await playDemo(url, ctx.json ? () => undefined : println);
        if (ctx.json) printJson(events);
      }),
    );
}

export async function playDemo(url: string, say: (line: string) => void): Promise<{ store: string; checkpoints: string[] }> {
  const clock = new ManualClock(Date.now() - 3 * 3_600_000);
  const store = await openStore(url, { clock });
  const made: string[] = [];
  try {
    const session = await store.session(`q4-dequant-${Date.now().toString(36)}`, { kind: "reasoning" });
    const step = (minutes: number, text: string) => {
      clock.advance(minutes * 60_000);
      say(`${c.dim(localTime(new Date(clock.now())).slice(11, 16))}  ${text}`);
    };
    const saved = (cp: Checkpoint) => {
      made.push(cp.id);
      say(`       ${c.green("✓")} checkpoint ${c.bold(`#${cp.seq}`)} ${c.yellow(cp.id.slice(0, 10))} "${cp.message}"${cp.tags.length ? c.magenta(` [${cp.tags.join(", ")}]`) : ""} — ${bytes(cp.sizes.logicalBytes)} of state, ${bytes(cp.sizes.newBytes)} new on disk`);
    };

    say(c.bold("Forge demo: a debugging session, checkpointed"));
    say(c.dim(`store: ${store.url}  session: ${session.name}`));
    say("");

    const state: DebugState = {
      task: "Q4_0 dequantized weights differ from the reference by a constant factor",
      hypotheses: [
        { id: "H1", statement: "the block scale is read with the wrong byte offset", status: "proposed", confidence: 0.4, evidence: [] },
        { id: "H2", statement: "nibbles are unpacked in the wrong order", status: "proposed", confidence: 0.3, evidence: [] },
      ],
      notes: ["reference: llama.cpp dequantize_row_q4_0"],
      commands: [],
      code: { file: "src/quant/q4_0.rs", patch: "" },
    };
    step(0, "The agent starts on a bug: Q4_0 weights come out wrong. Two hypotheses.");
    saved(await session.checkpoint(state, { message: "Initial observations" }));

    step(35, "It dumps one block and compares with the reference: the scale is off, the nibbles are fine.");
    const h1 = state.hypotheses[0] as Hypothesis;
    const h2 = state.hypotheses[1] as Hypothesis;
    h1.status = "testing";
    h1.confidence = 0.7;
    h1.evidence.push({ kind: "supports", content: "scale 0.0123 read as 0.0246 at block 0" });
    h2.status = "rejected";
    h2.confidence = 0.05;
    h2.evidence.push({ kind: "refutes", content: "nibble order matches the reference for 32/32 values" });
    state.commands.push({ cmd: "cargo test q4_0::dump_block -- --nocapture", exit: 0 });
    saved(await session.checkpoint(state, { message: "Scale suspect, nibble order ruled out", tags: ["q4_0"] }));

    step(40, "A fix of the offset makes the unit test pass: H1 confirmed.");
    h1.status = "confirmed";
    h1.confidence = 0.95;
    h1.evidence.push({ kind: "supports", content: "cargo test q4_0 passes with offset 2 → 0" });
    state.code.patch = "- let d = f16::from_le_bytes([b[2], b[3]]);\n+ let d = f16::from_le_bytes([b[0], b[1]]);";
    state.commands.push({ cmd: "cargo test q4_0", exit: 0 });
    const verified = await session.checkpoint(state, { message: "After verifying Q4_0 dequant", tags: ["q4_0", "verified"] });
    saved(verified);

    step(45, "It then spends 45 minutes on a risky speed-up, a SIMD rewrite. The tests fail.");
    const risky = structuredClone(state);
    risky.code.patch += "\n+ unsafe { simd_dequant(block) }";
    risky.commands.push({ cmd: "cargo test q4_0", exit: 101 });
    (risky.hypotheses[0] as Hypothesis).confidence = 0.5;
    risky.notes.push("SIMD path gives NaNs for negative scales?");
    saved(await session.checkpoint(risky, { message: "SIMD rewrite attempt" }));

    step(20, `Bad experiment. It restores #${verified.seq}: HEAD moves back, the attempt stays on its branch.`);
    const restored = await session.restore(`#${verified.seq}`);
    say(`       ${c.cyan("↺")} restored #${restored.checkpoint.seq}; hypothesis H1 is back to ${(restored.state as DebugState).hypotheses[0]?.status} at ${(restored.state as DebugState).hypotheses[0]?.confidence}`);

    step(20, "A safer approach: keep the scalar path and add a regression test. The next checkpoint forks a branch.");
    const safer = restored.state as DebugState;
    safer.notes.push("regression test: tests/q4_0_scale.rs compares 256 blocks with llama.cpp");
    safer.commands.push({ cmd: "cargo test --test q4_0_scale", exit: 0 });
    const fork = await session.checkpoint(safer, { message: "Regression test for the scale offset", tags: ["q4_0"] });
    saved(fork);
    say(`       it went on branch ${c.cyan(fork.branch)}; the SIMD attempt is still on ${c.cyan("main")}`);

    say("");
    say(c.bold(`What changed between #${verified.seq} and #${fork.seq}?`));
    const cmp = await session.compare(`#${verified.seq}`, `#${fork.seq}`);
    say(`  ${cmp.summary}`);
    for (const ch of cmp.changes) say(`  ${changeLine(ch)}`);

    say("");
    say(c.bold("Time travel: what did the agent believe two hours ago?"));
    const then = await session.at("2 hours ago");
    if (then) {
      const s = (await session.state(then.id)) as DebugState;
      say(`  checkpoint #${then.seq} "${then.message}" (${localTime(then.createdAt)}):`);
      for (const h of s.hypotheses) say(`    ${h.id} ${h.status.padEnd(9)} ${h.confidence.toFixed(2)}  ${h.statement}`);
    }

    say("");
    say(c.bold("The timeline:"));
    for (const line of renderTimeline(await session.timeline(), clock.now())) say(`  ${line}`);

    say("");
    say(c.bold("Pruning: keep the last 3 (branch heads always stay), then collect the garbage."));
    const pruned = await session.prune({ keepLast: 3 });
    say(`  deleted ${pruned.deleted.map((d) => `#${d.seq}`).join(", ") || "nothing"}; kept ${pruned.kept.map((k) => `#${k.checkpoint.seq} (${k.reason})`).join(", ")}`);
    const gc = await store.gc({ graceMs: 0 });
    say(`  gc freed ${gc.deleted} objects (${bytes(gc.bytesFreed)}); ${gc.live} still in use`);
    const fsck = await store.fsck();
    say(`  fsck: ${fsck.ok ? c.green("the store is whole") : c.red("damaged!")} (${fsck.objects} objects, ${fsck.checkpoints} checkpoints)`);

    say("");
    say(c.bold("Try it yourself on this store:"));
    say(`  forge --store ${store.url} --session ${session.name} checkpoint timeline`);
    say(`  forge --store ${store.url} --session ${session.name} checkpoint diff '#${verified.seq}' main`);
    return { store: store.url, checkpoints: made };
  } finally {
    await store.close();
  }
}
