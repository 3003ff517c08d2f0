// Pieces of input and result that many operations share: how a session or a checkpoint is
// named, and the JSON shapes of a checkpoint and of a file change.
import { ForgeError } from "../core/errors.js";
import type { FileChange } from "../domains/workspace/tree-compare.js";
import type { Z } from "./operation.js";

export { checkpointJson, type CheckpointJson } from "../timeline/types.js";

/** The `session` field most operations take. */
export const sessionField = (z: Z) =>
  z.string().min(1).optional().describe('the session (default: the caller\'s, from --session or FORGE_SESSION, else "default")');

/** A field naming a checkpoint. */
export const refField = (z: Z, what: string) => z.string().min(1).describe(`${what}: an id or unique prefix, HEAD, HEAD~N, #SEQ, a branch name, or tag:NAME`);

/** A file as a change lists it: octal mode, size, link target. */
export interface FileJson {
  readonly type: string;
  readonly mode: string;
  readonly size: number;
  readonly target?: string;
}

/** A changed file, in the one shape every interface gives. */
export interface FileChangeJson {
  readonly path: string;
  readonly kind: FileChange["kind"];
  /** For renames: where the content was before. */
  readonly from?: string;
  readonly before: FileJson | null;
  readonly after: FileJson | null;
  /** A unified diff, when asked for; null when a side is binary, too large or not stored. */
  readonly patch?: string | null;
  /** Why there is no patch. */
  readonly note?: string;
}

export function fileChangeJson(ch: FileChange): FileChangeJson {
  const side = (f: FileChange["before"]): FileJson | null =>
    f === null ? null : { type: f.type, mode: f.mode.toString(8), size: f.size, ...(f.type === "l" && { target: f.target ?? "" }) };
  return { path: ch.path, kind: ch.kind, ...(ch.from !== undefined && { from: ch.from }), before: side(ch.before), after: side(ch.after) };
}

/** Refused when a read names a time that has not come yet, or finds nothing: the same words everywhere. */
export function noCheckpointAt(session: string, time: Date): ForgeError {
  return new ForgeError("NO_CHECKPOINT", `session "${session}" has no checkpoint at or before ${time.toISOString()}`, {
    hint: "list the checkpoints to see when they were made",
  });
}
