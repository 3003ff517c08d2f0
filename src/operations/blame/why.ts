// why: the story behind one line of a file — the prompt that last wrote it (number and whole
// text), the session and host, the agent's reasoning in that turn, the tool call with its
// input, and how to rewind to the moment the prompt was submitted.
import { InvalidArgumentError } from "../../core/errors.js";
import { type WhyReport, whyLine } from "../../integrations/hosts/blame/why.js";
import { defineOperation } from "../operation.js";
import { type BlameLineJson, blameLineJson, blameLocationFields, blameRoot, parseFileSpec } from "./shared.js";

/** What `why` answers: the line as `blame` gives it, then the tool call, the reasoning around it and the way back (WhyReport's fields). */
export interface WhyResult extends Omit<WhyReport, "blame" | "line"> {
  readonly path: string;
  readonly line: BlameLineJson;
}

export const whyOperation = defineOperation({
  name: "why",
  title: "Why a line is what it is",
  description:
    "The prompt that last wrote line `line` of a file (or `path` as PATH:LINE): its number and whole text, the session and host, the agent's thinking and text in that turn, the tool call with its input and result, and the `forge rewind` command that goes back to that prompt. Says so plainly when no agent wrote the line.",
  effect: "read",
  input: (z) => ({
    path: z.string().min(1).describe("the file (relative to the project, or absolute), or PATH:LINE"),
    line: z.number().int().min(1).optional().describe("the line (when `path` does not end with :LINE)"),
    ...blameLocationFields(z),
  }),
  run: async (ctx, input): Promise<WhyResult> => {
    const root = blameRoot(ctx, input.root);
    const spec = input.line === undefined ? parseFileSpec(input.path, root) : { path: input.path, start: input.line, end: input.line };
    if (spec.start === undefined) throw new InvalidArgumentError(`name the line: ${input.path}:LINE`, "`forge why PATH:LINE`, e.g. src/app.ts:42");
    if (spec.end !== spec.start) throw new InvalidArgumentError(`why takes one line, not ${spec.start}-${spec.end}`, "`forge blame PATH:A-B` covers a range");
    const r = await whyLine(await ctx.store(), {
      root,
      path: spec.path,
      line: spec.start,
      ...(input.at !== undefined && { at: input.at }),
      ...(input.filesSession !== undefined && { workspaceSession: input.filesSession }),
    });
    return { path: r.blame.path, line: blameLineJson(r.line), call: r.call, reasoning: r.reasoning, reply: r.reply, rewind: r.rewind };
  },
});
