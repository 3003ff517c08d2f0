// `forge milestone …`: name a stretch of the timeline, see it as one change, keep its ends.
import { Command } from "commander";
import { plural } from "../../core/text.js";
import type { FileChangeJson } from "../../operations/shared.js";
import { run } from "../command.js";
import { ago, c, checkpointLine, printJson, println } from "../output.js";
import { printComparison } from "./checkpoint.js";

const ops = () => import("../../operations/milestone/milestones.js");

export function milestoneCommand(): Command {
  const cmd = new Command("milestone").description("name a stretch of the timeline, see it as one change; prune keeps its ends");

  cmd
    .command("create")
    .description("name the stretch from one checkpoint to a later one on its history")
    .argument("<name>", "milestone name (letters, digits, . _ - /)")
    .requiredOption("--from <ref>", "where the stretch starts: an ancestor of --to")
    .option("--to <ref>", "where it ends", "HEAD")
    .option("-d, --description <text>", "what was done in it", "")
    .action(
      run(async (ctx, name: string, opts: { from: string; to: string; description: string }) => {
        const m = await ctx.call((await ops()).milestoneCreateOperation, { name, from: opts.from, to: opts.to, description: opts.description });
        if (ctx.json) return printJson(m);
        println(`${c.green("milestone")} ${c.bold(m.name)}: #${m.from.seq} → #${m.to.seq}${m.description ? `  ${m.description}` : ""}`);
      }),
    );

  cmd
    .command("list")
    .alias("ls")
    .description("the session's milestones, oldest first")
    .action(
      run(async (ctx) => {
        const r = await ctx.call((await ops()).milestoneListOperation, {});
        if (ctx.json) return printJson(r);
        const list = r.milestones;
        if (list.length === 0) return println(c.dim(`no milestones in session "${r.session}"`));
        const width = Math.max(...list.map((m) => m.name.length));
        for (const m of list) {
          println(`${c.bold(m.name.padEnd(width))}  #${m.from.seq} → #${m.to.seq}  ${c.dim(ago(m.createdAt))}${m.description ? `  ${m.description}` : ""}`);
        }
      }),
    );

  cmd
    .command("show")
    .description("the combined change over a milestone (typed reasoning changes, file changes) and the checkpoints it spans")
    .argument("<name>", "milestone name")
    .option("--raw", "JSON paths even for a reasoning session")
    .action(
      run(async (ctx, name: string, opts: { raw?: boolean }) => {
        const r = await ctx.call((await ops()).milestoneShowOperation, { name, raw: opts.raw === true });
        if (ctx.json) return printJson(r);
        const m = r.milestone;
        println(`${c.bold(`milestone ${m.name}`)}: #${m.from.seq} → #${m.to.seq}, ${plural(r.checkpoints.length, "checkpoint")}`);
        if (m.description) println(`  ${m.description}`);
        println();
        for (const cp of [...r.checkpoints].reverse()) println(checkpointLine(cp));
        println();
        printComparison({ ...r.change, files: null });
        const files = r.change.files;
        if (files !== null) {
          const n = (kind: string) => files.filter((f) => f.kind === kind).length;
          println();
          println(
            c.bold(`files: ${files.length} changed (${n("created")} created, ${n("modified")} modified, ${n("deleted")} deleted, ${n("renamed")} renamed)`),
          );
          for (const f of files) println(fileLine(f));
        }
      }),
    );

  cmd
    .command("delete")
    .alias("rm")
    .description("delete a milestone (its checkpoints stay)")
    .argument("<name>", "milestone name")
    .action(
      run(async (ctx, name: string) => {
        const r = await ctx.call((await ops()).milestoneDeleteOperation, { name });
        if (ctx.json) return printJson(r);
        println(`deleted milestone ${r.deleted.name} (#${r.deleted.from.seq} → #${r.deleted.to.seq})`);
      }),
    );

  return cmd;
}

function fileLine(f: FileChangeJson): string {
  switch (f.kind) {
    case "created":
      return c.green(`A  ${f.path}`);
    case "modified":
      return c.yellow(`M  ${f.path}`);
    case "deleted":
      return c.red(`D  ${f.path}`);
    case "renamed":
      return c.cyan(`R  ${f.from} → ${f.path}`);
  }
}
