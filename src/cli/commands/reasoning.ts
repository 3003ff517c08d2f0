// The reasoning commands: hypotheses, evidence, beliefs, contradictions, gaps, notes,
// verify, run, experiment branches, brief and recover. Each loads the session's working
// state, changes it and saves it (again from the top if another process saved in between),
// and says when a trigger made an automatic checkpoint.
import { Command, Option } from "commander";
import { readEnv } from "../../core/config.js";
import { InvalidArgumentError } from "../../core/errors.js";
import type { Contradiction } from "../../domains/reasoning/beliefs.js";
import type { ReasoningChange, ReasoningComparison } from "../../domains/reasoning/compare.js";
import { HYPOTHESIS_STATUSES, type Evidence, type Hypothesis } from "../../domains/reasoning/model.js";
import type { SaveResult } from "../../domains/reasoning/reasoning-session.js";
import { runCommand } from "../../domains/reasoning/runner.js";
import { commaList, run } from "../command.js";
import { UsageError } from "../context.js";
import { ago, c, checkpointJson, checkpointLine, printJson, println } from "../output.js";

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

/** The checkpoint line a save adds to the output, if a trigger made one. */
function autoLine(saved: SaveResult): void {
  if (saved.checkpoint) println(c.dim(`  ↳ auto checkpoint #${saved.checkpoint.seq} (${saved.checkpoint.trigger}): ${saved.checkpoint.message.replace(/^auto: /, "")}`));
}

function savedJson(saved: SaveResult): Record<string, unknown> {
  return { checkpoint: saved.checkpoint ? checkpointJson(saved.checkpoint) : null };
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
        const rs = await ctx.reasoning();
        const { result: h, saved } = await rs.update((r) => r.hypotheses.add(statement, opts));
        if (ctx.json) return printJson({ ...h, ...savedJson(saved) });
        println(`${c.green("added")} ${hypothesisLine(h)}`);
        autoLine(saved);
      }),
    );
  hypothesis
    .command("list")
    .alias("ls")
    .description("list hypotheses")
    .option("--status <status>", "only those with this status")
    .action(
      run(async (ctx, opts: { status?: string }) => {
        const rs = await ctx.reasoning();
        const status = opts.status === undefined ? undefined : checkStatusArg(opts.status);
        const list = rs.hypotheses.list(status === undefined ? {} : { status });
        if (ctx.json) return printJson({ hypotheses: list });
        if (list.length === 0) return println(c.dim("no hypotheses yet: `forge hypothesis add \"…\"` proposes one"));
        for (const h of list) println(hypothesisLine(h));
      }),
    );
  hypothesis
    .command("show")
    .description("a hypothesis with its evidence")
    .argument("<id>", "H1, H2, …")
    .action(
      run(async (ctx, id: string) => {
        const rs = await ctx.reasoning();
        const h = rs.hypotheses.get(id);
        const evidence = rs.hypotheses.evidenceFor(h.id);
        if (ctx.json) return printJson({ ...h, evidenceItems: evidence });
        println(hypothesisLine(h));
        println(c.dim(`  proposed ${ago(new Date(h.createdAt))}, updated ${ago(new Date(h.updatedAt))}`));
        for (const e of evidence) println(evidenceLine(e));
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
        const rs = await ctx.reasoning();
        const { result, saved } = await rs.update((r) =>
          r.hypotheses.update(id, {
            ...(status !== undefined && { status }),
            ...(opts.confidence !== undefined && { confidence: opts.confidence }),
            ...(opts.statement !== undefined && { statement: opts.statement }),
          }),
        );
        if (ctx.json) return printJson({ ...result.hypothesis, changes: result.changes, ...savedJson(saved) });
        println(hypothesisLine(result.hypothesis));
        for (const ch of result.changes) println(c.dim(`  ${ch.field}: ${JSON.stringify(ch.old)} → ${JSON.stringify(ch.new)}`));
        if (result.changes.length === 0) println(c.dim("  (no change)"));
        autoLine(saved);
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
    .addHelpText("after", "\nConfidence moves in log-odds: supporting evidence multiplies the odds by 4^strength, refuting divides\nthem; the default strength 0.5 doubles or halves them. Confidence stays within 0.01..0.99.")
    .action(
      run(async (ctx, hypothesisId: string, content: string, opts: { supports?: boolean; refutes?: boolean; neutral?: boolean; source?: string; strength?: number }) => {
        const kinds = (["supports", "refutes", "neutral"] as const).filter((k) => opts[k]);
        if (kinds.length !== 1) throw new UsageError("say what the evidence does: exactly one of --supports, --refutes or --neutral");
        const rs = await ctx.reasoning();
        const { result, saved } = await rs.update((r) =>
          r.hypotheses.addEvidence(hypothesisId === "-" ? null : hypothesisId, {
            kind: kinds[0] as Evidence["kind"],
            content,
            source: opts.source ?? null,
            ...(opts.strength !== undefined && { strength: opts.strength }),
          }),
        );
        if (ctx.json) return printJson({ ...result.evidence, hypothesis: result.hypothesis, ...savedJson(saved) });
        println(`${c.green("recorded")} ${evidenceLine(result.evidence).trim()}`);
        if (result.hypothesis) println(`  ${hypothesisLine(result.hypothesis)}`);
        autoLine(saved);
      }),
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
        const rs = await ctx.reasoning();
        const { result: b, saved } = await rs.update((r) => r.beliefs.add(statement, opts));
        const contradictions = rs.contradictions().filter((x) => x.beliefs.includes(b.id));
        if (ctx.json) return printJson({ ...b, contradictions, ...savedJson(saved) });
        println(`${c.green("added")} ${c.bold(b.id)} (${b.confidence.toFixed(2)}) ${b.statement}`);
        for (const x of contradictions) println(`  ${contradictionLine(x)}`);
        autoLine(saved);
      }),
    );
  belief
    .command("list")
    .alias("ls")
    .description("list beliefs")
    .action(
      run(async (ctx) => {
        const rs = await ctx.reasoning();
        const list = rs.beliefs.list();
        if (ctx.json) return printJson({ beliefs: list, contradictions: rs.contradictions() });
        if (list.length === 0) return println(c.dim("no beliefs yet"));
        for (const b of list) {
          const links = [
            b.dependsOn.length ? `rests on ${b.dependsOn.join(", ")}` : "",
            b.supports.length ? `supports ${b.supports.join(", ")}` : "",
            b.contradicts.length ? `contradicts ${b.contradicts.join(", ")}` : "",
          ].filter(Boolean);
          println(`${c.bold(b.id.padEnd(4))} ${(b.status === "held" ? c.green : c.red)(b.status.padEnd(9))} ${b.confidence.toFixed(2)}  ${b.statement}${links.length ? c.dim(`  (${links.join("; ")})`) : ""}`);
        }
      }),
    );
  belief
    .command("retract")
    .description("stop holding a belief")
    .argument("<id>", "B1, B2, …")
    .action(
      run(async (ctx, id: string) => {
        const rs = await ctx.reasoning();
        const { result: b, saved } = await rs.update((r) => r.beliefs.update(id, { status: "retracted" }));
        if (ctx.json) return printJson({ ...b, ...savedJson(saved) });
        println(`retracted ${b.id} ${b.statement}`);
        autoLine(saved);
      }),
    );

  const contradictions = new Command("contradictions")
    .description("held beliefs that contradict each other, rest on rejected hypotheses, or rest on each other in a circle")
    .action(
      run(async (ctx) => {
        const list = (await ctx.reasoning()).contradictions();
        if (ctx.json) return printJson({ contradictions: list });
        if (list.length === 0) return println(c.green("no contradictions"));
        for (const x of list) println(contradictionLine(x));
      }),
    );

  const gap = new Command("gap").description("knowledge gaps: what is not known yet");
  gap
    .command("add")
    .description("record a question")
    .argument("<question>", "what is not known")
    .addOption(new Option("--priority <p>", "how much it matters").choices(["low", "medium", "high", "critical"]).default("medium"))
    .action(
      run(async (ctx, question: string, opts: { priority: "low" | "medium" | "high" | "critical" }) => {
        const rs = await ctx.reasoning();
        const { result: g, saved } = await rs.update((r) => r.gaps.add(question, { priority: opts.priority }));
        if (ctx.json) return printJson({ ...g, ...savedJson(saved) });
        println(`${c.green("added")} ${c.bold(g.id)} [${g.priority}] ${g.question}`);
        autoLine(saved);
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
        const rs = await ctx.reasoning();
        const { result: g, saved } = await rs.update((r) => r.gaps.fill(id, answer, { filledBy: opts.by ?? null }));
        if (ctx.json) return printJson({ ...g, ...savedJson(saved) });
        println(`${c.green("filled")} ${c.bold(g.id)} ${g.question}\n  → ${g.answer}`);
        autoLine(saved);
      }),
    );
  gap
    .command("list")
    .alias("ls")
    .description("list gaps, open ones first")
    .action(
      run(async (ctx) => {
        const list = (await ctx.reasoning()).gaps.list();
        if (ctx.json) return printJson({ gaps: list });
        if (list.length === 0) return println(c.dim("no gaps recorded"));
        for (const g of list) println(`${c.bold(g.id.padEnd(4))} ${g.status === "open" ? c.yellow("open  ") : c.green("filled")} [${g.priority}] ${g.question}${g.answer ? c.dim(` → ${g.answer}`) : ""}`);
      }),
    );

  const note = new Command("note")
    .description("write a note")
    .argument("<text>", "the note")
    .option("-t, --tags <tags>", "comma-separated tags", commaList, [])
    .action(
      run(async (ctx, text: string, opts: { tags: string[] }) => {
        const rs = await ctx.reasoning();
        const { result: n, saved } = await rs.update((r) => r.notes.add(text, opts.tags));
        if (ctx.json) return printJson({ ...n, ...savedJson(saved) });
        println(`${c.green("noted")} ${n.id}`);
        autoLine(saved);
      }),
    );

  const task = new Command("task")
    .description("state (or show) what the session is trying to do")
    .argument("[text]", "the task")
    .action(
      run(async (ctx, text?: string) => {
        const rs = await ctx.reasoning();
        if (text === undefined) {
          if (ctx.json) return printJson({ task: rs.task });
          return println(rs.task ?? c.dim("no task stated"));
        }
        const { saved } = await rs.update((r) => r.setTask(text));
        if (ctx.json) return printJson({ task: rs.task, ...savedJson(saved) });
        println(`task: ${rs.task}`);
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
        const rs = await ctx.reasoning();
        if (opts.hypothesis !== undefined) rs.hypotheses.get(opts.hypothesis); // an unknown id fails before anything runs
        const tee = ctx.json || opts.quiet ? undefined : { stdout: process.stdout, stderr: process.stderr };
        const cwd = process.cwd();
        // The command runs once; recording its result is retried if another process saved meanwhile.
        const result = await runCommand(argv, { cwd, ...(opts.timeout !== undefined && { timeoutMs: opts.timeout * 1000 }), ...(tee && { tee }) });
        const { result: first, saved } = await rs.update((r) => r.recordVerification(name, argv, cwd, result, opts.hypothesis));
        const v = first.verification;
        if (ctx.json) printJson({ ...v, ...savedJson(saved) });
        else {
          println(`${v.passed ? c.green("✓ passed") : c.red("✗ failed")} ${c.bold(v.id)} "${v.name}" in ${v.durationMs} ms${v.error ? `: ${v.error}` : v.exitCode !== 0 && v.exitCode !== null ? ` (exit ${v.exitCode})` : v.signal ? ` (${v.signal})` : ""}`);
          if (v.evidenceId) println(c.dim(`  recorded as evidence ${v.evidenceId} ${v.passed ? "supporting" : "refuting"} ${v.hypothesisId}`));
          autoLine(saved);
        }
        if (!v.passed) process.exitCode = 1;
      }),
    );

  const runCmd = new Command("run")
    .description("run a command and record it in the session's command history (exits with its status)")
    .argument("<command...>", "the command, after --")
    .action(
      run(async (ctx, argv: string[]) => {
        const rs = await ctx.reasoning();
        const tee = ctx.json ? undefined : { stdout: process.stdout, stderr: process.stderr };
        const cwd = process.cwd();
        const result = await runCommand(argv, { cwd, ...(tee && { tee }) });
        const { result: record, saved } = await rs.update((r) => r.recordCommand(argv, cwd, result));
        if (ctx.json) printJson({ ...record, ...savedJson(saved) });
        else if (record.error) process.stderr.write(`forge: ${record.error} (recorded as ${record.id})\n`);
        process.exitCode = record.error ? 127 : (record.exitCode ?? 1);
      }),
    );

  const brief = new Command("brief")
    .description("what an agent needs to resume after its context was compacted, as Markdown")
    .argument("[ref]", "a checkpoint (default: the working state)")
    .action(
      run(async (ctx, ref?: string) => {
        const rs = await ctx.reasoning();
        const b = await rs.brief(ref);
        if (ctx.json) {
          const { state, checkpoint, ...rest } = b.input;
          return printJson({ ...rest, checkpoint: checkpoint ? { ...checkpoint, createdAt: checkpoint.createdAt.toISOString() } : null, markdown: b.markdown, state });
        }
        println(b.markdown.trimEnd());
      }),
    );

  const recover = new Command("recover")
    .description("the latest checkpoint and the steps to resume from it")
    .option("--patch", "print only the recorded patch of uncommitted changes")
    .action(
      run(async (ctx, opts: { patch?: boolean }) => {
        const r = await (await ctx.reasoning()).recover();
        if (opts.patch) {
          process.stdout.write(r.patch ?? "");
          return;
        }
        if (ctx.json) return printJson({ ...r, checkpoint: checkpointJson(r.checkpoint) });
        println(`Recovery point: ${checkpointLine(r.checkpoint).trim()}`);
        for (const [i, s] of r.steps.entries()) {
          println(`\n${i + 1}. ${s.title}`);
          for (const cmd of s.commands) println(`   ${cmd}`);
          if (s.note) println(c.dim(`   ${s.note}`));
        }
        if (r.patch) println(c.dim(`\n(${r.patch.length} bytes of patch: \`forge recover --patch > forge-recovery.patch\`)`));
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
        const rs = await ctx.reasoning();
        const { result, saved } = await rs.update((r) => r.captureCode({ cwd: process.cwd(), env: readEnv(opts.env), allowSecrets: opts.allowSecrets === true }));
        if (ctx.json) return printJson({ ...result, ...savedJson(saved) });
        if (result.root === null) println(c.yellow("not in a git repository: only the environment was recorded"));
        else println(`${result.branch ?? "detached"} @ ${result.commit?.slice(0, 10) ?? "no commit"}; ${result.patchBytes} bytes of uncommitted changes; ${result.untracked.length} untracked files`);
        autoLine(saved);
      }),
    );

  const branch = new Command("branch")
    .description("start an experiment branch at HEAD (work since the last checkpoint is saved first) and move onto it")
    .argument("<name>", "branch name")
    .option("--from <ref>", "start it at this checkpoint instead")
    .option("--no-switch", "create it without moving onto it")
    .action(
      run(async (ctx, name: string, opts: { from?: string; switch: boolean }) => {
        const rs = await ctx.reasoning();
        const r = await rs.branch(name, { ...(opts.from !== undefined && { from: opts.from }), switch: opts.switch });
        if (ctx.json) return printJson({ branch: name, switched: opts.switch, saved: r.saved ? checkpointJson(r.saved) : null });
        if (r.saved) println(c.dim(`saved the work so far as #${r.saved.seq}`));
        println(`${opts.switch ? "on new branch" : "created branch"} ${c.cyan(name)}`);
      }),
    );
  const switchCmd = new Command("switch")
    .description("move onto another experiment branch; its state becomes the working state")
    .argument("<name>", "branch name")
    .action(
      run(async (ctx, name: string) => {
        const rs = await ctx.reasoning();
        const r = await rs.switch(name);
        if (ctx.json) return printJson({ branch: name, checkpoint: checkpointJson(r.checkpoint), saved: r.saved ? checkpointJson(r.saved) : null });
        if (r.saved) println(c.dim(`saved the work so far as #${r.saved.seq}`));
        println(`${c.green("on")} ${c.cyan(name)}: ${checkpointLine(r.checkpoint).trim()}`);
      }),
    );
  const branches = new Command("branches")
    .description("list experiment branches")
    .action(
      run(async (ctx) => {
        const list = await (await ctx.session()).branches();
        if (ctx.json) return printJson({ branches: list.map((b) => ({ name: b.name, current: b.current, head: checkpointJson(b.head) })) });
        if (list.length === 0) return println(c.dim("no branches yet: the first checkpoint starts main"));
        for (const b of list) println(`${b.current ? c.green("* ") : "  "}${c.cyan(b.name.padEnd(20))} #${b.head.seq} ${c.dim(ago(b.head.createdAt))}  ${b.head.message}`);
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
      return c.yellow(`~ code: ${ch.oldCommit?.slice(0, 10) ?? "none"} → ${ch.newCommit?.slice(0, 10) ?? "none"}${ch.patchChanged ? " (uncommitted changes differ)" : ""}`);
  }
}

export function printReasoningChanges(summary: string, changes: readonly ReasoningChange[]): void {
  println(summary);
  for (const ch of changes) println(reasoningChangeLine(ch));
}
