// Watching a session (and its workspace's files) from a long-running process: `startWatch`
// starts the watcher and hands back its handle, and tells the caller every event as plain
// JSON (ISO times, checkpoints as `checkpointJson`) — what `forge watch --json` prints, one
// event a line. Not an MCP tool: it runs until stopped.
import type { Strategy } from "../../domains/workspace/names.js";
import type { WatchEvent, WatchSummary } from "../../domains/watch/watcher.js";
import type { Checkpoint } from "../../timeline/types.js";
import type { OperationContext } from "../context.js";
import { checkpointJson, type CheckpointJson } from "../shared.js";

/** A watcher event's field as JSON: times as ISO text, checkpoints as `CheckpointJson`. */
type FieldJson<T> = T extends Date ? string : T extends Checkpoint ? CheckpointJson : T;

/** A watcher event as plain JSON: its kind as `event`, then its fields. */
export type WatchEventJson = WatchEvent extends infer E
  ? E extends { readonly type: infer K }
    ? { readonly event: K } & { readonly [P in Exclude<keyof E, "type">]: FieldJson<E[P]> }
    : never
  : never;

export function watchEventJson(e: WatchEvent): WatchEventJson {
  const { type, at, ...rest } = e;
  const out: Record<string, unknown> = { event: type, at: at.toISOString(), ...rest };
  if (e.type === "snapshot") {
    out["snapshot"] = checkpointJson(e.snapshot);
    out["external"] = e.external ? checkpointJson(e.external) : null;
  }
  if (e.type === "checkpoint") out["checkpoint"] = checkpointJson(e.checkpoint);
  return out as WatchEventJson;
}

export interface WatchInput {
  /** The session checkpointed on the schedule (default: the context's). */
  readonly session?: string;
  /** Also follow the workspace's files and snapshot them after each burst of edits. */
  readonly files: boolean;
  /** How often to checkpoint if something changed. */
  readonly everyMs: number;
  /** How long the files must stay unchanged before a snapshot. */
  readonly quietMs: number;
  /** How often to walk the whole workspace for what the file watches missed (0: never). */
  readonly rescanMs: number;
  /** What snapshots do with changes made outside the agent. */
  readonly strategy: Strategy;
  /** The workspace folder, with `files` (default: the folder holding .forge, else the current one). */
  readonly root?: string;
  /** The session holding the snapshots (default "workspace"). */
  readonly filesSession?: string;
  /** Told every event, as JSON. */
  readonly onEvent: (event: WatchEventJson) => void;
}

/** What the caller keeps of a running watcher. */
export interface WatchHandle {
  /** Starts nothing new, lets the write in progress finish, releases the locks. */
  stop(reason?: string): Promise<WatchSummary>;
  /** For a process about to exit at once: gives the locks back now. */
  releaseLocks(): void;
}

/** Starts watching; ALREADY_RUNNING if another watcher holds the session or the folder. */
export async function startWatch(ctx: OperationContext, input: WatchInput): Promise<WatchHandle> {
  // The watcher and the workspace engine load only here: `forge watch` is one command of many.
  const { Watcher } = await import("../../domains/watch/watcher.js");
  const store = await ctx.store();
  const session = await ctx.session(input.session);
  const workspace = input.files ? await ctx.workspace({ root: input.root, filesSession: input.filesSession }) : undefined;
  // While it watches the files, the workspace's capture hooks hand it their work (over a store it opened from a URL).
  const given = ctx.options.store;
  const hooks =
    workspace && typeof given !== "object" && process.env["FORGE_HOOK_SERVE"] !== "0"
      ? (await import("../hooks/served.js")).hookServer(() => ctx.store(), given)
      : undefined;
  return Watcher.start(store, {
    ...(hooks && { hooks }),
    session,
    ...(workspace && { workspace }),
    everyMs: input.everyMs,
    quietMs: input.quietMs,
    rescanMs: input.rescanMs,
    strategy: input.strategy,
    onEvent: (e) => input.onEvent(watchEventJson(e)),
  });
}
