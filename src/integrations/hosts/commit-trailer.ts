// The git side of capture: git's prepare-commit-msg hook (installed by `forge enable`) runs
// `forge hook commit-msg FILE [SOURCE]`, and when a captured host session is active in the
// project, the files are snapshotted into a checkpoint of that session and the message gets
// a `Forge-Checkpoint: <id>` trailer — so `forge agent show <commit>` finds the session, its
// prompts and the checkpoint that produced the commit. Written with `git interpret-trailers`,
// git's own tool for trailers (an amend replaces the old one rather than adding a second).
import { spawnSync } from "node:child_process";
import { ForgeError } from "../../core/errors.js";
import type { Store } from "../../timeline/store.js";
import type { Checkpoint } from "../../timeline/types.js";
import { type AgentState, readAgentStates } from "./agent-state.js";
import { markFired } from "./fired.js";
import { HOST_IDS } from "./types.js";

/** A session counts as active while it has not ended and was active within this long. */
export const ACTIVE_WITHIN_MS = 12 * 60 * 60 * 1000;
export const TRAILER = "Forge-Checkpoint";

export interface TrailerResult {
  /** The checkpoint named in the trailer; null when no captured session is active (nothing written). */
  readonly checkpoint: Checkpoint | null;
  readonly session: string | null;
}

/** The most recently active captured session of the project that has not ended, if one was active lately. */
export function activeAgentSession(forgeDir: string, now = Date.now()): AgentState | undefined {
  return readAgentStates(forgeDir, HOST_IDS)
    .filter((s) => s.ended === null && now - Date.parse(s.lastActivity) <= ACTIVE_WITHIN_MS)
    .sort((a, b) => Date.parse(b.lastActivity) - Date.parse(a.lastActivity))[0];
}

/**
 * Adds the trailer to the commit message in `messageFile`, for a commit in the project at
 * `root`. `source` is git's second argument to prepare-commit-msg: a merge or squash message
 * is left alone.
 */
export async function addCommitTrailer(store: Store, root: string, forgeDir: string, messageFile: string, source?: string): Promise<TrailerResult> {
  if (source === "merge" || source === "squash") return { checkpoint: null, session: null };
  const active = activeAgentSession(forgeDir);
  if (active === undefined) return { checkpoint: null, session: null };
  markFired(forgeDir, active.host, "commit-msg");
  const { openConfiguredWorkspace } = await import("../../domains/workspace/configured.js");
  const ws = await openConfiguredWorkspace(store, { root });
  const epoch = await store.gcEpoch();
  const snap =
    (await ws.snapshotIfChanged(`${active.host}: at a commit`, { strategy: "warn", tags: ["hook", active.host] }))?.snapshot ??
    (await ws.session.head()).checkpoint;
  const { ConversationSession } = await import("../../domains/conversation/conversation-session.js");
  const conversation = await ConversationSession.open(store, active.session);
  if ((await conversation.session.working()) === undefined) await conversation.replace([]);
  const checkpoint = await conversation.session.checkpointWorking({
    message: `commit (after prompt ${active.prompts})`,
    trigger: "commit",
    tags: [active.host],
    metadata: { host: active.host, hostSession: active.sessionId, prompt: active.prompts, ...(snap && { filesSnapshot: snap.id }) },
    filesRoot: snap?.filesRoot ?? null,
    gcEpoch: epoch,
  });
  const r = spawnSync("git", ["interpret-trailers", "--in-place", "--if-exists", "replace", "--trailer", `${TRAILER}: ${checkpoint.id}`, messageFile], {
    cwd: root,
    encoding: "utf8",
  });
  if (r.error || r.status !== 0)
    throw new ForgeError("COMMAND_FAILED", `git interpret-trailers could not add the trailer to ${messageFile}: ${r.error?.message ?? r.stderr.trim()}`, {
      hint: "the commit goes on without it",
    });
  return { checkpoint, session: active.session };
}
