// The hypothesis board: hypotheses with a status and a confidence, and the evidence for
// and against them.
//
// The confidence rule. Confidence is a probability; evidence moves it in log-odds:
//   odds' = odds × 4^strength   for supporting evidence,
//   odds' = odds ÷ 4^strength   for refuting evidence, unchanged for neutral,
// with strength in 0..1 (default 0.5, so one ordinary piece doubles or halves the odds:
// 0.6 → 0.75 → 0.857 …), clamped to 0.01..0.99 so no evidence makes a hypothesis certain.
// Setting a confidence by hand overrides it; later evidence moves on from there. Status
// changes are always explicit: evidence informs the agent, the agent decides.
import { InvalidArgumentError, NotFoundError } from "../../core/errors.js";
import { EVIDENCE_KINDS, HYPOTHESIS_STATUSES, type Evidence, type EvidenceKind, type Hypothesis, type HypothesisStatus } from "./model.js";
import type { PartContext, Snapshotable } from "./part.js";

export const DEFAULT_CONFIDENCE = 0.5;
export const DEFAULT_STRENGTH = 0.5;
const MIN_CONFIDENCE = 0.01;
const MAX_CONFIDENCE = 0.99;

export interface FieldChange {
  readonly field: "statement" | "status" | "confidence";
  readonly old: unknown;
  readonly new: unknown;
}

/** The confidence after one piece of evidence (see the rule at the top of this file). */
export function updatedConfidence(confidence: number, kind: EvidenceKind, strength: number): number {
  if (kind === "neutral" || strength === 0) return confidence;
  const c = Math.min(Math.max(confidence, MIN_CONFIDENCE), MAX_CONFIDENCE);
  const odds = (c / (1 - c)) * 4 ** (kind === "supports" ? strength : -strength);
  const next = odds / (1 + odds);
  return round(Math.min(Math.max(next, MIN_CONFIDENCE), MAX_CONFIDENCE));
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export function checkConfidence(value: number, what = "confidence"): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new InvalidArgumentError(`${what} must be a number from 0 to 1, not ${String(value)}`);
  }
  return value;
}

export function checkStatus(value: string): HypothesisStatus {
  if (!(HYPOTHESIS_STATUSES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`"${value}" is not a hypothesis status`, `use one of ${HYPOTHESIS_STATUSES.join(", ")}`);
  }
  return value as HypothesisStatus;
}

export function checkEvidenceKind(value: string): EvidenceKind {
  if (!(EVIDENCE_KINDS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`"${value}" is not an evidence kind`, `use one of ${EVIDENCE_KINDS.join(", ")}`);
  }
  return value as EvidenceKind;
}

function nonEmpty(text: string, what: string): string {
  const t = text.trim();
  if (t === "") throw new InvalidArgumentError(`${what} is empty`);
  return t;
}

export class HypothesisBoard implements Snapshotable<{ hypotheses: Hypothesis[]; evidence: Evidence[] }> {
  readonly #ctx: PartContext;
  #hypotheses: Hypothesis[] = [];
  #evidence: Evidence[] = [];

  constructor(ctx: PartContext) {
    this.#ctx = ctx;
  }

  capture(): { hypotheses: Hypothesis[]; evidence: Evidence[] } {
    return { hypotheses: this.#hypotheses, evidence: this.#evidence };
  }

  restore(snapshot: { hypotheses: Hypothesis[]; evidence: Evidence[] }): void {
    this.#hypotheses = snapshot.hypotheses;
    this.#evidence = snapshot.evidence;
  }

  add(statement: string, options: { confidence?: number; status?: HypothesisStatus } = {}): Hypothesis {
    this.#ctx.touch("hypotheses");
    const now = this.#ctx.now();
    const h: Hypothesis = {
      id: this.#ctx.nextId("H"),
      statement: nonEmpty(statement, "a hypothesis statement"),
      status: options.status === undefined ? "proposed" : checkStatus(options.status),
      confidence: checkConfidence(options.confidence ?? DEFAULT_CONFIDENCE),
      evidence: [],
      createdAt: now,
      updatedAt: now,
    };
    this.#hypotheses.push(h);
    return { ...h };
  }

  get(id: string): Hypothesis {
    const h = this.#find(id);
    return { ...h, evidence: [...h.evidence] };
  }

  has(id: string): boolean {
    return this.#hypotheses.some((h) => h.id === id);
  }

  list(filter: { status?: HypothesisStatus } = {}): Hypothesis[] {
    return this.#hypotheses.filter((h) => filter.status === undefined || h.status === filter.status).map((h) => ({ ...h, evidence: [...h.evidence] }));
  }

  #find(id: string): Hypothesis {
    const h = this.#hypotheses.find((x) => x.id === id.toUpperCase());
    if (!h) throw new NotFoundError("hypothesis", id, "`forge hypothesis list` shows the hypotheses");
    return h;
  }

  /** Changes a hypothesis; a status change is a checkpoint trigger (significant when confirmed or rejected). */
  update(id: string, patch: { statement?: string; status?: HypothesisStatus; confidence?: number }): { hypothesis: Hypothesis; changes: FieldChange[] } {
    const h = this.#find(id);
    this.#ctx.touch("hypotheses");
    const changes: FieldChange[] = [];
    if (patch.statement !== undefined) {
      const s = nonEmpty(patch.statement, "a hypothesis statement");
      if (s !== h.statement) changes.push({ field: "statement", old: h.statement, new: s }), (h.statement = s);
    }
    if (patch.confidence !== undefined) {
      const c = checkConfidence(patch.confidence);
      if (c !== h.confidence) changes.push({ field: "confidence", old: h.confidence, new: c }), (h.confidence = c);
    }
    if (patch.status !== undefined) {
      const s = checkStatus(patch.status);
      if (s !== h.status) {
        changes.push({ field: "status", old: h.status, new: s });
        h.status = s;
        this.#ctx.emit({ trigger: "hypothesis-status", what: `${h.id} ${s}`, significant: s === "confirmed" || s === "rejected" });
      }
    }
    if (changes.length > 0) h.updatedAt = this.#ctx.now();
    return { hypothesis: { ...h, evidence: [...h.evidence] }, changes };
  }

  /**
   * Records evidence, for a hypothesis (whose confidence it moves) or on its own (null).
   */
  addEvidence(
    hypothesisId: string | null,
    input: { kind: EvidenceKind; content: string; source?: string | null; strength?: number; verificationId?: string | null },
  ): { evidence: Evidence; hypothesis: Hypothesis | null } {
    const h = hypothesisId === null ? null : this.#find(hypothesisId);
    this.#ctx.touch("evidence");
    if (h) this.#ctx.touch("hypotheses");
    const strength = checkConfidence(input.strength ?? DEFAULT_STRENGTH, "strength");
    const e: Evidence = {
      id: this.#ctx.nextId("E"),
      hypothesisId: h?.id ?? null,
      kind: checkEvidenceKind(input.kind),
      content: nonEmpty(input.content, "evidence content"),
      source: input.source ?? null,
      strength,
      verificationId: input.verificationId ?? null,
      at: this.#ctx.now(),
    };
    this.#evidence.push(e);
    if (h) {
      h.evidence.push(e.id);
      h.confidence = updatedConfidence(h.confidence, e.kind, strength);
      h.updatedAt = e.at;
    }
    return { evidence: { ...e }, hypothesis: h ? { ...h, evidence: [...h.evidence] } : null };
  }

  evidenceFor(hypothesisId: string): Evidence[] {
    const h = this.#find(hypothesisId);
    return this.#evidence.filter((e) => e.hypothesisId === h.id).map((e) => ({ ...e }));
  }

  allEvidence(): Evidence[] {
    return this.#evidence.map((e) => ({ ...e }));
  }
}
