// Helpers for the ForgeSaver tests: savers on SQLite files in temp folders, and LangGraph
// checkpoints built by hand the way LangGraph's loop builds them.
import { uuid6, type Checkpoint, type CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import { afterEach } from "vitest";
import { ForgeSaver, type ForgeSaverOptions } from "../../src/integrations/langgraph/index.js";
import { makeTempDir, type TempDir } from "../support/temp.js";

const dirs: TempDir[] = [];
const savers: ForgeSaver[] = [];

afterEach(async () => {
  for (const s of savers.splice(0)) await s.close();
  for (const d of dirs.splice(0)) d.remove();
});

/** A folder removed after the test. */
export function tempDir(): TempDir {
  const dir = makeTempDir("langgraph");
  dirs.push(dir);
  return dir;
}

/** A saver that owns a store at `url` (closed after the test). */
export async function openSaver(url: string, options?: ForgeSaverOptions): Promise<ForgeSaver> {
  const saver = await ForgeSaver.open(url, options);
  savers.push(saver);
  return saver;
}

/** A saver on a new SQLite file; `url` opens the same file again. */
export async function sqliteSaver(options?: ForgeSaverOptions): Promise<{ saver: ForgeSaver; url: string }> {
  const url = `sqlite:${tempDir().path}/forge.db`;
  return { saver: await openSaver(url, options), url };
}

/** A checkpoint as LangGraph's loop makes one: all channel values, their versions. */
export function checkpointOf(values: Record<string, unknown>, versions: Record<string, number>): Checkpoint {
  return { v: 4, id: uuid6(-1), ts: new Date().toISOString(), channel_values: values, channel_versions: versions, versions_seen: {} };
}

export const loopMetadata = (step: number): CheckpointMetadata => ({ source: "loop", step, parents: {} });

export function threadConfig(threadId: string, checkpointId?: string, ns = ""): RunnableConfig {
  return { configurable: { thread_id: threadId, checkpoint_ns: ns, ...(checkpointId !== undefined && { checkpoint_id: checkpointId }) } };
}

/** Deterministic text that does not compress away (so byte counts mean something). */
export function prose(seed: number, length: number): string {
  const words = ["forge", "graph", "state", "node", "edge", "reason", "chunk", "hash", "tree", "store", "agent", "tool", "plan", "step", "value"];
  let x = seed >>> 0 || 1;
  let out = "";
  while (out.length < length) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out += (out ? " " : "") + (words[x % words.length] as string) + (x % 997).toString(36);
  }
  return out.slice(0, length);
}
