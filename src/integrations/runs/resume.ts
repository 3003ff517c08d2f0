// Crash-safe step runner over the run store: runs named async steps in order, saving the
// state after each; started again with the same run id (after a crash, a kill, a deploy),
// it loads the state the last completed step saved and carries on after that step.
import { InvalidArgumentError } from "../../core/errors.js";
import type { RunStore } from "./run-store.js";

export interface Step<S> {
  /** Unique within the steps; the node id its result is saved under. */
  readonly name: string;
  run(state: S, context: { readonly runId: string; readonly step: string; readonly index: number }): S | Promise<S>;
}

export interface ResumeOptions<S> {
  /** The state the first step gets on a fresh run. */
  readonly initial: S;
  /** State to bytes (default: JSON as UTF-8). */
  readonly encode?: (state: S) => Uint8Array;
  /** Bytes to state (default: JSON). */
  readonly decode?: (bytes: Uint8Array) => S;
  /** Told before each step runs, and which steps a resume skipped. */
  readonly onEvent?: (event: ResumeEvent) => void;
}

export type ResumeEvent =
  | { readonly type: "resumed"; readonly after: string; readonly skipped: readonly string[] }
  | { readonly type: "step"; readonly step: string; readonly index: number };

export interface ResumeResult<S> {
  readonly state: S;
  /** The step whose saved state this start picked up from; null on a fresh run. */
  readonly resumedAfter: string | null;
  /** Steps this start ran. */
  readonly ran: readonly string[];
  /** Steps completed by an earlier start and not run again. */
  readonly skipped: readonly string[];
}

const encodeJson = (state: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(state));
const decodeJson = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(bytes));

/** Runs `steps` for `runId`, resuming after the last step an earlier start completed. */
export async function resume<S>(runs: RunStore, runId: string, steps: readonly Step<S>[], options: ResumeOptions<S>): Promise<ResumeResult<S>> {
  const names = new Set<string>();
  for (const [i, step] of steps.entries()) {
    if (typeof step?.name !== "string" || step.name === "" || typeof step.run !== "function") {
      throw new InvalidArgumentError(`step ${i + 1} needs a non-empty name and a run function`);
    }
    if (names.has(step.name))
      throw new InvalidArgumentError(`two steps are named "${step.name}"`, "step names must be unique: they are the node ids saves go under");
    names.add(step.name);
  }
  const encode = options.encode ?? (encodeJson as (s: S) => Uint8Array);
  const decode = options.decode ?? (decodeJson as (b: Uint8Array) => S);

  // The newest save of one of these steps is where the last start got to.
  const saved = (await runs.history(runId)).filter((s) => names.has(s.nodeId));
  const last = saved.at(-1);
  let start = 0;
  let state = options.initial;
  let resumedAfter: string | null = null;
  if (last) {
    start = steps.findIndex((s) => s.name === last.nodeId) + 1;
    state = decode(await runs.loadSequence(runId, last.sequence));
    resumedAfter = last.nodeId;
    options.onEvent?.({ type: "resumed", after: last.nodeId, skipped: steps.slice(0, start).map((s) => s.name) });
  }
  const ran: string[] = [];
  for (let i = start; i < steps.length; i++) {
    const step = steps[i] as Step<S>;
    options.onEvent?.({ type: "step", step: step.name, index: i });
    state = await step.run(state, { runId, step: step.name, index: i });
    await runs.save(runId, step.name, encode(state));
    ran.push(step.name);
  }
  return { state, resumedAfter, ran, skipped: steps.slice(0, start).map((s) => s.name) };
}
