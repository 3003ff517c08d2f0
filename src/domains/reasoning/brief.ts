// `forge brief`: what an agent needs to pick the work back up after its context was
// compacted, in under a screen of Markdown.
import { formatDuration } from "../../core/time.js";
import type { Contradiction } from "./beliefs.js";
import type { ReasoningState } from "./model.js";

export interface BriefInput {
  readonly session: string;
  readonly state: ReasoningState;
  readonly contradictions: readonly Contradiction[];
  readonly branch: string | null;
  /** The checkpoint the brief comes from, or null for the working state. */
  readonly checkpoint: { readonly id: string; readonly seq: number; readonly message: string; readonly createdAt: Date } | null;
  /** Whether there is work since the last checkpoint. */
  readonly unsaved: boolean;
  /** Checkpoints the session has. */
  readonly checkpoints: number;
  readonly now: number;
}

const MAX_ITEMS = 6;

function clip(s: string, n = 100): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length <= n ? one : one.slice(0, n - 1) + "…";
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function more(total: number, shown: number): string[] {
  return total > shown ? [`- … and ${total - shown} more`] : [];
}

export function renderBrief(b: BriefInput): string {
  const s = b.state;
  const lines: string[] = [];
  lines.push(`# Brief: ${b.session}${b.branch ? ` (branch ${b.branch})` : ""}`);
  if (s.task) lines.push("", `**Task:** ${clip(s.task, 200)}`);
  const from = b.checkpoint
    ? `checkpoint #${b.checkpoint.seq} ${b.checkpoint.id.slice(0, 10)} "${clip(b.checkpoint.message, 60)}", ${formatDuration(b.now - b.checkpoint.createdAt.getTime())} ago`
    : "the working state (no checkpoint yet)";
  lines.push(`**From:** ${from}${b.unsaved ? "; there is work since it" : ""}`);
  const m = s.metrics;
  lines.push(
    `**So far:** ${formatDuration((b.checkpoint && !b.unsaved ? b.checkpoint.createdAt.getTime() : b.now) - Date.parse(m.startedAt))} of work, ${plural(b.checkpoints, "checkpoint")}, ${plural(m.hypothesesTested, "hypothesis", "hypotheses")} tested, ${plural(m.verificationsRun, "verification")}, ${plural(m.gapsFilled, "gap")} filled, ${plural(m.commandsRun, "command")}`,
  );

  const evidenceCount = (id: string) => {
    const ev = s.evidence.filter((e) => e.hypothesisId === id);
    return `+${ev.filter((e) => e.kind === "supports").length}/−${ev.filter((e) => e.kind === "refutes").length}`;
  };
  const open = s.hypotheses.filter((h) => h.status === "proposed" || h.status === "testing").sort((x, y) => y.confidence - x.confidence);
  lines.push("", `## Open hypotheses (${open.length})`);
  if (open.length === 0) lines.push("- none");
  for (const h of open.slice(0, MAX_ITEMS))
    lines.push(`- ${h.id} [${h.status}, ${h.confidence.toFixed(2)}, evidence ${evidenceCount(h.id)}] ${clip(h.statement)}`);
  lines.push(...more(open.length, MAX_ITEMS));
  const settled = s.hypotheses.filter((h) => h.status === "confirmed" || h.status === "rejected");
  if (settled.length > 0) {
    lines.push("", "## Settled");
    for (const h of settled.slice(-MAX_ITEMS)) lines.push(`- ${h.id} **${h.status}** (${h.confidence.toFixed(2)}) ${clip(h.statement)}`);
    lines.push(...more(settled.length, MAX_ITEMS));
  }

  const held = s.beliefs.filter((x) => x.status === "held");
  if (held.length > 0 || b.contradictions.length > 0) {
    lines.push("", `## Beliefs (${held.length} held)`);
    for (const x of held.slice(-MAX_ITEMS))
      lines.push(`- ${x.id} (${x.confidence.toFixed(2)}) ${clip(x.statement)}${x.dependsOn.length ? ` ← ${x.dependsOn.join(", ")}` : ""}`);
    lines.push(...more(held.length, MAX_ITEMS));
    for (const c of b.contradictions) lines.push(`- ⚠ contradiction: ${c.description}`);
  }

  const gaps = s.gaps.filter((g) => g.status === "open");
  lines.push("", `## Open questions (${gaps.length})`);
  if (gaps.length === 0) lines.push("- none");
  const rank = { critical: 0, high: 1, medium: 2, low: 3 } as const;
  for (const g of [...gaps].sort((x, y) => rank[x.priority] - rank[y.priority]).slice(0, MAX_ITEMS))
    lines.push(`- ${g.id} [${g.priority}] ${clip(g.question)}`);
  lines.push(...more(gaps.length, MAX_ITEMS));

  if (s.verifications.length > 0) {
    lines.push("", "## Last verifications");
    for (const v of s.verifications.slice(-3)) {
      lines.push(
        `- ${v.id} ${v.passed ? "✓ passed" : "✗ failed"} "${clip(v.name, 40)}": \`${clip(v.command.join(" "), 60)}\`${v.error ? ` (${v.error})` : ""}${v.hypothesisId ? ` → ${v.hypothesisId}` : ""}`,
      );
    }
  }
  if (s.notes.length > 0) {
    lines.push("", "## Recent notes");
    for (const n of s.notes.slice(-3)) lines.push(`- ${clip(n.text, 140)}`);
  }
  if (s.code?.root) {
    const c = s.code;
    lines.push(
      "",
      `**Code:** ${c.branch ?? "detached"} @ ${c.commit?.slice(0, 10) ?? "no commit"}${c.patchBytes ? `, ${c.patchBytes} bytes of uncommitted changes` : ", clean"}${c.untracked.length ? `, ${c.untracked.length} untracked` : ""}`,
    );
  }
  return lines.join("\n") + "\n";
}
