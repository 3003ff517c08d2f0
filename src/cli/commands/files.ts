// `forge files …` (workspace snapshots) and `forge du`.
import { Command, Option } from "commander";
import { STRATEGIES, WORKSPACE_SESSION, countChanges, type Strategy } from "../../domains/workspace/names.js";
import type { FileInfo } from "../../domains/workspace/file-tree.js";
import type { FileChange, Workspace } from "../../domains/workspace/workspace.js";
import type { Store } from "../../timeline/store.js";
import { commaList, run, wholeNumber } from "../command.js";
import { UsageError, type CliContext } from "../context.js";
import { ago, bytes, c, checkpointJson, printJson, println, shortId } from "../output.js";
import { progressBar } from "../progress.js";

interface RootOptions {
  root?: string;
  filesSession?: string;
}

/** The workspace at --root (default: the folder holding the nearest .forge, else here), with its folder's configuration. */
export async function openWorkspace(ctx: CliContext, opts: RootOptions): Promise<Workspace> {
  // The workspace engine loads only for the commands that use it.
  const { openConfiguredWorkspace } = await import("../../domains/workspace/configured.js");
  return openConfiguredWorkspace(await ctx.store(), {
    ...(opts.root !== undefined && { root: opts.root }),
    ...(opts.filesSession !== undefined && { filesSession: opts.filesSession }),
  });
}

function rootOptions(cmd: Command): Command {
  return cmd
    .option("--root <dir>", "the workspace folder (default: the folder holding .forge, else the current one)")
    .option("--files-session <name>", `the session holding the snapshots (default "${WORKSPACE_SESSION}")`);
}

function changeLine(ch: FileChange, unknown: ReadonlySet<string>): string {
  const outside = unknown.has(ch.path) || (ch.from !== undefined && unknown.has(ch.from)) ? c.yellow("  (changed outside the agent)") : "";
  switch (ch.kind) {
    case "created":
      return c.green(`A  ${ch.path}`) + outside;
    case "modified":
      return c.yellow(`M  ${ch.path}`) + (ch.before && ch.after && ch.before.mode !== ch.after.mode ? c.dim(` (mode ${ch.before.mode.toString(8)} → ${ch.after.mode.toString(8)})`) : "") + outside;
    case "deleted":
      return c.red(`D  ${ch.path}`) + outside;
    case "renamed":
      return c.cyan(`R  ${ch.from} → ${ch.path}`) + outside;
  }
}

function changeJson(ch: FileChange): Record<string, unknown> {
  const side = (f: FileInfo | null) => (f === null ? null : { type: f.type, mode: f.mode.toString(8), size: f.size, hash: f.hash || null, ...(f.target !== undefined && { target: f.target }) });
  return { path: ch.path, kind: ch.kind, ...(ch.from !== undefined && { from: ch.from }), before: side(ch.before), after: side(ch.after) };
}

export function filesCommand(): Command {
  const files = new Command("files").description("snapshots of the workspace's files: status, diff, restore, and changes made outside the agent");

  rootOptions(files.command("snapshot"))
    .description("record the workspace's files (everything not ignored) as a snapshot")
    .argument("[message]", "what this snapshot is", "")
    .addOption(new Option("--strategy <s>", "what to do with changes made outside the agent").choices(STRATEGIES).default("warn"))
    .option("-t, --tags <tags>", "comma-separated tags", commaList, [])
    .action(
      run(async (ctx, message: string, opts: RootOptions & { strategy: Strategy; tags: string[] }) => {
        const ws = await openWorkspace(ctx, opts);
        const bar = progressBar();
        const r = await ws
          .snapshot(message, { strategy: opts.strategy, tags: opts.tags, ...(bar.onProgress && { onProgress: bar.onProgress }) })
          .finally(bar.stop);
        const counts = countChanges(r.changes);
        if (ctx.json) {
          return printJson({
            ...checkpointJson(r.snapshot),
            external: r.external ? checkpointJson(r.external) : null,
            unknown: r.unknown,
            changes: counts,
            newBytes: r.newBytes,
            incomplete: r.incomplete,
          });
        }
        const state = (await ws.session.state(r.snapshot.id)) as { files: number; tooLarge: string[]; unreadable: { path: string; why: string }[] };
        if (r.external) println(`${c.yellow("external")} ${c.bold(`#${r.external.seq}`)} ${shortId(r.external.id)}: ${r.unknown.length} change(s) made outside the agent, recorded first`);
        println(
          `${c.green("snapshot")} ${c.bold(`#${r.snapshot.seq}`)} ${c.yellow(shortId(r.snapshot.id))}: ${state.files} files; ${counts.created} created, ${counts.modified} modified, ${counts.deleted} deleted${counts.renamed ? `, ${counts.renamed} renamed` : ""}; ${bytes(r.newBytes)} new on disk`,
        );
        if (r.unknown.length > 0 && !r.external) {
          process.stderr.write(`forge: warning: ${r.unknown.length} file(s) changed outside the agent since the last snapshot: ${r.unknown.slice(0, 8).join(", ")}${r.unknown.length > 8 ? ", …" : ""}\n`);
        }
        for (const p of state.tooLarge) println(c.dim(`  too large, not stored: ${p}`));
        for (const u of state.unreadable) process.stderr.write(`forge: warning: could not read ${u.path} (${u.why}); the snapshot is incomplete for it\n`);
      }),
    );

  rootOptions(files.command("status"))
    .description("files created, modified and deleted since the last snapshot")
    .action(
      run(async (ctx, opts: RootOptions) => {
        const ws = await openWorkspace(ctx, opts);
        const s = await ws.status();
        if (ctx.json) {
          return printJson({ base: s.base ? checkpointJson(s.base) : null, changes: s.changes.map(changeJson), unknown: s.unknown, tooLarge: s.tooLarge, unreadable: s.unreadable });
        }
        println(s.base ? c.dim(`since snapshot #${s.base.seq} ${shortId(s.base.id)} (${ago(s.base.createdAt)})`) : c.dim("no snapshot yet: everything is new"));
        const unknown = new Set(s.unknown);
        for (const ch of s.changes) println(changeLine(ch, unknown));
        if (s.changes.length === 0) println(c.green("no changes"));
        for (const p of s.tooLarge) println(c.dim(`too large to snapshot: ${p}`));
        for (const u of s.unreadable) println(c.red(`unreadable: ${u.path} (${u.why})`));
      }),
    );

  rootOptions(files.command("diff"))
    .description("unified diffs between snapshots, or a snapshot and the files on disk (default: the last snapshot and the disk)")
    .argument("[refs...]", "up to two snapshots (\"working\" names the files on disk), then -- and paths to limit it to")
    .option("--stat", "counts only")
    .action(
      run(async (ctx, args: string[], opts: RootOptions & { stat?: boolean }) => {
        // commander puts what follows "--" in args too; split refs from paths by the raw argv.
        const dash = process.argv.indexOf("--");
        const paths = dash >= 0 ? process.argv.slice(dash + 1) : [];
        const refs = args.slice(0, args.length - paths.length);
        if (refs.length > 2) throw new UsageError("give at most two snapshots before --");
        const ws = await openWorkspace(ctx, opts);
        const { changes, read } = await ws.diff(refs[0], refs[1], { paths });
        if (opts.stat) {
          const counts = countChanges(changes);
          if (ctx.json) return printJson({ changes: counts, files: changes.map((ch) => ({ path: ch.path, kind: ch.kind })) });
          for (const ch of changes) println(changeLine(ch, new Set()));
          return println(`${changes.length} file(s): ${counts.created} created, ${counts.modified} modified, ${counts.deleted} deleted, ${counts.renamed} renamed`);
        }
        const { filePatch } = await import("../../domains/workspace/patches.js");
        const out: Record<string, unknown>[] = [];
        for (const ch of changes) {
          const { patch, note } = await filePatch(ch, read);
          out.push({ ...changeJson(ch), patch, note });
          if (!ctx.json) {
            if (patch !== null) {
              for (const line of patch.split("\n").slice(1)) {
                if (line.startsWith("+") && !line.startsWith("+++")) println(c.green(line));
                else if (line.startsWith("-") && !line.startsWith("---")) println(c.red(line));
                else if (line.startsWith("@@")) println(c.cyan(line));
                else println(line);
              }
            } else println(c.bold(`${ch.kind} ${ch.from ? `${ch.from} → ` : ""}${ch.path}: ${note ?? ""}`));
          }
        }
        if (ctx.json) printJson({ changes: out });
      }),
    );

  rootOptions(files.command("restore"))
    .description("bring the files (or only the paths after --) back to a snapshot; the current state is snapshotted first")
    .argument("<ref>", "the snapshot")
    .argument("[paths...]", "after --: only these files or folders")
    .option("--dry-run", "list what would change, change nothing")
    .action(
      run(async (ctx, ref: string, paths: string[], opts: RootOptions & { dryRun?: boolean }) => {
        const ws = await openWorkspace(ctx, opts);
        const r = await ws.restore(ref, { paths, dryRun: opts.dryRun === true });
        if (ctx.json) {
          return printJson({ ...r, safety: r.safety ? checkpointJson(r.safety) : null, restored: r.restored ? checkpointJson(r.restored) : null });
        }
        const verb = r.dryRun ? "would" : "did";
        for (const p of r.written) println(c.green(`${r.dryRun ? "would write" : "wrote"}   ${p}`));
        for (const p of r.deleted) println(c.red(`${r.dryRun ? "would delete" : "deleted"} ${p}`));
        for (const s of r.skipped) println(c.dim(`left alone: ${s.path} (${s.why})`));
        println(`${verb === "would" ? "dry run: " : ""}${r.written.length} written, ${r.deleted.length} deleted`);
        if (r.safety) println(`the state before the restore is snapshot ${c.bold(`#${r.safety.seq}`)} ${c.yellow(r.safety.id)}: \`forge files restore ${shortId(r.safety.id)}\` undoes this`);
      }),
    );

  rootOptions(files.command("log"))
    .description("snapshots, newest first, with what each added to the store")
    .option("-n, --limit <n>", "at most N", wholeNumber)
    .action(
      run(async (ctx, opts: RootOptions & { limit?: number }) => {
        const ws = await openWorkspace(ctx, opts);
        const list = await ws.log(opts.limit);
        if (ctx.json) return printJson({ snapshots: list.map(checkpointJson) });
        if (list.length === 0) return println(c.dim("no snapshots yet: `forge files snapshot` takes one"));
        for (const cp of list) {
          const added = typeof cp.metadata["fileBytesAdded"] === "number" ? (cp.metadata["fileBytesAdded"] as number) : 0;
          const tags = cp.tags.length ? c.magenta(` [${cp.tags.join(", ")}]`) : "";
          println(`${c.bold(`#${cp.seq}`.padEnd(5))} ${c.yellow(shortId(cp.id))}  ${c.dim(ago(cp.createdAt).padEnd(10))}  +${bytes(added + cp.sizes.newBytes).padEnd(9)} ${cp.message}${tags}`);
        }
      }),
    );

  rootOptions(files.command("edit"))
    .description("record files the agent changed through its own tools, so they are not reported as changed outside it")
    .argument("<paths...>", "the files")
    .option("--begin", "the agent is about to change them (any change until --end is its own)")
    .action(
      run(async (ctx, paths: string[], opts: RootOptions & { begin?: boolean }) => {
        const ws = await openWorkspace(ctx, opts);
        if (opts.begin) await ws.beginEdit(paths);
        else await ws.endEdit(paths);
        if (ctx.json) return printJson({ recorded: paths, begin: opts.begin === true });
        println(`${opts.begin ? "editing" : "recorded"} ${paths.length} path(s)`);
      }),
    );

  return files;
}
