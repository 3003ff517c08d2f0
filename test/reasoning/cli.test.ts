// The reasoning commands end to end, as an agent drives them: `forge` as a real process
// (bin/forge.js on the built dist/) in a temp folder holding its own .forge store. Checks
// the text output, exit codes, the --json shapes, and what bad input says.
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fails, initStore, forge as runForge, json, STACK, type Run } from "../support/cli.js";
import { requireBuiltLibrary } from "../support/processes.js";
import { git, gitRepo, tempDir, writeFile } from "./support.js";

const NODE = process.execPath;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let dir: string;

function forgeIn(cwd: string, args: readonly string[], env: Record<string, string> = {}): Run {
  return runForge(cwd, args, { env });
}

function forge(...args: string[]): Run {
  return forgeIn(dir, args);
}

interface CheckpointJson {
  id: string;
  seq: number;
  branch: string;
  trigger: string;
  tags: string[];
  message: string;
  createdAt: string;
}

interface HypothesisJson {
  id: string;
  statement: string;
  status: string;
  confidence: number;
  evidence: string[];
  createdAt: string;
  updatedAt: string;
}

interface Output {
  preview: string;
  bytes: number;
  truncated: boolean;
}

interface CommandJson {
  id: string;
  command: string[];
  cwd: string;
  exitCode: number | null;
  signal: string | null;
  error: string | null;
  durationMs: number;
  stdout: Output;
  stderr: Output;
  at: string;
  autoCheckpoint: CheckpointJson | null;
}

interface VerificationJson extends CommandJson {
  name: string;
  passed: boolean;
  hypothesisId: string | null;
  evidenceId: string | null;
}

/** What every reasoning write adds: the automatic checkpoint a trigger made, else null. */
interface Saved {
  autoCheckpoint: CheckpointJson | null;
}

beforeAll(() => requireBuiltLibrary());

beforeEach(async () => {
  // What `forge init` leaves for the commands to find; the code-capture tests run `forge init` itself.
  dir = realpathSync(tempDir("cli").path);
  await initStore(dir);
});

describe("forge hypothesis", () => {
  it("adds a hypothesis and prints it, or its JSON", () => {
    const text = forge("hypothesis", "add", "the cache is stale");
    expect(text.code).toBe(0);
    expect(text.stderr).toBe("");
    expect(text.stdout).toMatch(/^added H1\s+proposed\s+0\.50 {2}the cache is stale\n$/);
    const h = json<HypothesisJson & Saved>(forge("hypothesis", "add", "the index is missing", "--confidence", "0.7", "--status", "testing", "--json"));
    expect(h).toEqual({
      id: "H2",
      statement: "the index is missing",
      status: "testing",
      confidence: 0.7,
      evidence: [],
      createdAt: expect.stringMatching(ISO) as unknown as string,
      updatedAt: h.createdAt,
      autoCheckpoint: null,
    });
  });

  it("lists hypotheses, optionally by status, and shows one with its evidence", () => {
    expect(forge("hypothesis", "list").stdout).toMatch(/no hypotheses yet/);
    forge("hypothesis", "add", "the cache is stale");
    forge("hypothesis", "add", "the index is missing", "--status", "testing");
    forge("evidence", "add", "H2", "EXPLAIN shows a full scan", "--supports", "--source", "psql");
    const all = json<{ hypotheses: HypothesisJson[] }>(forge("hypothesis", "list", "--json"));
    expect(all.hypotheses.map((h) => [h.id, h.status])).toEqual([
      ["H1", "proposed"],
      ["H2", "testing"],
    ]);
    const testing = json<{ hypotheses: HypothesisJson[] }>(forge("hyp", "ls", "--status", "testing", "--json"));
    expect(testing.hypotheses.map((h) => h.id)).toEqual(["H2"]);
    const lines = forge("hypothesis", "list").stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^H2\s+testing\s+0\.67 {2}the index is missing {2}\(1 evidence\)$/);
    const shown = json<HypothesisJson & { evidenceItems: { id: string; kind: string; source: string | null }[] }>(forge("hypothesis", "show", "h2", "--json"));
    expect(shown).toMatchObject({ id: "H2", evidence: ["E1"], evidenceItems: [{ id: "E1", kind: "supports", source: "psql" }] });
    const text = forge("hypothesis", "show", "H2").stdout;
    expect(text).toMatch(/^H2\s+testing/);
    expect(text).toContain("+ E1 EXPLAIN shows a full scan (psql)");
  });

  it("updates status, confidence and statement, reporting the changes and the automatic checkpoint", () => {
    forge("hypothesis", "add", "the cache is stale");
    const testing = json<HypothesisJson & Saved & { changes: { field: string; old: unknown; new: unknown }[] }>(
      forge("hypothesis", "update", "H1", "--status", "testing", "--confidence", "0.6", "--statement", "the CDN cache is stale", "--json"),
    );
    expect(testing).toMatchObject({ id: "H1", status: "testing", confidence: 0.6, statement: "the CDN cache is stale" });
    expect(testing.changes).toEqual([
      { field: "statement", old: "the cache is stale", new: "the CDN cache is stale" },
      { field: "confidence", old: 0.5, new: 0.6 },
      { field: "status", old: "proposed", new: "testing" },
    ]);
    expect(testing.autoCheckpoint).toMatchObject({ seq: 1, trigger: "hypothesis-status", tags: ["auto", "hypothesis-status"], message: "auto: H1 testing" });
    const confirmed = forge("hypothesis", "update", "H1", "--status", "confirmed");
    expect(confirmed.code).toBe(0);
    expect(confirmed.stdout).toContain('status: "testing" → "confirmed"');
    expect(confirmed.stdout).toContain("↳ auto checkpoint #2 (hypothesis-status): H1 confirmed");
    const list = json<{ checkpoints: CheckpointJson[] }>(forge("checkpoint", "list", "--json"));
    expect(list.checkpoints.map((c) => c.tags)).toEqual([
      ["auto", "hypothesis-status"],
      ["auto", "hypothesis-status", "significant"],
    ]);
    const same = forge("hypothesis", "update", "H1", "--confidence", "0.6");
    expect(same.code).toBe(0);
    expect(same.stdout).toContain("(no change)");
  });

  it("names an unknown hypothesis id and exits 1", () => {
    forge("hypothesis", "add", "x");
    fails(forge("hypothesis", "show", "H9"), 1, /^forge: no hypothesis "H9" \(`forge hypothesis list` shows the hypotheses\)\n$/);
    fails(forge("hypothesis", "update", "H9", "--status", "testing"), 1, /^forge: no hypothesis "H9"/);
    fails(forge("evidence", "add", "H9", "seen", "--supports"), 1, /^forge: no hypothesis "H9"/);
    fails(forge("verify", "check", "--hypothesis", "H9", "--", NODE, "-e", "0"), 1, /^forge: no hypothesis "H9"/);
  });

  it("refuses a confidence outside 0..1 or not a number, with a forge: message", () => {
    forge("hypothesis", "add", "x");
    fails(forge("hypothesis", "add", "y", "--confidence", "1.5"), 1, /^forge: confidence must be a number from 0 to 1, not 1\.5\n$/);
    const negative = forge("hypothesis", "update", "H1", "--confidence", "-0.2");
    expect([1, 2]).toContain(negative.code);
    fails(negative, negative.code, /^forge: .*confidence.*-0\.2/);
    fails(forge("hypothesis", "add", "y", "--confidence", "abc"), 2, /^forge: --confidence: "abc" is not a number/);
    expect(json<{ hypotheses: HypothesisJson[] }>(forge("hypothesis", "list", "--json")).hypotheses).toEqual([
      expect.objectContaining({ id: "H1", confidence: 0.5 }),
    ]);
  });

  it("refuses a status that does not exist", () => {
    forge("hypothesis", "add", "x");
    fails(
      forge("hypothesis", "update", "H1", "--status", "maybe"),
      1,
      /^forge: "maybe" is not a hypothesis status \(use one of proposed, testing, confirmed, rejected, abandoned\)/,
    );
    fails(forge("hypothesis", "add", "y", "--status", "maybe"), 2, /^forge: option '--status <status>' argument 'maybe' is invalid/);
    fails(forge("hypothesis", "list", "--status", "maybe"), 1, /is not a hypothesis status/);
    expect(json<{ hypotheses: HypothesisJson[] }>(forge("hypothesis", "list", "--json")).hypotheses.map((h) => h.status)).toEqual(["proposed"]);
  });

  it("refuses an update that changes nothing, as a usage error", () => {
    forge("hypothesis", "add", "x");
    fails(forge("hypothesis", "update", "H1"), 2, /nothing to update: give --status, --confidence or --statement/);
  });
});

describe("forge evidence", () => {
  it("records supporting, refuting and neutral evidence, moving confidence by the rule", () => {
    forge("hypothesis", "add", "the cache is stale");
    const sup = json<
      { id: string; kind: string; hypothesisId: string | null; source: string | null; strength: number; hypothesis: HypothesisJson | null } & Saved
    >(forge("evidence", "add", "H1", "the TTL is a day", "--supports", "--source", "config.yml", "--json"));
    expect(sup).toMatchObject({ id: "E1", kind: "supports", hypothesisId: "H1", source: "config.yml", strength: 0.5, autoCheckpoint: null });
    expect(sup.hypothesis?.confidence).toBe(0.667);
    const ref = json<{ hypothesis: HypothesisJson | null }>(forge("evidence", "add", "h1", "the cache was flushed", "--refutes", "--strength", "1", "--json"));
    expect(ref.hypothesis?.confidence).toBe(0.334); // from the stored 0.667: odds 2.003 ÷ 4 → 0.3337
    const text = forge("evidence", "add", "H1", "unrelated restart", "--neutral");
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^recorded · E3 unrelated restart\n {2}H1\s+proposed\s+0\.33/);
  });

  it("records evidence about no hypothesis with -", () => {
    forge("hypothesis", "add", "x");
    const e = json<{ id: string; hypothesisId: string | null; hypothesis: unknown }>(
      forge("evidence", "add", "-", "traffic was normal", "--neutral", "--json"),
    );
    expect(e).toMatchObject({ id: "E1", hypothesisId: null, hypothesis: null });
    expect(json<HypothesisJson>(forge("hypothesis", "show", "H1", "--json")).evidence).toEqual([]);
  });

  it("wants exactly one of --supports, --refutes and --neutral", () => {
    forge("hypothesis", "add", "x");
    fails(forge("evidence", "add", "H1", "seen"), 2, /exactly one of --supports, --refutes or --neutral/);
    fails(forge("evidence", "add", "H1", "seen", "--supports", "--refutes"), 2, /exactly one of/);
  });

  // --confidence and --strength share one range parser (unit() in
  // src/cli/commands/reasoning.ts); its message must name the option it parsed.
  it("names --strength, not confidence, when the strength is outside 0..1", () => {
    forge("hypothesis", "add", "x");
    const r = forge("evidence", "add", "H1", "seen", "--supports", "--strength", "2");
    expect([1, 2]).toContain(r.code);
    fails(r, r.code, /^forge: .*strength/);
  });
});

describe("forge belief and contradictions", () => {
  it("adds beliefs with links, reports a new contradiction with an automatic checkpoint, and retracts", () => {
    forge("hypothesis", "add", "the index is missing");
    const b1 = json<{ id: string; dependsOn: string[]; contradictions: unknown[] } & Saved>(
      forge("belief", "add", "the database is the bottleneck", "--depends-on", "h1", "--json"),
    );
    expect(b1).toMatchObject({
      id: "B1",
      status: "held",
      confidence: 0.7,
      dependsOn: ["H1"],
      supports: [],
      contradicts: [],
      contradictions: [],
      autoCheckpoint: null,
    });
    const b2 = json<{ id: string; contradictions: { kind: string; beliefs: string[] }[] } & Saved>(
      forge("belief", "add", "the database is idle", "--contradicts", "B1", "--confidence", "0.4", "--json"),
    );
    expect(b2.contradictions).toEqual([expect.objectContaining({ kind: "conflict", beliefs: ["B1", "B2"] })]);
    expect(b2.autoCheckpoint).toMatchObject({ trigger: "contradiction", tags: ["auto", "contradiction", "significant"] });

    const text = forge("contradictions");
    expect(text.code).toBe(0);
    expect(text.stdout).toBe("⚠ conflict: B1 and B2 are both held but contradict each other\n");
    const listed = json<{ beliefs: { id: string; status: string }[]; contradictions: unknown[] }>(forge("belief", "list", "--json"));
    expect(listed.beliefs.map((b) => [b.id, b.status])).toEqual([
      ["B1", "held"],
      ["B2", "held"],
    ]);
    expect(listed.contradictions).toHaveLength(1);
    expect(forge("belief", "ls").stdout).toMatch(/B2\s+held\s+0\.40 {2}the database is idle {2}\(contradicts B1\)/);

    const retracted = json<{ id: string; status: string } & Saved>(forge("belief", "retract", "b2", "--json"));
    expect(retracted).toMatchObject({ id: "B2", status: "retracted", autoCheckpoint: null });
    expect(forge("contradictions").stdout).toBe("no contradictions\n");
    expect(json<{ contradictions: unknown[] }>(forge("contradictions", "--json"))).toEqual({ contradictions: [] });
  });

  it("reports a belief resting on a rejected hypothesis", () => {
    forge("hypothesis", "add", "h");
    forge("belief", "add", "b", "--depends-on", "H1");
    forge("hypothesis", "update", "H1", "--status", "rejected");
    const list = json<{ contradictions: { kind: string; grounds: string[]; description: string }[] }>(forge("contradictions", "--json"));
    expect(list.contradictions).toEqual([
      expect.objectContaining({ kind: "rests-on-rejected", grounds: ["H1"], description: "B1 is held but rests on H1 (rejected)" }),
    ]);
  });

  it("refuses links to unknown ids and unknown beliefs", () => {
    forge("belief", "add", "a");
    fails(forge("belief", "add", "b", "--depends-on", "B9"), 1, /^forge: no belief or hypothesis "B9"/);
    fails(forge("belief", "add", "b", "--contradicts", "H1"), 1, /^forge: no belief "H1"/);
    fails(forge("belief", "retract", "B7"), 1, /^forge: no belief "B7"/);
    expect(json<{ beliefs: unknown[] }>(forge("belief", "list", "--json")).beliefs).toHaveLength(1);
  });
});

describe("forge gap", () => {
  it("adds, fills and lists gaps, open ones first by priority", () => {
    const g1 = json<{ id: string; priority: string; status: string } & Saved>(forge("gap", "add", "who changed the schema?", "--priority", "low", "--json"));
    expect(g1).toMatchObject({ id: "G1", priority: "low", status: "open", answer: null, autoCheckpoint: null });
    expect(forge("gap", "add", "which version runs in prod?", "--priority", "critical").stdout).toBe("added G2 [critical] which version runs in prod?\n");
    forge("gap", "add", "is it only EU?");
    const filled = json<{ id: string; status: string; answer: string; filledBy: string | null; filledAt: string } & Saved>(
      forge("gap", "fill", "g2", "2.4.1", "--by", "N1", "--json"),
    );
    expect(filled).toMatchObject({ id: "G2", status: "filled", answer: "2.4.1", filledBy: "N1", filledAt: expect.stringMatching(ISO) as unknown as string });
    expect(filled.autoCheckpoint).toMatchObject({ trigger: "gap-filled", tags: ["auto", "gap-filled"], message: "auto: G2 filled" });
    expect(json<{ gaps: { id: string }[] }>(forge("gap", "list", "--json")).gaps.map((g) => g.id)).toEqual(["G3", "G1", "G2"]);
    const text = forge("gap", "ls").stdout.trimEnd().split("\n");
    expect(text[0]).toMatch(/^G3\s+open\s+\[medium\] is it only EU\?$/);
    expect(text[2]).toMatch(/^G2\s+filled \[critical\] which version runs in prod\? → 2\.4\.1$/);
  });

  it("refuses to fill a gap twice or with an empty answer, and an unknown priority", () => {
    forge("gap", "add", "q");
    forge("gap", "fill", "G1", "first");
    fails(forge("gap", "fill", "G1", "second"), 1, /^forge: gap G1 is already filled \("first"\)/);
    forge("gap", "add", "q2");
    fails(forge("gap", "fill", "G2", "   "), 1, /^forge: the answer to G2 is empty/);
    fails(forge("gap", "fill", "G5", "x"), 1, /^forge: no gap "G5"/);
    fails(forge("gap", "add", "q3", "--priority", "urgent"), 2, /argument 'urgent' is invalid/);
    expect(json<{ gaps: { id: string; answer: string | null }[] }>(forge("gap", "list", "--json")).gaps.map((g) => [g.id, g.answer])).toEqual([
      ["G2", null],
      ["G1", "first"],
    ]);
  });
});

describe("forge note and task", () => {
  it("writes notes with tags", () => {
    const n = json<{ id: string; text: string; tags: string[]; at: string } & Saved>(forge("note", "slow only under load", "--tags", "perf, load", "--json"));
    expect(n).toEqual({
      id: "N1",
      text: "slow only under load",
      tags: ["perf", "load"],
      at: expect.stringMatching(ISO) as unknown as string,
      autoCheckpoint: null,
    });
    expect(forge("note", "second").stdout).toBe("noted N2\n");
    fails(forge("note", "  "), 1, /^forge: a note is empty/);
  });

  it("states and shows the task", () => {
    expect(forge("task").stdout).toBe("no task stated\n");
    expect(json<{ task: string | null } & Saved>(forge("task", "find why checkout is slow", "--json"))).toEqual({
      task: "find why checkout is slow",
      autoCheckpoint: null,
    });
    expect(json<{ task: string | null }>(forge("task", "--json"))).toEqual({ task: "find why checkout is slow" });
    expect(forge("task").stdout).toBe("find why checkout is slow\n");
  });
});

describe("forge verify", () => {
  it("runs a passing check, shows its output and records it with an automatic checkpoint", () => {
    const r = forge("verify", "unit tests", "--", NODE, "-e", "console.log('all 12 passed')");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("all 12 passed\n");
    expect(r.stdout).toMatch(/✓ passed V1 "unit tests" in \d+ ms\n/);
    expect(r.stdout).toContain('↳ auto checkpoint #1 (verification): V1 "unit tests" passed');
  });

  it("records a failing check with its exit code and exits 1", () => {
    const r = forge("verify", "--json", "repro", "--", NODE, "-e", "console.error('boom'); process.exit(3)");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("");
    const v = JSON.parse(r.stdout) as VerificationJson;
    expect(v).toMatchObject({ id: "V1", name: "repro", passed: false, exitCode: 3, error: null, hypothesisId: null, evidenceId: null });
    expect(v.stderr).toEqual({ preview: "boom\n", bytes: 5, truncated: false });
    expect(v.autoCheckpoint).toMatchObject({ trigger: "verification", message: 'auto: V1 "repro" failed' });
    expect(forge("verify", "again", "--quiet", "--", NODE, "-e", "process.exit(3)").stdout).toMatch(/✗ failed V2 "again" in \d+ ms \(exit 3\)/);
  });

  it("records a command that is not found as a failed verification: exit 1, the reason, no stack trace", () => {
    const r = forge("verify", "lint", "--", "forge-test-no-such-linter-xyz", "src");
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ failed V1 "lint" in \d+ ms: command not found: forge-test-no-such-linter-xyz/);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.stdout).not.toMatch(STACK);
    const v = JSON.parse(forge("verify", "--json", "lint", "--", "forge-test-no-such-linter-xyz").stdout) as VerificationJson;
    expect(v).toMatchObject({ id: "V2", passed: false, exitCode: null, error: "command not found: forge-test-no-such-linter-xyz" });
    const state = json<{ state: { verifications: { id: string; passed: boolean }[] } }>(forge("brief", "--json")).state;
    expect(state.verifications.map((x) => [x.id, x.passed])).toEqual([
      ["V1", false],
      ["V2", false],
    ]);
  });

  it("attaches the result to a hypothesis as evidence", () => {
    forge("hypothesis", "add", "the fix works");
    const v = json<VerificationJson>(forge("verify", "--json", "--hypothesis", "h1", "regression", "--", NODE, "-e", "0"));
    expect(v).toMatchObject({ passed: true, hypothesisId: "H1", evidenceId: "E1" });
    expect(json<HypothesisJson>(forge("hypothesis", "show", "H1", "--json"))).toMatchObject({ confidence: 0.667, evidence: ["E1"] });
    const text = forge("verify", "--hypothesis", "H1", "--quiet", "regression", "--", NODE, "-e", "process.exit(1)");
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("recorded as evidence E2 refuting H1");
  });

  it("does not run the check when the hypothesis is unknown", () => {
    const marker = join(dir, "ran.txt");
    fails(forge("verify", "--hypothesis", "H4", "x", "--", NODE, "-e", `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`), 1, /no hypothesis "H4"/);
    expect(existsSync(marker)).toBe(false);
    expect(json<{ state: { verifications: unknown[] } }>(forge("brief", "--json")).state.verifications).toEqual([]);
  });

  // --timeout is checked where it is parsed (seconds() in src/cli/commands/reasoning.ts):
  // unchecked, "abc" would become NaN, setTimeout would fire at once, and the check would
  // be killed and recorded as failed "timed out after NaN ms" instead of a usage error.
  it("refuses a --timeout that is not a number of seconds, running nothing", () => {
    const r = forge("verify", "--json", "--timeout", "abc", "check", "--", NODE, "-e", "0");
    // Under --json a usage error is one JSON object on stdout (and its line on stderr).
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^forge: .*abc/);
    expect(JSON.parse(r.stdout)).toMatchObject({ code: "USAGE", message: expect.stringMatching(/abc/) });
    expect(json<{ state: { verifications: unknown[] } }>(forge("brief", "--json")).state.verifications).toEqual([]);
  });

  it("kills a check after --timeout and records it as timed out", () => {
    const r = forge("verify", "--json", "--timeout", "0.5", "hangs", "--", NODE, "-e", "setInterval(() => {}, 1000)");
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ passed: false, error: "timed out after 500 ms", signal: "SIGKILL" });
  });
});

describe("forge run", () => {
  it("runs a command, passes its output through and exits with its status", () => {
    const r = forge("run", "--", NODE, "-e", "console.log('hello'); process.exit(4)");
    expect(r.code).toBe(4);
    expect(r.stdout).toBe("hello\n");
    const ok = forge("run", "--json", "--", NODE, "-e", "console.log('fine')");
    const c = json<CommandJson>(ok);
    expect(c).toMatchObject({ id: "C2", exitCode: 0, error: null, cwd: dir, stdout: { preview: "fine\n", bytes: 5, truncated: false }, autoCheckpoint: null });
    expect(c.command).toEqual([NODE, "-e", "console.log('fine')"]);
  });

  it("keeps the --json preview of a command printing 5 MB bounded, with the real byte count", () => {
    const r = forge("run", "--json", "--", NODE, "-e", "process.stdout.write('y'.repeat(5 * 1024 * 1024))");
    const c = json<CommandJson>(r);
    expect(c.stdout.bytes).toBe(5 * 1024 * 1024);
    expect(c.stdout.truncated).toBe(true);
    expect(c.stdout.preview.length).toBeGreaterThanOrEqual(4096);
    expect(c.stdout.preview.length).toBeLessThan(4096 + 100);
    expect(c.stdout.preview).toMatch(/bytes omitted/);
    expect(r.stdout.length).toBeLessThan(10_000);
    const brief = json<{ state: { commands: { stdout: Output }[] } }>(forge("brief", "--json"));
    expect(brief.state.commands[0]?.stdout.bytes).toBe(5 * 1024 * 1024);
  });

  it("runs the command in the shell's folder, not the workspace's", () => {
    const sub = join(dir, "pkg");
    mkdirSync(sub);
    const c = json<CommandJson>(forgeIn(sub, ["run", "--json", "--", NODE, "-e", "0"]));
    expect(c).toMatchObject({ cwd: sub, exitCode: 0 });
    expect(json<VerificationJson>(forgeIn(sub, ["verify", "--json", "here", "--", NODE, "-e", "0"])).cwd).toBe(sub);
  });

  it("records a command that is not found and exits 127", () => {
    const r = forge("run", "--", "forge-test-no-such-command-xyz");
    expect(r.code).toBe(127);
    expect(r.stderr).toBe("forge: command not found: forge-test-no-such-command-xyz (recorded as C1)\n");
    const c = json<{ state: { commands: { id: string; error: string | null }[] } }>(forge("brief", "--json")).state.commands;
    expect(c).toEqual([expect.objectContaining({ id: "C1", error: "command not found: forge-test-no-such-command-xyz" })]);
  });
});

describe("forge brief and recover", () => {
  it("briefs the session in Markdown and as JSON", () => {
    forge("task", "find why checkout is slow");
    forge("hypothesis", "add", "the index is missing", "--confidence", "0.7");
    forge("hypothesis", "update", "H1", "--status", "testing");
    forge("gap", "add", "which version?", "--priority", "high");
    const text = forge("brief");
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^# Brief: default \(branch main\)\n/);
    expect(text.stdout).toContain("**Task:** find why checkout is slow");
    expect(text.stdout).toContain("- H1 [testing, 0.70, evidence +0/−0] the index is missing");
    expect(text.stdout).toContain("- G1 [high] which version?");
    expect(text.stdout).toContain("there is work since it");
    const b = json<{
      session: string;
      branch: string | null;
      checkpoint: { id: string; seq: number; createdAt: string } | null;
      unsaved: boolean;
      now: number;
      markdown: string;
      contradictions: unknown[];
      state: { kind: string; hypotheses: unknown[] };
    }>(forge("brief", "--json"));
    expect(b).toMatchObject({ session: "default", branch: "main", unsaved: true, contradictions: [], state: { kind: "forge.reasoning" } });
    expect(b.checkpoint).toMatchObject({ seq: 1, createdAt: expect.stringMatching(ISO) as unknown as string });
    expect(b.markdown).toMatch(/^# Brief: default \(branch main\)\n/);
    expect(b.markdown).toContain("- G1 [high] which version?");
    expect(typeof b.now).toBe("number");
  });

  it("briefs an older checkpoint as it was", () => {
    forge("hypothesis", "add", "old idea");
    const cp = json<Saved>(forge("hypothesis", "update", "H1", "--status", "testing", "--json")).autoCheckpoint as CheckpointJson;
    forge("hypothesis", "add", "new idea");
    const r = forge("brief", cp.id);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("old idea");
    expect(r.stdout).not.toContain("new idea");
  });

  it("gives the recovery point with its steps, once there is a checkpoint", () => {
    forge("hypothesis", "add", "x");
    fails(forge("recover"), 1, /^forge: session "default" has no checkpoint to recover from/);
    forge("run", "--", NODE, "-e", "0");
    const cp = json<Saved>(forge("hypothesis", "update", "H1", "--status", "testing", "--json")).autoCheckpoint as CheckpointJson;
    const text = forge("recover");
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^Recovery point: .*${cp.id.slice(0, 8)}`));
    expect(text.stdout).toContain("1. Bring back the reasoning state");
    expect(text.stdout).toContain(`forge --session default checkpoint restore ${cp.id.slice(0, 12)}`);
    const r = json<{ checkpoint: CheckpointJson; recentCommands: { id: string }[]; steps: { title: string; commands: string[] }[]; patch: string | null }>(
      forge("recover", "--json"),
    );
    expect(r.checkpoint.id).toBe(cp.id);
    expect(r.recentCommands.map((c) => c.id)).toEqual(["C1"]);
    expect(r.steps.map((s) => s.title)).toContain("Replay the commands you need (the last ones run through forge)");
    expect(r.patch).toBeNull();
  });
});

describe("forge code capture", () => {
  it("records the commit, branch, patch and untracked files; a changed patch is an automatic checkpoint", () => {
    const repo = gitRepo();
    const init = forgeIn(repo.root, ["init"]);
    expect(init.code).toBe(0);
    expect(init.stdout).toMatch(/^Initialized empty Forge store in /);
    const clean = json<
      { root: string | null; commit: string | null; branch: string | null; patch: string; untracked: string[]; env: Record<string, string> } & Saved
    >(forgeIn(repo.root, ["code", "capture", "--json"]));
    expect(clean).toMatchObject({ root: repo.root, commit: repo.commit, branch: "main", patch: "", untracked: [], env: {}, autoCheckpoint: null });

    writeFile(repo.root, "app.txt", "two\n");
    writeFile(repo.root, "scratch.txt", "new\n");
    const changed = json<{ patch: string; patchBytes: number; untracked: string[]; env: Record<string, string> } & Saved>(
      forgeIn(repo.root, ["code", "capture", "--env", "NODE_ENV", "--json"], { NODE_ENV: "test" }),
    );
    expect(changed.patch).toContain("+two");
    expect(changed.untracked).toEqual(["scratch.txt"]);
    expect(changed.env).toEqual({ NODE_ENV: "test" });
    expect(changed.autoCheckpoint).toMatchObject({ trigger: "code-modified", tags: ["auto", "code-modified"] });

    const patch = forgeIn(repo.root, ["recover", "--patch"]);
    expect(patch.code).toBe(0);
    expect(patch.stdout).toBe(changed.patch);
    expect(patch.stdout).toBe(git(repo.root, "diff", "HEAD", "--no-color", "--no-ext-diff"));

    const text = forgeIn(repo.root, ["code", "capture"]);
    expect(text.stdout).toMatch(new RegExp(`^main @ ${repo.commit.slice(0, 10)}; ${changed.patchBytes} bytes of uncommitted changes; 1 untracked file\n$`));
  });

  it("refuses a secret-looking environment variable unless --allow-secrets", () => {
    const repo = gitRepo();
    forgeIn(repo.root, ["init"]);
    fails(
      forgeIn(repo.root, ["code", "capture", "--env", "API_TOKEN"], { API_TOKEN: "tok-123" }),
      1,
      /^forge: refusing to record API_TOKEN: it looks like a secret/,
    );
    const brief = json<{ state: { code: unknown } }>(forgeIn(repo.root, ["brief", "--json"]));
    expect(brief.state.code).toBeNull();
    const allowed = json<{ env: Record<string, string> }>(
      forgeIn(repo.root, ["code", "capture", "--env", "API_TOKEN", "--allow-secrets", "--json"], { API_TOKEN: "tok-123" }),
    );
    expect(allowed.env).toEqual({ API_TOKEN: "tok-123" });
  });

  it("says when the folder is not in a git repository", () => {
    const r = forge("code", "capture");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("not in a git repository");
    expect(json<{ root: string | null }>(forge("code", "capture", "--json")).root).toBeNull();
  });
});

describe("forge branch, switch and branches", () => {
  it("checkpoints work before branching and switching, and each branch keeps its own state", () => {
    expect(forge("branches").stdout).toMatch(/no branches yet/);
    expect(json<{ sessions: unknown[] }>(forge("session", "list", "--json")).sessions).toEqual([]); // listing created nothing
    forge("hypothesis", "add", "shared idea");
    const made = json<{ branch: string; switched: boolean; saved: CheckpointJson | null }>(forge("branch", "experiment", "--json"));
    expect(made).toMatchObject({ branch: "experiment", switched: true, saved: { trigger: "branch-switch", branch: "main", tags: ["auto", "branch-switch"] } });
    forge("hypothesis", "add", "only on the experiment");

    const away = json<{ branch: string; checkpoint: CheckpointJson; saved: CheckpointJson | null }>(forge("switch", "main", "--json"));
    expect(away.branch).toBe("main");
    expect(away.saved).toMatchObject({ trigger: "branch-switch", branch: "experiment" });
    expect(away.checkpoint.id).toBe(made.saved?.id);
    expect(json<{ hypotheses: HypothesisJson[] }>(forge("hypothesis", "list", "--json")).hypotheses.map((h) => h.statement)).toEqual(["shared idea"]);

    const branches = json<{ branches: { name: string; current: boolean; head: CheckpointJson }[] }>(forge("branches", "--json"));
    expect(branches.branches.map((b) => [b.name, b.current, b.head.id]).sort()).toEqual(
      [
        ["experiment", false, away.saved?.id],
        ["main", true, made.saved?.id],
      ].sort(),
    );
    expect(forge("branches").stdout).toMatch(/^\* main\s+#1 /m);

    const back = forge("switch", "experiment");
    expect(back.code).toBe(0);
    expect(back.stdout).toMatch(/^on experiment: /);
    expect(json<{ hypotheses: HypothesisJson[] }>(forge("hypothesis", "list", "--json")).hypotheses.map((h) => h.statement)).toEqual([
      "shared idea",
      "only on the experiment",
    ]);
  });

  it("creates a branch without moving onto it, and refuses an existing or unknown branch", () => {
    forge("hypothesis", "add", "x");
    forge("hypothesis", "update", "H1", "--status", "testing");
    const side = json<{ switched: boolean; saved: unknown }>(forge("branch", "side", "--no-switch", "--json"));
    expect(side).toEqual({ branch: "side", switched: false, saved: null });
    fails(forge("branch", "side"), 1, /^forge: branch "side" already exists/);
    fails(forge("switch", "nowhere"), 1, /^forge: session "default" has no branch "nowhere"/);
    expect(json<{ branches: { name: string; current: boolean }[] }>(forge("branches", "--json")).branches.find((b) => b.current)?.name).toBe("main");
  });
});
