// What a page shows: a session with its timeline and working state, and a checkpoint with
// its state as the session's kind shows it (a reasoning board, a transcript, JSON) and the
// list of its files.
import { sessionKind, viewOf, type StateView } from "../../domains/kinds.js";
import { readTree, type FileInfo } from "../../objects/file-tree.js";
import { defineOperation } from "../operation.js";
import { checkpointJson, refField, sessionField, type CheckpointJson } from "../shared.js";
import type { MilestoneMark } from "./read.js";

export interface SessionDetail {
  readonly session: { readonly name: string; readonly kind: string; readonly createdAt: string };
  readonly head: { readonly branch: string | null; readonly checkpointId: string | null };
  readonly branches: readonly { readonly name: string; readonly headId: string }[];
  readonly milestones: readonly MilestoneMark[];
  /** Newest first. */
  readonly checkpoints: readonly CheckpointJson[];
  /** What the session holds now, between checkpoints. */
  readonly working: { readonly version: number; readonly view: StateView } | null;
}

export const sessionShowOperation = defineOperation({
  name: "session_show",
  title: "Show a session",
  description: "A session's checkpoints (newest first), branches, milestones and HEAD, and its working state as its kind shows it.",
  effect: "read",
  input: (z) => ({ session: sessionField(z) }),
  run: async (ctx, input): Promise<SessionDetail> => {
    const session = await ctx.existingSession(input.session);
    const [info, t, working] = await Promise.all([session.info(), session.timeline(), session.working()]);
    const kind = await sessionKind(info.kind);
    return {
      session: { name: info.name, kind: info.kind, createdAt: info.createdAt.toISOString() },
      head: t.head,
      branches: t.branches,
      milestones: t.milestones,
      checkpoints: t.checkpoints.map(checkpointJson).reverse(),
      working: working ? { version: working.version, view: viewOf(kind, working.state, info.name) } : null,
    };
  },
});

export interface FileEntry {
  readonly path: string;
  readonly type: FileInfo["type"];
  readonly size: number;
  readonly mode: string;
}

export interface CheckpointView {
  readonly checkpoint: CheckpointJson;
  readonly view: StateView;
  /** The checkpoint's files, when it carries a files tree. */
  readonly files: readonly FileEntry[] | null;
}

export const checkpointViewOperation = defineOperation({
  name: "checkpoint_view",
  title: "View a checkpoint",
  description: "A checkpoint, its state as the session's kind shows it, and the files it carries.",
  effect: "read",
  input: (z) => ({ ref: refField(z, "the checkpoint").default("HEAD"), session: sessionField(z) }),
  run: async (ctx, input): Promise<CheckpointView> => {
    const store = await ctx.store();
    const session = await ctx.existingSession(input.session);
    const info = await session.info();
    const cp = await session.get(input.ref);
    const [kind, state] = await Promise.all([sessionKind(info.kind), session.state(cp.id)]);
    let files: FileEntry[] | null = null;
    if (cp.filesRoot !== null) {
      const tree = await readTree(store.objects, cp.filesRoot);
      files = [...tree.files]
        .map(([path, f]) => ({ path, type: f.type, size: f.size, mode: f.mode.toString(8) }))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    }
    return { checkpoint: checkpointJson(cp), view: viewOf(kind, state, info.name), files };
  },
});
