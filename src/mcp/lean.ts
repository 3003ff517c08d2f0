// The lean profile's tools: what an agent inside a host whose hooks already record the
// conversation and the files still needs, at a fraction of the full list's tokens. Each tool
// is an existing operation with a short description and only some of its arguments (the rest
// take their defaults: the server's session and workspace), or a thin dispatcher over
// existing operations; none adds behaviour of its own.
import { z } from "zod";
import { InvalidArgumentError } from "../core/errors.js";
import { compareOperation } from "../operations/checkpoint/compare.js";
import { createOperation } from "../operations/checkpoint/create.js";
import { listOperation } from "../operations/checkpoint/read.js";
import { restoreOperation } from "../operations/checkpoint/restore.js";
import type { OperationContext } from "../operations/context.js";
import { filesDiffOperation } from "../operations/files/diff.js";
import { filesRestoreOperation } from "../operations/files/restore.js";
import { defineOperation, type AnyOperation, type InputOf, type Operation, type Shape } from "../operations/operation.js";
import { beliefAddOperation } from "../operations/reasoning/beliefs.js";
import { gapAddOperation, gapFillOperation } from "../operations/reasoning/gaps.js";
import { searchOperation } from "../operations/search/search.js";
import { evidenceAddOperation, hypothesisAddOperation, hypothesisUpdateOperation } from "../operations/reasoning/hypotheses.js";
import { noteAddOperation, taskSetOperation } from "../operations/reasoning/journal.js";
import { briefOperation } from "../operations/reasoning/resume.js";

/** How a lean tool names a checkpoint (the full tools' wording is three times as long). */
const REF = "id or prefix, #SEQ, HEAD, HEAD~N, a branch or tag:NAME";

/** Runs `op` on an input its own schema completes: defaults for what the lean tool left out. */
function runWith<S extends Shape, R>(op: Operation<S, R>, ctx: OperationContext, input: Record<string, unknown>): Promise<R> {
  return op.run(ctx, z.object(op.input(z)).strict().parse(input));
}

/**
 * `op` as a lean tool: the same name, effect and result, a short description, and only the
 * fields named (a string replaces the field's description).
 */
function narrow<S extends Shape, R>(op: Operation<S, R>, description: string, fields: { readonly [K in keyof S]?: string | true }): AnyOperation {
  return defineOperation({
    name: op.name,
    title: op.title,
    description,
    effect: op.effect,
    input: (zod) => {
      const full = op.input(zod);
      const out: Record<string, z.ZodType> = {};
      for (const [name, wording] of Object.entries(fields)) {
        const field = full[name];
        if (!(field instanceof z.ZodType)) throw new Error(`${op.name} has no field "${name}"`);
        out[name] = typeof wording === "string" ? field.describe(wording) : field;
      }
      return out;
    },
    run: (ctx, input) => runWith(op, ctx, input),
    ...(op.text && { text: op.text }),
  });
}

/** checkpoint_list, or a full-text search when a query is given: one tool to find a checkpoint by. */
const findOperation = defineOperation({
  name: listOperation.name,
  title: "List or search checkpoints",
  description:
    'The session\'s checkpoints, oldest first. With `query`: full-text search of all history (words ANDed, "quoted phrases"), best first; `first: true` orders by first appearance.',
  effect: "read",
  input: (zod) => ({
    query: zod.string().min(1).optional().describe("text to search for"),
    first: zod.boolean().optional().describe("with query: earliest appearance first"),
    limit: listOperation.input(zod).limit.describe("at most this many, the newest"),
  }),
  run: (ctx, input): Promise<unknown> => {
    if (input.query === undefined) {
      if (input.first !== undefined) throw new InvalidArgumentError("`first` orders search hits", "give a query with it");
      return runWith(listOperation, ctx, { ...(input.limit !== undefined && { limit: input.limit }) });
    }
    return runWith(searchOperation, ctx, {
      query: input.query,
      ...(input.first !== undefined && { first: input.first }),
      ...(input.limit !== undefined && { limit: input.limit }),
    });
  },
});

const RECORD_KINDS = ["task", "hypothesis", "evidence", "belief", "gap", "note"] as const;

const recordFields = (zod: typeof z) => ({
  kind: zod.enum(RECORD_KINDS),
  text: zod.string().min(1).optional().describe("what to record"),
  id: zod.string().min(1).optional().describe("H… to update a hypothesis, G… to answer a gap"),
  status: hypothesisUpdateOperation.input(zod).status,
  confidence: hypothesisUpdateOperation.input(zod).confidence.describe("0 to 1"),
  hypothesis: zod.string().min(1).optional().describe("evidence: the hypothesis it bears on"),
  stance: evidenceAddOperation.input(zod).kind.unwrap().optional().describe("evidence: default neutral"),
  dependsOn: beliefAddOperation.input(zod).dependsOn.describe("belief: ids it rests on"),
});
type RecordInput = InputOf<ReturnType<typeof recordFields>>;
type RecordField = Exclude<keyof RecordInput, "kind">;

/** What one `record` call becomes: an operation, its input, and the fields the call may give. */
interface Route {
  readonly op: AnyOperation;
  readonly fields: readonly RecordField[];
  readonly input: Record<string, unknown>;
}

function route(r: RecordInput): Route {
  switch (r.kind) {
    case "task":
      return { op: taskSetOperation, fields: ["text"], input: { task: r.text } };
    case "hypothesis":
      return r.id === undefined
        ? { op: hypothesisAddOperation, fields: ["text", "confidence", "status"], input: { statement: r.text, confidence: r.confidence, status: r.status } }
        : {
            op: hypothesisUpdateOperation,
            fields: ["id", "text", "confidence", "status"],
            input: { id: r.id, statement: r.text, confidence: r.confidence, status: r.status },
          };
    case "evidence":
      return { op: evidenceAddOperation, fields: ["text", "hypothesis", "stance"], input: { content: r.text, hypothesis: r.hypothesis, kind: r.stance } };
    case "belief":
      return {
        op: beliefAddOperation,
        fields: ["text", "confidence", "dependsOn"],
        input: { statement: r.text, confidence: r.confidence, dependsOn: r.dependsOn },
      };
    case "gap":
      return r.id === undefined
        ? { op: gapAddOperation, fields: ["text"], input: { question: r.text } }
        : { op: gapFillOperation, fields: ["id", "text"], input: { id: r.id, answer: r.text } };
    case "note":
      return { op: noteAddOperation, fields: ["text"], input: { text: r.text } };
  }
}

/** task_set, hypothesis_add/update, evidence_add, belief_add, gap_add/fill and note_add as one tool. */
const recordOperation = defineOperation({
  name: "record",
  title: "Record reasoning",
  description:
    "Writes to the reasoning board: the task, a hypothesis (with `id`: updates it; confirming or rejecting one makes a checkpoint), evidence, a belief, a gap (a question; with `id`: its answer) or a note.",
  effect: "write",
  input: recordFields,
  run: async (ctx, input): Promise<unknown> => {
    const { op, fields, input: opInput } = route(input);
    const given = Object.keys(input).filter((k): k is RecordField => k !== "kind" && input[k as RecordField] !== undefined);
    const mode = `kind "${input.kind}"${input.id === undefined ? "" : " with id"}`;
    const stray = given.find((k) => !fields.includes(k));
    if (stray !== undefined) throw new InvalidArgumentError(`record ${mode} takes no "${stray}"`, `it takes ${fields.map((f) => `"${f}"`).join(", ")}`);
    if (input.text === undefined && op !== hypothesisUpdateOperation)
      throw new InvalidArgumentError(`record ${mode} needs "text"`, "give what to record as text");
    return runWith(op, ctx, Object.fromEntries(Object.entries(opInput).filter(([, v]) => v !== undefined)));
  },
});

/** The lean profile, in the order tools are listed. */
export const LEAN_OPERATIONS: readonly AnyOperation[] = [
  narrow(
    briefOperation,
    "Your task, hypotheses, beliefs, open questions and recent checks as markdown. Read it first after a context compaction or a restart.",
    {},
  ),
  recordOperation,
  narrow(
    createOperation,
    "Saves the reasoning board as a checkpoint; `files: true` also snapshots the workspace's files with it. Make one before anything risky.",
    {
      message: "what this checkpoint is",
      files: true,
    },
  ),
  findOperation,
  narrow(compareOperation, "What changed between two checkpoints: hypotheses, evidence, beliefs, …, and the files when they carry a snapshot.", {
    from: REF,
    to: "the later one",
    patches: "unified diffs of changed text files",
  }),
  narrow(
    restoreOperation,
    "CHANGES STATE. Makes a checkpoint's reasoning the working state (unsaved reasoning is lost) and moves HEAD to it; `files: true` also REWRITES the workspace's files (snapshotted first, so it can be undone).",
    { ref: REF, files: true },
  ),
  narrow(filesDiffOperation, "Unified diffs of the workspace's files: the last snapshot (or `from`) against the files on disk.", {
    from: "a snapshot (default: the last)",
    paths: true,
    stat: "counts only",
  }),
  narrow(
    filesRestoreOperation,
    "CHANGES FILES ON DISK. Rewrites the workspace, or only `paths`, to a snapshot (HEAD: the last, HEAD~1 …), DELETING files that did not exist then; the result's `undo` says how to go back.",
    { ref: "the snapshot", paths: "only these files or folders", dryRun: true },
  ),
];
