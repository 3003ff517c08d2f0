// The reasoning state a debugging session builds and its checkpoints capture: hypotheses
// and their evidence, beliefs and their dependencies, knowledge gaps, verification runs,
// notes, command history, code state and metrics. Plain JSON, so the engine stores it as a
// value tree (append-only lists such as evidence and commands cost one chunk per append).
import { z } from "zod";

export const HYPOTHESIS_STATUSES = ["proposed", "testing", "confirmed", "rejected", "abandoned"] as const;
export type HypothesisStatus = (typeof HYPOTHESIS_STATUSES)[number];

export const EVIDENCE_KINDS = ["supports", "refutes", "neutral"] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

export const GAP_PRIORITIES = ["low", "medium", "high", "critical"] as const;
export type GapPriority = (typeof GAP_PRIORITIES)[number];

const iso = z.string();
const id = z.string().min(1);

export const hypothesisSchema = z.object({
  id,
  statement: z.string(),
  status: z.enum(HYPOTHESIS_STATUSES),
  confidence: z.number().min(0).max(1),
  /** Ids of the evidence attached to it, oldest first. */
  evidence: z.array(id),
  createdAt: iso,
  updatedAt: iso,
});
export type Hypothesis = z.infer<typeof hypothesisSchema>;

export const evidenceSchema = z.object({
  id,
  hypothesisId: id.nullable(),
  kind: z.enum(EVIDENCE_KINDS),
  content: z.string(),
  source: z.string().nullable(),
  /** How much it moves confidence, 0..1 (see hypotheses.ts for the rule). */
  strength: z.number().min(0).max(1),
  /** The verification run it records, if any. */
  verificationId: id.nullable(),
  at: iso,
});
export type Evidence = z.infer<typeof evidenceSchema>;

export const beliefSchema = z.object({
  id,
  statement: z.string(),
  confidence: z.number().min(0).max(1),
  status: z.enum(["held", "retracted"]),
  /** Beliefs or hypotheses this one rests on. */
  dependsOn: z.array(id),
  /** Beliefs this one lends support to. */
  supports: z.array(id),
  /** Beliefs this one cannot be held together with. */
  contradicts: z.array(id),
  createdAt: iso,
  updatedAt: iso,
});
export type Belief = z.infer<typeof beliefSchema>;

export const gapSchema = z.object({
  id,
  question: z.string(),
  priority: z.enum(GAP_PRIORITIES),
  status: z.enum(["open", "filled"]),
  answer: z.string().nullable(),
  /** What filled it: an evidence, verification or note id, if given. */
  filledBy: z.string().nullable(),
  createdAt: iso,
  filledAt: iso.nullable(),
});
export type Gap = z.infer<typeof gapSchema>;

/** A bounded preview of a command's output. */
export const outputSchema = z.object({
  preview: z.string(),
  /** Bytes the command wrote in all. */
  bytes: z.number().int().nonnegative(),
  truncated: z.boolean(),
});
export type Output = z.infer<typeof outputSchema>;

export const commandRunSchema = z.object({
  id,
  command: z.array(z.string()),
  cwd: z.string(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** Why it could not run at all (command not found, …), else null. */
  error: z.string().nullable(),
  durationMs: z.number().nonnegative(),
  stdout: outputSchema,
  stderr: outputSchema,
  at: iso,
});
export type CommandRun = z.infer<typeof commandRunSchema>;

export const verificationSchema = commandRunSchema.extend({
  name: z.string(),
  passed: z.boolean(),
  hypothesisId: id.nullable(),
  evidenceId: id.nullable(),
});
export type Verification = z.infer<typeof verificationSchema>;

export const noteSchema = z.object({ id, text: z.string(), tags: z.array(z.string()), at: iso });
export type Note = z.infer<typeof noteSchema>;

export const codeStateSchema = z.object({
  capturedAt: iso,
  /** The repository's top folder; null outside a git repository. */
  root: z.string().nullable(),
  commit: z.string().nullable(),
  branch: z.string().nullable(),
  /** `git diff HEAD` (tracked changes, staged or not), bounded. */
  patch: z.string(),
  patchBytes: z.number().int().nonnegative(),
  patchTruncated: z.boolean(),
  /** Untracked files (not in the patch), by path. */
  untracked: z.array(z.string()),
  /** Chosen environment variables (never secrets unless explicitly allowed). */
  env: z.record(z.string(), z.string()),
});
export type CodeState = z.infer<typeof codeStateSchema>;

export const metricsSchema = z.object({
  startedAt: iso,
  hypothesesTested: z.number().int().nonnegative(),
  verificationsRun: z.number().int().nonnegative(),
  gapsFilled: z.number().int().nonnegative(),
  commandsRun: z.number().int().nonnegative(),
  // Time spent is not stored: it is the span from startedAt to a checkpoint's time, and
  // a stored clock reading would make every save differ even when no work was done.
});
export type Metrics = z.infer<typeof metricsSchema>;

export const REASONING_KIND = "forge.reasoning";

export const reasoningStateSchema = z.object({
  kind: z.literal(REASONING_KIND),
  version: z.literal(1),
  task: z.string().nullable(),
  hypotheses: z.array(hypothesisSchema),
  evidence: z.array(evidenceSchema),
  beliefs: z.array(beliefSchema),
  gaps: z.array(gapSchema),
  verifications: z.array(verificationSchema),
  notes: z.array(noteSchema),
  commands: z.array(commandRunSchema),
  code: codeStateSchema.nullable(),
  metrics: metricsSchema,
  /** The last number handed out per id prefix (H, E, B, G, V, N, C). */
  counters: z.record(z.string(), z.number().int().nonnegative()),
});
export type ReasoningState = z.infer<typeof reasoningStateSchema>;

export function emptyState(now: string): ReasoningState {
  return {
    kind: REASONING_KIND,
    version: 1,
    task: null,
    hypotheses: [],
    evidence: [],
    beliefs: [],
    gaps: [],
    verifications: [],
    notes: [],
    commands: [],
    code: null,
    metrics: { startedAt: now, hypothesesTested: 0, verificationsRun: 0, gapsFilled: 0, commandsRun: 0 },
    counters: {},
  };
}

/** Whether a stored state is a reasoning state at all (before validating it in detail). */
export function isReasoningState(v: unknown): boolean {
  return typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === REASONING_KIND;
}
