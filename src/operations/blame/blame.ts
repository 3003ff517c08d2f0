// blame: which prompt, session and tool call last wrote each line of a file, from the
// snapshots the agent hosts' hooks took; "not written by an agent" for the rest.
import { blameFile } from "../../integrations/hosts/blame/blame.js";
import { defineOperation } from "../operation.js";
import { type BlameLineJson, blameLineJson, blameLocationFields, blameRoot, parseFileSpec, type SnapshotRefJson, snapshotRefJson } from "./shared.js";

export interface BlameResult {
  /** The file, relative to the project. */
  readonly path: string;
  readonly root: string;
  /** One entry per line asked for, in order. */
  readonly lines: readonly BlameLineJson[];
  /** The snapshot blamed at; null: the file as it is on disk. */
  readonly at: SnapshotRefJson | null;
  /** Lines in the file. */
  readonly total: number;
  /** Versions of the file read from its history. */
  readonly versions: number;
}

export const blameOperation = defineOperation({
  name: "blame",
  title: "Which prompt wrote each line",
  description:
    'For each line of a file (as it is now, or at snapshot `at`): whether an agent wrote it and, if so, the captured session, the prompt (number and text), the tool call and the snapshot that last wrote it; "not written by an agent" for lines from a person, another program or before Forge. `path` may end with :A-B or :N to ask for some lines.',
  effect: "read",
  input: (z) => ({
    path: z.string().min(1).describe("the file (relative to the project, or absolute), optionally with :A-B or :N"),
    start: z.number().int().min(1).optional().describe("the first line wanted (default 1)"),
    end: z.number().int().min(1).optional().describe("the last line wanted (default: the last)"),
    ...blameLocationFields(z),
  }),
  run: async (ctx, input): Promise<BlameResult> => {
    const root = blameRoot(ctx, input.root);
    const spec =
      input.start === undefined && input.end === undefined ? parseFileSpec(input.path, root) : { path: input.path, start: input.start, end: input.end };
    const r = await blameFile(await ctx.store(), {
      root,
      path: spec.path,
      ...(input.at !== undefined && { at: input.at }),
      ...(input.filesSession !== undefined && { workspaceSession: input.filesSession }),
      ...(spec.start !== undefined && { start: spec.start }),
      ...(spec.end !== undefined && { end: spec.end }),
    });
    return { path: r.path, root: r.root, lines: r.lines.map(blameLineJson), at: r.at ? snapshotRefJson(r.at) : null, total: r.total, versions: r.versions };
  },
});
