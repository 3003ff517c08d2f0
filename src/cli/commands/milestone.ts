// `forge milestone …`: name a stretch of the timeline, see it as one change, keep its ends.
import { Command } from "commander";
import { countChanges } from "../../domains/workspace/names.js";
import type { FileChange } from "../../domains/workspace/workspace.js";
import type { Milestone } from "../../timeline/milestones.js";
import { run } from "../command.js";
import { ago, c, checkpointJson, checkpointLine, printJson, println } from "../output.js";
import { printStateChange, stateChangeJson } from "./checkpoint.js";

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
        const m = await (await ctx.session()).createMilestone(name, { from: opts.from, to: opts.to, description: opts.description });
        if (ctx.json) return printJson(milestoneJson(m));
        println(`${c.green("milestone")} ${c.bold(m.name)}: #${m.from.seq} → #${m.to.seq}${m.description ? `  ${m.description}` : ""}`);
      }),
    );

  cmd
    .command("list")
    .alias("ls")
    .description("the session's milestones, oldest first")
    .action(
      run(async (ctx) => {
        const session = await ctx.session();
        const list = await session.milestones();
        if (ctx.json) return printJson({ session: session.name, milestones: list.map(milestoneJson) });
        if (list.length === 0) return println(c.dim(`no milestones in session "${session.name}"`));
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
        const session = await ctx.session();
        const { describeMilestone } = await import("../../domains/combined-change.js");
        const r = await describeMilestone(await ctx.store(), session, name, { raw: opts.raw === true });
        const files = r.change.files;
        if (ctx.json) {
          return printJson({
            milestone: milestoneJson(r.milestone),
            checkpoints: r.checkpoints.map(checkpointJson),
            change: stateChangeJson(r.change),
            files: files === null ? null : { counts: countChanges(files), changes: files.map((f) => ({ path: f.path, kind: f.kind, ...(f.from !== undefined && { from: f.from }) })) },
          });
        }
        const m = r.milestone;
        println(`${c.bold(`milestone ${m.name}`)}: #${m.from.seq} → #${m.to.seq}, ${r.checkpoints.length} checkpoints`);
        if (m.description) println(`  ${m.description}`);
        println();
        for (const cp of [...r.checkpoints].reverse()) println(checkpointLine(cp));
        println();
        printStateChange(r.change);
        if (files !== null) {
          const n = countChanges(files);
          println();
          println(c.bold(`files: ${files.length} changed (${n.created} created, ${n.modified} modified, ${n.deleted} deleted, ${n.renamed} renamed)`));
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
        const m = await (await ctx.session()).deleteMilestone(name);
        if (ctx.json) return printJson({ deleted: milestoneJson(m) });
        println(`deleted milestone ${m.name} (#${m.from.seq} → #${m.to.seq})`);
      }),
    );

  return cmd;
}

function milestoneJson(m: Milestone): Record<string, unknown> {
  return { name: m.name, session: m.session, description: m.description, createdAt: m.createdAt.toISOString(), from: checkpointJson(m.from), to: checkpointJson(m.to) };
}

function fileLine(f: FileChange): string {
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
