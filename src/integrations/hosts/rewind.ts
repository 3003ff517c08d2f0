// `forge rewind`: put a captured session's files back as they were when prompt N was
// submitted (the whole work tree, the current state snapshotted first), write the host a
// transcript cut at that prompt so that its own resume continues from there, and remember
// the rewind so that `forge rewind --undo` brings back the state before it.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ForgeError } from "../../core/errors.js";
import { writeFileAtomic } from "../../core/files.js";
import type { RestoreReport } from "../../domains/workspace/types.js";
import type { Store } from "../../timeline/store.js";
import type { Checkpoint } from "../../timeline/types.js";
import { type AgentSessionSummary, findAgentSession, promptCheckpoints } from "./agent-sessions.js";
import { hostCapture } from "./capture/index.js";

export interface RewindResult {
  readonly session: AgentSessionSummary;
  readonly prompt: number;
  /** The prompt's checkpoint, whose files were restored. */
  readonly checkpoint: Checkpoint;
  readonly restore: RestoreReport;
  /** The cut transcript and the host's command to resume it; null when the host keeps none Forge can write. */
  readonly transcript: { readonly path: string; readonly sessionId: string; readonly resume: string } | null;
  /** Why there is no cut transcript, when there is none. */
  readonly note: string | null;
}

export interface UndoResult {
  /** The rewind undone. */
  readonly rewind: LastRewind;
  readonly restore: RestoreReport;
}

/** What `--undo` needs: the snapshot taken before the rewind. */
interface LastRewind {
  readonly session: string;
  readonly prompt: number;
  readonly safety: string;
  readonly at: string;
}

const lastRewindPath = (forgeDir: string) => join(forgeDir, "agents", "last-rewind.json");

/** Rewinds the files of the project at `root` to prompt `prompt` of the captured session `ref`. */
export async function rewindToPrompt(store: Store, root: string, forgeDir: string, ref: string, prompt: number): Promise<RewindResult> {
  const session = await findAgentSession(store, forgeDir, ref);
  const prompts = await promptCheckpoints(await store.getSession(session.session));
  const checkpoint = prompts.find((cp) => Number(cp.metadata["prompt"]) === prompt);
  if (checkpoint === undefined)
    throw new ForgeError("NOT_FOUND", `session ${session.sessionId} has no prompt ${prompt}`, {
      hint:
        prompts.length > 0 ? `its prompts are 1 to ${prompts.length}: \`forge agent show ${session.sessionId}\` lists them` : "no prompt was captured in it",
    });
  if (checkpoint.filesRoot === null)
    throw new ForgeError("NOT_FOUND", `prompt ${prompt} of session ${session.sessionId} has no files snapshot`, {
      hint:
        checkpoint.metadata["imported"] !== undefined
          ? "it was imported from the host's transcript (`forge agent import`): the files of that moment were never recorded"
          : "its hook could not snapshot the files then",
    });
  const { openConfiguredWorkspace } = await import("../../domains/workspace/configured.js");
  const ws = await openConfiguredWorkspace(store, { root });
  const restore = await ws.restoreCheckpoint(checkpoint);
  // The snapshot of the files before: the safety snapshot, or HEAD when they held no changes since it.
  if (restore.undo)
    writeFileAtomic(
      lastRewindPath(forgeDir),
      `${JSON.stringify({ session: session.session, prompt, safety: restore.undo.snapshot.id, at: new Date().toISOString() } satisfies LastRewind)}\n`,
    );
  let transcript: RewindResult["transcript"] = null;
  let note: string | null = null;
  const format = (await hostCapture(session.host)).transcript;
  if (format === undefined) note = `${session.host} keeps no transcript Forge can cut: start a new session in it`;
  else if (session.transcript === null) note = "no transcript was captured for this session";
  else {
    try {
      transcript = format.cut(session.transcript, prompt, { cwd: root });
    } catch (e) {
      if (!(e instanceof ForgeError)) throw e;
      note = `the transcript was not cut: ${e.message}`;
    }
  }
  return { session, prompt, checkpoint, restore, transcript, note };
}

/** Brings back the files as they were before the last rewind in this project. */
export async function undoRewind(store: Store, root: string, forgeDir: string): Promise<UndoResult> {
  let last: LastRewind;
  try {
    last = JSON.parse(readFileSync(lastRewindPath(forgeDir), "utf8")) as LastRewind;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT")
      throw new ForgeError("NOT_FOUND", "there is no rewind to undo in this project", { hint: "`forge rewind SESSION --to-prompt N` rewinds" });
    throw e;
  }
  const { openConfiguredWorkspace } = await import("../../domains/workspace/configured.js");
  const ws = await openConfiguredWorkspace(store, { root });
  const restore = await ws.restore(last.safety);
  rmSync(lastRewindPath(forgeDir), { force: true });
  return { rewind: last, restore };
}
