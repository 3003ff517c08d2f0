// Each part of a reasoning session on its own: the hypothesis board and its confidence
// rule, evidence, the belief graph's links, gaps, notes, command history, verification runs
// (real child processes) and code capture (a real git repository in a temp folder).
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { updatedConfidence } from "../../src/domains/reasoning/hypotheses.js";
import { ReasoningSession } from "../../src/domains/reasoning/reasoning-session.js";
import { rejectsWith } from "../support/errors.js";
import { git, gitRepo, ids, MINUTE, nodeArgv, reasoningBench, T0, tempDir, writeFile } from "./support.js";

/** Runs `fn` and returns the ForgeError code it threw (or "no error"). */
function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code ?? `not a ForgeError: ${String(e)}`;
  }
  return "no error";
}

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  return "no error";
}

describe("the hypothesis board", () => {
  it("adds a hypothesis as proposed with confidence 0.5, a fresh id and the clock's time", async () => {
    const { rs } = await reasoningBench();
    const h = rs.hypotheses.add("  the cache is stale  ");
    expect(h).toEqual({
      id: "H1",
      statement: "the cache is stale",
      status: "proposed",
      confidence: 0.5,
      evidence: [],
      createdAt: new Date(T0).toISOString(),
      updatedAt: new Date(T0).toISOString(),
    });
    expect(rs.hypotheses.add("the index is missing").id).toBe("H2");
  });

  it("adds a hypothesis with a given status and confidence", async () => {
    const { rs } = await reasoningBench();
    const h = rs.hypotheses.add("a race in the writer", { status: "testing", confidence: 0.8 });
    expect([h.status, h.confidence]).toEqual(["testing", 0.8]);
  });

  it("refuses an empty statement, a confidence outside 0..1 and an unknown status", async () => {
    const { rs } = await reasoningBench();
    expect(codeOf(() => rs.hypotheses.add("   "))).toBe("INVALID_ARGUMENT");
    expect(codeOf(() => rs.hypotheses.add("x", { confidence: 1.5 }))).toBe("INVALID_ARGUMENT");
    expect(codeOf(() => rs.hypotheses.add("x", { confidence: -0.1 }))).toBe("INVALID_ARGUMENT");
    expect(codeOf(() => rs.hypotheses.add("x", { confidence: Number.NaN }))).toBe("INVALID_ARGUMENT");
    expect(codeOf(() => rs.hypotheses.add("x", { status: "maybe" as "proposed" }))).toBe("INVALID_ARGUMENT");
    expect(rs.hypotheses.list()).toEqual([]);
  });

  it("gets a hypothesis by id, whatever its case, and names an unknown id", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("first");
    expect(rs.hypotheses.get("h1").statement).toBe("first");
    expect(codeOf(() => rs.hypotheses.get("H9"))).toBe("NOT_FOUND");
    expect(messageOf(() => rs.hypotheses.get("H9"))).toBe('no hypothesis "H9"');
  });

  it("lists hypotheses in the order they were added, optionally by status", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("a");
    rs.hypotheses.add("b", { status: "testing" });
    rs.hypotheses.add("c", { status: "testing" });
    expect(ids(rs.hypotheses.list())).toEqual(["H1", "H2", "H3"]);
    expect(ids(rs.hypotheses.list({ status: "testing" }))).toEqual(["H2", "H3"]);
    expect(rs.hypotheses.list({ status: "confirmed" })).toEqual([]);
  });

  it("updates statement, status and confidence, reporting each field that changed", async () => {
    const { rs, clock } = await reasoningBench();
    rs.hypotheses.add("the cache is stale");
    clock.advance(MINUTE);
    const { hypothesis, changes } = rs.hypotheses.update("H1", { statement: "the CDN cache is stale", status: "testing", confidence: 0.7 });
    expect(changes).toEqual([
      { field: "statement", old: "the cache is stale", new: "the CDN cache is stale" },
      { field: "confidence", old: 0.5, new: 0.7 },
      { field: "status", old: "proposed", new: "testing" },
    ]);
    expect(hypothesis).toMatchObject({
      statement: "the CDN cache is stale",
      status: "testing",
      confidence: 0.7,
      updatedAt: new Date(T0 + MINUTE).toISOString(),
    });
    expect(rs.hypotheses.get("H1")).toEqual(hypothesis);
  });

  it("reports no change, and keeps updatedAt, when an update sets what is already there", async () => {
    const { rs, clock } = await reasoningBench();
    rs.hypotheses.add("x", { status: "testing", confidence: 0.4 });
    clock.advance(MINUTE);
    const { hypothesis, changes } = rs.hypotheses.update("H1", { status: "testing", confidence: 0.4, statement: "x" });
    expect(changes).toEqual([]);
    expect(hypothesis.updatedAt).toBe(new Date(T0).toISOString());
  });

  it("refuses an update of an unknown hypothesis or to an unknown status", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x");
    expect(codeOf(() => rs.hypotheses.update("H2", { status: "testing" }))).toBe("NOT_FOUND");
    expect(codeOf(() => rs.hypotheses.update("H1", { status: "sure" as "testing" }))).toBe("INVALID_ARGUMENT");
    expect(codeOf(() => rs.hypotheses.update("H1", { confidence: 2 }))).toBe("INVALID_ARGUMENT");
    expect(rs.hypotheses.get("H1")).toMatchObject({ status: "proposed", confidence: 0.5 });
  });
});

describe("the confidence rule", () => {
  it("doubles the odds for one ordinary piece of supporting evidence: 0.6 → 0.75 → 0.857", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x", { confidence: 0.6 });
    expect(rs.hypotheses.addEvidence("H1", { kind: "supports", content: "one" }).hypothesis?.confidence).toBe(0.75);
    expect(rs.hypotheses.addEvidence("H1", { kind: "supports", content: "two" }).hypothesis?.confidence).toBe(0.857);
  });

  it("halves the odds for one ordinary piece of refuting evidence: 0.5 → 0.333", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x");
    expect(rs.hypotheses.addEvidence("H1", { kind: "refutes", content: "no" }).hypothesis?.confidence).toBe(0.333);
  });

  it("leaves confidence alone for neutral evidence, whatever its strength", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x", { confidence: 0.42 });
    expect(rs.hypotheses.addEvidence("H1", { kind: "neutral", content: "meh", strength: 1 }).hypothesis?.confidence).toBe(0.42);
  });

  it("moves the odds by 4^strength: strength 1 quadruples them, 0.25 multiplies them by √2, 0 does nothing", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("a");
    rs.hypotheses.add("b");
    rs.hypotheses.add("c");
    expect(rs.hypotheses.addEvidence("H1", { kind: "supports", content: "strong", strength: 1 }).hypothesis?.confidence).toBe(0.8); // odds 1 → 4
    expect(rs.hypotheses.addEvidence("H2", { kind: "supports", content: "weak", strength: 0.25 }).hypothesis?.confidence).toBe(0.586); // odds 1 → 1.414
    expect(rs.hypotheses.addEvidence("H3", { kind: "refutes", content: "nothing", strength: 0 }).hypothesis?.confidence).toBe(0.5);
  });

  it("never lets evidence make a hypothesis certain: confidence stays within 0.01..0.99", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("up", { confidence: 0.98 });
    rs.hypotheses.add("down", { confidence: 0.02 });
    for (let i = 0; i < 10; i++) {
      rs.hypotheses.addEvidence("H1", { kind: "supports", content: `yes ${i}`, strength: 1 });
      rs.hypotheses.addEvidence("H2", { kind: "refutes", content: `no ${i}`, strength: 1 });
    }
    expect(rs.hypotheses.get("H1").confidence).toBe(0.99);
    expect(rs.hypotheses.get("H2").confidence).toBe(0.01);
  });

  it("starts from a hand-set 1.0 or 0.0 as if it were 0.99 or 0.01", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("certain", { confidence: 1 });
    rs.hypotheses.add("impossible", { confidence: 0 });
    // odds 99 ÷ 2 = 49.5 → 0.98; odds 1/99 × 2 → 0.0198 → 0.02
    expect(rs.hypotheses.addEvidence("H1", { kind: "refutes", content: "hm" }).hypothesis?.confidence).toBe(0.98);
    expect(rs.hypotheses.addEvidence("H2", { kind: "supports", content: "hm" }).hypothesis?.confidence).toBe(0.02);
  });

  it("lets a confidence set by hand override the evidence, and moves on from it with later evidence", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x");
    rs.hypotheses.addEvidence("H1", { kind: "supports", content: "a" });
    expect(rs.hypotheses.get("H1").confidence).toBe(0.667);
    rs.hypotheses.update("H1", { confidence: 0.2 });
    expect(rs.hypotheses.get("H1").confidence).toBe(0.2);
    // odds 0.25 × 2 = 0.5 → 0.333: from the hand-set value, not from 0.667
    expect(rs.hypotheses.addEvidence("H1", { kind: "supports", content: "b" }).hypothesis?.confidence).toBe(0.333);
  });

  it("keeps every result within 0.01..0.99, never moving against the evidence (property)", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(
          fc.record({
            kind: fc.constantFrom("supports" as const, "refutes" as const, "neutral" as const),
            strength: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
          { maxLength: 30 },
        ),
        (start, steps) => {
          let c = start;
          for (const { kind, strength } of steps) {
            const next = updatedConfidence(c, kind, strength);
            if (kind === "neutral" || strength === 0) {
              expect(next).toBe(c);
            } else {
              expect(next).toBeGreaterThanOrEqual(0.01);
              expect(next).toBeLessThanOrEqual(0.99);
              const from = Math.min(Math.max(c, 0.01), 0.99);
              // Rounding to 3 places may cost at most half a thousandth.
              if (kind === "supports") expect(next).toBeGreaterThanOrEqual(from - 0.0005);
              else expect(next).toBeLessThanOrEqual(from + 0.0005);
            }
            c = next;
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("evidence", () => {
  it("attaches evidence to its hypothesis: listed on it and returned by evidenceFor", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x");
    const { evidence, hypothesis } = rs.hypotheses.addEvidence("h1", { kind: "supports", content: " the log shows it ", source: "app.log", strength: 0.3 });
    expect(evidence).toEqual({
      id: "E1",
      hypothesisId: "H1",
      kind: "supports",
      content: "the log shows it",
      source: "app.log",
      strength: 0.3,
      verificationId: null,
      at: new Date(T0).toISOString(),
    });
    expect(hypothesis?.evidence).toEqual(["E1"]);
    expect(rs.hypotheses.evidenceFor("H1")).toEqual([evidence]);
  });

  it("records evidence about no hypothesis without moving any confidence", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x");
    const { evidence, hypothesis } = rs.hypotheses.addEvidence(null, { kind: "refutes", content: "the disk is full" });
    expect(hypothesis).toBeNull();
    expect(evidence).toMatchObject({ id: "E1", hypothesisId: null, kind: "refutes", source: null, strength: 0.5 });
    expect(rs.hypotheses.get("H1")).toMatchObject({ confidence: 0.5, evidence: [] });
    expect(rs.hypotheses.allEvidence()).toEqual([evidence]);
    expect(rs.hypotheses.evidenceFor("H1")).toEqual([]);
  });

  it("refuses evidence for an unknown hypothesis, of an unknown kind, empty, or with a strength outside 0..1", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("x");
    expect(codeOf(() => rs.hypotheses.addEvidence("H7", { kind: "supports", content: "a" }))).toBe("NOT_FOUND");
    expect(codeOf(() => rs.hypotheses.addEvidence("H1", { kind: "proves" as "supports", content: "a" }))).toBe("INVALID_ARGUMENT");
    expect(codeOf(() => rs.hypotheses.addEvidence("H1", { kind: "supports", content: " " }))).toBe("INVALID_ARGUMENT");
    expect(codeOf(() => rs.hypotheses.addEvidence("H1", { kind: "supports", content: "a", strength: 1.5 }))).toBe("INVALID_ARGUMENT");
    expect(rs.hypotheses.allEvidence()).toEqual([]);
    expect(rs.hypotheses.get("H1")).toMatchObject({ confidence: 0.5, evidence: [] });
  });
});

describe("the belief graph", () => {
  it("adds a belief with links to beliefs and hypotheses, upper-casing and de-duplicating the ids", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("the cache is stale");
    rs.beliefs.add("requests hit the cache");
    const b = rs.beliefs.add("stale pages are served", { dependsOn: ["h1", "b1", "H1"], supports: ["b1"], confidence: 0.9 });
    expect(b).toEqual({
      id: "B2",
      statement: "stale pages are served",
      confidence: 0.9,
      status: "held",
      dependsOn: ["H1", "B1"],
      supports: ["B1"],
      contradicts: [],
      createdAt: new Date(T0).toISOString(),
      updatedAt: new Date(T0).toISOString(),
    });
    expect(rs.beliefs.get("b2")).toEqual(b);
    expect(rs.beliefs.add("plain").confidence).toBe(0.7);
  });

  it("refuses links to unknown ids and names the id", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("one");
    expect(codeOf(() => rs.beliefs.add("two", { dependsOn: ["B9"] }))).toBe("NOT_FOUND");
    expect(messageOf(() => rs.beliefs.add("two", { dependsOn: ["B9"] }))).toMatch(/B9/);
    expect(codeOf(() => rs.beliefs.add("two", { contradicts: ["B5"] }))).toBe("NOT_FOUND");
    expect(ids(rs.beliefs.list())).toEqual(["B1"]);
  });

  it("lets a belief rest on a hypothesis but not support or contradict one", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("h");
    expect(rs.beliefs.add("rests", { dependsOn: ["H1"] }).dependsOn).toEqual(["H1"]);
    expect(codeOf(() => rs.beliefs.add("supports", { supports: ["H1"] }))).toBe("NOT_FOUND");
    expect(codeOf(() => rs.beliefs.add("contradicts", { contradicts: ["H1"] }))).toBe("NOT_FOUND");
  });

  it("refuses a belief that links to itself, when added or updated", async () => {
    const { rs } = await reasoningBench();
    // The first belief will be B1: naming B1 in its own links is a self link.
    expect(codeOf(() => rs.beliefs.add("circular", { dependsOn: ["B1"] }))).toBe("INVALID_ARGUMENT");
    const b = rs.beliefs.add("fine");
    for (const link of ["dependsOn", "supports", "contradicts"] as const) {
      expect(codeOf(() => rs.beliefs.update(b.id, { [link]: [b.id.toLowerCase()] }))).toBe("INVALID_ARGUMENT");
    }
    expect(rs.beliefs.get(b.id)).toMatchObject({ dependsOn: [], supports: [], contradicts: [] });
  });

  it("updates a belief's statement and confidence and adds to its links", async () => {
    const { rs, clock } = await reasoningBench();
    rs.beliefs.add("a");
    rs.beliefs.add("b");
    rs.beliefs.add("c", { dependsOn: ["B1"] });
    clock.advance(MINUTE);
    const b = rs.beliefs.update("B3", { statement: "c, reworded", confidence: 0.4, dependsOn: ["B2", "B1"], contradicts: ["B2"] });
    expect(b).toMatchObject({
      statement: "c, reworded",
      confidence: 0.4,
      dependsOn: ["B1", "B2"],
      contradicts: ["B2"],
      updatedAt: new Date(T0 + MINUTE).toISOString(),
    });
  });

  it("retracts a belief, listing it by status", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("a");
    rs.beliefs.add("b");
    expect(rs.beliefs.update("b1", { status: "retracted" }).status).toBe("retracted");
    expect(ids(rs.beliefs.list({ status: "held" }))).toEqual(["B2"]);
    expect(ids(rs.beliefs.list({ status: "retracted" }))).toEqual(["B1"]);
  });

  it("refuses an unknown belief, an empty statement, a bad confidence or status", async () => {
    const { rs } = await reasoningBench();
    rs.beliefs.add("a");
    expect(codeOf(() => rs.beliefs.update("B2", { confidence: 0.1 }))).toBe("NOT_FOUND");
    expect(codeOf(() => rs.beliefs.update("B1", { statement: "  " }))).toBe("INVALID_ARGUMENT");
    expect(codeOf(() => rs.beliefs.update("B1", { confidence: -1 }))).toBe("INVALID_ARGUMENT");
    expect(codeOf(() => rs.beliefs.update("B1", { status: "doubted" as "held" }))).toBe("INVALID_ARGUMENT");
    expect(codeOf(() => rs.beliefs.add(""))).toBe("INVALID_ARGUMENT");
  });
});

describe("knowledge gaps", () => {
  it("adds a gap as open with medium priority by default", async () => {
    const { rs } = await reasoningBench();
    expect(rs.gaps.add(" which version runs in prod? ")).toEqual({
      id: "G1",
      question: "which version runs in prod?",
      priority: "medium",
      status: "open",
      answer: null,
      filledBy: null,
      createdAt: new Date(T0).toISOString(),
      filledAt: null,
    });
  });

  it("refuses an empty question and an unknown priority", async () => {
    const { rs } = await reasoningBench();
    expect(codeOf(() => rs.gaps.add("  "))).toBe("INVALID_ARGUMENT");
    expect(codeOf(() => rs.gaps.add("q", { priority: "urgent" as "high" }))).toBe("INVALID_ARGUMENT");
    expect(rs.gaps.list()).toEqual([]);
  });

  it("fills a gap with its answer, what answered it and when", async () => {
    const { rs, clock } = await reasoningBench();
    rs.gaps.add("which version?", { priority: "high" });
    clock.advance(5 * MINUTE);
    const g = rs.gaps.fill("g1", " 2.4.1 ", { filledBy: "N1" });
    expect(g).toMatchObject({ id: "G1", status: "filled", answer: "2.4.1", filledBy: "N1", filledAt: new Date(T0 + 5 * MINUTE).toISOString() });
    expect(rs.gaps.get("G1")).toEqual(g);
  });

  it("refuses to fill a gap twice, keeping the first answer", async () => {
    const { rs } = await reasoningBench();
    rs.gaps.add("q");
    rs.gaps.fill("G1", "first");
    expect(codeOf(() => rs.gaps.fill("G1", "second"))).toBe("INVALID_ARGUMENT");
    expect(messageOf(() => rs.gaps.fill("G1", "second"))).toMatch(/already filled/);
    expect(rs.gaps.get("G1").answer).toBe("first");
  });

  it("refuses an empty answer, leaving the gap open", async () => {
    const { rs } = await reasoningBench();
    rs.gaps.add("q");
    expect(codeOf(() => rs.gaps.fill("G1", "   "))).toBe("INVALID_ARGUMENT");
    expect(rs.gaps.get("G1")).toMatchObject({ status: "open", answer: null });
    expect(codeOf(() => rs.gaps.fill("G2", "x"))).toBe("NOT_FOUND");
  });

  it("lists open gaps first, by priority (critical, high, medium, low), then filled ones", async () => {
    const { rs } = await reasoningBench();
    rs.gaps.add("g1", { priority: "low" });
    rs.gaps.add("g2", { priority: "critical" });
    rs.gaps.add("g3", { priority: "medium" });
    rs.gaps.add("g4", { priority: "high" });
    rs.gaps.add("g5", { priority: "high" });
    rs.gaps.add("g6", { priority: "critical" });
    rs.gaps.fill("G2", "answered");
    rs.gaps.fill("G3", "answered");
    expect(ids(rs.gaps.list())).toEqual(["G6", "G4", "G5", "G1", "G2", "G3"]);
    expect(ids(rs.gaps.list({ status: "open" }))).toEqual(["G6", "G4", "G5", "G1"]);
    expect(ids(rs.gaps.list({ status: "filled" }))).toEqual(["G2", "G3"]);
  });
});

describe("notes", () => {
  it("adds notes with tags, in order, and refuses an empty one", async () => {
    const { rs } = await reasoningBench();
    const n = rs.notes.add("  the bug only shows under load ", ["perf", "load"]);
    expect(n).toEqual({ id: "N1", text: "the bug only shows under load", tags: ["perf", "load"], at: new Date(T0).toISOString() });
    rs.notes.add("second");
    expect(codeOf(() => rs.notes.add(" "))).toBe("INVALID_ARGUMENT");
    expect(rs.notes.list().map((x) => [x.id, x.text])).toEqual([
      ["N1", "the bug only shows under load"],
      ["N2", "second"],
    ]);
  });
});

describe("command history", () => {
  it("runs a command and records its exit code, output and folder", async () => {
    const { rs } = await reasoningBench();
    const cwd = tempDir("cwd").path;
    const run = await rs.run(nodeArgv("console.log('hello'); console.error('oops'); process.exit(3)"), { cwd });
    expect(run).toMatchObject({
      id: "C1",
      cwd,
      exitCode: 3,
      signal: null,
      error: null,
      stdout: { preview: "hello\n", bytes: 6, truncated: false },
      stderr: { preview: "oops\n", bytes: 5, truncated: false },
      at: new Date(T0).toISOString(),
    });
    expect(run.command[1]).toBe("-e");
    expect(rs.commands.list()).toEqual([run]);
    expect(rs.state().metrics.commandsRun).toBe(1);
  });

  it("records a command that cannot start, with the reason, instead of throwing", async () => {
    const { rs } = await reasoningBench();
    const run = await rs.run(["forge-test-no-such-command-xyz", "--flag"]);
    expect(run).toMatchObject({ id: "C1", exitCode: null, error: "command not found: forge-test-no-such-command-xyz" });
    expect(rs.commands.list()).toHaveLength(1);
  });

  it("keeps output under the preview limit whole and exact, multi-byte characters included", async () => {
    const { rs } = await reasoningBench();
    // 1,000 × "€" (3 bytes each) = 3,000 bytes: under the 4,096-byte limit, nothing is cut.
    // Output that is not cut is decoded in one piece (Preview.result() in runner.ts): decoding
    // the head (first 2,048 bytes) and tail apart would split the "€" straddling byte 2,048
    // into two U+FFFD characters.
    const run = await rs.run(nodeArgv("process.stdout.write('€'.repeat(1000))"));
    expect(run.stdout.bytes).toBe(3000);
    expect(run.stdout.truncated).toBe(false);
    expect(run.stdout.preview).not.toContain("\uFFFD");
    expect(run.stdout.preview).toBe("€".repeat(1000));
  });

  it("records commands in the order they ran, with fresh ids", async () => {
    const { rs } = await reasoningBench();
    await rs.run(nodeArgv("process.exit(0)"));
    await rs.run(nodeArgv("process.exit(1)"));
    expect(rs.commands.list().map((c) => [c.id, c.exitCode])).toEqual([
      ["C1", 0],
      ["C2", 1],
    ]);
  });
});

describe("verification runs", () => {
  it("records a passing check", async () => {
    const { rs } = await reasoningBench();
    const { verification, evidenceId } = await rs.verify("unit tests", nodeArgv("console.log('ok')"));
    expect(evidenceId).toBeNull();
    expect(verification).toMatchObject({ id: "V1", name: "unit tests", passed: true, exitCode: 0, error: null, hypothesisId: null, evidenceId: null });
    expect(verification.stdout.preview).toBe("ok\n");
    expect(rs.verifications.list()).toEqual([verification]);
    expect(rs.state().metrics.verificationsRun).toBe(1);
  });

  it("records a failing check with its exit code", async () => {
    const { rs } = await reasoningBench();
    const { verification } = await rs.verify("repro", nodeArgv("process.exit(7)"));
    expect(verification).toMatchObject({ passed: false, exitCode: 7, error: null, signal: null });
  });

  it("records a command that is not found as a failed verification with the reason, not an exception", async () => {
    const { rs } = await reasoningBench();
    const { verification } = await rs.verify("lint", ["forge-test-no-such-linter-xyz", "src"]);
    expect(verification).toMatchObject({
      id: "V1",
      passed: false,
      exitCode: null,
      error: "command not found: forge-test-no-such-linter-xyz",
      command: ["forge-test-no-such-linter-xyz", "src"],
    });
    expect(rs.verifications.list()).toHaveLength(1);
  });

  it("kills a check that runs past its timeout and records it as failed, timed out", async () => {
    const { rs } = await reasoningBench();
    const { verification } = await rs.verify("hangs", nodeArgv("setInterval(() => {}, 1000)"), { timeoutMs: 300 });
    expect(verification.passed).toBe(false);
    expect(verification.error).toBe("timed out after 300 ms");
    expect(verification.signal).toBe("SIGKILL");
  });

  it("keeps a bounded preview of huge output: 5 MB gives about 4 KB, truncated, with the real byte count", async () => {
    const { rs } = await reasoningBench();
    const { verification } = await rs.verify("noisy", nodeArgv("process.stdout.write('x'.repeat(5 * 1024 * 1024) + 'END')"));
    const out = verification.stdout;
    expect(out.bytes).toBe(5 * 1024 * 1024 + 3);
    expect(out.truncated).toBe(true);
    expect(out.preview.length).toBeGreaterThanOrEqual(4096);
    expect(out.preview.length).toBeLessThan(4096 + 100);
    expect(out.preview).toMatch(/bytes omitted/);
    expect(out.preview.startsWith("xxxx")).toBe(true);
    expect(out.preview.endsWith("xxEND")).toBe(true);
    // The state the next checkpoint holds stays small.
    expect(JSON.stringify(rs.state()).length).toBeLessThan(20_000);
  });

  it("attaches a check to a hypothesis as supporting evidence when it passes", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("the fix works");
    const { verification, evidenceId } = await rs.verify("regression test", nodeArgv("process.exit(0)"), { hypothesisId: "h1" });
    expect(evidenceId).toBe("E1");
    expect(verification).toMatchObject({ hypothesisId: "H1", evidenceId: "E1" });
    expect(rs.verifications.list()[0]?.evidenceId).toBe("E1");
    expect(rs.hypotheses.evidenceFor("H1")).toEqual([expect.objectContaining({ id: "E1", kind: "supports", verificationId: "V1", source: "verification V1" })]);
    expect(rs.hypotheses.get("H1").confidence).toBe(0.667);
  });

  it("attaches a failing check as refuting evidence that says why it failed", async () => {
    const { rs } = await reasoningBench();
    rs.hypotheses.add("the fix works");
    await rs.verify("regression test", nodeArgv("process.exit(2)"), { hypothesisId: "H1" });
    const [e] = rs.hypotheses.evidenceFor("H1");
    expect(e?.kind).toBe("refutes");
    expect(e?.content).toMatch(/failed \(exit 2\)/);
    expect(rs.hypotheses.get("H1").confidence).toBe(0.333);
  });

  it("refuses an unknown hypothesis before running anything", async () => {
    const { rs } = await reasoningBench();
    const marker = join(tempDir("marker").path, "ran");
    await rejectsWith(rs.verify("x", nodeArgv(`require('fs').writeFileSync(${JSON.stringify(marker)}, '')`), { hypothesisId: "H3" }), "NOT_FOUND");
    expect(rs.verifications.list()).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("code capture", () => {
  it("records the commit, the branch, the patch of an uncommitted change and the untracked files", async () => {
    const { rs } = await reasoningBench();
    const repo = gitRepo();
    writeFile(repo.root, "app.txt", "two\n");
    writeFile(repo.root, "notes/new.txt", "untracked\n");
    const code = rs.captureCode({ cwd: repo.root });
    expect(code).toMatchObject({ root: repo.root, commit: repo.commit, branch: "main", patchTruncated: false, untracked: ["notes/new.txt"], env: {} });
    expect(code.patch).toContain("-one");
    expect(code.patch).toContain("+two");
    expect(code.patchBytes).toBe(Buffer.byteLength(code.patch));
    expect(code.capturedAt).toBe(new Date(T0).toISOString());
    expect(rs.code).toEqual(code);
    expect(rs.state().code).toEqual(code);
  });

  it("finds the repository's top folder from a subfolder and records a clean tree as an empty patch", async () => {
    const { rs } = await reasoningBench();
    const repo = gitRepo();
    writeFile(repo.root, "src/.keep", "");
    git(repo.root, "add", "src/.keep");
    git(repo.root, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "src");
    git(repo.root, "checkout", "-q", "-b", "fix/cache");
    const code = rs.captureCode({ cwd: join(repo.root, "src") });
    expect(code).toMatchObject({ root: repo.root, branch: "fix/cache", patch: "", patchBytes: 0, untracked: [] });
    expect(code.commit).toBe(git(repo.root, "rev-parse", "HEAD").trim());
  });

  it("records root null, and no commit or patch, outside a git repository", async () => {
    const { rs } = await reasoningBench();
    const dir = realpathSync(tempDir("nogit").path);
    writeFile(dir, "file.txt", "x");
    expect(rs.captureCode({ cwd: dir, env: { NODE_ENV: "test" } })).toMatchObject({
      root: null,
      commit: null,
      branch: null,
      patch: "",
      patchBytes: 0,
      untracked: [],
      env: { NODE_ENV: "test" },
    });
  });

  it("refuses an environment variable whose name looks like a secret, recording nothing", async () => {
    const { rs } = await reasoningBench();
    const repo = gitRepo();
    expect(codeOf(() => rs.captureCode({ cwd: repo.root, env: { NODE_ENV: "test", API_TOKEN: "s3cr3t" } }))).toBe("INVALID_ARGUMENT");
    expect(messageOf(() => rs.captureCode({ cwd: repo.root, env: { API_TOKEN: "s3cr3t" } }))).toMatch(/API_TOKEN/);
    expect(rs.code).toBeNull();
    expect(JSON.stringify(rs.state())).not.toContain("s3cr3t");
  });

  it("records a secret-looking variable when allowSecrets says it is not one", async () => {
    const { rs } = await reasoningBench();
    const repo = gitRepo();
    const code = rs.captureCode({ cwd: repo.root, env: { API_TOKEN: "public-demo-token", DB_PASSWORD: "x" }, allowSecrets: true });
    expect(code.env).toEqual({ API_TOKEN: "public-demo-token", DB_PASSWORD: "x" });
  });
});

describe("the session a reasoning session lives in", () => {
  it("refuses to open a session that holds some other kind of state, with a clear error", async () => {
    const { store } = await reasoningBench();
    const plain = await store.session("plain");
    await plain.checkpoint({ messages: ["not a reasoning state"] });
    const e = await rejectsWith(ReasoningSession.open(store, "plain"), "INVALID_STATE");
    expect(e.message).toBe('session "plain" holds a state that is not a reasoning session');
  });

  it("saves the working state so a second session object sees it, and keeps ids counting on", async () => {
    const bench = await reasoningBench();
    bench.rs.hypotheses.add("a");
    bench.rs.beliefs.add("b");
    await bench.rs.save();
    const { rs: other } = await bench.reopen();
    expect(other.state()).toEqual(bench.rs.state());
    expect(other.hypotheses.add("c").id).toBe("H2");
  });
});
