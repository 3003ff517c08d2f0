// `forge scan`: the secrets already in the store's history, by session, checkpoints, path and
// rule — never the secret itself. Exit 0 when the history is clean, 1 when it holds any.
// `forge redact`: rewrites them out of it (files excepted).
import { Command } from "commander";
import { plural } from "../../core/text.js";
import { ForgeError } from "../../core/errors.js";
import { run } from "../command.js";
import { c, printJson, println } from "../output.js";

const ops = { scan: () => import("../../operations/secrets/scan.js"), redact: () => import("../../operations/secrets/redact.js") };

/** `forge scan [--json]`. */
export function scanCommand(): Command {
  return new Command("scan")
    .description("report every secret a redaction rule recognises in the store's history (never the secret itself); exit 1 if there is any")
    .addHelpText(
      "after",
      "\nScans states, the text of snapshotted files, checkpoint messages, tags and metadata, and working states.\nExit status: 0 when the history is clean, 1 when it holds a secret (or on an error).",
    )
    .action(
      run(async (ctx) => {
        const r = await ctx.call((await ops.scan()).secretsScanOperation, {});
        if (ctx.json) printJson(r);
        else {
          for (const f of r.findings) {
            const where = f.path === "" ? f.where : `${f.where} ${f.path}`;
            const cps =
              f.checkpoints.length === 0 ? "" : ` in ${plural(f.checkpoints.length, "checkpoint")} (${f.checkpoints.map((cp) => `#${cp.seq}`).join(", ")})`;
            println(`${c.red(f.rule)}  ${c.bold(f.session)}: ${where}${cps}`);
          }
          const scanned = `${plural(r.sessions, "session")}, ${plural(r.checkpoints, "checkpoint")}, ${plural(r.objects, "object")} scanned`;
          println(
            r.clean ? c.green(`clean: no secret found (${scanned})`) : c.red(`${plural(r.count, "secret")} found (${scanned}); the values are not shown`),
          );
        }
        if (!r.clean) process.exitCode = 1;
      }),
    );
}

/** `forge redact [--dry-run] --yes [--json]`. */
export function redactCommand(): Command {
  return new Command("redact")
    .description("rewrite the secrets `forge scan` finds out of the store's history (files in snapshots stay exact and are listed)")
    .option("--dry-run", "say what would change; change nothing")
    .option("--yes", "rewrite history (required unless --dry-run)")
    .addHelpText(
      "after",
      "\nEach state holding a secret is stored again redacted and its checkpoints point at it; messages, tags and\nmetadata are redacted; the old objects are deleted at once (gc with no grace period) and the search index\nis rebuilt. Checkpoint ids, seqs and times stay. A bundle exported afterwards carries no redacted secret.",
    )
    .action(
      run(async (ctx, opts: { dryRun?: boolean; yes?: boolean }) => {
        if (opts.dryRun !== true && opts.yes !== true) {
          throw new ForgeError("INVALID_ARGUMENT", "forge redact rewrites history", {
            hint: "see what it would change with --dry-run, then run it with --yes",
          });
        }
        const r = await ctx.call((await ops.redact()).secretsRedactOperation, { dryRun: opts.dryRun === true });
        if (ctx.json) return printJson(r);
        const what = `${plural(r.states, "state")} in ${plural(r.checkpoints, "checkpoint")}, ${plural(r.workingStates, "working state")}, ${plural(r.sessions, "session")}' metadata, ${plural(r.milestones, "milestone")}`;
        println(r.dryRun ? `would redact ${what}` : `redacted ${what}`);
        if (r.gc) println(c.dim(`gc: deleted ${plural(r.gc.deleted, "object")} only the old states used`));
        for (const f of r.filesKept)
          println(c.yellow(`kept (files stay exact): ${f.session} ${f.path} (${f.rule}) in #${f.checkpoints.map((cp) => cp.seq).join(", #")}`));
      }),
    );
}
