// Which tool call of which prompt made a workspace snapshot. When a host's tool changed files,
// the hook records it beside the snapshot, in a session of its own next to the workspace's
// ("<workspace session>/agent-writes"): one small checkpoint per such snapshot, whose metadata
// names the snapshot, the host session, the prompt and the tool call (name, id, its input cut
// short). `forge blame` reads them to say which prompt wrote a line. The snapshots keep their
// shape, so a store written before these records reads as it did (blame then matches its tool
// snapshots to prompts by time).
import { isAbsolute, relative, sep } from "node:path";
import { readConfigFile } from "../../core/config.js";
import type { Store } from "../../timeline/store.js";
import type { Checkpoint } from "../../timeline/types.js";
import type { HostEvent, HostId } from "./types.js";

/** The trigger of a write record. */
export const AGENT_WRITE_TRIGGER = "agent-write";
/** The kind of the session holding them (shown as JSON). */
export const AGENT_WRITES_KIND = "agent-writes";

/** The session holding the write records of the workspace session `workspaceSession`. */
export function writesSessionName(workspaceSession: string): string {
  return `${workspaceSession}/agent-writes`;
}

/** What one record says: this snapshot holds what this tool call of this prompt did. */
export interface AgentWrite {
  /** The workspace snapshot taken right after the tool ran (its checkpoint id). */
  readonly snapshot: string;
  readonly host: HostId;
  /** The Forge session holding the host session's conversation ("agent/<host>/<id>"). */
  readonly session: string;
  /** The host's own session id (secrets redacted). */
  readonly hostSession: string;
  /** The prompt the tool ran in (1 is the first). */
  readonly prompt: number;
  readonly tool: {
    readonly name: string;
    /** The host's id of the call, when its payload gives one. */
    readonly id?: string;
    /** Its input, long strings and lists cut short (the conversation holds it whole). */
    readonly input?: unknown;
  };
  /**
   * The files (relative to the workspace root, "/"-separated) an edit tool says it wrote: a
   * change to another file in the same snapshot was not its doing. Absent for a tool that
   * names none (a shell command), which may have written anything.
   */
  readonly paths?: readonly string[];
}

/** Records that `write.snapshot`, of the workspace session `workspaceSession` at `root`, was `write`'s doing. */
export async function recordAgentWrite(store: Store, root: string, workspaceSession: string, write: AgentWrite): Promise<Checkpoint> {
  const session = await store.session(writesSessionName(workspaceSession), { kind: AGENT_WRITES_KIND });
  const value = { ...write };
  const cp = await session.checkpoint(value, {
    message: `${write.host} prompt ${write.prompt}: ${write.tool.name}`,
    trigger: AGENT_WRITE_TRIGGER,
    tags: [write.host],
    metadata: value,
  });
  // Kept as long as the snapshots they describe: the workspace's retention, applied the same way.
  const cfg = readConfigFile(root).workspace ?? {};
  const keepLast = cfg.keepLast ?? 100;
  if ((await session.count()) > keepLast) await session.prune({ keepLast, keepDays: cfg.keepDays ?? 30 });
  return cp;
}

/** The write record a checkpoint of the writes session holds; undefined when it holds none. */
export function agentWriteOf(cp: Checkpoint): AgentWrite | undefined {
  const m = cp.metadata;
  const tool = m["tool"] as { name?: unknown } | undefined;
  if (typeof m["snapshot"] !== "string" || typeof m["session"] !== "string" || typeof tool?.name !== "string" || !Number.isInteger(m["prompt"]))
    return undefined;
  return m as unknown as AgentWrite;
}

/** What a record says of a hook's tool event: its paths relative to `root`, its input cut short. */
export function writeOfEvent(event: HostEvent, root: string): Pick<AgentWrite, "tool" | "paths"> {
  const tool = event.tool;
  const base = event.cwd ?? root;
  const paths = (tool?.editedPaths ?? []).map((p) => {
    const rel = relative(root, isAbsolute(p) ? p : `${base}${sep}${p}`);
    return rel.split(sep).join("/");
  });
  return {
    tool: {
      name: tool?.name ?? "tool",
      ...(tool?.id !== undefined && { id: tool.id }),
      ...(tool?.input !== undefined && { input: shortened(tool.input) }),
    },
    ...(paths.length > 0 && { paths }),
  };
}

/** `v` with strings over 240 characters and lists over 20 items cut, nesting below 4 levels summarized. */
export function shortened(v: unknown, depth = 0): unknown {
  if (typeof v === "string") return v.length > 240 ? `${v.slice(0, 240)}… (${v.length} characters)` : v;
  if (v === null || typeof v !== "object") return v;
  if (depth >= 4) return Array.isArray(v) ? `[${v.length} items]` : "{…}";
  if (Array.isArray(v)) {
    const out = v.slice(0, 20).map((x) => shortened(x, depth + 1));
    if (v.length > 20) out.push(`… ${v.length - 20} more`);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v))
    Object.defineProperty(out, k, { value: shortened(x, depth + 1), enumerable: true, writable: true, configurable: true });
  return out;
}
