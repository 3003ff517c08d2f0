// The host sessions Forge captured in a project: found by the Forge sessions their hooks
// made ("agent/<host>/<session>") and the hook state beside the store, summarized for
// `forge agent list`, shown turn by turn for `forge agent show`, and looked up by a host
// session id (or a prefix of one), a Forge session name, or a commit whose message carries
// a Forge-Checkpoint trailer.
import { spawnSync } from "node:child_process";
import { ForgeError } from "../../core/errors.js";
import type { Message } from "../../domains/conversation/model.js";
import { compareTrees, emptyTree } from "../../domains/workspace/tree-compare.js";
import { readTree } from "../../objects/file-tree.js";
import type { Session } from "../../timeline/session.js";
import type { Store } from "../../timeline/store.js";
import type { Checkpoint } from "../../timeline/types.js";
import { type AgentState, readAgentStates } from "./agent-state.js";
import { PROMPT_TRIGGER } from "./capture-event.js";
import { splitTurns } from "./turns.js";
import { HOST_IDS, type HostId } from "./types.js";

export interface AgentSessionSummary {
  readonly host: HostId;
  /** The host's own session id. */
  readonly sessionId: string;
  /** The Forge session holding it. */
  readonly session: string;
  readonly started: Date;
  readonly prompts: number;
  /** Files that differ between the first prompt and the latest event. */
  readonly filesChanged: number;
  readonly lastActivity: Date;
  /** Whether the host said it ended. */
  readonly ended: boolean;
  /** The host's transcript file, as last read. */
  readonly transcript: string | null;
  /** Set when (some of) it came from `forge agent import`: the importer's format and version, and when it last added to it. */
  readonly imported: { readonly format: string; readonly version: number; readonly at: string } | null;
  /** A sub-agent's session: the host session that started it. */
  readonly parent: string | null;
}

export interface AgentTurn {
  readonly prompt: number;
  /** What the user typed, as the hook was told. */
  readonly text: string | null;
  /** The checkpoint of the moment the prompt was submitted: the files and the conversation then. */
  readonly checkpoint: Checkpoint;
  /** The turn came from the host's transcript by `forge agent import`: the files of that moment are not known. */
  readonly imported: boolean;
  /** The messages of this turn: the prompt and everything after it, up to the next prompt. */
  readonly messages: readonly Message[];
}

export interface AgentSessionDetail extends AgentSessionSummary {
  /** Entries before the first prompt (a resumed session's history, host records). */
  readonly preamble: readonly Message[];
  readonly turns: readonly AgentTurn[];
  /** When it was looked up by a commit: that commit and the checkpoint its trailer names. */
  readonly commit?: { readonly sha: string; readonly checkpoint: Checkpoint };
}

export const AGENT_SESSION_PREFIX = "agent/";

/** Every captured host session, most recently active first. */
export async function listAgentSessions(store: Store, forgeDir: string): Promise<AgentSessionSummary[]> {
  const states = new Map(readAgentStates(forgeDir, HOST_IDS).map((s) => [s.session, s]));
  const out: AgentSessionSummary[] = [];
  for (const info of await store.listSessions()) {
    if (!info.name.startsWith(AGENT_SESSION_PREFIX)) continue;
    out.push(await summarize(store, await store.getSession(info.name), states.get(info.name)));
  }
  return out.sort((a, b) => b.lastActivity.getTime() - a.lastActivity.getTime());
}

async function summarize(store: Store, session: Session, state: AgentState | undefined): Promise<AgentSessionSummary> {
  const info = await session.info();
  const prompts = await promptCheckpoints(session);
  const all = await session.list();
  const last = all.reduce<Checkpoint | undefined>((a, cp) => (a === undefined || cp.createdAt > a.createdAt ? cp : a), undefined);
  const host = (info.name.split("/")[1] ?? "") as HostId;
  // An imported turn has no files root: the files count from the first prompt whose files are known.
  const first = prompts.find((cp) => cp.filesRoot !== null);
  const latestRoot = state?.filesRoot ?? last?.filesRoot ?? null;
  let filesChanged = 0;
  if (first?.filesRoot && latestRoot) {
    const [a, b] = await Promise.all([readTree(store.objects, first.filesRoot), readTree(store.objects, latestRoot)]);
    filesChanged = compareTrees(a, b).length;
  } else if (latestRoot) filesChanged = compareTrees(emptyTree(), await readTree(store.objects, latestRoot)).length;
  const imported = importedOf(info.metadata, all, state);
  // An imported session's row is as new as the import: its times are its transcript's.
  const activity = [state?.lastActivity ? new Date(state.lastActivity) : null, last?.createdAt ?? null].filter((d): d is Date => d !== null);
  const earliest = all.reduce<Date | undefined>((a, cp) => (a === undefined || cp.createdAt < a ? cp.createdAt : a), undefined);
  const parent = state?.parent ?? (typeof info.metadata["parent"] === "string" ? info.metadata["parent"] : null);
  return {
    host,
    sessionId:
      state?.sessionId ?? String(prompts[0]?.metadata["hostSession"] ?? info.metadata["hostSession"] ?? info.name.slice(info.name.lastIndexOf("/") + 1)),
    session: info.name,
    started: state?.started ? new Date(state.started) : imported !== null && earliest !== undefined ? earliest : info.createdAt,
    prompts: Math.max(state?.prompts ?? 0, prompts.length),
    filesChanged,
    lastActivity: activity.length > 0 ? new Date(Math.max(...activity.map((d) => d.getTime()))) : info.createdAt,
    ended: state ? state.ended !== null : false,
    transcript: state?.transcript ?? null,
    imported,
    parent,
  };
}

/** What says the session was imported: the hook state, the session's own metadata, or its latest import checkpoint. */
function importedOf(metadata: Record<string, unknown>, all: readonly Checkpoint[], state: AgentState | undefined): AgentSessionSummary["imported"] {
  if (state?.imported) return state.imported;
  const stamp = (v: unknown, at: string) => {
    const o = v as { format?: unknown; version?: unknown } | undefined;
    return typeof o?.format === "string" && typeof o.version === "number" ? { format: o.format, version: o.version, at } : null;
  };
  const meta = metadata["imported"] as { at?: unknown } | undefined;
  const fromSession = stamp(meta, typeof meta?.at === "string" ? meta.at : "");
  if (fromSession) return fromSession;
  const lastImport = all.filter((cp) => cp.metadata["imported"] !== undefined).at(-1);
  return lastImport ? stamp(lastImport.metadata["imported"], lastImport.createdAt.toISOString()) : null;
}

/** A session's prompt checkpoints, by prompt number (the latest checkpoint of each number: a rewound session may prompt again). */
export async function promptCheckpoints(session: Session): Promise<Checkpoint[]> {
  const byNumber = new Map<number, Checkpoint>();
  for (const cp of await session.list({ trigger: PROMPT_TRIGGER })) {
    const n = Number(cp.metadata["prompt"]);
    if (!Number.isInteger(n) || n < 1) continue;
    const had = byNumber.get(n);
    if (had === undefined || cp.seq > had.seq) byNumber.set(n, cp);
  }
  return [...byNumber.entries()].sort(([a], [b]) => a - b).map(([, cp]) => cp);
}

/** The captured session `ref` names: a host session id or a unique prefix of one, or a Forge session name. */
export async function findAgentSession(store: Store, forgeDir: string, ref: string): Promise<AgentSessionSummary> {
  const all = await listAgentSessions(store, forgeDir);
  const exact = all.filter((s) => s.sessionId === ref || s.session === ref);
  const matches = exact.length > 0 ? exact : all.filter((s) => s.sessionId.startsWith(ref));
  if (matches.length === 1) return matches[0] as AgentSessionSummary;
  if (matches.length > 1)
    throw new ForgeError("AMBIGUOUS_REF", `"${ref}" names ${matches.length} captured sessions`, {
      hint: `give more of the id: ${matches.map((s) => s.sessionId).join(", ")}`,
    });
  throw new ForgeError("SESSION_NOT_FOUND", `no captured host session "${ref}"`, {
    hint: all.length > 0 ? "`forge agent list` lists them" : "none yet: `forge enable` wires Forge into your agent's host",
  });
}

/** The session in detail: its turns, each with its prompt's checkpoint and its messages. */
export async function agentSessionDetail(store: Store, summary: AgentSessionSummary): Promise<AgentSessionDetail> {
  const session = await store.getSession(summary.session);
  const working = await session.working();
  const messages = ((working?.state as { messages?: Message[] } | undefined)?.messages ?? []) as Message[];
  const prompts = await promptCheckpoints(session);
  const split = splitTurns(prompts, messages);
  const turns = prompts.map((cp, i) => ({
    prompt: Number(cp.metadata["prompt"]),
    text: typeof cp.metadata["text"] === "string" ? cp.metadata["text"] : null,
    checkpoint: cp,
    imported: cp.metadata["imported"] !== undefined,
    messages: split.turns[i] ?? [],
  }));
  return { ...summary, preamble: split.preamble, turns };
}

/** The commit `ref` names in the git work tree at `cwd`, and the checkpoint its Forge-Checkpoint trailer names; undefined when `ref` is no commit or has no trailer. */
export async function agentSessionOfCommit(store: Store, forgeDir: string, cwd: string, ref: string): Promise<AgentSessionDetail | undefined> {
  const git = (...args: string[]) => spawnSync("git", args, { cwd, encoding: "utf8" });
  const rev = git("rev-parse", "--verify", "--quiet", `${ref}^{commit}`);
  if (rev.error || rev.status !== 0) return undefined;
  const sha = rev.stdout.trim();
  const trailers = git("log", "-1", "--format=%(trailers:key=Forge-Checkpoint,valueonly)", sha);
  const id = trailers.stdout.trim().split("\n")[0]?.trim();
  if (!id)
    throw new ForgeError("NOT_FOUND", `commit ${sha.slice(0, 10)} has no Forge-Checkpoint trailer`, {
      hint: "it was not made while a captured session was active",
    });
  for (const summary of await listAgentSessions(store, forgeDir)) {
    const cp = await (await store.getSession(summary.session)).byId(id);
    if (cp) return { ...(await agentSessionDetail(store, summary)), commit: { sha, checkpoint: cp } };
  }
  throw new ForgeError("CHECKPOINT_NOT_FOUND", `commit ${sha.slice(0, 10)} names checkpoint ${id}, which no captured session in this store holds`, {
    hint: "it may have been made with another store, or pruned",
  });
}
