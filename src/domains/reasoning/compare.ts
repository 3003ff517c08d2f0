// Comparing two reasoning states as typed changes — hypotheses added, updated, their status
// or confidence changed, beliefs likewise, evidence and verifications added, gaps added and
// filled, notes added — with a paragraph that says what happened.
import { formatDuration } from "../../core/time.js";
import type { Belief, Gap, Hypothesis, ReasoningState } from "./model.js";

export type ReasoningChange =
  | { readonly type: "hypothesis-added"; readonly id: string; readonly statement: string; readonly status: string; readonly confidence: number }
  | { readonly type: "hypothesis-removed"; readonly id: string; readonly statement: string }
  | { readonly type: "hypothesis-status"; readonly id: string; readonly old: string; readonly new: string }
  | { readonly type: "hypothesis-confidence"; readonly id: string; readonly old: number; readonly new: number }
  | { readonly type: "hypothesis-updated"; readonly id: string; readonly field: string; readonly old: unknown; readonly new: unknown }
  | { readonly type: "evidence-added"; readonly id: string; readonly hypothesisId: string | null; readonly kind: string; readonly content: string }
  | { readonly type: "belief-added"; readonly id: string; readonly statement: string; readonly confidence: number }
  | { readonly type: "belief-removed"; readonly id: string; readonly statement: string }
  | { readonly type: "belief-status"; readonly id: string; readonly old: string; readonly new: string }
  | { readonly type: "belief-confidence"; readonly id: string; readonly old: number; readonly new: number }
  | { readonly type: "belief-updated"; readonly id: string; readonly field: string; readonly old: unknown; readonly new: unknown }
  | { readonly type: "verification-added"; readonly id: string; readonly name: string; readonly passed: boolean }
  | { readonly type: "gap-added"; readonly id: string; readonly question: string; readonly priority: string }
  | { readonly type: "gap-filled"; readonly id: string; readonly question: string; readonly answer: string }
  | { readonly type: "note-added"; readonly id: string; readonly text: string }
  | { readonly type: "command-added"; readonly id: string; readonly command: string; readonly exitCode: number | null }
  | { readonly type: "task-changed"; readonly old: string | null; readonly new: string | null }
  | { readonly type: "code-changed"; readonly oldCommit: string | null; readonly newCommit: string | null; readonly patchChanged: boolean };

export interface ReasoningComparison {
  readonly from: { readonly label: string; readonly at: string };
  readonly to: { readonly label: string; readonly at: string };
  readonly changes: readonly ReasoningChange[];
  /** A paragraph for people. */
  readonly summary: string;
}

interface Side {
  readonly label: string;
  readonly at: string;
  readonly state: ReasoningState;
}

export function compareStates(a: Side, b: Side): ReasoningComparison {
  const changes: ReasoningChange[] = [];
  const A = a.state;
  const B = b.state;
  if (A.task !== B.task) changes.push({ type: "task-changed", old: A.task, new: B.task });
  diffHypotheses(A.hypotheses, B.hypotheses, changes);
  addedById(A.evidence, B.evidence, (e) => changes.push({ type: "evidence-added", id: e.id, hypothesisId: e.hypothesisId, kind: e.kind, content: e.content }));
  diffBeliefs(A.beliefs, B.beliefs, changes);
  addedById(A.verifications, B.verifications, (v) => changes.push({ type: "verification-added", id: v.id, name: v.name, passed: v.passed }));
  diffGaps(A.gaps, B.gaps, changes);
  addedById(A.notes, B.notes, (n) => changes.push({ type: "note-added", id: n.id, text: n.text }));
  addedById(A.commands, B.commands, (c) => changes.push({ type: "command-added", id: c.id, command: c.command.join(" "), exitCode: c.exitCode }));
  if ((A.code?.commit ?? null) !== (B.code?.commit ?? null) || (A.code?.patch ?? "") !== (B.code?.patch ?? "")) {
    changes.push({
      type: "code-changed",
      oldCommit: A.code?.commit ?? null,
      newCommit: B.code?.commit ?? null,
      patchChanged: (A.code?.patch ?? "") !== (B.code?.patch ?? ""),
    });
  }
  return { from: { label: a.label, at: a.at }, to: { label: b.label, at: b.at }, changes, summary: summarize(a, b, changes) };
}

function addedById<T extends { id: string }>(before: readonly T[], after: readonly T[], add: (x: T) => void): void {
  const had = new Set(before.map((x) => x.id));
  for (const x of after) if (!had.has(x.id)) add(x);
}

function diffHypotheses(before: readonly Hypothesis[], after: readonly Hypothesis[], out: ReasoningChange[]): void {
  const old = new Map(before.map((h) => [h.id, h]));
  const now = new Set(after.map((h) => h.id));
  for (const h of after) {
    const o = old.get(h.id);
    if (!o) {
      out.push({ type: "hypothesis-added", id: h.id, statement: h.statement, status: h.status, confidence: h.confidence });
      continue;
    }
    if (o.status !== h.status) out.push({ type: "hypothesis-status", id: h.id, old: o.status, new: h.status });
    if (o.confidence !== h.confidence) out.push({ type: "hypothesis-confidence", id: h.id, old: o.confidence, new: h.confidence });
    if (o.statement !== h.statement) out.push({ type: "hypothesis-updated", id: h.id, field: "statement", old: o.statement, new: h.statement });
  }
  for (const h of before) if (!now.has(h.id)) out.push({ type: "hypothesis-removed", id: h.id, statement: h.statement });
}

function diffBeliefs(before: readonly Belief[], after: readonly Belief[], out: ReasoningChange[]): void {
  const old = new Map(before.map((b) => [b.id, b]));
  const now = new Set(after.map((b) => b.id));
  for (const b of after) {
    const o = old.get(b.id);
    if (!o) {
      out.push({ type: "belief-added", id: b.id, statement: b.statement, confidence: b.confidence });
      continue;
    }
    if (o.status !== b.status) out.push({ type: "belief-status", id: b.id, old: o.status, new: b.status });
    if (o.confidence !== b.confidence) out.push({ type: "belief-confidence", id: b.id, old: o.confidence, new: b.confidence });
    if (o.statement !== b.statement) out.push({ type: "belief-updated", id: b.id, field: "statement", old: o.statement, new: b.statement });
    for (const field of ["dependsOn", "supports", "contradicts"] as const) {
      if (o[field].join(",") !== b[field].join(",")) out.push({ type: "belief-updated", id: b.id, field, old: o[field], new: b[field] });
    }
  }
  for (const b of before) if (!now.has(b.id)) out.push({ type: "belief-removed", id: b.id, statement: b.statement });
}

function diffGaps(before: readonly Gap[], after: readonly Gap[], out: ReasoningChange[]): void {
  const old = new Map(before.map((g) => [g.id, g]));
  for (const g of after) {
    const o = old.get(g.id);
    if (!o) out.push({ type: "gap-added", id: g.id, question: g.question, priority: g.priority });
    if (g.status === "filled" && o?.status !== "filled") out.push({ type: "gap-filled", id: g.id, question: g.question, answer: g.answer ?? "" });
  }
}

function count(changes: readonly ReasoningChange[], type: ReasoningChange["type"]): number {
  return changes.filter((c) => c.type === type).length;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A paragraph: what was learned between the two states, in the order it matters. */
function summarize(a: Side, b: Side, changes: readonly ReasoningChange[]): string {
  const span = formatDuration(Date.parse(b.at) - Date.parse(a.at));
  if (changes.length === 0) return `Nothing changed between ${a.label} and ${b.label} (${span}).`;
  const parts: string[] = [];
  const statuses = changes.filter((c): c is Extract<ReasoningChange, { type: "hypothesis-status" }> => c.type === "hypothesis-status");
  const confirmed = statuses.filter((c) => c.new === "confirmed").map((c) => c.id);
  const rejected = statuses.filter((c) => c.new === "rejected").map((c) => c.id);
  const otherStatus = statuses.filter((c) => c.new !== "confirmed" && c.new !== "rejected");
  if (confirmed.length) parts.push(`${confirmed.join(", ")} ${confirmed.length === 1 ? "was" : "were"} confirmed`);
  if (rejected.length) parts.push(`${rejected.join(", ")} ${rejected.length === 1 ? "was" : "were"} rejected`);
  for (const s of otherStatus) parts.push(`${s.id} went from ${s.old} to ${s.new}`);
  const added = count(changes, "hypothesis-added");
  if (added) parts.push(`${plural(added, "hypothesis", "hypotheses")} ${added === 1 ? "was" : "were"} proposed`);
  const conf = changes.filter((c): c is Extract<ReasoningChange, { type: "hypothesis-confidence" }> => c.type === "hypothesis-confidence");
  if (conf.length)
    parts.push(
      `confidence moved on ${conf
        .slice(0, 3)
        .map((c) => `${c.id} (${c.old} → ${c.new})`)
        .join(", ")}${conf.length > 3 ? ` and ${conf.length - 3} more` : ""}`,
    );
  const ev = changes.filter((c): c is Extract<ReasoningChange, { type: "evidence-added" }> => c.type === "evidence-added");
  if (ev.length) {
    const sup = ev.filter((e) => e.kind === "supports").length;
    const ref = ev.filter((e) => e.kind === "refutes").length;
    parts.push(`${plural(ev.length, "piece")} of evidence came in (${sup} supporting, ${ref} refuting)`);
  }
  const ver = changes.filter((c): c is Extract<ReasoningChange, { type: "verification-added" }> => c.type === "verification-added");
  if (ver.length) parts.push(`${plural(ver.length, "verification")} ran (${ver.filter((v) => v.passed).length} passed)`);
  const beliefs = count(changes, "belief-added");
  if (beliefs) parts.push(`${plural(beliefs, "belief")} ${beliefs === 1 ? "was" : "were"} added`);
  const retracted = changes.filter((c) => c.type === "belief-status" && c.new === "retracted").length;
  if (retracted) parts.push(`${plural(retracted, "belief")} ${retracted === 1 ? "was" : "were"} retracted`);
  const filled = count(changes, "gap-filled");
  const gapsAdded = count(changes, "gap-added");
  if (gapsAdded) parts.push(`${plural(gapsAdded, "knowledge gap")} opened`);
  if (filled) parts.push(`${plural(filled, "gap")} filled`);
  const notes = count(changes, "note-added");
  if (notes) parts.push(`${plural(notes, "note")} written`);
  const cmds = count(changes, "command-added");
  if (cmds) parts.push(`${plural(cmds, "command")} run`);
  if (changes.some((c) => c.type === "code-changed")) parts.push("the code changed");
  if (changes.some((c) => c.type === "task-changed")) parts.push("the task was restated");
  const sentence = parts.length > 0 ? parts.join("; ") : `${plural(changes.length, "change")}`;
  return `Between ${a.label} and ${b.label} (${span}): ${sentence}.`;
}
