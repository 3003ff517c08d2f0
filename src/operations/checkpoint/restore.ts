// checkpoint_restore: go back to a checkpoint — its state becomes the session's working
// state and HEAD moves there (by the session's kind: a conversation gets its messages back)
// — and, with `files`, the workspace's files too. Also the plan of a restore, for a
// confirmation that says what it would do.
import { InvalidArgumentError } from "../../core/errors.js";
import { sessionKind } from "../../domains/kinds.js";
import { defineOperation } from "../operation.js";
import { checkpointJson, refField, sessionField, type CheckpointJson } from "../shared.js";

export interface FilesRestoreJson {
  readonly written: readonly string[];
  readonly deleted: readonly string[];
  readonly skipped: readonly { readonly path: string; readonly why: string }[];
  /** The snapshot of the files before, which undoes the restore: the one taken first, or HEAD when they held no changes since it (null on a dry run). */
  readonly safety: CheckpointJson | null;
}

export interface RestoreResultJson {
  readonly checkpoint: CheckpointJson;
  readonly head: { readonly branch: string | null; readonly checkpointId: string };
  /** Checkpoints a linear restore deleted. */
  readonly discarded: readonly CheckpointJson[];
  /** The state the session holds again. */
  readonly state: unknown;
  /** What a restore with `files` did to the workspace; null without. */
  readonly files: FilesRestoreJson | null;
}

export const restoreOperation = defineOperation({
  name: "checkpoint_restore",
  title: "Restore a checkpoint",
  description:
    "CHANGES STATE. Makes a checkpoint's state the session's working state again and moves HEAD to it: anything recorded since the last checkpoint is replaced (checkpoint first to keep it). By default later checkpoints stay reachable on their branch and the next checkpoint starts a new branch; with `discardFuture: true` the checkpoints after it on its branch are DELETED. With `files: true` the workspace's files are rewritten to the snapshot the checkpoint carries (the current files are snapshotted first, so that can be undone).",
  effect: "destructive",
  input: (z) => ({
    ref: refField(z, "the checkpoint to restore"),
    discardFuture: z.boolean().default(false),
    files: z.boolean().default(false),
    root: z.string().min(1).optional().describe("the workspace folder for `files` (default: the folder holding .forge)"),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<RestoreResultJson> => {
    const store = await ctx.store();
    const session = await ctx.existingSession(input.session);
    const target = await session.get(input.ref);
    // Checked before anything moves: a checkpoint without files cannot restore them.
    if (input.files && target.filesRoot === null)
      throw new InvalidArgumentError(
        `checkpoint #${target.seq} carries no files snapshot`,
        "it was created without files (--files on the command line, files: true as a tool)",
      );
    const kind = await sessionKind((await session.info()).kind);
    const options = { discardFuture: input.discardFuture };
    const r = kind.restore ? await kind.restore(store, session.name, target.id, options) : await session.restore(target.id, options);
    const files = input.files ? await (await ctx.workspace({ root: input.root })).restoreCheckpoint(r.checkpoint) : null;
    return {
      checkpoint: checkpointJson(r.checkpoint),
      head: r.head,
      discarded: r.discarded.map(checkpointJson),
      state: await session.state(r.checkpoint.id),
      files: files && {
        written: files.written,
        deleted: files.deleted,
        skipped: files.skipped,
        safety: files.undo ? checkpointJson(files.undo.snapshot) : null,
      },
    };
  },
});

export interface RestorePlanJson {
  readonly checkpoint: CheckpointJson;
  readonly head: { readonly branch: string | null; readonly checkpointId: string };
  /** What a linear restore would delete. */
  readonly discarded: readonly CheckpointJson[];
  readonly linear: boolean;
  /** Whether the web page restores this kind of session (workspace files: no, the CLI does). */
  readonly restorable: boolean;
}

export const restorePlanOperation = defineOperation({
  name: "checkpoint_restore_plan",
  title: "What a restore would do",
  description: "Where HEAD would go and which checkpoints a linear restore would delete, without changing anything.",
  effect: "read",
  input: (z) => ({ ref: refField(z, "the checkpoint to restore"), discardFuture: z.boolean().default(false), session: sessionField(z) }),
  run: async (ctx, input): Promise<RestorePlanJson> => {
    const session = await ctx.existingSession(input.session);
    const plan = await session.restorePlan(input.ref, { discardFuture: input.discardFuture });
    const kind = await sessionKind((await session.info()).kind);
    return {
      checkpoint: checkpointJson(plan.checkpoint),
      head: plan.head,
      discarded: plan.discarded.map(checkpointJson),
      linear: input.discardFuture,
      restorable: kind.restoresOnPage,
    };
  },
});
