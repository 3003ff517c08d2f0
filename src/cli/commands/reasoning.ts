// The reasoning commands: hypotheses, evidence, beliefs, contradictions, gaps, notes,
// verify, run, experiment branches, brief and recover. Each builds its operation's input
// from the command line, calls it, and prints its result: as JSON with --json (the shape the
// MCP server gives too), else for people — saying when a trigger made an automatic checkpoint.
import { Command, Option } from "commander";
import { InvalidArgumentError } from "../../core/errors.js";
import { plural } from "../../core/text.js";
import type { Contradiction } from "../../domains/reasoning/beliefs.js";
import type { ReasoningChange } from "../../domains/reasoning/compare.js";
import type { Evidence, Hypothesis } from "../../domains/reasoning/model.js";
import { GAP_PRIORITIES, HYPOTHESIS_STATUSES, type GapPriority } from "../../operations/reasoning/names.js";
import type { Saved } from "../../operations/reasoning/shared.js";
import { commaList, run } from "../command.js";
import { UsageError } from "../context.js";
import { ago, c, checkpointLine, printJson, println, writeOut } from "../output.js";

// Operation modules load only when their command runs: `forge --version` and hooks never pay for them.
const ops = {
  hypotheses: () => import("../../operations/reasoning/hypotheses.js"),
  beliefs: () => import("../../operations/reasoning/beliefs.js"),
  gaps: () => import("../../operations/reasoning/gaps.js"),
  journal: () => import("../../operations/reasoning/journal.js"),
  commands: () => import("../../operations/reasoning/commands.js"),
  resume: () => import("../../operations/reasoning/resume.js"),
  experiments: () => import("../../operations/reasoning/experiments.js"),
};

/** A parser for a number from 0 to 1 (--confidence, --strength); bad input names the option. */
function unit(option: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === "" || !Number.isFinite(n)) throw new UsageError(`--${option}: "${value}" is not a number`);
    if (n < 0 || n > 1) throw new InvalidArgumentError(`${option} must be a number from 0 to 1, not ${value}`);
    return n;
  };
}

/** A parser for a positive number of seconds (--timeout). */
function seconds(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n <= 0) throw new UsageError(`--timeout: "${value}" is not a number of seconds above 0`);
  return n;
}

/** The line a change adds to the output when a trigger made an automatic checkpoint. */
function autoLine(r: Saved): void {
  const cp = r.autoCheckpoint;
  if (cp) println(c.dim(`  ↳ auto checkpoint #${cp.seq} (${cp.trigger}): ${cp.message.replace(/^auto: /, "")}`));
}

/** Where `forge verify` and `forge run` run their commands: here, their output passed through unless quiet. */
function here(quiet: boolean) {
  return { cwd: process.cwd(), ...(!quiet && { tee: { stdout: process.stdout, stderr: process.stderr } }) };
}

function hypothesisLine(h: Hypothesis): string {
  const status = h.status === "confirmed" ? c.green(h.status) : h.status === "rejected" || h.status === "abandoned" ? c.red(h.status) : c.yellow(h.status);
  return `${c.bold(h.id.padEnd(4))} ${status.padEnd(9)} ${h.confidence.toFixed(2)}  ${h.statement}${h.evidence.length ? c.dim(`  (${h.evidence.length} evidence)`) : ""}`;
}

function evidenceLine(e: Evidence): string {
  const mark = e.kind === "supports" ? c.green("+") : e.kind === "refutes" ? c.red("−") : "·";
  return `  ${mark} ${e.id} ${e.content}${e.source ? c.dim(` (${e.source})`) : ""}`;
}

export function contradictionLine(x: Contradiction): string {
  return `${c.red("⚠")} ${x.kind}: ${x.description}`;
}

export function reasoningCommands(): Command[] {
  const hypothesis = new Command("hypothesis").alias("hyp").description("the hypothesis board");
  hypothesis
    .command("add")
    .description("propose a hypothesis")
    .argument("<statement>", "what might be true")
    .option("--confidence <p>", "how likely, 0..1 (default 0.5)", unit("confidence"))
    .addOption(new Option("--status <status>", "its status (default proposed)").choices(HYPOTHESIS_STATUSES))
    .action(
      run(async (ctx, statement: string, opts: { confidence?: number; status?: Hypothesis["status"] }) => {
        const h = await ctx.call((await ops.hypotheses()).hypothesisAddOperation, { statement, ...opts });
        if (ctx.json) return printJson(h);
        println(`${c.green("added")} ${hypothesisLine(h)}`);
        autoLine(h);
      }),
    );
  hypothesis
    .command("list")
    .alias("ls")
    .description("list hypotheses")
    .option("--status <status>", "only those with this status")
    .action(
      run(async (ctx, opts: { status?: string }) => {
        const status = opts.status === undefined ? undefined : checkStatusArg(opts.status);
        const r = await ctx.call((await ops.hypotheses()).hypothesisListOperation, status === undefined ? {} : { status });
        if (ctx.json) return printJson(r);
        if (r.hypotheses.length === 0) return println(c.dim('no hypotheses yet: `forge hypothesis add "…"` proposes one'));
        for (const h of r.hypotheses) println(hypothesisLine(h));
      }),
    );
  hypothesis
    .command("show")
    .description("a hypothesis with its evidence")
    .argument("<id>", "H1, H2, …")
    .action(
      run(async (ctx, id: string) => {
        const h = await ctx.call((await ops.hypotheses()).hypothesisShowOperation, { id });
        if (ctx.json) return printJson(h);
        println(hypothesisLine(h));
        println(c.dim(`  proposed ${ago(new Date(h.createdAt))}, updated ${ago(new Date(h.updatedAt))}`));
        for (const e of h.evidenceItems) println(evidenceLine(e));
      }),
    );
  hypothesis
    .command("update")
    .description("change a hypothesis's status, confidence or statement")
    .argument("<id>", "H1, H2, …")
    .option("--status <status>", `one of ${HYPOTHESIS_STATUSES.join(", ")}`)
    .option("--confidence <p>", "0..1", unit("confidence"))
    .option("--statement <text>", "a better wording")
    .action(
      run(async (ctx, id: string, opts: { status?: string; confidence?: number; statement?: string }) => {
        if (opts.status === undefined && opts.confidence === undefined && opts.statement === undefined) {
          throw new UsageError("nothing to update: give --status, --confidence or --statement");
        }
        const status = opts.status === undefined ? undefined : checkStatusArg(opts.status);
        const h = await ctx.call((await ops.hypotheses()).hypothesisUpdateOperation, { id, status, confidence: opts.confidence, statement: opts.statement });
        if (ctx.json) return printJson(h);
        println(hypothesisLine(h));
        for (const ch of h.changes) println(c.dim(`  ${ch.field}: ${JSON.stringify(ch.old)} → ${JSON.stringify(ch.new)}`));
        if (h.changes.length === 0) println(c.dim("  (no change)"));
        autoLine(h);
      }),
    );

  const evidence = new Command("evidence").description("evidence for and against hypotheses");
  evidence
    .command("add")
    .description("record evidence for a hypothesis (or - for none)")
    .argument("<hypothesis>", "H1, H2, … or - for evidence about no hypothesis in particular")
    .argument("<content>", "what was observed")
    .option("--supports", "it supports the hypothesis")
    .option("--refutes", "it refutes the hypothesis")
    .option("--neutral", "it bears on it without pointing either way")
    .option("--source <where>", "where it came from (a file, a command, a URL)")
    .option("--strength <s>", "how much it should move confidence, 0..1 (default 0.5)", unit("strength"))
    .addHelpText(
      "after",
      "\nConfidence moves in log-odds: supporting evidence multiplies the odds by 4^strength, refuting divides\nthem; the default strength 0.5 doubles or halves them. Confidence stays within 0.01..0.99.",
    )
    .action(
      run(
        async (
          ctx,
          hypothesisId: string,
          content: string,
          opts: { supports?: boolean; refutes?: boolean; neutral?: boolean; source?: string; strength?: number },
        ) => {
          const kinds = (["supports", "refutes", "neutral"] as const).filter((k) => opts[k]);
          const kind = kinds[0];
          if (kinds.length !== 1 || kind === undefined) throw new UsageError("say what the evidence does: exactly one of --supports, --refutes or --neutral");
          const e = await ctx.call((await ops.hypotheses()).evidenceAddOperation, {
            hypothesis: hypothesisId === "-" ? undefined : hypothesisId,
            content,
            kind,
            source: opts.source,
            strength: opts.strength,
          });
          if (ctx.json) return printJson(e);
          println(`${c.green("recorded")} ${evidenceLine(e).trim()}`);
          if (e.hypothesis) println(`  ${hypothesisLine(e.hypothesis)}`);
          autoLine(e);
        },
      ),
    );

  const belief = new Command("belief").description("the belief graph");
  belief
    .command("add")
    .description("record a belief, with what it rests on and what it contradicts")
    .argument("<statement>", "what the agent holds true")
    .option("--confidence <p>", "0..1 (default 0.7)", unit("confidence"))
    .option("--depends-on <ids>", "beliefs or hypotheses it rests on (comma-separated, repeatable)", commaList)
    .option("--supports <ids>", "beliefs it supports", commaList)
    .option("--contradicts <ids>", "beliefs it cannot be held with", commaList)
    .action(
      run(async (ctx, statement: string, opts: { confidence?: number; dependsOn?: string[]; supports?: string[]; contradicts?: string[] }) => {
        const b = await ctx.call((await ops.beliefs()).beliefAddOperation, { statement, ...opts });
        if (ctx.json) return printJson(b);
        println(`${c.green("added")} ${c.bold(b.id)} (${b.confidence.toFixed(2)}) ${b.statement}`);
        for (const x of b.contradictions) println(`  ${contradictionLine(x)}`);
        autoLine(b);
      }),
    );
  belief
    .command("list")
    .alias("ls")
    .description("list beliefs")
    .action(
      run(async (ctx) => {
        const r = await ctx.call((await ops.beliefs()).beliefListOperation, {});
        if (ctx.json) return printJson(r);
        if (r.beliefs.length === 0) return println(c.dim("no beliefs yet"));
        for (const b of r.beliefs) {
          const links = [
            b.dependsOn.length ? `rests on ${b.dependsOn.join(", ")}` : "",
            b.supports.length ? `supports ${b.supports.join(", ")}` : "",
            b.contradicts.length ? `contradicts ${b.contradicts.join(", ")}` : "",
          ].filter(Boolean);
          println(
            `${c.bold(b.id.padEnd(4))} ${(b.status === "held" ? c.green : c.red)(b.status.padEnd(9))} ${b.confidence.toFixed(2)}  ${b.statement}${links.length ? c.dim(`  (${links.join("; ")})`) : ""}`,
          );
        }
      }),
    );
  belief
    .command("retract")
    .description("stop holding a belief")
    .argument("<id>", "B1, B2, …")
    .action(
      run(async (ctx, id: string) => {
        const b = await ctx.call((await ops.beliefs()).beliefRetractOperation, { id });
        if (ctx.json) return printJson(b);
        println(`retracted ${b.id} ${b.statement}`);
        autoLine(b);
      }),
    );

  const contradictions = new Command("contradictions")
    .description("held beliefs that contradict each other, rest on rejected hypotheses, or rest on each other in a circle")
    .action(
      run(async (ctx) => {
        const r = await ctx.call((await ops.beliefs()).contradictionsOperation, {});
        if (ctx.json) return printJson(r);
        if (r.contradictions.length === 0) return println(c.green("no contradictions"));
        for (const x of r.contradictions) println(contradictionLine(x));
      }),
    );

  const gap = new Command("gap").description("knowledge gaps: what is not known yet");
  gap
    .command("add")
    .description("record a question")
    .argument("<question>", "what is not known")
    .addOption(new Option("--priority <p>", "how much it matters").choices(GAP_PRIORITIES).default("medium"))
    .action(
      run(async (ctx, question: string, opts: { priority: GapPriority }) => {
        const g = await ctx.call((await ops.gaps()).gapAddOperation, { question, priority: opts.priority });
        if (ctx.json) return printJson(g);
        println(`${c.green("added")} ${c.bold(g.id)} [${g.priority}] ${g.question}`);
        autoLine(g);
      }),
    );
  gap
    .command("fill")
    .description("answer a question")
    .argument("<id>", "G1, G2, …")
    .argument("<answer>", "what was found")
    .option("--by <id>", "the evidence, verification or note that answered it")
    .action(
      run(async (ctx, id: string, answer: string, opts: { by?: string }) => {
        const g = await ctx.call((await ops.gaps()).gapFillOperation, { id, answer, by: opts.by });
        if (ctx.json) return printJson(g);
        println(`${c.green("filled")} ${c.bold(g.id)} ${g.question}\n  → ${g.answer}`);
        autoLine(g);
      }),
    );
  gap
    .command("list")
    .alias("ls")
    .description("list gaps, open ones first")
    .action(
      run(async (ctx) => {
        const r = await ctx.call((await ops.gaps()).gapListOperation, {});
        if (ctx.json) return printJson(r);
        if (r.gaps.length === 0) return println(c.dim("no gaps recorded"));
        for (const g of r.gaps)
          println(
            `${c.bold(g.id.padEnd(4))} ${g.status === "open" ? c.yellow("open  ") : c.green("filled")} [${g.priority}] ${g.question}${g.answer ? c.dim(` → ${g.answer}`) : ""}`,
          );
      }),
    );

  const note = new Command("note")
    .description("write a note")
    .argument("<text>", "the note")
    .option("-t, --tags <tags>", "comma-separated tags", commaList, [])
    .action(
      run(async (ctx, text: string, opts: { tags: string[] }) => {
        const n = await ctx.call((await ops.journal()).noteAddOperation, { text, tags: opts.tags });
        if (ctx.json) return printJson(n);
        println(`${c.green("noted")} ${n.id}`);
        autoLine(n);
      }),
    );

  const task = new Command("task")
    .description("state (or show) what the session is trying to do")
    .argument("[text]", "the task")
    .action(
      run(async (ctx, text?: string) => {
        if (text === undefined) {
          const r = await ctx.call((await ops.journal()).taskShowOperation, {});
          if (ctx.json) return printJson(r);
          return println(r.task ?? c.dim("no task stated"));
        }
        const r = await ctx.call((await ops.journal()).taskSetOperation, { task: text });
        if (ctx.json) return printJson(r);
        println(`task: ${r.task}`);
      }),
    );

  const verify = new Command("verify")
    .description("run a named check and record pass/fail (exit status 1 when it fails); --hypothesis attaches it as evidence")
    .argument("<name>", "what the check is")
    .argument("<command...>", "the command, after --")
    .option("--hypothesis <id>", "attach the result to this hypothesis as evidence")
    .option("--timeout <seconds>", "kill the command after this long", seconds)
    .option("--quiet", "do not show the command's output")
    .action(
      run(async (ctx, name: string, argv: string[], opts: { hypothesis?: string; timeout?: number; quiet?: boolean }) => {
        const op = (await ops.commands()).verifyOperationAt(here(ctx.json || opts.quiet === true));
        const v = await ctx.call(op, { name, command: argv, hypothesis: opts.hypothesis, timeoutSeconds: opts.timeout ?? null });
        if (ctx.json) printJson(v);
        else {
          println(
            `${v.passed ? c.green("✓ passed") : c.red("✗ failed")} ${c.bold(v.id)} "${v.name}" in ${v.durationMs} ms${v.error ? `: ${v.error}` : v.exitCode !== 0 && v.exitCode !== null ? ` (exit ${v.exitCode})` : v.signal ? ` (${v.signal})` : ""}`,
          );
          if (v.evidenceId) println(c.dim(`  recorded as evidence ${v.evidenceId} ${v.passed ? "supporting" : "refuting"} ${v.hypothesisId}`));
          autoLine(v);
        }
        if (!v.passed) process.exitCode = 1;
      }),
    );

  const runCmd = new Command("run")
    .description("run a command and record it in the session's command history (exits with its status)")
    .argument("<command...>", "the command, after --")
    .action(
      run(async (ctx, argv: string[]) => {
        const record = await ctx.call((await ops.commands()).commandRunOperationAt(here(ctx.json)), { command: argv });
        if (ctx.json) printJson(record);
        else if (record.error) process.stderr.write(`forge: ${record.error} (recorded as ${record.id})\n`);
        process.exitCode = record.error ? 127 : (record.exitCode ?? 1);
      }),
    );

  const brief = new Command("brief")
    .description("what an agent needs to resume after its context was compacted, as Markdown")
    .argument("[ref]", "a checkpoint (default: the working state)")
    .action(
      run(async (ctx, ref?: string) => {
        const b = await ctx.call((await ops.resume()).briefOperation, { ref, includeState: ctx.json });
        if (ctx.json) return printJson(b);
        println(b.markdown.trimEnd());
      }),
    );

  const recover = new Command("recover")
    .description("the latest checkpoint and the steps to resume from it")
    .option("--patch", "print only the recorded patch of uncommitted changes")
    .action(
      run(async (ctx, opts: { patch?: boolean }) => {
        const r = await ctx.call((await ops.resume()).recoverOperation, {});
        if (opts.patch) {
          writeOut(r.patch ?? "");
          return;
        }
        if (ctx.json) return printJson(r);
        println(`Recovery point: ${checkpointLine(r.checkpoint).trim()}`);
        for (const [i, s] of r.steps.entries()) {
          println(`\n${i + 1}. ${s.title}`);
          for (const cmd of s.commands) println(`   ${cmd}`);
          if (s.note) println(c.dim(`   ${s.note}`));
        }
        if (r.patch) println(c.dim(`\n(${plural(r.patch.length, "byte")} of patch: \`forge recover --patch > forge-recovery.patch\`)`));
      }),
    );

  const code = new Command("code").description("the code state a session is about");
  code
    .command("capture")
    .description("record the git commit, uncommitted changes and chosen environment variables")
    .option("--env <names>", "environment variables to record (comma-separated; secrets are refused)", commaList, [])
    .option("--allow-secrets", "record variables whose names look like secrets")
    .action(
      run(async (ctx, opts: { env: string[]; allowSecrets?: boolean }) => {
        const op = (await ops.commands()).codeCaptureOperationAt({ cwd: process.cwd() });
        const r = await ctx.call(op, { env: opts.env, allowSecrets: opts.allowSecrets === true });
        if (ctx.json) return printJson(r);
        if (r.root === null) println(c.yellow("not in a git repository: only the environment was recorded"));
        else
          println(
            `${r.branch ?? "detached"} @ ${r.commit?.slice(0, 10) ?? "no commit"}; ${plural(r.patchBytes, "byte")} of uncommitted changes; ${plural(r.untracked.length, "untracked file")}`,
          );
        autoLine(r);
      }),
    );

  const branch = new Command("branch")
    .description("start an experiment branch at HEAD (work since the last checkpoint is saved first) and move onto it")
    .argument("<name>", "branch name")
    .option("--from <ref>", "start it at this checkpoint instead")
    .option("--no-switch", "create it without moving onto it")
    .action(
      run(async (ctx, name: string, opts: { from?: string; switch: boolean }) => {
        const r = await ctx.call((await ops.experiments()).experimentBranchOperation, { name, from: opts.from, switch: opts.switch });
        if (ctx.json) return printJson(r);
        if (r.saved) println(c.dim(`saved the work so far as #${r.saved.seq}`));
        println(`${r.switched ? "on new branch" : "created branch"} ${c.cyan(name)}`);
      }),
    );
  const switchCmd = new Command("switch")
    .description("move onto another experiment branch; its state becomes the working state")
    .argument("<name>", "branch name")
    .action(
      run(async (ctx, name: string) => {
        const r = await ctx.call((await ops.experiments()).experimentSwitchOperation, { name });
        if (ctx.json) return printJson(r);
        if (r.saved) println(c.dim(`saved the work so far as #${r.saved.seq}`));
        println(`${c.green("on")} ${c.cyan(name)}: ${checkpointLine(r.checkpoint).trim()}`);
      }),
    );
  const branches = new Command("branches").description("list experiment branches").action(
    run(async (ctx) => {
      const r = await ctx.call((await ops.experiments()).experimentListOperation, {});
      if (ctx.json) return printJson(r);
      if (r.branches.length === 0) return println(c.dim("no branches yet: the first checkpoint starts main"));
      for (const b of r.branches)
        println(`${b.current ? c.green("* ") : "  "}${c.cyan(b.name.padEnd(20))} #${b.head.seq} ${c.dim(ago(b.head.createdAt))}  ${b.head.message}`);
    }),
  );

  return [hypothesis, evidence, belief, contradictions, gap, note, task, verify, runCmd, brief, recover, code, branch, switchCmd, branches];
}

function checkStatusArg(s: string): Hypothesis["status"] {
  if (!(HYPOTHESIS_STATUSES as readonly string[]).includes(s)) {
    throw new InvalidArgumentError(`"${s}" is not a hypothesis status`, `use one of ${HYPOTHESIS_STATUSES.join(", ")}`);
  }
  return s as Hypothesis["status"];
}

/** Typed changes for `forge checkpoint diff` on a reasoning session. */
export function reasoningChangeLine(ch: ReasoningChange): string {
  switch (ch.type) {
    case "hypothesis-added":
      return c.green(`+ hypothesis ${ch.id} proposed (${ch.status}, ${ch.confidence}): ${ch.statement}`);
    case "hypothesis-removed":
      return c.red(`- hypothesis ${ch.id} removed: ${ch.statement}`);
    case "hypothesis-status":
      return c.yellow(`~ hypothesis ${ch.id} status ${ch.old} → ${ch.new}`);
    case "hypothesis-confidence":
      return c.yellow(`~ hypothesis ${ch.id} confidence ${ch.old} → ${ch.new}`);
    case "hypothesis-updated":
      return c.yellow(`~ hypothesis ${ch.id} ${ch.field}: ${JSON.stringify(ch.old)} → ${JSON.stringify(ch.new)}`);
    case "evidence-added":
      return c.green(`+ evidence ${ch.id} ${ch.kind}${ch.hypothesisId ? ` ${ch.hypothesisId}` : ""}: ${ch.content}`);
    case "belief-added":
      return c.green(`+ belief ${ch.id} (${ch.confidence}): ${ch.statement}`);
    case "belief-removed":
      return c.red(`- belief ${ch.id} removed: ${ch.statement}`);
    case "belief-status":
      return c.yellow(`~ belief ${ch.id} ${ch.old} → ${ch.new}`);
    case "belief-confidence":
      return c.yellow(`~ belief ${ch.id} confidence ${ch.old} → ${ch.new}`);
    case "belief-updated":
      return c.yellow(`~ belief ${ch.id} ${ch.field}: ${JSON.stringify(ch.old)} → ${JSON.stringify(ch.new)}`);
    case "verification-added":
      return (ch.passed ? c.green : c.red)(`+ verification ${ch.id} "${ch.name}" ${ch.passed ? "passed" : "failed"}`);
    case "gap-added":
      return c.green(`+ gap ${ch.id} [${ch.priority}]: ${ch.question}`);
    case "gap-filled":
      return c.green(`✓ gap ${ch.id} filled: ${ch.answer}`);
    case "note-added":
      return c.green(`+ note ${ch.id}: ${ch.text}`);
    case "command-added":
      return c.dim(`+ command ${ch.id}: ${ch.command} (exit ${ch.exitCode ?? "?"})`);
    case "task-changed":
      return c.yellow(`~ task: ${JSON.stringify(ch.old)} → ${JSON.stringify(ch.new)}`);
    case "code-changed":
      return c.yellow(
        `~ code: ${ch.oldCommit?.slice(0, 10) ?? "none"} → ${ch.newCommit?.slice(0, 10) ?? "none"}${ch.patchChanged ? " (uncommitted changes differ)" : ""}`,
      );
  }
}

export function printReasoningChanges(summary: string, changes: readonly ReasoningChange[]): void {
  println(summary);
  for (const ch of changes) println(reasoningChangeLine(ch));
}
