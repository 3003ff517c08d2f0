// The MCP tools of the reasoning operations (to become operations of their own).
// Each tool is a thin call into the library; its result is structured data (and the same
// data as JSON text for clients that read only text), its failure a tool error with
// Forge's message — the server itself never fails because a call did.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ForgeError, InvalidArgumentError } from "../core/errors.js";
import { parseTime } from "../core/time.js";
import { isReasoningState, EVIDENCE_KINDS, GAP_PRIORITIES, HYPOTHESIS_STATUSES } from "../domains/reasoning/model.js";
import { runCommand } from "../domains/reasoning/runner.js";
import { workspaceRoot } from "../domains/workspace/configured.js";
import { filePatch } from "../domains/workspace/patches.js";
import { STRATEGIES, countChanges, type FileChange } from "../domains/workspace/workspace.js";
import { checkpointJson } from "../timeline/types.js";
import type { OperationContext as McpContext } from "../operations/context.js";
import { errorText, plain } from "./context.js";

type Shape = z.ZodRawShape;
type Args<S extends Shape> = z.infer<z.ZodObject<S>>;
interface Output {
  readonly data: Record<string, unknown>;
  /** What a text-only client reads (default: the data as JSON). */
  readonly text?: string;
}

interface ToolSpec<S extends Shape> {
  readonly title: string;
  readonly description: string;
  readonly input: S;
  readonly annotations: ToolAnnotations;
}

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
const DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

function define<S extends Shape>(server: McpServer, name: string, spec: ToolSpec<S>, fn: (args: Args<S>) => Promise<Output>): void {
  server.registerTool(
    name,
    // Strict: an argument the tool does not know (a typo, a guessed name) is an error that
    // names it, not silently ignored.
    { title: spec.title, description: spec.description, inputSchema: z.object(spec.input).strict(), annotations: { title: spec.title, ...spec.annotations } },
    // The SDK validated the arguments against `input` before this runs.
    (async (args: Args<S>): Promise<CallToolResult> => {
      try {
        const out = await fn(args);
        return { content: [{ type: "text", text: out.text ?? JSON.stringify(out.data, null, 2) }], structuredContent: out.data };
      } catch (e) {
        return { content: [{ type: "text", text: errorText(e) }], isError: true };
      }
    }) as never,
  );
}

const session = z.string().min(1).optional().describe('the session (default: the server\'s, from --session or FORGE_SESSION, else "default")');
const ref = (what: string) => z.string().min(1).describe(`${what}: an id or unique prefix, HEAD, HEAD~N, #SEQ, a branch name, or tag:NAME`);
const unit = (what: string) => z.number().min(0).max(1).describe(`${what}, from 0 to 1`);

function changeData(ch: FileChange): Record<string, unknown> {
  return {
    path: ch.path,
    kind: ch.kind,
    ...(ch.from !== undefined && { from: ch.from }),
    ...(ch.before && { before: { type: ch.before.type, mode: ch.before.mode.toString(8), size: ch.before.size } }),
    ...(ch.after && { after: { type: ch.after.type, mode: ch.after.mode.toString(8), size: ch.after.size } }),
  };
}

/** The reasoning operations of a debugging session. */
export function reasoningTools(server: McpServer, ctx: McpContext): void {
  /** Loads the reasoning session, changes it, saves; reports any automatic checkpoint. */
  async function change<T>(name: string | undefined, fn: (rs: Awaited<ReturnType<McpContext["reasoning"]>>) => T | Promise<T>): Promise<{ result: T; autoCheckpoint: Record<string, unknown> | null }> {
    const rs = await ctx.reasoning(name);
    const { result, saved } = await rs.update(fn);
    return { result, autoCheckpoint: saved.checkpoint ? checkpointJson(saved.checkpoint) : null };
  }

  define(
    server,
    "task_set",
    { title: "State the task", description: "Record what the session is trying to do; the brief opens with it.", input: { task: z.string().min(1), session }, annotations: WRITE },
    async (a) => {
      const r = await change(a.session, (rs) => rs.setTask(a.task));
      return { data: { task: a.task, autoCheckpoint: r.autoCheckpoint } };
    },
  );

  define(
    server,
    "hypothesis_add",
    {
      title: "Propose a hypothesis",
      description: "Add a hypothesis to the board (status proposed unless given). Returns its id (H1, H2, …).",
      input: { statement: z.string().min(1), confidence: unit("how likely it is").optional(), status: z.enum(HYPOTHESIS_STATUSES).optional(), session },
      annotations: WRITE,
    },
    async (a) => {
      const r = await change(a.session, (rs) => rs.hypotheses.add(a.statement, { ...(a.confidence !== undefined && { confidence: a.confidence }), ...(a.status !== undefined && { status: a.status }) }));
      return { data: { hypothesis: plain(r.result) as Record<string, unknown>, autoCheckpoint: r.autoCheckpoint } };
    },
  );

  define(
    server,
    "hypothesis_update",
    {
      title: "Update a hypothesis",
      description: "Change a hypothesis's status (proposed, testing, confirmed, rejected, abandoned), confidence or wording. Confirming or rejecting one makes an automatic checkpoint.",
      input: { id: z.string().min(1).describe("H1, H2, …"), status: z.enum(HYPOTHESIS_STATUSES).optional(), confidence: unit("how likely it is").optional(), statement: z.string().min(1).optional(), session },
      annotations: WRITE,
    },
    async (a) => {
      if (a.status === undefined && a.confidence === undefined && a.statement === undefined) throw new InvalidArgumentError("nothing to update: give status, confidence or statement");
      const r = await change(a.session, (rs) =>
        rs.hypotheses.update(a.id, {
          ...(a.status !== undefined && { status: a.status }),
          ...(a.confidence !== undefined && { confidence: a.confidence }),
          ...(a.statement !== undefined && { statement: a.statement }),
        }),
      );
      return { data: { hypothesis: plain(r.result.hypothesis) as Record<string, unknown>, changes: plain(r.result.changes), autoCheckpoint: r.autoCheckpoint } };
    },
  );

  define(
    server,
    "hypothesis_list",
    { title: "List hypotheses", description: "The hypothesis board, with evidence counts and confidences.", input: { status: z.enum(HYPOTHESIS_STATUSES).optional(), session }, annotations: READ },
    async (a) => {
      const rs = await ctx.reasoning(a.session);
      return { data: { hypotheses: plain(rs.hypotheses.list(a.status === undefined ? {} : { status: a.status })) } };
    },
  );

  define(
    server,
    "evidence_add",
    {
      title: "Record evidence",
      description: "Record an observation for a hypothesis (it moves the hypothesis's confidence: supports raises, refutes lowers) or, without `hypothesis`, on its own.",
      input: {
        hypothesis: z.string().min(1).optional().describe("H1, H2, … (omit for evidence about no hypothesis in particular)"),
        content: z.string().min(1).describe("what was observed"),
        kind: z.enum(EVIDENCE_KINDS).default("neutral"),
        source: z.string().min(1).optional().describe("where it came from: a file, a command, a log"),
        strength: unit("how strong it is").optional(),
        session,
      },
      annotations: WRITE,
    },
    async (a) => {
      const r = await change(a.session, (rs) =>
        rs.hypotheses.addEvidence(a.hypothesis ?? null, { kind: a.kind, content: a.content, ...(a.source !== undefined && { source: a.source }), ...(a.strength !== undefined && { strength: a.strength }) }),
      );
      return { data: { evidence: plain(r.result.evidence) as Record<string, unknown>, hypothesis: plain(r.result.hypothesis), autoCheckpoint: r.autoCheckpoint } };
    },
  );

  define(
    server,
    "belief_add",
    {
      title: "Hold a belief",
      description: "Record a belief, optionally resting on other beliefs or hypotheses (dependsOn), supporting or contradicting others. Returns it and any contradiction it takes part in.",
      input: {
        statement: z.string().min(1),
        confidence: unit("how sure").optional(),
        dependsOn: z.array(z.string().min(1)).optional().describe("ids of beliefs (B1, …) or hypotheses (H1, …) it rests on"),
        supports: z.array(z.string().min(1)).optional(),
        contradicts: z.array(z.string().min(1)).optional(),
        session,
      },
      annotations: WRITE,
    },
    async (a) => {
      const rs = await ctx.reasoning(a.session);
      const { result: b, saved } = await rs.update((r) =>
        r.beliefs.add(a.statement, {
          ...(a.confidence !== undefined && { confidence: a.confidence }),
          ...(a.dependsOn && { dependsOn: a.dependsOn }),
          ...(a.supports && { supports: a.supports }),
          ...(a.contradicts && { contradicts: a.contradicts }),
        }),
      );
      const contradictions = rs.contradictions().filter((x) => x.beliefs.includes(b.id));
      return { data: { belief: plain(b) as Record<string, unknown>, contradictions: plain(contradictions), autoCheckpoint: saved.checkpoint ? checkpointJson(saved.checkpoint) : null } };
    },
  );

  define(
    server,
    "belief_retract",
    { title: "Retract a belief", description: "Mark a belief as no longer held (it stays in the record).", input: { id: z.string().min(1).describe("B1, B2, …"), session }, annotations: WRITE },
    async (a) => {
      const r = await change(a.session, (rs) => rs.beliefs.update(a.id, { status: "retracted" }));
      return { data: { belief: plain(r.result) as Record<string, unknown>, autoCheckpoint: r.autoCheckpoint } };
    },
  );

  define(
    server,
    "belief_list",
    { title: "List beliefs", description: "The beliefs with their dependencies, and the contradictions among beliefs and hypotheses.", input: { session }, annotations: READ },
    async (a) => {
      const rs = await ctx.reasoning(a.session);
      return { data: { beliefs: plain(rs.beliefs.list()), contradictions: plain(rs.contradictions()) } };
    },
  );

  define(
    server,
    "contradictions",
    {
      title: "Find contradictions",
      description: "Beliefs that contradict each other, beliefs resting on retracted beliefs or on rejected hypotheses: what to resolve before trusting the board.",
      input: { session },
      annotations: READ,
    },
    async (a) => {
      const rs = await ctx.reasoning(a.session);
      return { data: { contradictions: plain(rs.contradictions()) } };
    },
  );

  define(
    server,
    "gap_add",
    { title: "Note a knowledge gap", description: "Record a question that needs an answer, with a priority.", input: { question: z.string().min(1), priority: z.enum(GAP_PRIORITIES).optional(), session }, annotations: WRITE },
    async (a) => {
      const r = await change(a.session, (rs) => rs.gaps.add(a.question, a.priority === undefined ? {} : { priority: a.priority }));
      return { data: { gap: plain(r.result) as Record<string, unknown>, autoCheckpoint: r.autoCheckpoint } };
    },
  );

  define(
    server,
    "gap_fill",
    {
      title: "Fill a knowledge gap",
      description: "Answer an open question (G1, G2, …), optionally naming what answered it.",
      input: { id: z.string().min(1).describe("G1, G2, …"), answer: z.string().min(1), by: z.string().min(1).optional().describe("the evidence, verification or source that answered it"), session },
      annotations: WRITE,
    },
    async (a) => {
      const r = await change(a.session, (rs) => rs.gaps.fill(a.id, a.answer, { filledBy: a.by ?? null }));
      return { data: { gap: plain(r.result) as Record<string, unknown>, autoCheckpoint: r.autoCheckpoint } };
    },
  );

  define(
    server,
    "gap_list",
    { title: "List knowledge gaps", description: "Open and filled questions.", input: { status: z.enum(["open", "filled"]).optional(), session }, annotations: READ },
    async (a) => {
      const rs = await ctx.reasoning(a.session);
      return { data: { gaps: plain(rs.gaps.list(a.status === undefined ? {} : { status: a.status })) } };
    },
  );

  define(
    server,
    "note_add",
    { title: "Add a note", description: "A free-form note with optional tags.", input: { text: z.string().min(1), tags: z.array(z.string().min(1)).default([]), session }, annotations: WRITE },
    async (a) => {
      const r = await change(a.session, (rs) => rs.notes.add(a.text, a.tags));
      return { data: { note: plain(r.result) as Record<string, unknown>, autoCheckpoint: r.autoCheckpoint } };
    },
  );

  define(
    server,
    "verify",
    {
      title: "Run a verification",
      description:
        "RUNS A COMMAND (argv, no shell) in the workspace and records pass/fail, exit code, duration and output as a verification; with `hypothesis`, a pass is supporting evidence and a failure refuting evidence for it.",
      input: {
        name: z.string().min(1).describe("what is being checked"),
        command: z.array(z.string()).min(1).describe('the command as argv, e.g. ["npm", "test"]'),
        hypothesis: z.string().min(1).optional().describe("H1, H2, …"),
        timeoutSeconds: z.number().positive().max(3600).default(300),
        session,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    async (a) => {
      const rs = await ctx.reasoning(a.session);
      if (a.hypothesis !== undefined) rs.hypotheses.get(a.hypothesis); // an unknown id fails before anything runs
      const cwd = workspaceRoot(ctx.options.root === undefined ? {} : { root: ctx.options.root });
      // The command runs once; recording its result is retried if another process saved meanwhile.
      const run = await runCommand(a.command, { cwd, timeoutMs: a.timeoutSeconds * 1000 });
      const { result, saved } = await rs.update((r) => r.recordVerification(a.name, a.command, cwd, run, a.hypothesis));
      return { data: { verification: plain(result.verification) as Record<string, unknown>, evidenceId: result.evidenceId, autoCheckpoint: saved.checkpoint ? checkpointJson(saved.checkpoint) : null } };
    },
  );

  define(
    server,
    "brief",
    {
      title: "Brief",
      description: "The session's state as a short markdown brief: task, hypotheses by confidence, beliefs, contradictions, open gaps, recent verifications. Read it after a context compaction to pick up where you were.",
      input: { ref: ref("a checkpoint to brief instead of the working state").optional(), session },
      annotations: READ,
    },
    async (a) => {
      const rs = await ctx.reasoning(a.session);
      const b = await rs.brief(a.ref);
      return { data: { markdown: b.markdown, checkpoint: plain(b.input.checkpoint), unsaved: b.input.unsaved }, text: b.markdown };
    },
  );

  define(
    server,
    "recover",
    { title: "Recover", description: "The latest checkpoint and the steps to resume from it (after a crash or a lost context).", input: { session }, annotations: READ },
    async (a) => {
      const rs = await ctx.reasoning(a.session);
      return { data: plain(await rs.recover()) as Record<string, unknown> };
    },
  );

  define(
    server,
    "experiment_branch",
    {
      title: "Start an experiment branch",
      description: "CHANGES STATE. Starts a branch at HEAD (or `from`) and, unless `switch` is false, moves onto it; unsaved work is checkpointed first so it is neither lost nor carried off.",
      input: { name: z.string().min(1), from: ref("where the branch starts").optional(), switch: z.boolean().default(true), session },
      annotations: WRITE,
    },
    async (a) => {
      const rs = await ctx.reasoning(a.session);
      const r = await rs.branch(a.name, { switch: a.switch, ...(a.from !== undefined && { from: a.from }) });
      return { data: { branch: r.branch, saved: r.saved ? checkpointJson(r.saved) : null } };
    },
  );

  define(
    server,
    "experiment_switch",
    {
      title: "Switch branch",
      description: "CHANGES STATE. Moves onto another branch: its head's state becomes the working state (unsaved work is checkpointed first).",
      input: { name: z.string().min(1), session },
      annotations: WRITE,
    },
    async (a) => {
      const rs = await ctx.reasoning(a.session);
      const r = await rs.switch(a.name);
      return { data: { checkpoint: checkpointJson(r.checkpoint), saved: r.saved ? checkpointJson(r.saved) : null } };
    },
  );
}

