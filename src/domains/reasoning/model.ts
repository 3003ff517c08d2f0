// The reasoning state a debugging session builds and its checkpoints capture: hypotheses
// and their evidence, beliefs and their dependencies, knowledge gaps, verification runs,
// notes, command history, code state and metrics. Plain JSON, so the engine stores it as a
// value tree (append-only lists such as evidence and commands cost one chunk per append).
//
// The types are written out by hand and checked by a small hand-written validator rather
// than a schema library: loading one is on the path of every command, and a zod schema
// cost ~90 ms of start-up and milliseconds per thousand items on every load.
import { ForgeError } from "../../core/errors.js";

export const HYPOTHESIS_STATUSES = ["proposed", "testing", "confirmed", "rejected", "abandoned"] as const;
export type HypothesisStatus = (typeof HYPOTHESIS_STATUSES)[number];

export const EVIDENCE_KINDS = ["supports", "refutes", "neutral"] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

export const GAP_PRIORITIES = ["low", "medium", "high", "critical"] as const;
export type GapPriority = (typeof GAP_PRIORITIES)[number];

/** Times are ISO 8601 strings. */
type Iso = string;

export interface Hypothesis {
  id: string;
  statement: string;
  status: HypothesisStatus;
  /** 0..1 */
  confidence: number;
  /** Ids of the evidence attached to it, oldest first. */
  evidence: string[];
  createdAt: Iso;
  updatedAt: Iso;
}

export interface Evidence {
  id: string;
  hypothesisId: string | null;
  kind: EvidenceKind;
  content: string;
  source: string | null;
  /** How much it moves confidence, 0..1 (see hypotheses.ts for the rule). */
  strength: number;
  /** The verification run it records, if any. */
  verificationId: string | null;
  at: Iso;
}

export interface Belief {
  id: string;
  statement: string;
  confidence: number;
  status: "held" | "retracted";
  /** Beliefs or hypotheses this one rests on. */
  dependsOn: string[];
  /** Beliefs this one lends support to. */
  supports: string[];
  /** Beliefs this one cannot be held together with. */
  contradicts: string[];
  createdAt: Iso;
  updatedAt: Iso;
}

export interface Gap {
  id: string;
  question: string;
  priority: GapPriority;
  status: "open" | "filled";
  answer: string | null;
  /** What filled it: an evidence, verification or note id, if given. */
  filledBy: string | null;
  createdAt: Iso;
  filledAt: Iso | null;
}

/** A bounded preview of a command's output. */
export interface Output {
  preview: string;
  /** Bytes the command wrote in all. */
  bytes: number;
  truncated: boolean;
}

export interface CommandRun {
  id: string;
  command: string[];
  cwd: string;
  exitCode: number | null;
  signal: string | null;
  /** Why it could not run at all (command not found, …), else null. */
  error: string | null;
  durationMs: number;
  stdout: Output;
  stderr: Output;
  at: Iso;
}

export interface Verification extends CommandRun {
  name: string;
  passed: boolean;
  hypothesisId: string | null;
  evidenceId: string | null;
}

export interface Note {
  id: string;
  text: string;
  tags: string[];
  at: Iso;
}

export interface CodeState {
  capturedAt: Iso;
  /** The repository's top folder; null outside a git repository. */
  root: string | null;
  commit: string | null;
  branch: string | null;
  /** `git diff HEAD` (tracked changes, staged or not), bounded. */
  patch: string;
  patchBytes: number;
  patchTruncated: boolean;
  /** Untracked files (not in the patch), by path. */
  untracked: string[];
  /** Chosen environment variables (never secrets unless explicitly allowed). */
  env: Record<string, string>;
}

export interface Metrics {
  startedAt: Iso;
  hypothesesTested: number;
  verificationsRun: number;
  gapsFilled: number;
  commandsRun: number;
  // Time spent is not stored: it is the span from startedAt to a checkpoint's time, and
  // a stored clock reading would make every save differ even when no work was done.
}

export const REASONING_KIND = "forge.reasoning";

export interface ReasoningState {
  kind: typeof REASONING_KIND;
  version: 1;
  task: string | null;
  hypotheses: Hypothesis[];
  evidence: Evidence[];
  beliefs: Belief[];
  gaps: Gap[];
  verifications: Verification[];
  notes: Note[];
  commands: CommandRun[];
  code: CodeState | null;
  metrics: Metrics;
  /** The last number handed out per id prefix (H, E, B, G, V, N, C). */
  counters: Record<string, number>;
}

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

/** Whether a stored state is a reasoning state at all (before checking it in detail). */
export function isReasoningState(v: unknown): boolean {
  return typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === REASONING_KIND;
}

const LISTS = ["hypotheses", "evidence", "beliefs", "gaps", "verifications", "notes", "commands"] as const;

/**
 * What is wrong with a stored reasoning state, or null if nothing is: the shape every
 * part relies on (lists of items with string ids, valid statuses and confidences).
 */
export function checkReasoningState(v: unknown): string | null {
  if (!isReasoningState(v)) return "it is not a reasoning state";
  const s = v as Record<string, unknown>;
  if (s["version"] !== 1) return `it has version ${JSON.stringify(s["version"])}, not 1`;
  for (const list of LISTS) {
    const items = s[list];
    if (!Array.isArray(items)) return `${list} is not a list`;
    for (let i = 0; i < items.length; i++) {
      const item: unknown = items[i];
      if (typeof item !== "object" || item === null || typeof (item as { id?: unknown }).id !== "string") return `${list}[${i}] has no id`;
    }
  }
  for (const h of s["hypotheses"] as Record<string, unknown>[]) {
    if (!(HYPOTHESIS_STATUSES as readonly unknown[]).includes(h["status"])) return `hypothesis ${String(h["id"])} has status ${JSON.stringify(h["status"])}`;
    if (typeof h["confidence"] !== "number" || h["confidence"] < 0 || h["confidence"] > 1) return `hypothesis ${String(h["id"])} has no confidence in 0..1`;
    if (typeof h["statement"] !== "string" || !Array.isArray(h["evidence"])) return `hypothesis ${String(h["id"])} is incomplete`;
  }
  for (const b of s["beliefs"] as Record<string, unknown>[]) {
    if (b["status"] !== "held" && b["status"] !== "retracted") return `belief ${String(b["id"])} has status ${JSON.stringify(b["status"])}`;
    for (const f of ["dependsOn", "supports", "contradicts"]) if (!Array.isArray(b[f])) return `belief ${String(b["id"])} has no ${f} list`;
  }
  const m = s["metrics"] as Record<string, unknown> | null | undefined;
  if (typeof m !== "object" || m === null || typeof m["startedAt"] !== "string") return "its metrics are missing";
  if (typeof s["counters"] !== "object" || s["counters"] === null) return "its id counters are missing";
  return null;
}

/** Every top-level key of a reasoning state, in its order. */
export const STATE_KEYS: readonly (keyof ReasoningState)[] = [
  "kind",
  "version",
  "task",
  "hypotheses",
  "evidence",
  "beliefs",
  "gaps",
  "verifications",
  "notes",
  "commands",
  "code",
  "metrics",
  "counters",
];

/** A stored state as a reasoning state; a clear error when the session holds something else. */
export function toReasoningState(v: unknown, session: string): ReasoningState {
  if (!isReasoningState(v)) {
    throw new ForgeError("INVALID_STATE", `session "${session}" holds a state that is not a reasoning session`, {
      hint: "use another --session for reasoning work",
    });
  }
  const problem = checkReasoningState(v);
  if (problem !== null) {
    throw new ForgeError("INVALID_STATE", `the reasoning state of session "${session}" is malformed: ${problem}`, {
      hint: "restore an earlier checkpoint",
    });
  }
  return v as ReasoningState;
}
