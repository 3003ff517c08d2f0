// `forge agent import`: this project's sessions from before Forge, out of the transcripts the
// agent hosts keep on this machine, with a progress bar on a terminal.
import { Command } from "commander";
import { plural } from "../../core/text.js";
import type { AgentImportResult } from "../../operations/agent/import.js";
import { commaList, run } from "../command.js";
import { c, printJson, println } from "../output.js";

function sessionLine(s: AgentImportResult["sessions"][number]): string {
  const what =
    s.status === "new"
      ? c.green(`new: ${plural(s.prompts, "prompt")}, ${plural(s.added, "entry", "entries")}`)
      : s.status === "added"
        ? `added ${plural(s.added, "entry", "entries")}${s.prompts > 0 ? `, ${plural(s.prompts, "prompt")}` : ""}`
        : s.status === "empty"
          ? c.dim("nothing to import yet")
          : s.status === "failed"
            ? c.red(`not read: ${s.error ?? "unknown error"}`)
            : c.dim("up to date");
  return `${s.host.padEnd(11)} ${c.yellow(s.sessionId)}${s.parent ? c.dim(` (sub-agent of ${s.parent})`) : ""}  ${what}`;
}

export function agentImportCommand(): Command {
  return new Command("import")
    .description(
      "import this project's sessions from before Forge out of the transcripts Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor and OpenCode keep on this machine (a second run adds only what is new)",
    )
    .option("--host <host...>", "only these hosts: claude-code, codex, gemini-cli, copilot, cursor, opencode (repeatable, or comma-separated)", commaList)
    .option("--since <time>", 'only sessions active since then: "30 days ago" (the default), "2025-06-01", …')
    .option("--all", "every session, however old")
    .action(
      run(async (ctx, opts: { host?: string[]; since?: string; all?: boolean }) => {
        const { agentImportOperation } = await import("../../operations/agent/import.js");
        const r = await ctx.call(agentImportOperation, {
          hosts: opts.host ?? [],
          ...(opts.since !== undefined && { since: opts.since }),
          all: opts.all === true,
        });
        const failed = r.sessions.filter((s) => s.status === "failed");
        if (failed.length > 0) process.exitCode = 1;
        if (ctx.json) return printJson(r);
        if (r.sessions.length === 0) {
          println(c.dim(`no sessions of this project${r.since ? ` active since ${r.since.slice(0, 10)}` : ""} in:`));
          for (const h of r.hosts) println(c.dim(`  ${h.label.padEnd(12)} ${h.where}`));
          return;
        }
        for (const s of r.sessions) if (s.status !== "unchanged" || r.sessions.length <= 20) println(sessionLine(s));
        const { new: fresh, added, entries, prompts } = r.imported;
        if (fresh + added === 0) println(`nothing new: ${plural(r.sessions.length - failed.length, "session")} already imported`);
        else
          println(
            `imported ${plural(entries, "entry", "entries")} and ${plural(prompts, "prompt")}: ${plural(fresh, "new session")}${added > 0 ? `, ${added} added to` : ""}`,
          );
        if (fresh + added > 0) println(c.dim(r.note));
        if (failed.length > 0) println(c.red(`${plural(failed.length, "transcript")} could not be read (above)`));
      }),
    );
}
