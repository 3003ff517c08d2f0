// `forge files …`: snapshots of the workspace's files. Each command builds its operation's
// input from the command line, calls it, and prints its result: as JSON with --json (the
// shape the MCP tools give too), else for people.
import { Command, Option } from "commander";
import { plural } from "../../core/text.js";
import { STRATEGIES, WORKSPACE_SESSION, type Strategy } from "../../operations/files/shared.js";
import type { FileChangeJson } from "../../operations/shared.js";
import { commaList, run, wholeNumber } from "../command.js";
import { UsageError } from "../context.js";
import { ago, bytes, c, printJson, println, shortId } from "../output.js";

// Operation modules load only when their command runs: `forge --version` and hooks never pay for them.
const ops = {
  snapshot: () => import("../../operations/files/snapshot.js"),
  status: () => import("../../operations/files/status.js"),
  diff: () => import("../../operations/files/diff.js"),
  restore: () => import("../../operations/files/restore.js"),
  log: () => import("../../operations/files/log.js"),
  edit: () => import("../../operations/files/edit.js"),
};

interface RootOptions {
  root?: string;
  filesSession?: string;
}

function rootOptions(cmd: Command): Command {
  return cmd
    .option("--root <dir>", "the workspace folder (default: the folder holding .forge, else the current one)")
    .option("--files-session <name>", `the session holding the snapshots (default "${WORKSPACE_SESSION}")`);
}

/** The operations' location fields from --root and --files-session. */
function location(opts: RootOptions): RootOptions {
  return { ...(opts.root !== undefined && { root: opts.root }), ...(opts.filesSession !== undefined && { filesSession: opts.filesSession }) };
}

function changeLine(ch: FileChangeJson, unknown: ReadonlySet<string>): string {
  const outside = unknown.has(ch.path) || (ch.from !== undefined && unknown.has(ch.from)) ? c.yellow("  (changed outside the agent)") : "";
  switch (ch.kind) {
    case "created":
      return c.green(`A  ${ch.path}`) + outside;
    case "modified":
      return (
        c.yellow(`M  ${ch.path}`) +
        (ch.before && ch.after && ch.before.mode !== ch.after.mode ? c.dim(` (mode ${ch.before.mode} → ${ch.after.mode})`) : "") +
        outside
      );
    case "deleted":
      return c.red(`D  ${ch.path}`) + outside;
    case "renamed":
      return c.cyan(`R  ${ch.from} → ${ch.path}`) + outside;
  }
}

/** The commands that undo a partial restore. */
function undoSteps(undo: { snapshot: { id: string }; paths: readonly string[]; created: readonly string[] }): string {
  const quote = (p: string) => (/^[\w./@+-]+$/.test(p) ? p : `'${p.replace(/'/g, "'\\''")}'`);
  const steps: string[] = [];
  if (undo.paths.length > 0) steps.push(`\`forge files restore ${undo.snapshot.id} -- ${undo.paths.map((p) => quote(p || ".")).join(" ")}\``);
  if (undo.created.length > 0) steps.push(`delete ${undo.created.map(quote).join(", ")} (not there before)`);
  return steps.join(", then ");
}

function printPatch(patch: string): void {
  for (const line of patch.split("\n").slice(1)) {
    if (line.startsWith("+") && !line.startsWith("+++")) println(c.green(line));
    else if (line.startsWith("-") && !line.startsWith("---")) println(c.red(line));
    else if (line.startsWith("@@")) println(c.cyan(line));
    else println(line);
  }
}

export function filesCommand(): Command {
  const files = new Command("files").description("snapshots of the workspace's files: status, diff, restore, and changes made outside the agent");

  rootOptions(files.command("snapshot"))
    .description("record the workspace's files (everything not ignored; in a git work tree, every file git tracks) as a snapshot, unless nothing changed")
    .argument("[message]", "what this snapshot is", "")
    .addOption(new Option("--strategy <s>", "what to do with changes made outside the agent").choices(STRATEGIES).default("warn"))
    .option("-t, --tags <tags>", "comma-separated tags", commaList, [])
    .action(
      run(async (ctx, message: string, opts: RootOptions & { strategy: Strategy; tags: string[] }) => {
        const r = await ctx.call((await ops.snapshot()).filesSnapshotOperation, { message, strategy: opts.strategy, tags: opts.tags, ...location(opts) });
        if (ctx.json) return printJson(r);
        const n = r.changes;
        if (!r.recorded)
          return println(
            `${c.dim("nothing changed")} since snapshot ${c.bold(`#${r.snapshot.seq}`)} ${c.yellow(shortId(r.snapshot.id))}: ${plural(r.files, "file")}; 0 created, 0 modified, 0 deleted; no new snapshot`,
          );
        if (r.external)
          println(
            `${c.yellow("external")} ${c.bold(`#${r.external.seq}`)} ${shortId(r.external.id)}: ${plural(r.unknown.length, "change")} made outside the agent, recorded first`,
          );
        println(
          `${c.green("snapshot")} ${c.bold(`#${r.snapshot.seq}`)} ${c.yellow(shortId(r.snapshot.id))}: ${plural(r.files, "file")}; ${n.created} created, ${n.modified} modified, ${n.deleted} deleted${n.renamed ? `, ${n.renamed} renamed` : ""}; ${bytes(r.newBytes)} new on disk`,
        );
        if (r.unknown.length > 0 && !r.external) {
          process.stderr.write(
            `forge: warning: ${plural(r.unknown.length, "file")} changed outside the agent since the last snapshot: ${r.unknown.slice(0, 8).join(", ")}${r.unknown.length > 8 ? ", …" : ""}\n`,
          );
        }
        for (const p of r.tooLarge) println(c.dim(`  too large, not stored: ${p}`));
        for (const p of r.secretFiles) println(c.dim(`  secret file, left out: ${p}`));
        for (const u of r.unreadable) process.stderr.write(`forge: warning: could not read ${u.path} (${u.why}); the snapshot is incomplete for it\n`);
      }),
    );

  rootOptions(files.command("status"))
    .description("files created, modified and deleted since the last snapshot")
    .action(
      run(async (ctx, opts: RootOptions) => {
        const s = await ctx.call((await ops.status()).filesStatusOperation, location(opts));
        if (ctx.json) return printJson(s);
        println(s.base ? c.dim(`since snapshot #${s.base.seq} ${shortId(s.base.id)} (${ago(s.base.createdAt)})`) : c.dim("no snapshot yet: everything is new"));
        const unknown = new Set(s.unknown);
        for (const ch of s.changes) println(changeLine(ch, unknown));
        if (s.changes.length === 0) println(c.green("no changes"));
        for (const p of s.tooLarge) println(c.dim(`too large to snapshot: ${p}`));
        for (const p of s.secretFiles) println(c.dim(`secret file, left out of snapshots: ${p} (workspace.secretFiles in .forge/config.json keeps it)`));
        for (const u of s.unreadable) println(c.red(`unreadable: ${u.path} (${u.why})`));
      }),
    );

  rootOptions(files.command("diff"))
    .description("unified diffs between snapshots, or a snapshot and the files on disk (default: the last snapshot and the disk)")
    .argument("[refs...]", 'up to two snapshots ("working" names the files on disk), then -- and paths to limit it to')
    .option("--stat", "counts only")
    .action(
      run(async (ctx, args: string[], opts: RootOptions & { stat?: boolean }) => {
        // commander puts what follows "--" in args too; split refs from paths by the raw argv.
        const dash = process.argv.indexOf("--");
        const paths = dash >= 0 ? process.argv.slice(dash + 1) : [];
        const refs = args.slice(0, args.length - paths.length);
        if (refs.length > 2) throw new UsageError("give at most two snapshots before --");
        const [from, to] = refs;
        const stat = opts.stat === true;
        const r = await ctx.call((await ops.diff()).filesDiffOperation, {
          ...(from !== undefined && { from }),
          ...(to !== undefined && { to }),
          paths,
          stat,
          ...location(opts),
        });
        if (ctx.json) return printJson(r);
        if (stat) {
          for (const ch of r.files) println(changeLine(ch, new Set()));
          const n = r.counts;
          return println(`${plural(r.files.length, "file")}: ${n.created} created, ${n.modified} modified, ${n.deleted} deleted, ${n.renamed} renamed`);
        }
        for (const f of r.files) {
          if (typeof f.patch === "string") printPatch(f.patch);
          else println(c.bold(`${f.kind} ${f.from ? `${f.from} → ` : ""}${f.path}: ${f.note ?? ""}`));
        }
      }),
    );

  rootOptions(files.command("restore"))
    .description(
      "bring the files back to a snapshot (the current state is snapshotted first, and HEAD moves to the result); with -- PATHS, only those, and HEAD stays",
    )
    .argument("<ref>", "the snapshot")
    .argument("[paths...]", "after --: only these files or folders")
    .option("--dry-run", "list what would change, change nothing")
    .action(
      run(async (ctx, ref: string, paths: string[], opts: RootOptions & { dryRun?: boolean }) => {
        const r = await ctx.call((await ops.restore()).filesRestoreOperation, { ref, paths, dryRun: opts.dryRun === true, ...location(opts) });
        if (ctx.json) return printJson(r);
        for (const p of r.written) println(c.green(`${r.dryRun ? "would write" : "wrote"}   ${p}`));
        for (const p of r.deleted) println(c.red(`${r.dryRun ? "would delete" : "deleted"} ${p}`));
        for (const s of r.skipped) println(c.dim(`left alone: ${s.path} (${s.why})`));
        println(`${r.dryRun ? "dry run: " : ""}${r.written.length} written, ${r.deleted.length} deleted`);
        if (r.dryRun) return;
        if (!r.partial) {
          // The safety snapshot, or HEAD when the files held no changes since it.
          const before = r.undo?.snapshot;
          if (before)
            println(
              `the state before the restore is snapshot ${c.bold(`#${before.seq}`)} ${c.yellow(before.id)}: \`forge files restore ${shortId(before.id)}\` undoes this`,
            );
          return;
        }
        if (r.undo === null) return println(c.dim("nothing to restore: those paths are as in the snapshot already"));
        println(c.dim("HEAD stays where it was: `forge files status` shows the restored paths until the next snapshot"));
        if (r.safety)
          println(
            `what it replaced, not in any snapshot before, is kept in snapshot ${c.bold(`#${r.safety.seq}`)} ${c.yellow(r.safety.id)} of session ${r.safety.session}`,
          );
        println(`to undo it: ${undoSteps(r.undo)}`);
      }),
    );

  rootOptions(files.command("log"))
    .description("snapshots, newest first, with what each added to the store")
    .option("-n, --limit <n>", "at most N", wholeNumber)
    .action(
      run(async (ctx, opts: RootOptions & { limit?: number }) => {
        const r = await ctx.call((await ops.log()).filesLogOperation, { ...(opts.limit !== undefined && { limit: opts.limit }), ...location(opts) });
        if (ctx.json) return printJson(r);
        if (r.snapshots.length === 0) return println(c.dim("no snapshots yet: `forge files snapshot` takes one"));
        for (const cp of r.snapshots) {
          const added = typeof cp.metadata["fileBytesAdded"] === "number" ? cp.metadata["fileBytesAdded"] : 0;
          const tags = cp.tags.length ? c.magenta(` [${cp.tags.join(", ")}]`) : "";
          println(
            `${c.bold(`#${cp.seq}`.padEnd(5))} ${c.yellow(shortId(cp.id))}  ${c.dim(ago(cp.createdAt).padEnd(10))}  +${bytes(added + cp.sizes.newBytes).padEnd(9)} ${cp.message}${tags}`,
          );
        }
      }),
    );

  rootOptions(files.command("edit"))
    .description("record files the agent changed through its own tools, so they are not reported as changed outside it")
    .argument("<paths...>", "the files")
    .option("--begin", "the agent is about to change them (any change until --end is its own)")
    .action(
      run(async (ctx, paths: string[], opts: RootOptions & { begin?: boolean }) => {
        const r = await ctx.call((await ops.edit()).filesEditOperation, { paths, begin: opts.begin === true, ...location(opts) });
        if (ctx.json) return printJson(r);
        println(`${r.begin ? "editing" : "recorded"} ${plural(r.recorded.length, "path")}`);
      }),
    );

  return files;
}
