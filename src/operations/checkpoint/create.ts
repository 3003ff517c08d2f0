// checkpoint_create: save a state (given, or the session's working state) as a checkpoint,
// optionally with a snapshot of the workspace's files tied to it.
import { ForgeError } from "../../core/errors.js";
import { defineOperation } from "../operation.js";
import { checkpointJson, sessionField, type CheckpointJson } from "../shared.js";

export interface CreateResult {
  readonly checkpoint: CheckpointJson;
  /** The files snapshot taken with it (`files`), else null. */
  readonly filesSnapshot: CheckpointJson | null;
  /** Files changed since the snapshot before, when one was taken. */
  readonly filesChanged: number | null;
}

export const createOperation = defineOperation({
  name: "checkpoint_create",
  title: "Create a checkpoint",
  description:
    "Save a checkpoint of a session. Without `state`, the session's working state is saved (for a reasoning session: everything the reasoning tools recorded). With `files: true` the workspace's files are snapshotted too and tied to the checkpoint, so a later restore can bring the code back with the reasoning.",
  effect: "write",
  input: (z) => ({
    message: z.string().default("").describe("what this checkpoint is"),
    tags: z.array(z.string().min(1)).default([]).describe("tags to find it by"),
    state: z.unknown().optional().describe("a JSON value to save as the state (default: the session's working state)"),
    trigger: z.string().min(1).optional().describe("why it was made (default: manual)"),
    // Kept as given (z.record would drop a "__proto__" key); checked to be an object.
    metadata: z
      .unknown()
      .refine((v) => typeof v === "object" && v !== null && !Array.isArray(v), "expected a JSON object")
      .optional()
      .describe("a JSON object stored with the checkpoint"),
    files: z.boolean().default(false).describe("also snapshot the workspace's files"),
    root: z.string().min(1).optional().describe("the workspace folder for `files` (default: the folder holding .forge)"),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<CreateResult> => {
    const session = await ctx.session(input.session);
    // Checked before the files are snapshotted: a refusal leaves nothing behind.
    if (input.state === undefined && !(await session.working())) {
      throw new ForgeError("NO_CHECKPOINT", `no state given and session "${session.name}" has no working state to save`, {
        hint: "give the state to save (--state FILE, or - for standard input), or record reasoning in the session first",
      });
    }
    // The files first: the checkpoint then points at the very tree just recorded.
    const files = input.files ? await (await ctx.workspace({ root: input.root })).snapshot(input.message || "with checkpoint") : null;
    const options = {
      message: input.message,
      tags: input.tags,
      ...(input.trigger !== undefined && { trigger: input.trigger }),
      ...(input.metadata !== undefined && { metadata: input.metadata as Record<string, unknown> }),
      ...(files && { filesRoot: files.snapshot.filesRoot }),
    };
    const cp = input.state === undefined ? await session.checkpointWorking(options) : await session.checkpoint(input.state, options);
    return { checkpoint: checkpointJson(cp), filesSnapshot: files ? checkpointJson(files.snapshot) : null, filesChanged: files ? files.changes.length : null };
  },
});
