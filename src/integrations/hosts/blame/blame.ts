// `forge blame`: which prompt, session and tool call last wrote each line of a file. The
// workspace's snapshots are the file's history (a hook snapshots after every tool that may
// write, at every prompt and at every stop); the versions where its content id changed are
// read and diffed in order (line-origins.ts), and each step is stamped with its cause: the
// tool call the snapshot's write record names (agent-writes.ts), or nobody's — a change seen
// at a prompt (made between turns), at a stop, before Forge, or since the last snapshot.
// The newest writer of a line wins, whichever session or host it was.
import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { ForgeError, InvalidArgumentError, unlessCode } from "../../../core/errors.js";
import { isText } from "../../../domains/workspace/patches.js";
import { WORKSPACE_SESSION } from "../../../domains/workspace/names.js";
import { type FileInfo, readFileObject } from "../../../objects/file-tree.js";
import type { Session } from "../../../timeline/session.js";
import type { Store } from "../../../timeline/store.js";
import type { Checkpoint } from "../../../timeline/types.js";
import { promptCheckpoints } from "../agent-sessions.js";
import { AGENT_WRITE_TRIGGER, type AgentWrite, agentWriteOf, writesSessionName } from "../agent-writes.js";
import type { HostId } from "../types.js";
import { entriesAt } from "./file-versions.js";
import { lineOrigins, splitLines } from "./line-origins.js";

export interface BlameOptions {
  /** The workspace root (absolute). */
  readonly root: string;
  /** The file: absolute, or relative to the root. */
  readonly path: string;
  /** A snapshot of the workspace session: the file as it was then (default: as it is now on disk). */
  readonly at?: string;
  /** The session holding the workspace's snapshots (default "workspace"). */
  readonly workspaceSession?: string;
  /** The lines wanted (1-based, inclusive; default all). */
  readonly start?: number;
  readonly end?: number;
}

/** Who last wrote a line. */
export interface LineCause {
  /** Whether an agent's tool call wrote it. */
  readonly agent: boolean;
  /** The snapshot that first held the line as it is (null: only the file on disk has it). */
  readonly snapshot: Checkpoint | null;
  /** The tool call's record (when `agent`). */
  readonly write: AgentWrite | null;
  /** The prompt the tool call ran in: its text as submitted and its checkpoint (when known). */
  readonly prompt: { readonly number: number; readonly text: string | null; readonly checkpoint: Checkpoint | null } | null;
  /** Matched to its prompt by time: the snapshot was taken before Forge recorded tool calls. */
  readonly inferred: boolean;
  /** In words: which tool, or where the line came from when no agent wrote it. */
  readonly note: string;
}

export interface BlameLine {
  readonly line: number;
  readonly text: string;
  readonly cause: LineCause;
}

export interface BlameReport {
  readonly root: string;
  /** The file, relative to the root ("/"-separated). */
  readonly path: string;
  /** The snapshot blamed at; null: the file on disk. */
  readonly at: Checkpoint | null;
  /** Lines in the file (the report may hold only some). */
  readonly total: number;
  /** The versions of the file read from its history (the file on disk, when it differs, included). */
  readonly versions: number;
  readonly lines: readonly BlameLine[];
}

interface Step {
  readonly snapshot: Checkpoint | null;
  readonly lines: readonly string[];
}

/** The workspace-relative, "/"-separated path of `path`; an error naming it when it lies outside `root`. */
export function pathInRoot(root: string, path: string): string {
  const abs = isAbsolute(path) ? resolve(path) : resolve(root, path);
  const rel = relative(root, abs);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel))
    throw new ForgeError("PATH_OUTSIDE_WORKSPACE", rel === "" ? `${path} is the project folder, not a file` : `${path} is outside the project ${root}`, {
      hint: "name a file inside the project",
      data: { path },
    });
  return rel.split(sep).join("/");
}

/** Who wrote each line of a file (see the file's head). */
export async function blameFile(store: Store, options: BlameOptions): Promise<BlameReport> {
  const path = pathInRoot(options.root, options.path);
  const wsName = options.workspaceSession ?? WORKSPACE_SESSION;
  const ws = await store.getSession(wsName).catch(unlessCode("SESSION_NOT_FOUND"));
  if (options.at !== undefined && ws === undefined)
    throw new ForgeError("CHECKPOINT_NOT_FOUND", `no snapshot "${options.at}": the project has no snapshots yet`);
  const at = options.at === undefined || ws === undefined ? null : await snapshotAt(ws, options.at);
  let snapshots = ws === undefined ? [] : (await ws.list()).filter((cp) => cp.filesRoot !== null).sort((a, b) => a.seq - b.seq);
  if (at !== null) {
    if (at.filesRoot === null) throw new InvalidArgumentError(`checkpoint ${at.id} holds no files`, "name a snapshot: `forge files log` lists them");
    snapshots = snapshots.filter((cp) => cp.seq <= at.seq);
  }
  const entries = await entriesAt(
    store.objects,
    snapshots.map((cp) => cp.filesRoot as string),
    path,
  );
  // The versions: each snapshot where the content id changed (absent counts as empty).
  const steps: Step[] = [];
  let lastKey = "";
  let lastEntry: FileInfo | null = null;
  for (let i = 0; i < snapshots.length; i++) {
    const e = entries[i] ?? null;
    const key = e === null ? "" : `${e.type}:${e.hash}:${e.size}`;
    if (key === lastKey) continue;
    lastKey = key;
    lastEntry = e;
    steps.push({ snapshot: snapshots[i] as Checkpoint, lines: await linesOf(store, e) });
  }
  let finalText: Buffer;
  if (at !== null) {
    if (lastEntry === null || lastEntry.type !== "f")
      throw new ForgeError("NOT_FOUND", `${path} is not in snapshot #${at.seq} (${at.id.slice(0, 10)})`, { hint: "`forge files log` lists the snapshots" });
    finalText = await readFileObject(store.objects, lastEntry.hash);
  } else {
    finalText = readWorkTree(options.root, path);
  }
  if (!isText(finalText)) throw new InvalidArgumentError(`${path} is a binary file: blame reads text`, "name a text file");
  const finalLines = splitLines(finalText.toString("utf8"));
  const last = steps[steps.length - 1];
  if (at === null && (last === undefined || !sameLines(last.lines, finalLines))) steps.push({ snapshot: null, lines: finalLines });

  const origins = lineOrigins(steps.map((s) => s.lines));
  const total = finalLines.length;
  const [start, end] = lineRange(path, total, options.start, options.end);
  const causes = await causesOf(store, wsName, steps, snapshots[0]?.id, path, origins.slice(start - 1, end));
  const lines: BlameLine[] = [];
  for (let n = start; n <= end; n++)
    lines.push({ line: n, text: (finalLines[n - 1] as string).replace(/\r$/, ""), cause: causes.get(origins[n - 1] as number) as LineCause });
  return { root: options.root, path, at, total, versions: steps.length, lines };
}

/** The snapshot `ref` names in the workspace session. */
function snapshotAt(ws: Session, ref: string): Promise<Checkpoint> {
  return ws.get(ref).catch((e: unknown) => {
    if (e instanceof ForgeError && e.code === "CHECKPOINT_NOT_FOUND")
      throw new ForgeError("CHECKPOINT_NOT_FOUND", `no workspace snapshot "${ref}"`, {
        hint: "`forge files log` lists the snapshots",
        cause: e,
        data: { ref },
      });
    throw e;
  });
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((l, i) => l === b[i]);
}

/** A version's lines; a version that is no text (binary, a link, too large to keep) has none. */
async function linesOf(store: Store, e: FileInfo | null): Promise<string[]> {
  if (e === null || e.type !== "f") return [];
  const data = await readFileObject(store.objects, e.hash);
  return isText(data) ? splitLines(data.toString("utf8")) : [];
}

function readWorkTree(root: string, path: string): Buffer {
  const abs = resolve(root, path);
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT")
      throw new ForgeError("NOT_FOUND", `${path} does not exist in the project`, {
        hint: "name a file that exists, or blame it as it was with --at SNAPSHOT",
        data: { path },
      });
    throw e;
  }
  if (st.isDirectory()) throw new InvalidArgumentError(`${path} is a folder: blame reads a file`, "name a file in it");
  if (!st.isFile()) throw new InvalidArgumentError(`${path} is not a regular file (a link or a device)`, "name the file it points to");
  // A folder on the way may be a link out of the project: what is read must lie inside it.
  const real = realpathSync(abs);
  if (!real.startsWith(realpathSync(root) + sep))
    throw new ForgeError("PATH_OUTSIDE_WORKSPACE", `${path} leads outside the project (through a link)`, {
      hint: "name a file inside the project",
      data: { path },
    });
  return readFileSync(real);
}

/** The lines wanted, checked against the file's length. */
function lineRange(path: string, total: number, start?: number, end?: number): [number, number] {
  if (start === undefined && end === undefined) return [1, total];
  const a = start ?? 1;
  const b = end ?? total;
  if (!Number.isInteger(a) || !Number.isInteger(b) || a < 1 || b < a)
    throw new InvalidArgumentError(`invalid line range ${a}-${b}`, "give lines as A-B with 1 ≤ A ≤ B");
  if (a > total || b > total)
    throw new InvalidArgumentError(`${path} has ${total} ${total === 1 ? "line" : "lines"}: no line ${a > total ? a : b}`, `ask for lines 1 to ${total}`);
  return [a, b];
}

/** The cause of each step that the wanted lines come from. */
async function causesOf(
  store: Store,
  wsName: string,
  steps: readonly Step[],
  firstSnapshot: string | undefined,
  path: string,
  wanted: readonly number[],
): Promise<Map<number, LineCause>> {
  const writes = await writeRecords(store, wsName);
  const prompts = new PromptTexts(store);
  const out = new Map<number, LineCause>();
  for (const i of new Set(wanted)) {
    const step = steps[i] as Step;
    const cp = step.snapshot;
    const none = (note: string): LineCause => ({ agent: false, snapshot: cp, write: null, prompt: null, inferred: false, note });
    if (cp === null) {
      out.set(i, none(i === 0 ? "in no snapshot (not seen by a hook yet, or ignored)" : "changed since the last snapshot (not seen by a hook yet)"));
      continue;
    }
    const recorded = writes.byId.get(cp.id);
    let write: AgentWrite | undefined;
    let inferred = false;
    if (recorded !== undefined) {
      if (recorded.paths === undefined || recorded.paths.includes(path)) write = recorded;
    } else if (writes.since === null || cp.createdAt < writes.since) {
      write = await prompts.infer(cp);
      inferred = write !== undefined;
    }
    if (write === undefined) {
      out.set(i, none(outsideNote(cp, cp.id === firstSnapshot, recorded)));
      continue;
    }
    const prompt = write.prompt >= 1 ? { number: write.prompt, ...(await prompts.of(write.session, write.prompt)) } : null;
    out.set(i, {
      agent: true,
      snapshot: cp,
      write,
      prompt,
      inferred,
      note: `${write.tool.name} in prompt ${write.prompt} of ${write.host} session ${write.hostSession}`,
    });
  }
  return out;
}

function outsideNote(cp: Checkpoint, first: boolean, recorded: AgentWrite | undefined): string {
  if (recorded !== undefined) return `changed while ${recorded.tool.name} ran, but not by it (it wrote ${(recorded.paths ?? []).join(", ")})`;
  if (first) return "there before Forge's first snapshot";
  if (/: at a prompt$/.test(cp.message)) return "changed between turns (first seen when a prompt was submitted)";
  if (/: at stop$/.test(cp.message)) return "changed outside the agent's tools (first seen at the end of a turn)";
  if (cp.trigger === "pre-restore" || /^restored/.test(cp.message)) return `brought back by a restore (snapshot #${cp.seq})`;
  return `not written by an agent (first seen in snapshot #${cp.seq}${cp.message ? `: ${cp.message}` : ""})`;
}

/** The write records of a workspace session by snapshot id, and since when there are any. */
async function writeRecords(store: Store, wsName: string): Promise<{ byId: Map<string, AgentWrite>; since: Date | null }> {
  const session = await store.getSession(writesSessionName(wsName)).catch(unlessCode("SESSION_NOT_FOUND"));
  const byId = new Map<string, AgentWrite>();
  if (session === undefined) return { byId, since: null };
  for (const cp of await session.list({ trigger: AGENT_WRITE_TRIGGER })) {
    const w = agentWriteOf(cp);
    if (w !== undefined) byId.set(w.snapshot, w);
  }
  return { byId, since: (await session.info()).createdAt };
}

/** Prompt texts and checkpoints of captured sessions, each session read once. */
class PromptTexts {
  readonly #store: Store;
  readonly #bySession = new Map<string, Map<number, Checkpoint>>();
  #byHost: Map<string, { session: string; hostSession: string; checkpoints: Checkpoint[] }[]> | undefined;

  constructor(store: Store) {
    this.#store = store;
  }

  async #prompts(session: string): Promise<Map<number, Checkpoint>> {
    let m = this.#bySession.get(session);
    if (m === undefined) {
      const s = await this.#store.getSession(session).catch(unlessCode("SESSION_NOT_FOUND"));
      m = new Map((s === undefined ? [] : await promptCheckpoints(s)).map((cp) => [Number(cp.metadata["prompt"]), cp]));
      this.#bySession.set(session, m);
    }
    return m;
  }

  async of(session: string, prompt: number): Promise<{ text: string | null; checkpoint: Checkpoint | null }> {
    const cp = (await this.#prompts(session)).get(prompt) ?? null;
    const text = cp?.metadata["text"];
    return { text: typeof text === "string" ? text : null, checkpoint: cp };
  }

  /**
   * For a snapshot taken before write records were kept: a hook's "<host>: after <tool>"
   * snapshot belongs to the latest prompt of that host's sessions submitted before it.
   */
  async infer(cp: Checkpoint): Promise<AgentWrite | undefined> {
    const m = /^([a-z0-9-]+): after (.+)$/.exec(cp.message);
    if (m === null || !cp.tags.includes("hook")) return undefined;
    const host = m[1] as HostId;
    if (this.#byHost === undefined) {
      this.#byHost = new Map();
      for (const info of await this.#store.listSessions()) {
        const parts = info.name.split("/");
        if (parts[0] !== "agent" || parts.length !== 3) continue;
        const list = [...(await this.#prompts(info.name)).values()];
        const hostSession = String(list[0]?.metadata["hostSession"] ?? parts[2]);
        const all = this.#byHost.get(parts[1] as string) ?? [];
        all.push({ session: info.name, hostSession, checkpoints: list });
        this.#byHost.set(parts[1] as string, all);
      }
    }
    let best: { session: string; hostSession: string; prompt: Checkpoint } | undefined;
    for (const s of this.#byHost.get(host) ?? [])
      for (const p of s.checkpoints) if (p.createdAt <= cp.createdAt && (best === undefined || p.createdAt > best.prompt.createdAt)) best = { ...s, prompt: p };
    if (best === undefined) return undefined;
    return {
      snapshot: cp.id,
      host,
      session: best.session,
      hostSession: best.hostSession,
      prompt: Number(best.prompt.metadata["prompt"]),
      tool: { name: m[2] as string },
    };
  }
}
