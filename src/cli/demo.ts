// `forge demo`: the demo story (src/operations/demo/story.ts) played on a store — a fresh
// temporary one unless --store names one — and told for people.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import type { Narrator } from "../operations/demo/story.js";
import { run } from "./command.js";
import { reasoningChangeLine } from "./commands/reasoning.js";
import { bytes, c, localTime, printJson, println } from "./output.js";
import { renderTimeline } from "./timeline-graph.js";

export function demoCommand(): Command {
  return new Command("demo").description("play a short debugging story on a store and narrate it (a fresh temporary store unless --store is given)").action(
    run(async (ctx) => {
      const url = ctx.global.store ?? `sqlite:${join(mkdtempSync(join(tmpdir(), "forge-demo-")), ".forge", "forge.db")}`;
      const { playDemo } = await import("../operations/demo/story.js");
      const result = await playDemo(url, narrator(ctx.json ? () => undefined : println));
      if (ctx.json) printJson(result);
    }),
  );
}

/** The story on a terminal: colours, aligned times and sizes. */
function narrator(say: (line: string) => void): Narrator {
  return {
    title: (text) => say(c.bold(text)),
    line: say,
    aside: (text) => say(c.dim(text)),
    step: (at, text) => say(`${c.dim(localTime(at).slice(11, 16))}  ${text}`),
    checkpoint: (kind, cp) => {
      const tags = cp.tags.length ? c.magenta(` [${cp.tags.join(", ")}]`) : "";
      say(
        `       ${c.green("✓")} ${kind} checkpoint ${c.bold(`#${cp.seq}`)} "${cp.message}"${tags} — ${bytes(cp.sizes.logicalBytes)} of state, ${bytes(cp.sizes.newBytes)} new on disk`,
      );
    },
    warning: (text) => say(`       ${c.red("⚠")} ${text.trimStart()}`),
    changes: (summary, changes) => {
      say(`  ${summary}`);
      for (const ch of changes) say(`  ${reasoningChangeLine(ch)}`);
    },
    at: (cp) => say(`  checkpoint #${cp.seq} "${cp.message}" (${localTime(cp.createdAt)}):`),
    timeline: (tl, now) => {
      for (const line of renderTimeline(tl, now)) say(`  ${line}`);
    },
    quote: (markdown) => {
      for (const line of markdown.trimEnd().split("\n")) say(`  ${c.dim("│")} ${line}`);
    },
    gc: (deleted, freed, live) => say(`  gc freed ${deleted} objects (${bytes(freed)}); ${live} still in use`),
    fsck: (ok, objects, checkpoints) =>
      say(`  fsck: ${ok ? c.green("the store is whole") : c.red("damaged!")} (${objects} objects, ${checkpoints} checkpoints)`),
  };
}
