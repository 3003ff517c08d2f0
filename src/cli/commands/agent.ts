// `forge agent list|show|import` and `forge rewind`: the host sessions Forge captured (Claude
// Code, Codex, Gemini CLI, …) or imported from before it, and going back to the moment of one
// of their prompts.
import { Command } from "commander";
import { plural } from "../../core/text.js";
import type { Message } from "../../domains/conversation/model.js";
import { run, wholeNumber } from "../command.js";
import { ago, c, printJson, println, shortId } from "../output.js";
import { agentImportCommand } from "./agent-import.js";

const sessions = () => import("../../operations/agent/sessions.js");

/** One line for a message of a turn: who, and the gist (a tool call's name and input, a result's first line). */
function messageLine(m: Message): string {
  const text = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v)).replace(/\s+/g, " ").trim();
  const clip = (s: string) => (s.length > 110 ? `${s.slice(0, 109)}…` : s);
  const parts = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content ?? []);
  const out: string[] = [];
  for (const p of parts) {
    if (p.type === "text") out.push(text(p["text"]));
    else if (p.type === "thinking") out.push(c.dim(`(thinking) ${text(p["thinking"])}`));
    else if (p.type === "host-record") out.push(c.dim(`(${text((p["record"] as { type?: unknown } | undefined)?.type ?? "record")})`));
    else out.push(c.dim(`(${p.type})`));
  }
  for (const call of m.toolCalls ?? []) out.push(`${c.cyan(call.name)} ${text(call.arguments)}`);
  const who = m.role === "tool" ? c.dim("  result") : m.role === "assistant" ? "  agent " : m.role === "user" ? c.bold("  user  ") : c.dim("  host  ");
  return `${who} ${clip(out.filter((s) => s !== "").join(" ") || c.dim("(empty)"))}`;
}

export function agentCommand(): Command {
  const cmd = new Command("agent").description("the agent host sessions Forge captured in this project (see `forge enable`)");

  cmd
    .command("list")
    .alias("ls")
    .description("captured host sessions, most recently active first: host, session id, started, prompts, files changed, last activity")
    .action(
      run(async (ctx) => {
        const r = await ctx.call((await sessions()).agentListOperation, {});
        if (ctx.json) return printJson(r);
        if (r.sessions.length === 0) return println(c.dim("no captured sessions yet: `forge enable` wires Forge into your agent's host"));
        for (const s of r.sessions) {
          println(
            `${c.yellow(s.sessionId)}  ${s.host.padEnd(11)} started ${ago(s.started)}, ${plural(s.prompts, "prompt")}, ${plural(s.filesChanged, "file")} changed, last active ${ago(s.lastActivity)}${s.ended ? c.dim(" (ended)") : ""}${s.imported ? c.dim(" (imported)") : ""}${s.parent ? c.dim(` (sub-agent of ${s.parent})`) : ""}`,
          );
        }
      }),
    );

  cmd
    .command("show")
    .description("a captured session turn by turn, each prompt with its checkpoint; SESSION may be a commit made during one")
    .argument("<session>", "the host session id (or a unique prefix), its Forge session name, or a commit")
    .option("-a, --all", "every message of each turn (default: the prompts and the first lines)")
    .action(
      run(async (ctx, ref: string, opts: { all?: boolean }) => {
        const r = await ctx.call((await sessions()).agentShowOperation, { session: ref });
        if (ctx.json) return printJson(r);
        println(`${c.bold(r.host)} session ${c.yellow(r.sessionId)} (${r.session}): ${plural(r.prompts, "prompt")}, ${plural(r.filesChanged, "file")} changed`);
        if (r.parent) println(c.dim(`a sub-agent of session ${r.parent}`));
        if (r.imported) println(c.dim(`${r.imported.note} (${r.imported.format} v${r.imported.version})`));
        if (r.commit)
          println(
            `commit ${c.yellow(r.commit.sha.slice(0, 10))} was made at checkpoint #${r.commit.checkpoint.seq} ${shortId(r.commit.checkpoint.id)} (${r.commit.checkpoint.message})`,
          );
        for (const t of r.turns) {
          println();
          println(
            `${c.green(`prompt ${t.prompt}`)}  #${t.checkpoint.seq} ${c.yellow(shortId(t.checkpoint.id))}  ${ago(t.checkpoint.createdAt)}${t.imported ? c.dim(" (imported, files not known)") : ""}  ${t.text ?? ""}`,
          );
          const shown = opts.all ? t.messages : t.messages.slice(0, 12);
          for (const m of shown) println(messageLine(m));
          if (shown.length < t.messages.length) println(c.dim(`  … ${plural(t.messages.length - shown.length, "more message")} (--all)`));
        }
        if (r.turns.some((t) => !t.imported)) println(c.dim(`\n\`forge rewind ${r.sessionId} --to-prompt N\` puts the files back as they were at prompt N`));
      }),
    );
  cmd.addCommand(agentImportCommand());
  return cmd;
}

export function rewindCommand(): Command {
  return new Command("rewind")
    .description("put the files back as they were when prompt N of a captured session was submitted (snapshotted first), with the host's transcript cut there")
    .argument("[session]", "the captured host session: its id (or a unique prefix)")
    .option("--to-prompt <n>", "the prompt whose moment to go back to (1 is the first)", wholeNumber)
    .option("--undo", "bring back the files as they were before the last rewind")
    .action(
      run(async (ctx, session: string | undefined, opts: { toPrompt?: number; undo?: boolean }) => {
        const { agentRewindOperation } = await import("../../operations/agent/rewind.js");
        const r = await ctx.call(agentRewindOperation, {
          ...(session !== undefined && { session }),
          ...(opts.toPrompt !== undefined && { toPrompt: opts.toPrompt }),
          undo: opts.undo === true,
        });
        if (ctx.json) return printJson(r);
        for (const p of r.written) println(c.green(`restored ${p}`));
        for (const p of r.deleted) println(c.red(`deleted ${p}`));
        if (r.action === "undo")
          return println(`undid the rewind to prompt ${r.prompt} of ${r.session}: ${r.written.length} written, ${r.deleted.length} deleted`);
        println(`rewound to prompt ${r.prompt} of ${r.session}: ${r.written.length} written, ${r.deleted.length} deleted`);
        if (r.safety) println(c.dim(`the files before are snapshot #${r.safety.seq} ${shortId(r.safety.id)}: \`forge rewind --undo\` brings them back`));
        if (r.transcript) println(`the conversation up to prompt ${r.prompt} is a new host session: ${c.bold(r.transcript.resume)}`);
        else if (r.note) println(c.dim(r.note));
      }),
    );
}
