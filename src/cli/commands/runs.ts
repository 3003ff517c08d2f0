// `forge runs …`: the workflow runs a RunStore saved — look at them, read a node's bytes,
// clean up old runs.
import { writeFileSync } from "node:fs";
import { Command } from "commander";
import type { RunCheckpointInfo, RunStore } from "../../integrations/runs/run-store.js";
import { run, wholeNumber } from "../command.js";
import { UsageError, type CliContext } from "../context.js";
import { ago, bytes, c, printJson, println } from "../output.js";

async function runStore(ctx: CliContext): Promise<RunStore> {
  const { RunStore } = await import("../../integrations/runs/run-store.js");
  return new RunStore(await ctx.store());
}

const infoJson = (i: RunCheckpointInfo) => ({ ...i, timestamp: i.timestamp.toISOString() });

function printSaves(saves: readonly RunCheckpointInfo[]): void {
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
        const runs = await (await runStore(ctx)).listRuns(opts.olderThan === undefined ? {} : { olderThan: opts.olderThan });
        if (ctx.json) return printJson({ runs: runs.map((r) => ({ ...r, createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString() })) });
        if (runs.length === 0) return println(c.dim("no runs"));
        for (const r of runs) println(`${r.runId}  ${c.dim(`${r.nodes} node${r.nodes === 1 ? "" : "s"}, ${r.saves} save${r.saves === 1 ? "" : "s"}, last ${ago(r.updatedAt)}`)}`);
      }),
    );

  cmd
    .command("show")
    .description("a run's current save of each node (with --history, every save kept)")
    .argument("<run>", "the run id")
    .option("--history", "include overwritten saves")
    .action(
      run(async (ctx, runId: string, opts: { history?: boolean }) => {
        const store = await runStore(ctx);
        const saves = opts.history ? await store.history(runId) : await store.list(runId);
        if (ctx.json) return printJson({ runId, saves: saves.map(infoJson) });
        if (saves.length === 0) return println(c.dim(`no saves in run "${runId}"`));
        printSaves(saves);
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
        const store = await runStore(ctx);
        const data = opts.sequence !== undefined ? await store.loadSequence(runId, opts.sequence) : await store.load(runId, nodeId as string);
        if (opts.output) writeFileSync(opts.output, data);
        else process.stdout.write(data);
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
        const store = await runStore(ctx);
        if (opts.olderThan !== undefined) {
          if (runId !== undefined) throw new UsageError("give a run id or --older-than, not both");
          const old = await store.listRuns({ olderThan: opts.olderThan });
          for (const r of old) await store.deleteRun(r.runId);
          if (ctx.json) return printJson({ deletedRuns: old.map((r) => r.runId) });
          return println(`deleted ${old.length} run${old.length === 1 ? "" : "s"}${old.length ? c.dim(" (run forge gc to free their space)") : ""}`);
        }
        if (runId === undefined) throw new UsageError("name the run to delete, or give --older-than");
        if (nodeId !== undefined) {
          const n = await store.delete(runId, nodeId);
          if (ctx.json) return printJson({ runId, nodeId, deletedSaves: n });
          return println(n ? `deleted ${n} save${n === 1 ? "" : "s"} of node ${nodeId}` : c.dim(`run "${runId}" has no node "${nodeId}"`));
        }
        const gone = await store.deleteRun(runId);
        if (ctx.json) return printJson({ runId, deleted: gone });
        println(gone ? `deleted run ${runId}` : c.dim(`no run "${runId}"`));
      }),
    );

  cmd
    .command("prune")
    .description("drop a run's overwritten saves, keeping each node's current one")
    .argument("<run>", "the run id")
    .option("--keep-earlier <n>", "also keep this many earlier saves per node", wholeNumber, 0)
    .action(
      run(async (ctx, runId: string, opts: { keepEarlier: number }) => {
        const n = await (await runStore(ctx)).prune(runId, { keepEarlier: opts.keepEarlier });
        if (ctx.json) return printJson({ runId, deletedSaves: n });
        println(`deleted ${n} earlier save${n === 1 ? "" : "s"}`);
      }),
    );

  return cmd;
}
