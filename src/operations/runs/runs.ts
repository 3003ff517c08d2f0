// runs_list, runs_show, runs_load, runs_delete, runs_prune: the workflow runs a RunStore
// saved — look at them, read a node's bytes, clean up old runs and overwritten saves.
import { ForgeError, InvalidArgumentError } from "../../core/errors.js";
import { parsePastTime } from "../../core/time.js";
import { RunStore, type RunCheckpointInfo } from "../../integrations/runs/run-store.js";
import type { OperationContext } from "../context.js";
import { defineOperation, type Z } from "../operation.js";

/** A save as JSON: its time as ISO text. */
export interface RunSaveJson {
  readonly runId: string;
  readonly nodeId: string;
  /** The save's place in its run: increasing, never reused. */
  readonly sequence: number;
  readonly timestamp: string;
  /** Length of the saved bytes. */
  readonly size: number;
  /** The Forge checkpoint holding it. */
  readonly checkpointId: string;
}

export interface RunJson {
  readonly runId: string;
  /** Nodes with a current save. */
  readonly nodes: number;
  /** Saves kept, earlier iterations included. */
  readonly saves: number;
  readonly createdAt: string;
  /** When the last save was made (the run's creation if none is left). */
  readonly updatedAt: string;
}

const saveJson = (i: RunCheckpointInfo): RunSaveJson => ({ ...i, timestamp: i.timestamp.toISOString() });

async function runStore(ctx: OperationContext): Promise<RunStore> {
  return new RunStore(await ctx.store());
}

/**
 * `olderThan` as a past time by the store's clock: "older than tomorrow" would match every
 * run, and runs_delete would delete them all for a slip of the keyboard.
 */
async function olderThanTime(ctx: OperationContext, olderThan: string): Promise<Date> {
  return parsePastTime(olderThan, new Date((await ctx.store()).clock.now()));
}

const runField = (z: Z) => z.string().min(1).describe("the run id");
const olderThanField = (z: Z, what: string) => z.string().min(1).optional().describe(`${what} ("7 days ago", a date)`);

export const runsListOperation = defineOperation({
  name: "runs_list",
  title: "List workflow runs",
  description: "The workflow runs saved through the run store, most recently saved first, with their nodes and saves.",
  effect: "read",
  input: (z) => ({ olderThan: olderThanField(z, "only runs whose last save is before this") }),
  run: async (ctx, input): Promise<{ readonly runs: readonly RunJson[] }> => {
    const runs = await (await runStore(ctx)).listRuns(input.olderThan === undefined ? {} : { olderThan: await olderThanTime(ctx, input.olderThan) });
    return { runs: runs.map((r) => ({ ...r, createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString() })) };
  },
});

export const runsShowOperation = defineOperation({
  name: "runs_show",
  title: "Show a workflow run",
  description: "A run's current save of each node, ordered by sequence; with `history`, every save kept, overwritten ones included.",
  effect: "read",
  input: (z) => ({ runId: runField(z), history: z.boolean().default(false).describe("include overwritten saves") }),
  run: async (ctx, input): Promise<{ readonly runId: string; readonly saves: readonly RunSaveJson[] }> => {
    const store = await runStore(ctx);
    const saves = input.history ? await store.history(input.runId) : await store.list(input.runId);
    return { runId: input.runId, saves: saves.map(saveJson) };
  },
});

export interface RunLoadResult extends RunSaveJson {
  /** The saved bytes, base64. */
  readonly data: string;
}

export const runsLoadOperation = defineOperation({
  name: "runs_load",
  title: "Load a node's save",
  description: "The bytes a node saved last (`nodeId`), or of one save by its `sequence`, current or overwritten; base64 in `data`.",
  effect: "read",
  input: (z) => ({
    runId: runField(z),
    nodeId: z.string().min(1).optional().describe("the node (or give sequence)"),
    sequence: z.number().int().min(1).optional().describe("a particular save (or give nodeId)"),
  }),
  run: async (ctx, input): Promise<RunLoadResult> => {
    if ((input.nodeId === undefined) === (input.sequence === undefined)) throw new InvalidArgumentError("name a node or give a sequence (one of the two)");
    const store = await runStore(ctx);
    // The save first, then its bytes by its sequence: a save made in between cannot pair one save's facts with another's bytes.
    const saves = await store.history(input.runId, input.nodeId);
    const save = input.sequence === undefined ? saves.at(-1) : saves.find((s) => s.sequence === input.sequence);
    if (!save) {
      // The run store's own loads say what is missing, and how to list what there is.
      await (input.sequence === undefined ? store.load(input.runId, input.nodeId as string) : store.loadSequence(input.runId, input.sequence));
      throw new ForgeError("CONFLICT", `run "${input.runId}" changed while it was read`, { hint: "try again" });
    }
    const data = await store.loadSequence(input.runId, save.sequence);
    return { ...saveJson(save), data: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64") };
  },
});

export interface RunsDeleteResult {
  /** Runs deleted whole. */
  readonly deletedRuns: readonly string[];
  /** Saves deleted (those of the deleted runs included). */
  readonly deletedSaves: number;
}

export const runsDeleteOperation = defineOperation({
  name: "runs_delete",
  title: "Delete workflow runs",
  description:
    "Deletes a run with all its saves, one node's saves of it (`nodeId`), or (`olderThan`) every run not saved to since. Their space is freed by a gc.",
  effect: "destructive",
  input: (z) => ({
    runId: runField(z).optional(),
    nodeId: z.string().min(1).optional().describe("only this node's saves"),
    olderThan: olderThanField(z, "delete every run whose last save is before this"),
  }),
  run: async (ctx, input): Promise<RunsDeleteResult> => {
    const store = await runStore(ctx);
    if (input.olderThan !== undefined) {
      if (input.runId !== undefined || input.nodeId !== undefined) throw new InvalidArgumentError("give a run id or olderThan, not both");
      const old = await store.listRuns({ olderThan: await olderThanTime(ctx, input.olderThan) });
      const gone: string[] = [];
      let saves = 0;
      for (const r of old) {
        if (!(await store.deleteRun(r.runId))) continue;
        gone.push(r.runId);
        saves += r.saves;
      }
      return { deletedRuns: gone, deletedSaves: saves };
    }
    if (input.runId === undefined) throw new InvalidArgumentError("name the run to delete, or give olderThan");
    if (input.nodeId !== undefined) return { deletedRuns: [], deletedSaves: await store.delete(input.runId, input.nodeId) };
    const saves = (await store.history(input.runId)).length;
    return (await store.deleteRun(input.runId)) ? { deletedRuns: [input.runId], deletedSaves: saves } : { deletedRuns: [], deletedSaves: 0 };
  },
});

export const runsPruneOperation = defineOperation({
  name: "runs_prune",
  title: "Prune a workflow run",
  description: "Drops a run's overwritten saves, keeping each node's current one (and `keepEarlier` earlier ones per node).",
  effect: "destructive",
  input: (z) => ({ runId: runField(z), keepEarlier: z.number().int().min(0).default(0).describe("also keep this many earlier saves per node") }),
  run: async (ctx, input): Promise<{ readonly runId: string; readonly deletedSaves: number }> => ({
    runId: input.runId,
    deletedSaves: await (await runStore(ctx)).prune(input.runId, { keepEarlier: input.keepEarlier }),
  }),
});
