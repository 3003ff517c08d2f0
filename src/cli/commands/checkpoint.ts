// `forge checkpoint …`: the seed grammar of the forge-reasoning design.
import { renameSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { Command } from "commander";
import { ForgeError } from "../../core/errors.js";
import { parseTime } from "../../core/time.js";
import { short } from "../../core/text.js";
import type { Change, Comparison, Timeline } from "../../timeline/types.js";
import { commaList, run, wholeNumber } from "../command.js";
import { readJsonInput, UsageError } from "../context.js";
import { ago, bytes, c, checkpointJson, checkpointLine, localTime, printJson, println, shortId } from "../output.js";
import { renderTimeline } from "../timeline-graph.js";
import { openWorkspace } from "./files.js";
import { isReasoningState } from "../../domains/reasoning/model.js";
import type { CombinedChange } from "../../domains/combined-change.js";
import type { SquashReport } from "../../timeline/squash.js";
import { printReasoningComparison } from "./reasoning.js";

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
        const state = opts.state === undefined ? undefined : readJsonInput(opts.state);
        let metadata: Record<string, unknown> | undefined;
        if (opts.metadata !== undefined) {
          try {
            metadata = JSON.parse(opts.metadata) as Record<string, unknown>;
          } catch (e) {
            throw new UsageError(`--metadata is not JSON: ${(e as Error).message}`);
          }
        }
        const session = await ctx.session();
        // The files first: the checkpoint then points at the very tree just recorded.
        const files = opts.files ? await (await openWorkspace(ctx, { ...(opts.root !== undefined && { root: opts.root }) })).snapshot(message || "with checkpoint") : null;
        const options = {
          message,
          tags: opts.tags,
          ...(opts.trigger !== undefined && { trigger: opts.trigger }),
          ...(metadata !== undefined && { metadata }),
          ...(files && { filesRoot: files.snapshot.filesRoot }),
        };
        // Without --state, the session's working state (a reasoning board, say) is saved.
        if (state === undefined && !(await session.working())) {
          throw new UsageError(`no state given and session "${session.name}" has no working state: pass --state FILE, or --state - to read standard input`);
        }
        const cp = state === undefined ? await session.checkpointWorking(options) : await session.checkpoint(state, options);
        if (ctx.json) return printJson({ ...checkpointJson(cp), ...(files && { filesSnapshot: checkpointJson(files.snapshot) }) });
        println(`${c.green("saved")} ${checkpointLine(cp)}`);
        if (files) println(c.dim(`  with files snapshot #${files.snapshot.seq} ${shortId(files.snapshot.id)} (${files.changes.length} file(s) changed since the last)`));
        println(c.dim(`  ${cp.id} · ${bytes(cp.sizes.logicalBytes)} state, ${bytes(cp.sizes.newBytes)} new on disk`));
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
        const session = await ctx.session();
        const newestFirst = await session.list({ ...opts, order: "desc" });
        const list = newestFirst.reverse();
        const milestones = (await session.milestones()).map((m) => ({ name: m.name, fromId: m.from.id, toId: m.to.id, description: m.description }));
        if (ctx.json) return printJson({ session: session.name, checkpoints: list.map(checkpointJson), milestones });
        if (list.length === 0) return println(c.dim(`no checkpoints in session "${session.name}"${Object.keys(opts).length ? " match" : ""}`));
        const head = await session.head();
        const marks = milestoneMarks(milestones);
        for (const cp of list) println(checkpointLine(cp, { head: cp.id === head.checkpoint?.id }) + (marks.has(cp.id) ? `  ${marks.get(cp.id)}` : ""));
      }),
    );

  cmd
    .command("show")
    .description("show a checkpoint and its state")
    .argument("[ref]", "checkpoint: id or prefix, HEAD, HEAD~N, #SEQ, branch, tag:NAME", "HEAD")
    .option("--no-state", "leave the state out")
    .action(
      run(async (ctx, ref: string, opts: { state: boolean }) => {
        const session = await ctx.session();
        const cp = await session.get(ref);
        const state = opts.state ? await session.state(cp.id) : undefined;
        if (ctx.json) return printJson({ checkpoint: checkpointJson(cp), ...(opts.state && { state }) });
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
          println(JSON.stringify(state, null, 2));
        }
      }),
    );

  cmd
    .command("diff")
    .alias("compare")
    .description("compare two checkpoints: typed changes for reasoning sessions, JSON paths otherwise")
    .argument("<from>", "the earlier checkpoint")
    .argument("[to]", "the later checkpoint", "HEAD")
    .option("--raw", "JSON paths even for a reasoning session")
    .action(
      run(async (ctx, from: string, to: string, opts: { raw?: boolean }) => {
        const { combinedChange } = await import("../../domains/combined-change.js");
        const change = await combinedChange(await ctx.store(), await ctx.session(), from, to, { raw: opts.raw === true });
        if (ctx.json) return printJson(stateChangeJson(change));
        printStateChange(change);
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
        const session = await ctx.session();
        if (opts.files) {
          // Check before anything moves: a checkpoint without files cannot restore them.
          const cp = await session.get(ref);
          if (cp.filesRoot === null) throw new ForgeError("INVALID_ARGUMENT", `checkpoint #${cp.seq} carries no files snapshot`, { hint: "it was not created with --files" });
        }
        const r = await session.restore(ref, { discardFuture: opts.discardFuture === true });
        const filesReport = opts.files ? await (await openWorkspace(ctx, { ...(opts.root !== undefined && { root: opts.root }) })).restoreCheckpoint(r.checkpoint) : null;
        if (opts.output !== undefined) writeFileAtomic(opts.output, JSON.stringify(r.state, null, 2) + "\n");
        if (ctx.json) {
          return printJson({
            checkpoint: checkpointJson(r.checkpoint),
            head: r.head,
            discarded: r.discarded.map(checkpointJson),
            ...(filesReport && { files: { written: filesReport.written, deleted: filesReport.deleted, skipped: filesReport.skipped, safety: filesReport.safety ? checkpointJson(filesReport.safety) : null } }),
            ...(opts.output !== undefined ? { output: resolve(opts.output) } : { state: r.state }),
          });
        }
        const say = opts.output !== undefined ? println : (s: string) => process.stderr.write(s + "\n");
        say(`${c.green("restored")} ${checkpointLine(r.checkpoint)}`);
        say(
          r.head.branch === null
            ? c.dim(`  HEAD is detached at #${r.checkpoint.seq}; the next checkpoint starts a new branch (later ones stay on ${r.checkpoint.branch})`)
            : c.dim(`  HEAD is on ${r.head.branch}`),
        );
        if (r.discarded.length) say(c.red(`  discarded ${r.discarded.length}: ${r.discarded.map((d) => `#${d.seq}`).join(" ")}`));
        if (filesReport) {
          say(`  files: ${filesReport.written.length} written, ${filesReport.deleted.length} deleted${filesReport.safety ? `; the files before are snapshot ${shortId(filesReport.safety.id)}` : ""}`);
        }
        if (opts.output !== undefined) say(c.dim(`  state written to ${opts.output}`));
        else if (isReasoningState(r.state)) say(c.dim("  the reasoning state is back: `forge brief` shows it"));
        else println(JSON.stringify(r.state, null, 2));
      }),
    );

  cmd
    .command("at")
    .description('the last checkpoint at or before a time ("2 hours ago", "yesterday 5pm", "2025-01-20 14:30:00")')
    .argument("<time>", "when")
    .option("--state", "print its state too")
    .action(
      run(async (ctx, when: string, opts: { state?: boolean }) => {
        const session = await ctx.session();
        const t = parseTime(when);
        const cp = await session.at(t);
        if (!cp) {
          throw new ForgeError("NO_CHECKPOINT", `session "${session.name}" has no checkpoint at or before ${localTime(t)}`, {
            hint: "`forge checkpoint list` shows when the checkpoints were made",
          });
        }
        const state = opts.state ? await session.state(cp.id) : undefined;
        if (ctx.json) return printJson({ time: t.toISOString(), checkpoint: checkpointJson(cp), ...(opts.state && { state }) });
        println(c.dim(`at ${localTime(t)}:`));
        println(checkpointLine(cp));
        if (opts.state) println(JSON.stringify(state, null, 2));
      }),
    );

  cmd
    .command("timeline")
    .alias("log")
    .description("the session's checkpoints as a graph of branches, newest first")
    .action(
      run(async (ctx) => {
        const tl = await (await ctx.session()).timeline();
        if (ctx.json) return printJson({ ...tl, checkpoints: tl.checkpoints.map(checkpointJson) });
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
    .addHelpText("after", "\nDefault retention: the last hour, manual checkpoints, tags significant/milestone/verified/keep,\none per hour for 24 hours, the last 50, and 7 days. Branch heads and milestone ends always stay.\nRun `forge gc` afterwards to free the space.")
    .action(
      run(async (ctx, opts: { keepLast?: number; keepDays?: number; keepHourly?: number; keepManual?: boolean; keepTags?: string[]; dryRun?: boolean }) => {
        const report = await (await ctx.session()).prune(opts);
        if (ctx.json) {
          return printJson({
            ...report,
            kept: report.kept.map((k) => ({ reason: k.reason, checkpoint: checkpointJson(k.checkpoint) })),
            deleted: report.deleted.map(checkpointJson),
          });
        }
        const verb = report.dryRun ? "would delete" : "deleted";
        println(`${verb} ${report.deleted.length} checkpoint${report.deleted.length === 1 ? "" : "s"}, kept ${report.kept.length}`);
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
        const session = await ctx.session();
        const b = await session.branch(name, { from: opts.from });
        if (opts.switch) await session.switch(name);
        if (ctx.json) return printJson({ name: b.name, head: checkpointJson(b.head), current: opts.switch === true || b.current });
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
        const r = await (await ctx.session()).switch(name);
        if (opts.output !== undefined) writeFileAtomic(opts.output, JSON.stringify(r.state, null, 2) + "\n");
        if (ctx.json) return printJson({ branch: name, checkpoint: checkpointJson(r.checkpoint) });
        println(`${c.green("on")} ${c.cyan(name)}: ${checkpointLine(r.checkpoint).trimStart()}`);
      }),
    );

  cmd
    .command("branches")
    .description("list branches")
    .action(
      run(async (ctx) => {
        const list = await (await ctx.session()).branches();
        if (ctx.json) return printJson({ branches: list.map((b) => ({ name: b.name, current: b.current, head: checkpointJson(b.head) })) });
        for (const b of list) println(`${b.current ? c.green("* ") : "  "}${c.cyan(b.name.padEnd(20))} #${b.head.seq} ${c.dim(ago(b.head.createdAt))}  ${b.head.message}`);
      }),
    );

  cmd
    .command("delete-branch")
    .description("delete a branch name (its checkpoints stay until pruned)")
    .argument("<name>", "branch name")
    .action(
      run(async (ctx, name: string) => {
        await (await ctx.session()).deleteBranch(name);
        if (ctx.json) return printJson({ deleted: name });
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
          const session = await ctx.session();
          const list = tags.flatMap((t) => commaList(t));
          const cp = verb === "tag" ? await session.tag(ref, ...list) : await session.untag(ref, ...list);
          if (ctx.json) return printJson(checkpointJson(cp));
          println(checkpointLine(cp));
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
        const report = await (await ctx.session()).squash(from, to, {
          ...(opts.message !== undefined && { message: opts.message }),
          force: opts.force === true,
        });
        if (ctx.json) return printJson(squashJson(report));
        const first = report.replaced[0];
        const last = report.replaced[report.replaced.length - 1];
        println(`${c.green("squashed")} #${first?.seq}..#${last?.seq} (${report.replaced.length} checkpoints) into ${checkpointLine(report.checkpoint).trimStart()}`);
        println(c.dim(`  ${report.checkpoint.id} holds #${last?.seq}'s state${report.checkpoint.filesRoot !== null ? " and files" : ""}`));
        for (const f of report.forced) println(c.yellow(`  forced: #${f.checkpoint.seq} was ${f.what}: ${f.effect}`));
        for (const b of report.branches) println(c.dim(`  branch ${b.name} → the new checkpoint`));
        for (const r of report.reparented) println(c.dim(`  #${r.checkpoint.seq} now follows ${r.to === report.checkpoint.id ? "the new checkpoint" : r.to === null ? "nothing (a root)" : shortId(r.to)}`));
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
        const store = await ctx.store();
        const session = await ctx.session();
        const r = await store.export({ session: session.name, refs });
        writeFileAtomic(opts.output, r.bytes);
        const out = {
          output: resolve(opts.output),
          sessions: r.sessions,
          checkpoints: r.checkpoints,
          milestones: r.milestones,
          milestonesLeftOut: r.milestonesLeftOut,
          objects: r.objects,
          bytes: r.bytes.length,
        };
        if (ctx.json) return printJson(out);
        const ms = r.milestones > 0 ? ` and ${r.milestones} milestone${r.milestones === 1 ? "" : "s"}` : "";
        println(`exported ${r.checkpoints} checkpoint${r.checkpoints === 1 ? "" : "s"}${ms} (${r.objects} objects, ${bytes(r.bytes.length)}) to ${opts.output}`);
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
        // Read in records, never whole: a bundle is untrusted and may be any size.
        const r = await (await ctx.store()).importFile(file, opts.as !== undefined ? { as: opts.as } : {});
        if (ctx.json) return printJson(r);
        for (const s of r.sessions) {
          const ms =
            s.milestones + s.milestonesSkipped > 0
              ? `; ${s.milestones} milestone${s.milestones === 1 ? "" : "s"} imported${s.milestonesSkipped ? `, ${s.milestonesSkipped} already here` : ""}`
              : "";
          println(
            `${s.created ? "created" : "updated"} session ${c.cyan(s.name)}: ${s.checkpoints} checkpoint${s.checkpoints === 1 ? "" : "s"} imported${s.skipped ? `, ${s.skipped} already here` : ""}${ms}`,
          );
        }
        println(c.dim(`${r.objects} objects, ${bytes(r.newBytes)} new on disk`));
      }),
    );

  return cmd;
}

/** A checkpoint diff as `--json` prints it: the same shape for `checkpoint diff` and `milestone show`. */
export function stateChangeJson(change: CombinedChange): Record<string, unknown> {
  if (change.state.kind === "reasoning") {
    return { kind: "reasoning", ...change.state.comparison, fromCheckpoint: checkpointJson(change.from), toCheckpoint: checkpointJson(change.to) };
  }
  return { kind: "json", ...comparisonJson(change.state.comparison) };
}

/** A checkpoint diff for people: typed reasoning changes, or a summary and JSON paths. */
export function printStateChange(change: CombinedChange): void {
  if (change.state.kind === "reasoning") return printReasoningComparison(change.state.comparison);
  println(c.bold(change.state.comparison.summary));
  for (const ch of change.state.comparison.changes) println(changeLine(ch));
}

/** Checkpoint id → "◆ m1 start, ◆ m2 end" for the milestones whose end it is. */
export function milestoneMarks(milestones: Timeline["milestones"]): Map<string, string> {
  const marks = new Map<string, string[]>();
  const add = (id: string, text: string) => marks.set(id, [...(marks.get(id) ?? []), text]);
  for (const m of milestones) {
    add(m.fromId, `◆ ${m.name} start`);
    add(m.toId, `◆ ${m.name} end`);
  }
  return new Map([...marks].map(([id, list]) => [id, c.yellow(list.join(", "))]));
}

function squashJson(r: SquashReport): Record<string, unknown> {
  return {
    checkpoint: checkpointJson(r.checkpoint),
    replaced: r.replaced.map(checkpointJson),
    forced: r.forced.map((f) => ({ kind: f.kind, checkpoint: f.checkpoint.id, seq: f.checkpoint.seq, what: f.what, effect: f.effect })),
    branches: r.branches,
    reparented: r.reparented.map((p) => ({ checkpoint: p.checkpoint.id, seq: p.checkpoint.seq, from: p.from, to: p.to })),
    milestones: r.milestones,
    headMoved: r.headMoved,
  };
}

export function comparisonJson(cmp: Comparison): Record<string, unknown> {
  return { ...cmp, from: checkpointJson(cmp.from), to: checkpointJson(cmp.to) };
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

/** Writes a file so that a crash leaves the old file or the new one, never a torn one. */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}
