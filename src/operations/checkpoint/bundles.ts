// checkpoint_export and checkpoint_import: checkpoints with everything they need in one
// bundle file, and back. Import checks the whole bundle before it writes anything.
import { resolve } from "node:path";
import { writeFileAtomic } from "../../core/files.js";
import type { ImportReport, LeftOutMilestone } from "../../timeline/bundle.js";
import { defineOperation } from "../operation.js";
import { sessionField } from "../shared.js";

export interface ExportResultJson {
  /** The bundle file written (absolute). */
  readonly output: string;
  readonly sessions: number;
  readonly checkpoints: number;
  readonly milestones: number;
  readonly milestonesLeftOut: readonly LeftOutMilestone[];
  readonly objects: number;
  readonly bytes: number;
}

export const exportOperation = defineOperation({
  name: "checkpoint_export",
  title: "Export checkpoints to a bundle",
  description: "Writes checkpoints (default: the whole session) and every object they need to one bundle file.",
  effect: "read",
  input: (z) => ({
    output: z.string().min(1).describe("the bundle file to write"),
    refs: z.array(z.string().min(1)).default([]).describe("checkpoints to export (default: all of the session)"),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<ExportResultJson> => {
    const store = await ctx.store();
    const r = await store.export({ session: ctx.sessionName(input.session), refs: input.refs });
    writeFileAtomic(input.output, r.bytes);
    return {
      output: resolve(input.output),
      sessions: r.sessions,
      checkpoints: r.checkpoints,
      milestones: r.milestones,
      milestonesLeftOut: r.milestonesLeftOut,
      objects: r.objects,
      bytes: r.bytes.length,
    };
  },
});

export const importOperation = defineOperation({
  name: "checkpoint_import",
  title: "Import a bundle",
  description: "Imports a bundle file: checked whole first (it is untrusted), then written all or nothing. `as` imports its one session under another name.",
  effect: "write",
  input: (z) => ({
    file: z.string().min(1).describe("the bundle file"),
    as: z.string().min(1).optional().describe("import the bundle's session under this name"),
  }),
  // Read in records, never whole: a bundle may be any size.
  run: async (ctx, input): Promise<ImportReport> => (await ctx.store()).importFile(input.file, input.as !== undefined ? { as: input.as } : {}),
});
