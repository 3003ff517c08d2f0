// `forge runs …`: the workflow runs a RunStore saved — look at them, read a node's bytes,
// clean up old runs.
import { Command } from "commander";
import { writeFileAtomic } from "../../core/files.js";
import { plural } from "../../core/text.js";
import type { RunSaveJson } from "../../operations/runs/runs.js";
import { run, wholeNumber } from "../command.js";
import { UsageError } from "../context.js";
import { ago, bytes, c, printJson, println, writeOut } from "../output.js";

const ops = () => import("../../operations/runs/runs.js");

function printSaves(saves: readonly RunSaveJson[]): void {
  for (const s of saves) println(`${c.dim(`#${s.sequence}`.padStart(5))}  ${s.nodeId}  ${c.dim(`${bytes(s.size)}, ${ago(s.timestamp)}`)}`);
}

export function runsCommand(): Command {
  const cmd = new Command("runs").description("workflow runs saved through the run store (RunStore, resume)");

  cmd
    .command("list")
    .description("the runs, most recently saved first")
    .option("--older-than <time>", 'only runs whose last save is before this ("7 days ago", a date)')
    .action(
      run(async (ctx, opts: { olderThan?: string }) => {
        const r = await ctx.call((await ops()).runsListOperation, { ...(opts.olderThan !== undefined && { olderThan: opts.olderThan }) });
        if (ctx.json) return printJson(r);
        if (r.runs.length === 0) return println(c.dim("no runs"));
        for (const x of r.runs) println(`${x.runId}  ${c.dim(`${plural(x.nodes, "node")}, ${plural(x.saves, "save")}, last ${ago(x.updatedAt)}`)}`);
      }),
    );

  cmd
    .command("show")
    .description("a run's current save of each node (with --history, every save kept)")
    .argument("<run>", "the run id")
    .option("--history", "include overwritten saves")
    .action(
      run(async (ctx, runId: string, opts: { history?: boolean }) => {
        const r = await ctx.call((await ops()).runsShowOperation, { runId, history: opts.history === true });
        if (ctx.json) return printJson(r);
        if (r.saves.length === 0) return println(c.dim(`no saves in run "${runId}"`));
        printSaves(r.saves);
      }),
    );

  cmd
    .command("load")
    .description("write the bytes a node saved to a file (or standard output)")
    .argument("<run>", "the run id")
    .argument("[node]", "the node id (omit with --sequence)")
    .option("--sequence <n>", "a particular save, current or overwritten", wholeNumber)
    .option("--output <file>", "write here instead of standard output")
    .action(
      run(async (ctx, runId: string, nodeId: string | undefined, opts: { sequence?: number; output?: string }) => {
        if ((nodeId === undefined) === (opts.sequence === undefined)) throw new UsageError("name a node or give --sequence (one of the two)");
        const r = await ctx.call((await ops()).runsLoadOperation, {
          runId,
          ...(nodeId !== undefined && { nodeId }),
          ...(opts.sequence !== undefined && { sequence: opts.sequence }),
        });
        const data = Buffer.from(r.data, "base64");
        if (opts.output) writeFileAtomic(opts.output, data);
        // --json gives the save with its bytes in base64; otherwise the bytes are the output.
        if (ctx.json) printJson(r);
        else if (!opts.output) writeOut(data);
      }),
    );

  cmd
    .command("delete")
    .description("delete a run, one node of it, or (--older-than) every run not saved to since")
    .argument("[run]", "the run id")
    .argument("[node]", "only this node's saves")
    .option("--older-than <time>", 'delete every run whose last save is before this ("30 days ago")')
    .action(
      run(async (ctx, runId: string | undefined, nodeId: string | undefined, opts: { olderThan?: string }) => {
        if (opts.olderThan !== undefined && runId !== undefined) throw new UsageError("give a run id or --older-than, not both");
        if (opts.olderThan === undefined && runId === undefined) throw new UsageError("name the run to delete, or give --older-than");
        const r = await ctx.call((await ops()).runsDeleteOperation, {
          ...(runId !== undefined && { runId }),
          ...(nodeId !== undefined && { nodeId }),
          ...(opts.olderThan !== undefined && { olderThan: opts.olderThan }),
        });
        if (ctx.json) return printJson(r);
        const n = r.deletedRuns.length;
        if (opts.olderThan !== undefined) return println(`deleted ${plural(n, "run")}${n ? c.dim(" (run forge gc to free their space)") : ""}`);
        if (nodeId !== undefined) {
          const saves = r.deletedSaves;
          return println(saves ? `deleted ${plural(saves, "save")} of node ${nodeId}` : c.dim(`run "${runId}" has no node "${nodeId}"`));
        }
        println(n ? `deleted run ${runId}` : c.dim(`no run "${runId}"`));
      }),
    );

  cmd
    .command("prune")
    .description("drop a run's overwritten saves, keeping each node's current one")
    .argument("<run>", "the run id")
    .option("--keep-earlier <n>", "also keep this many earlier saves per node", wholeNumber, 0)
    .action(
      run(async (ctx, runId: string, opts: { keepEarlier: number }) => {
        const r = await ctx.call((await ops()).runsPruneOperation, { runId, keepEarlier: opts.keepEarlier });
        if (ctx.json) return printJson(r);
        println(`deleted ${plural(r.deletedSaves, "earlier save")}`);
      }),
    );

  return cmd;
}
