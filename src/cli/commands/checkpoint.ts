// `forge checkpoint …`: the seed grammar of the forge-reasoning design. Each command builds
// its operation's input from the command line, calls it, and prints its result: as JSON
// with --json (the shape the MCP server and the web page give too), else for people.
import { Command } from "commander";
import { jsonText } from "../../core/json-text.js";
import { checkReadable, checkWritable, writeFileAtomic } from "../../core/files.js";
import { plural, short } from "../../core/text.js";
import type { CompareResult } from "../../operations/checkpoint/compare.js";
import type { Change } from "../../timeline/types.js";
import { commaList, run, wholeNumber } from "../command.js";
import { readJsonInput, UsageError } from "../context.js";
import { ago, bytes, c, checkpointLine, localTime, printJson, println, shortId } from "../output.js";
import { renderTimeline } from "../timeline-graph.js";
import { printReasoningChanges } from "./reasoning.js";

// Operation modules load only when their command runs: `forge --version` and hooks never pay for them.
const ops = {
  create: () => import("../../operations/checkpoint/create.js"),
  read: () => import("../../operations/checkpoint/read.js"),
  compare: () => import("../../operations/checkpoint/compare.js"),
  restore: () => import("../../operations/checkpoint/restore.js"),
  prune: () => import("../../operations/checkpoint/prune.js"),
  branches: () => import("../../operations/checkpoint/branches.js"),
  squash: () => import("../../operations/checkpoint/squash.js"),
  bundles: () => import("../../operations/checkpoint/bundles.js"),
};

export function checkpointCommand(): Command {
  const cmd = new Command("checkpoint").alias("cp").description("create, list, compare, restore and prune checkpoints");

  cmd
    .command("create")
    .description("save a state as a new checkpoint on HEAD's branch")
    .argument("[message]", "what this checkpoint is", "")
    .option("-t, --tags <tags>", "comma-separated tags (repeatable)", commaList, [])
    .option("-s, --state <file>", "the state as a JSON file, or - for standard input")
    .option("--trigger <name>", "why it was made (default: manual)")
    .option("--metadata <json>", "a JSON object stored with the checkpoint")
    .option("--files", "also snapshot the workspace's files and tie them to this checkpoint")
    .option("--root <dir>", "the workspace folder for --files")
    .action(
      run(async (ctx, message: string, opts: { tags: string[]; state?: string; trigger?: string; metadata?: string; files?: boolean; root?: string }) => {
        const r = await ctx.call((await ops.create()).createOperation, {
          message,
          tags: opts.tags,
          ...(opts.state !== undefined && { state: readJsonInput(opts.state) }),
          ...(opts.trigger !== undefined && { trigger: opts.trigger }),
          ...(opts.metadata !== undefined && { metadata: metadataOption(opts.metadata) }),
          files: opts.files === true,
          ...(opts.root !== undefined && { root: opts.root }),
        });
        if (ctx.json) return printJson(r);
        println(`${c.green("saved")} ${checkpointLine(r.checkpoint)}`);
        if (r.filesSnapshot)
          println(
            c.dim(
              `  with files snapshot #${r.filesSnapshot.seq} ${shortId(r.filesSnapshot.id)} (${plural(r.filesChanged ?? 0, "file")} changed since the last)`,
            ),
          );
        println(c.dim(`  ${r.checkpoint.id} · ${bytes(r.checkpoint.sizes.logicalBytes)} state, ${bytes(r.checkpoint.sizes.newBytes)} new on disk`));
      }),
    );

  cmd
    .command("list")
    .alias("ls")
    .description("list checkpoints, oldest first")
    .option("--tag <tag>", "only checkpoints with this tag")
    .option("-b, --branch <name>", "only checkpoints made on this branch")
    .option("--trigger <name>", "only checkpoints made by this trigger")
    .option("--since <time>", 'only checkpoints made at or after this time ("2 hours ago", ISO, …)')
    .option("--until <time>", "only checkpoints made at or before this time")
    .option("-n, --limit <n>", "at most N checkpoints (the newest N)", wholeNumber)
    .action(
      run(async (ctx, opts: { tag?: string; branch?: string; trigger?: string; since?: string; until?: string; limit?: number }) => {
        const r = await ctx.call((await ops.read()).listOperation, opts);
        if (ctx.json) return printJson(r);
        if (r.checkpoints.length === 0) return println(c.dim(`no checkpoints in session "${r.session}"${Object.keys(opts).length ? " match" : ""}`));
        const marks = milestoneMarks(r.milestones);
        for (const cp of r.checkpoints) println(checkpointLine(cp, { head: cp.id === r.head }) + (marks.has(cp.id) ? `  ${marks.get(cp.id)}` : ""));
      }),
    );

  cmd
    .command("show")
    .description("show a checkpoint and its state")
    .argument("[ref]", "checkpoint: id or prefix, HEAD, HEAD~N, #SEQ, branch, tag:NAME", "HEAD")
    .option("--no-state", "leave the state out")
    .action(
      run(async (ctx, ref: string, opts: { state: boolean }) => {
        const r = await ctx.call((await ops.read()).showOperation, { ref, includeState: opts.state });
        if (ctx.json) return printJson(r);
        const cp = r.checkpoint;
        println(`${c.bold(`#${cp.seq}`)} ${c.yellow(cp.id)}`);
        println(`  session   ${cp.session}`);
        println(`  branch    ${cp.branch}`);
        println(`  time      ${localTime(cp.createdAt)} (${ago(cp.createdAt)})`);
        println(`  message   ${cp.message || c.dim("(none)")}`);
        if (cp.tags.length) println(`  tags      ${cp.tags.join(", ")}`);
        println(`  trigger   ${cp.trigger}`);
        if (cp.parentId) println(`  parent    ${cp.parentId}`);
        println(`  size      ${bytes(cp.sizes.logicalBytes)} state, ${bytes(cp.sizes.newBytes)} new on disk`);
        if (Object.keys(cp.metadata).length) println(`  metadata  ${JSON.stringify(cp.metadata)}`);
        if (opts.state) {
          println();
          println(jsonText(r.state, 2));
        }
      }),
    );

  cmd
    .command("diff")
    .alias("compare")
    .description("compare two checkpoints: typed changes for reasoning sessions, messages for conversations, JSON paths otherwise; and their files")
    .argument("<from>", "the earlier checkpoint")
    .argument("[to]", "the later checkpoint", "HEAD")
    .option("--raw", "JSON paths even for a reasoning session")
    .action(
      run(async (ctx, from: string, to: string, opts: { raw?: boolean }) => {
        const r = await ctx.call((await ops.compare()).compareOperation, { from, to, raw: opts.raw === true, patches: false });
        if (ctx.json) return printJson(r);
        printComparison(r);
      }),
    );

  cmd
    .command("restore")
    .description("go back to a checkpoint; later checkpoints stay on their branch unless --discard-future")
    .argument("<ref>", "the checkpoint to restore")
    .option("--discard-future", "the linear model: delete the checkpoints after it on its branch")
    .option("-o, --output <file>", "write the restored state to this file (else to standard output)")
    .option("--files", "also bring back the workspace files the checkpoint carries (snapshotting the current ones first)")
    .option("--root <dir>", "the workspace folder for --files")
    .action(
      run(async (ctx, ref: string, opts: { discardFuture?: boolean; output?: string; files?: boolean; root?: string }) => {
        // A bad --output fails before the restore, not after it moved HEAD.
        if (opts.output !== undefined) checkWritable(opts.output);
        const r = await ctx.call((await ops.restore()).restoreOperation, {
          ref,
          discardFuture: opts.discardFuture === true,
          files: opts.files === true,
          ...(opts.root !== undefined && { root: opts.root }),
        });
        if (opts.output !== undefined) writeFileAtomic(opts.output, jsonText(r.state, 2) + "\n");
        if (ctx.json) return printJson(r);
        const say = opts.output !== undefined ? println : (s: string) => process.stderr.write(s + "\n");
        say(`${c.green("restored")} ${checkpointLine(r.checkpoint)}`);
        say(
          r.head.branch === null
            ? c.dim(`  HEAD is detached at #${r.checkpoint.seq}; the next checkpoint starts a new branch (later ones stay on ${r.checkpoint.branch})`)
            : c.dim(`  HEAD is on ${r.head.branch}`),
        );
        if (r.discarded.length) say(c.red(`  discarded ${r.discarded.length}: ${r.discarded.map((d) => `#${d.seq}`).join(" ")}`));
        if (r.files)
          say(
            `  files: ${r.files.written.length} written, ${r.files.deleted.length} deleted${r.files.safety ? `; the files before are snapshot ${shortId(r.files.safety.id)}` : ""}`,
          );
        if (opts.output !== undefined) say(c.dim(`  state written to ${opts.output}`));
        else if (typeof r.state === "object" && r.state !== null && (r.state as { kind?: unknown }).kind === "forge.reasoning")
          say(c.dim("  the reasoning state is back: `forge brief` shows it"));
        else println(jsonText(r.state, 2));
      }),
    );

  cmd
    .command("at")
    .description('the last checkpoint at or before a time ("2 hours ago", "yesterday 5pm", "2025-01-20 14:30:00")')
    .argument("<time>", "when")
    .option("--state", "print its state too")
    .action(
      run(async (ctx, when: string, opts: { state?: boolean }) => {
        const r = await ctx.call((await ops.read()).atOperation, { time: when, includeState: opts.state === true });
        if (ctx.json) return printJson(r);
        println(c.dim(`at ${localTime(r.time)}:`));
        println(checkpointLine(r.checkpoint));
        if (opts.state) println(jsonText(r.state, 2));
      }),
    );

  cmd
    .command("timeline")
    .alias("log")
    .description("the session's checkpoints as a graph of branches, newest first")
    .action(
      run(async (ctx) => {
        const tl = await ctx.call((await ops.read()).timelineOperation, {});
        if (ctx.json) return printJson(tl);
        if (tl.checkpoints.length === 0) return println(c.dim(`session "${tl.session.name}" has no checkpoints yet`));
        for (const line of renderTimeline(tl)) println(line);
      }),
    );

  cmd
    .command("prune")
    .description("delete old checkpoints; with no rule, the default retention applies (see --help)")
    .option("--keep-last <n>", "keep the newest N", wholeNumber)
    .option("--keep-days <n>", "keep everything from the last N days", wholeNumber)
    .option("--keep-hourly <n>", "keep the newest checkpoint of each of the last N hours that have one", wholeNumber)
    .option("--keep-manual", "keep checkpoints made by hand")
    .option("--keep-tags <tags>", "keep checkpoints with any of these tags", commaList)
    .option("--dry-run", "show what would be deleted, delete nothing")
    .addHelpText(
      "after",
      "\nDefault retention: the last hour, manual checkpoints, tags significant/milestone/verified/keep,\none per hour for 24 hours, the last 50, and 7 days. Branch heads and milestone ends always stay.\nRun `forge gc` afterwards to free the space.",
    )
    .action(
      run(async (ctx, opts: { keepLast?: number; keepDays?: number; keepHourly?: number; keepManual?: boolean; keepTags?: string[]; dryRun?: boolean }) => {
        const report = await ctx.call((await ops.prune()).pruneOperation, { ...opts, dryRun: opts.dryRun === true });
        if (ctx.json) return printJson(report);
        const verb = report.dryRun ? "would delete" : "deleted";
        println(`${verb} ${plural(report.deleted.length, "checkpoint")}, kept ${report.kept.length}`);
        for (const d of report.deleted) println(c.red("  - ") + checkpointLine(d).trimStart());
        if (report.headMoved) println(c.yellow(`  HEAD was at a pruned checkpoint; it is now at ${report.headMoved.to}`));
        if (!report.dryRun && report.deleted.length) println(c.dim("run `forge gc` to free the space they used"));
      }),
    );

  cmd
    .command("branch")
    .description("create a branch at a checkpoint (HEAD by default)")
    .argument("<name>", "branch name")
    .option("--from <ref>", "where the branch starts", "HEAD")
    .option("--switch", "and move HEAD onto it")
    .action(
      run(async (ctx, name: string, opts: { from: string; switch?: boolean }) => {
        const b = await ctx.call((await ops.branches()).branchCreateOperation, { name, from: opts.from, switch: opts.switch === true });
        if (ctx.json) return printJson(b);
        println(`${c.green("branch")} ${c.cyan(name)} at #${b.head.seq} ${shortId(b.head.id)}${opts.switch ? " (HEAD is on it)" : ""}`);
      }),
    );

  cmd
    .command("switch")
    .alias("checkout")
    .description("move HEAD onto a branch")
    .argument("<name>", "branch name")
    .option("-o, --output <file>", "write the branch head's state to this file")
    .action(
      run(async (ctx, name: string, opts: { output?: string }) => {
        if (opts.output !== undefined) checkWritable(opts.output);
        const r = await ctx.call((await ops.branches()).branchSwitchOperation, { name });
        if (opts.output !== undefined) writeFileAtomic(opts.output, jsonText(r.state, 2) + "\n");
        if (ctx.json) return printJson(r);
        println(`${c.green("on")} ${c.cyan(name)}: ${checkpointLine(r.checkpoint).trimStart()}`);
      }),
    );

  cmd
    .command("branches")
    .description("list branches")
    .action(
      run(async (ctx) => {
        const r = await ctx.call((await ops.branches()).branchListOperation, {});
        if (ctx.json) return printJson(r);
        for (const b of r.branches)
          println(`${b.current ? c.green("* ") : "  "}${c.cyan(b.name.padEnd(20))} #${b.head.seq} ${c.dim(ago(b.head.createdAt))}  ${b.head.message}`);
      }),
    );

  cmd
    .command("delete-branch")
    .description("delete a branch name (its checkpoints stay until pruned)")
    .argument("<name>", "branch name")
    .action(
      run(async (ctx, name: string) => {
        const r = await ctx.call((await ops.branches()).branchDeleteOperation, { name });
        if (ctx.json) return printJson(r);
        println(`deleted branch ${name}`);
      }),
    );

  for (const [verb, desc] of [
    ["tag", "add tags to a checkpoint"],
    ["untag", "remove tags from a checkpoint"],
  ] as const) {
    cmd
      .command(verb)
      .description(desc)
      .argument("<ref>", "the checkpoint")
      .argument("<tags...>", "tags")
      .action(
        run(async (ctx, ref: string, tags: string[]) => {
          const r = await ctx.call((await ops.branches()).tagOperation, { ref, tags: tags.flatMap((t) => commaList(t)), remove: verb === "untag" });
          if (ctx.json) return printJson(r);
          println(checkpointLine(r.checkpoint));
        }),
      );
  }

  cmd
    .command("squash")
    .description("replace a run of consecutive checkpoints FROM..TO with one that holds TO's state and files")
    .argument("<range>", "FROM..TO: FROM on TO's history (any refs: #3..#7, HEAD~4..HEAD, ids)")
    .option("-m, --message <text>", "the new checkpoint's message (default: the run's messages joined with \"; \")")
    .option("--force", "fold in checkpoints something stands on instead of refusing (see below)")
    .addHelpText(
      "after",
      "\nRefused without --force, naming them: a branch head or a detached HEAD before TO, tags before TO,\n" +
        "a milestone end anywhere in the run, a branch forking from inside the run. With --force, branch\n" +
        "heads, HEAD, tags and milestone ends move to the new checkpoint (a milestone that would no longer\n" +
        "span a stretch is deleted), and forks are re-linked to the checkpoint before the run.\n" +
        "The new checkpoint takes TO's seq, time, branch, trigger and metadata, and records what it\n" +
        "replaced under metadata.squashed. Run `forge gc` afterwards to free the space.",
    )
    .action(
      run(async (ctx, range: string, opts: { message?: string; force?: boolean }) => {
        const at = range.indexOf("..");
        const from = at < 0 ? "" : range.slice(0, at).trim();
        const to = at < 0 ? "" : range.slice(at + 2).trim();
        if (from === "" || to === "") throw new UsageError(`"${range}" is not a range: write FROM..TO, e.g. #3..#7 or HEAD~3..HEAD`);
        const report = await ctx.call((await ops.squash()).squashOperation, {
          from,
          to,
          ...(opts.message !== undefined && { message: opts.message }),
          force: opts.force === true,
        });
        if (ctx.json) return printJson(report);
        const first = report.replaced[0];
        const last = report.replaced[report.replaced.length - 1];
        println(
          `${c.green("squashed")} #${first?.seq}..#${last?.seq} (${plural(report.replaced.length, "checkpoint")}) into ${checkpointLine(report.checkpoint).trimStart()}`,
        );
        println(c.dim(`  ${report.checkpoint.id} holds #${last?.seq}'s state${report.checkpoint.filesRoot !== null ? " and files" : ""}`));
        for (const f of report.forced) println(c.yellow(`  forced: #${f.seq} was ${f.what}: ${f.effect}`));
        for (const b of report.branches) println(c.dim(`  branch ${b.name} → the new checkpoint`));
        for (const p of report.reparented)
          println(
            c.dim(`  #${p.seq} now follows ${p.to === report.checkpoint.id ? "the new checkpoint" : p.to === null ? "nothing (a root)" : shortId(p.to)}`),
          );
        for (const m of report.milestones) println(c.dim(`  milestone ${m.name} ${m.deleted ? "deleted" : "moved to the new checkpoint"}`));
        if (report.headMoved) println(c.dim("  HEAD (detached) → the new checkpoint"));
        println(c.dim("run `forge gc` to free what only the replaced checkpoints used"));
      }),
    );

  cmd
    .command("export")
    .description("write checkpoints (default: the whole session) and everything they need to one bundle file")
    .argument("[refs...]", "checkpoints to export (default: all of the session)")
    .requiredOption("-o, --output <file>", "the bundle file to write")
    .action(
      run(async (ctx, refs: string[], opts: { output: string }) => {
        const r = await ctx.call((await ops.bundles()).exportOperation, { output: opts.output, refs });
        if (ctx.json) return printJson(r);
        const ms = r.milestones > 0 ? ` and ${plural(r.milestones, "milestone")}` : "";
        println(`exported ${plural(r.checkpoints, "checkpoint")}${ms} (${plural(r.objects, "object")}, ${bytes(r.bytes)}) to ${opts.output}`);
        for (const m of r.milestonesLeftOut) println(c.dim(`left out milestone ${m.name}: ${m.reason}`));
      }),
    );

  cmd
    .command("import")
    .description("import a bundle; it is checked whole first, then written all or nothing")
    .argument("<file>", "the bundle file")
    .option("--as <session>", "import the bundle's session under this name")
    .action(
      run(async (ctx, file: string, opts: { as?: string }) => {
        checkReadable(file, "name a bundle file made by `forge checkpoint export`");
        const r = await ctx.call((await ops.bundles()).importOperation, { file, ...(opts.as !== undefined && { as: opts.as }) });
        if (ctx.json) return printJson(r);
        for (const s of r.sessions) {
          const ms =
            s.milestones + s.milestonesSkipped > 0
              ? `; ${plural(s.milestones, "milestone")} imported${s.milestonesSkipped ? `, ${s.milestonesSkipped} already here` : ""}`
              : "";
          println(
            `${s.created ? "created" : "updated"} session ${c.cyan(s.name)}: ${plural(s.checkpoints, "checkpoint")} imported${s.skipped ? `, ${s.skipped} already here` : ""}${ms}`,
          );
        }
        println(c.dim(`${plural(r.objects, "object")}, ${bytes(r.newBytes)} new on disk`));
      }),
    );

  return cmd;
}

/** `--metadata`: a JSON object. */
function metadataOption(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--metadata is not JSON: ${(e as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new UsageError("--metadata must be a JSON object");
  return parsed as Record<string, unknown>;
}

/** A comparison for people: the state's changes by kind, then the files. */
export function printComparison(r: CompareResult): void {
  switch (r.kind) {
    case "reasoning":
      printReasoningChanges(r.summary, r.changes);
      break;
    case "conversation":
      println(c.bold(r.summary));
      for (const m of r.removed) println(c.red(`- ${m.role}: ${short(m.text, 70)}`));
      for (const m of r.added) println(c.green(`+ ${m.role}: ${short(m.text, 70)}`));
      break;
    case "json":
      println(c.bold(r.summary));
      for (const ch of r.changes) println(changeLine(ch));
      break;
    case "files":
      println(c.bold(r.summary));
      break;
  }
  if (r.files && r.files.length > 0) {
    if (r.kind !== "files") println(c.bold(`files: ${r.files.length} changed`));
    for (const f of r.files) println(`  ${f.kind.padEnd(8)} ${f.from !== undefined ? `${f.from} → ` : ""}${f.path}`);
  }
}

/** Checkpoint id → "◆ m1 start, ◆ m2 end" for the milestones whose end it is. */
export function milestoneMarks(milestones: readonly { readonly name: string; readonly fromId: string; readonly toId: string }[]): Map<string, string> {
  const marks = new Map<string, string[]>();
  const add = (id: string, text: string) => marks.set(id, [...(marks.get(id) ?? []), text]);
  for (const m of milestones) {
    add(m.fromId, `◆ ${m.name} start`);
    add(m.toId, `◆ ${m.name} end`);
  }
  return new Map([...marks].map(([id, list]) => [id, c.yellow(list.join(", "))]));
}

export function changeLine(ch: Change): string {
  switch (ch.kind) {
    case "added":
      return c.green(`+ ${ch.at}: ${short(ch.newValue, 60)}`);
    case "removed":
      return c.red(`- ${ch.at}: ${short(ch.oldValue, 60)}`);
    case "changed":
      return c.yellow(`~ ${ch.at}: ${short(ch.oldValue, 40)} → ${short(ch.newValue, 40)}`);
  }
}
