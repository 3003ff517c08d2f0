// A reasoning session of realistic size and shape, built through the library API
// (rs.hypotheses.add / addEvidence, rs.beliefs.add), and the one-hypothesis changes the
// reasoning benchmark makes between checkpoints. Deterministic for a seed.
//
// Text sizes aim at what an agent writes while debugging: hypothesis statements of one or
// two sentences (60–240 chars), evidence of a line to a paragraph (80–600 chars) with one
// in five carrying a log or stack excerpt (+300–1,200 chars), belief statements of 60–200
// chars. Word-salad from a fixed vocabulary, so it compresses about like prose.
import type { ReasoningSession } from "../../src/domains/reasoning/reasoning-session.js";
import type { EvidenceKind, HypothesisStatus } from "../../src/domains/reasoning/model.js";
import { Rng, TextGen } from "./workloads.js";

export interface ReasoningSizes {
  readonly hypotheses: number;
  readonly evidence: number;
  readonly beliefs: number;
}

export const ISSUE_SIZES: ReasoningSizes = Object.freeze({ hypotheses: 1000, evidence: 5000, beliefs: 500 });

/** The kinds of change a step makes, in turn. */
export const CHANGE_KINDS = ["status", "confidence", "evidence"] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

const MODULES = ["scheduler", "cache", "parser", "http", "auth", "queue", "db", "worker", "config", "router", "session", "encoder"];
const EVIDENCE_KINDS: readonly EvidenceKind[] = ["supports", "supports", "refutes", "neutral"];
/** Statuses at build time; the steps only toggle proposed ↔ testing (see `change`). */
const BUILD_STATUSES: readonly HypothesisStatus[] = [
  "proposed",
  "proposed",
  "proposed",
  "testing",
  "testing",
  "testing",
  "testing",
  "confirmed",
  "rejected",
  "abandoned",
];

export class ReasoningBuilder {
  readonly #rng: Rng;
  readonly #text: TextGen;
  /** Hypothesis ids the steps may toggle (proposed or testing). */
  readonly open: string[] = [];
  readonly hypotheses: string[] = [];
  readonly beliefs: string[] = [];

  constructor(seed: number) {
    this.#rng = new Rng(seed);
    this.#text = new TextGen(new Rng(seed ^ 0x9e3779b9));
  }

  #sentence(lo: number, hi: number): string {
    return this.#text.sentence(this.#rng.int(lo, hi));
  }

  #logExcerpt(): string {
    const rng = this.#rng;
    const lines: string[] = [];
    const target = rng.int(300, 1200);
    let len = 0;
    while (len < target) {
      const mod = rng.pick(MODULES);
      const line =
        rng.next() < 0.5
          ? `    at ${mod}.${this.#text.sentence(8).slice(0, -1).replace(/ /g, "_")} (src/${mod}/${rng.pick(MODULES)}.ts:${rng.int(1, 900)}:${rng.int(1, 80)})`
          : `${new Date(Date.UTC(2025, 4, 1) + rng.int(0, 86_400_000)).toISOString()} ${rng.pick(["INFO", "WARN", "ERROR", "DEBUG"])} [${mod}] ${this.#sentence(30, 90)}`;
      lines.push(line);
      len += line.length + 1;
    }
    return lines.join("\n");
  }

  #evidenceInput(): { kind: EvidenceKind; content: string; source: string | null; strength: number } {
    const rng = this.#rng;
    let content = this.#sentence(80, 600);
    if (rng.next() < 0.2) content += "\n" + this.#logExcerpt();
    const r = rng.next();
    const source =
      r < 0.4
        ? `src/${rng.pick(MODULES)}/${rng.pick(MODULES)}.ts:${rng.int(1, 900)}`
        : r < 0.7
          ? `npm test -- ${rng.pick(MODULES)}.test.ts -t "${this.#text.sentence(20).slice(0, -1)}"`
          : r < 0.85
            ? `https://github.com/example/app/issues/${rng.int(1, 5000)}#issuecomment-${rng.int(1e8, 9e8)}`
            : null;
    return { kind: rng.pick(EVIDENCE_KINDS), content, source, strength: Math.round(rng.next() * 100) / 100 };
  }

  /** Fills an empty reasoning session: the hypotheses, then the evidence, then the beliefs. */
  build(rs: ReasoningSession, sizes: ReasoningSizes = ISSUE_SIZES): void {
    const rng = this.#rng;
    rs.setTask(`Find why ${this.#sentence(60, 160)}`);
    for (let i = 0; i < sizes.hypotheses; i++) {
      const status = rng.pick(BUILD_STATUSES);
      const h = rs.hypotheses.add(this.#sentence(60, 240), { status, confidence: Math.round(rng.next() * 1000) / 1000 });
      this.hypotheses.push(h.id);
      if (status === "proposed" || status === "testing") this.open.push(h.id);
    }
    for (let i = 0; i < sizes.evidence; i++) {
      // Skewed: a third of the evidence lands on the first tenth of the hypotheses (the ones
      // most worked on); 3 % stands on its own.
      const standalone = rng.next() < 0.03;
      const hot = rng.next() < 0.33;
      const n = this.hypotheses.length;
      const hid = standalone ? null : (this.hypotheses[hot ? rng.int(0, Math.max(0, Math.floor(n / 10) - 1)) : rng.int(0, n - 1)] as string);
      rs.hypotheses.addEvidence(hid, this.#evidenceInput());
    }
    for (let i = 0; i < sizes.beliefs; i++) {
      const dependsOn = new Set<string>();
      const deps = rng.int(0, 3);
      for (let d = 0; d < deps; d++) {
        // Earlier beliefs only, so the graph has no cycles; hypotheses otherwise.
        if (this.beliefs.length > 0 && rng.next() < 0.35) dependsOn.add(rng.pick(this.beliefs));
        else dependsOn.add(rng.pick(this.hypotheses));
      }
      const supports = this.beliefs.length > 0 && rng.next() < 0.2 ? [rng.pick(this.beliefs)] : [];
      const contradicts = this.beliefs.length > 0 && rng.next() < 0.02 ? [rng.pick(this.beliefs)] : [];
      const b = rs.beliefs.add(this.#sentence(60, 200), {
        dependsOn: [...dependsOn],
        supports,
        contradicts,
        confidence: Math.round((0.4 + 0.6 * rng.next()) * 1000) / 1000,
      });
      this.beliefs.push(b.id);
    }
  }

  /**
   * Changes one hypothesis, through the library API, in the way `kind` says:
   *  - status: proposed ↔ testing (rs.hypotheses.update; never confirmed/rejected, which
   *    are significant events and would make contradictions with the beliefs resting on them),
   *  - confidence: a new confidence (rs.hypotheses.update),
   *  - evidence: one new evidence item for it (rs.hypotheses.addEvidence), which also moves its confidence.
   * Returns the hypothesis id.
   */
  change(rs: ReasoningSession, kind: ChangeKind): string {
    const rng = this.#rng;
    const id = rng.pick(this.open);
    switch (kind) {
      case "status": {
        const h = rs.hypotheses.get(id);
        rs.hypotheses.update(id, { status: h.status === "testing" ? "proposed" : "testing" });
        break;
      }
      case "confidence": {
        const h = rs.hypotheses.get(id);
        let c = Math.round(rng.next() * 1000) / 1000;
        if (c === h.confidence) c = c > 0.5 ? c - 0.001 : c + 0.001;
        rs.hypotheses.update(id, { confidence: c });
        break;
      }
      case "evidence":
        rs.hypotheses.addEvidence(id, this.#evidenceInput());
        break;
    }
    return id;
  }
}
