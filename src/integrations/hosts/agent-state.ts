// What the hooks of one host session remember between them, in the project's .forge folder
// (.forge/agents/<host>/<session>.json): where reading its transcript got to, how many
// prompts it had, when it was last active. A file per session, changed under a lock of its
// own: hooks of one session run one after another (a host may start two at once), hooks of
// different sessions never wait for each other. The store holds what was captured; this is
// only the reader's place, and losing it costs a re-read (messages are stored once by key).
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { FileLock } from "../../core/file-lock.js";
import { writeFileAtomic } from "../../core/files.js";
import type { HostId, TranscriptCursor } from "./types.js";

export interface AgentState {
  readonly host: HostId;
  /** The host's session id. */
  readonly sessionId: string;
  /** The Forge session holding its conversation and prompt checkpoints. */
  readonly session: string;
  /** The transcript file last read, and where reading it got to. */
  transcript: string | null;
  cursor: TranscriptCursor | null;
  /** Prompts submitted so far (the last prompt's number). */
  prompts: number;
  /** The files root after the latest event (the workspace's last snapshot then); null before any. */
  filesRoot: string | null;
  /** ISO times (an imported session's are its transcript's). */
  started: string;
  lastActivity: string;
  lastEvent: string;
  /** When the host said the session ended (null while it runs). */
  ended: string | null;
  /** Set when `forge agent import` read its transcript: the importer's format and version, and when. */
  imported?: { format: string; version: number; at: string };
  /** A sub-agent's session: the host session that started it. */
  parent?: string;
}

const agentsDir = (forgeDir: string, host: HostId) => join(forgeDir, "agents", host);

/**
 * The state file's name for a session id: the id itself when it is a plain name holding no
 * secret (`secret`: the id holds one), else a hash of it.
 */
function fileName(sessionId: string, secret: boolean): string {
  return !secret && /^[A-Za-z0-9._-]{1,128}$/.test(sessionId) && !sessionId.startsWith(".")
    ? sessionId
    : createHash("sha256").update(sessionId).digest("hex").slice(0, 32);
}

/** The Forge session of a host session: "agent/<host>/<session id>" (a hash of the id when it holds a secret). */
export function agentSessionName(host: HostId, sessionId: string, secret = false): string {
  return `agent/${host}/${fileName(sessionId, secret)}`;
}

function readState(path: string): AgentState | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
  try {
    return JSON.parse(text) as AgentState;
  } catch {
    // A state file is only the reader's place: a damaged one is read again from the start.
    return undefined;
  }
}

/**
 * Runs `fn` on the session's state (a new one if it has none) under its lock, and saves what
 * it leaves. `redactedId` is the session id with its secrets redacted (an id that holds one
 * is kept only that way, and its file and session are named by a hash).
 */
export async function withAgentState<T>(
  forgeDir: string,
  host: HostId,
  sessionId: string,
  fn: (state: AgentState) => Promise<T>,
  redactedId: string = sessionId,
): Promise<T> {
  const dir = agentsDir(forgeDir, host);
  mkdirSync(dir, { recursive: true });
  const secret = redactedId !== sessionId;
  const path = join(dir, `${fileName(sessionId, secret)}.json`);
  const lock = new FileLock(`${path}.lock`, { timeoutMs: 30_000, info: { what: "forge hook" } });
  await lock.acquire();
  try {
    const now = new Date().toISOString();
    const state: AgentState = readState(path) ?? {
      host,
      sessionId: redactedId,
      session: agentSessionName(host, sessionId, secret),
      transcript: null,
      cursor: null,
      prompts: 0,
      filesRoot: null,
      started: now,
      lastActivity: now,
      lastEvent: "",
      ended: null,
    };
    const result = await fn(state);
    writeFileAtomic(path, `${JSON.stringify(state)}\n`);
    return result;
  } finally {
    lock.release();
  }
}

/** Every host session captured in the project, by host. */
export function readAgentStates(forgeDir: string, hosts: readonly HostId[]): AgentState[] {
  const out: AgentState[] = [];
  for (const host of hosts) {
    let names: string[];
    try {
      names = readdirSync(agentsDir(forgeDir, host));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw e;
    }
    for (const n of names) {
      if (!n.endsWith(".json")) continue;
      const s = readState(join(agentsDir(forgeDir, host), n));
      if (s) out.push(s);
    }
  }
  return out;
}
