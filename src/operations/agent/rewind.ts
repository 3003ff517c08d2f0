// agent_rewind: the files of a captured session's moment back (prompt N), with a transcript
// cut there for the host to resume; or the last rewind undone.
import { rewindToPrompt, undoRewind } from "../../integrations/hosts/rewind.js";
import { defineOperation } from "../operation.js";
import { checkpointJson, type CheckpointJson } from "../shared.js";
import { project } from "./shared.js";
import { InvalidArgumentError } from "../../core/errors.js";

export interface RewindJson {
  /** "rewind" or "undo". */
  readonly action: "rewind" | "undo";
  readonly session: string;
  readonly prompt: number;
  /** The prompt's checkpoint (rewind), or the snapshot brought back (undo). */
  readonly checkpoint: CheckpointJson | null;
  readonly written: readonly string[];
  readonly deleted: readonly string[];
  /** The snapshot of the files before this change (HEAD, when they held no changes since it): `forge files restore` it, or `forge rewind --undo`. */
  readonly safety: CheckpointJson | null;
  readonly transcript: { readonly path: string; readonly sessionId: string; readonly resume: string } | null;
  readonly note: string | null;
}

export const agentRewindOperation = defineOperation({
  name: "agent_rewind",
  title: "Rewind to a prompt",
  description:
    "CHANGES FILES ON DISK. Puts the project's files back as they were when prompt `toPrompt` of a captured session was submitted (the current files are snapshotted first), and writes the host a transcript cut at that prompt with the command that resumes it. `undo: true` brings back the files as they were before the last rewind.",
  effect: "destructive",
  input: (z) => ({
    session: z.string().min(1).optional().describe("the captured session: its id (or a unique prefix) or Forge session name"),
    toPrompt: z.number().int().min(1).optional().describe("the prompt whose moment to go back to (1 is the first)"),
    undo: z.boolean().default(false).describe("undo the last rewind instead"),
  }),
  run: async (ctx, input): Promise<RewindJson> => {
    const store = await ctx.store();
    const { root, forgeDir } = project(ctx);
    if (input.undo) {
      if (input.session !== undefined || input.toPrompt !== undefined)
        throw new InvalidArgumentError("--undo takes no session and no --to-prompt", "`forge rewind --undo` undoes the last rewind");
      const r = await undoRewind(store, root, forgeDir);
      return {
        action: "undo",
        session: r.rewind.session,
        prompt: r.rewind.prompt,
        checkpoint: r.restore.restored ? checkpointJson(r.restore.restored) : null,
        written: [...r.restore.written],
        deleted: [...r.restore.deleted],
        safety: r.restore.undo ? checkpointJson(r.restore.undo.snapshot) : null,
        transcript: null,
        note: null,
      };
    }
    if (input.session === undefined || input.toPrompt === undefined)
      throw new InvalidArgumentError(
        "name the session and the prompt",
        "`forge rewind SESSION --to-prompt N` (`forge agent list` lists the sessions), or `forge rewind --undo`",
      );
    const r = await rewindToPrompt(store, root, forgeDir, input.session, input.toPrompt);
    return {
      action: "rewind",
      session: r.session.session,
      prompt: r.prompt,
      checkpoint: checkpointJson(r.checkpoint),
      written: [...r.restore.written],
      deleted: [...r.restore.deleted],
      safety: r.restore.undo ? checkpointJson(r.restore.undo.snapshot) : null,
      transcript: r.transcript,
      note: r.note,
    };
  },
});
