// `forge blame PATH[:A-B]` and `forge why PATH:LINE`: which prompt of which captured agent
// session wrote each line of a file, and the story behind one line.
import { isAbsolute, relative, resolve } from "node:path";
import { Command } from "commander";
import { findForgeRoot } from "../../core/config.js";
import type { BlameLineJson } from "../../operations/blame/shared.js";
import { run } from "../command.js";
import { c, printJson, println, shortId } from "../output.js";

interface LocationOptions {
  at?: string;
  root?: string;
  filesSession?: string;
}

function withLocation(cmd: Command): Command {
  return cmd
    .option("--at <snapshot>", "the file as it was at this workspace snapshot (default: as it is now)")
    .option("--root <dir>", "the project folder (default: the folder holding .forge, else the current one)")
    .option("--files-session <name>", 'the session holding the workspace snapshots (default "workspace")');
}

function location(opts: LocationOptions) {
  return {
    ...(opts.at !== undefined && { at: opts.at }),
    ...(opts.root !== undefined && { root: opts.root }),
    ...(opts.filesSession !== undefined && { filesSession: opts.filesSession }),
  };
}

/**
 * The spec's path as the operation takes it, relative to the project root (it was typed
 * relative to the current folder, which may be below the root), its lines kept.
 */
async function fileSpec(spec: string, opts: LocationOptions): Promise<{ path: string; start?: number; end?: number }> {
  const { parseFileSpec } = await import("../../operations/blame/shared.js");
  const cwd = process.cwd();
  const s = parseFileSpec(spec, cwd);
  const root = opts.root !== undefined ? resolve(cwd, opts.root) : (findForgeRoot(cwd) ?? cwd);
  const abs = resolve(cwd, s.path);
  const rel = relative(root, abs);
  return { path: isAbsolute(s.path) || rel === "" ? abs : rel, ...(s.start !== undefined && { start: s.start }), ...(s.end !== undefined && { end: s.end }) };
}

const oneLine = (s: string, max: number) => {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

/** Who wrote a line, in a fixed-width column. */
function who(l: BlameLineJson): string {
  if (!l.agent) return c.dim("not an agent".padEnd(26));
  const p = l.prompt ? `prompt ${l.prompt.number}` : "prompt ?";
  const text = `${p} ${oneLine(l.tool?.name ?? "", 10).padEnd(10)} ${(l.session?.id ?? "").slice(0, 8).padEnd(8)}`.padEnd(26);
  return l.inferred ? c.yellow(text) : c.green(text);
}

export function blameCommand(): Command {
  return withLocation(
    new Command("blame")
      .description("which prompt of which captured agent session last wrote each line of a file (see `forge enable`)")
      .argument("<path>", "the file, optionally with :A-B (lines A to B) or :N"),
  ).action(
    run(async (ctx, spec: string, opts: LocationOptions) => {
      const { blameOperation } = await import("../../operations/blame/blame.js");
      const r = await ctx.call(blameOperation, { ...(await fileSpec(spec, opts)), ...location(opts) });
      if (ctx.json) return printJson(r);
      const width = String(r.lines[r.lines.length - 1]?.line ?? 1).length;
      for (const l of r.lines) println(`${who(l)} ${c.dim(String(l.line).padStart(width))}│ ${l.text}`);
      if (r.lines.length === 0) println(c.dim(`${r.path} is empty`));
      // The prompts named above, once each, and where the other lines came from.
      const seen = new Set<string>();
      const legend: string[] = [];
      for (const l of r.lines) {
        const key = l.agent ? `${l.session?.name}#${l.prompt?.number}` : `-${l.note}`;
        if (seen.has(key)) continue;
        seen.add(key);
        if (l.agent)
          legend.push(
            `${c.green(`prompt ${l.prompt?.number ?? "?"}`)} of ${l.session?.host} ${l.session?.id}: ${oneLine(l.prompt?.text ?? "(text not captured)", 100)}${l.inferred ? c.yellow(" (matched by time)") : ""}`,
          );
        else legend.push(`${c.dim("not an agent")}: ${l.note}`);
      }
      if (legend.length > 0) println();
      for (const s of legend) println(s);
      if (r.at) println(c.dim(`as at snapshot #${r.at.seq} ${shortId(r.at.id)}`));
    }),
  );
}

/** A tool call's input, one field a line (multi-line values indented below their key). */
function printInput(input: unknown): void {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    println(`  ${JSON.stringify(input)}`);
    return;
  }
  for (const [k, v] of Object.entries(input)) {
    const text = typeof v === "string" ? v : JSON.stringify(v);
    if (!text.includes("\n")) println(`  ${c.cyan(k)}: ${text}`);
    else {
      println(`  ${c.cyan(k)}:`);
      for (const line of text.replace(/\n$/, "").split("\n")) println(`    ${line}`);
    }
  }
}

export function whyCommand(): Command {
  return withLocation(
    new Command("why")
      .description("the prompt that last wrote a line, the agent's reasoning around it, the tool call, and how to rewind to it")
      .argument("<path:line>", "the file and the line, e.g. src/app.ts:42"),
  ).action(
    run(async (ctx, spec: string, opts: LocationOptions) => {
      const { whyOperation } = await import("../../operations/blame/why.js");
      const s = await fileSpec(spec, opts);
      // One line: given as `line`; a range is left in the path, for the operation to refuse by name.
      const one = s.start !== undefined && s.end === s.start;
      const path = one || s.start === undefined ? s.path : `${s.path}:${s.start}-${s.end}`;
      const r = await ctx.call(whyOperation, { path, ...(one && { line: s.start }), ...location(opts) });
      if (ctx.json) return printJson(r);
      const l = r.line;
      println(`${c.bold(`${r.path}:${l.line}`)}  ${l.text}`);
      println();
      if (!l.agent) {
        println(`not written by an agent: ${l.note}`);
        if (l.checkpoint) println(c.dim(`first seen in snapshot #${l.checkpoint.seq} ${shortId(l.checkpoint.id)} (${l.checkpoint.message})`));
        return;
      }
      println(
        `written by ${c.green(`prompt ${l.prompt?.number ?? "?"}`)} of ${l.session?.host} session ${c.yellow(l.session?.id ?? "")} (${l.session?.name})${l.inferred ? c.yellow(" — matched by time") : ""}`,
      );
      for (const line of (l.prompt?.text ?? "(the prompt's text was not captured)").split("\n")) println(`  ${line}`);
      if (r.reasoning.length > 0) {
        println();
        println(c.bold("reasoning"));
        for (const p of r.reasoning) println(`  ${p.kind === "thinking" ? c.dim(`(thinking) ${p.text}`) : p.text}`);
      }
      println();
      const call = r.call;
      println(`${c.bold("tool call")} ${c.cyan(call?.name ?? l.tool?.name ?? "")}${call?.id ? c.dim(` (${call.id})`) : ""}`);
      printInput(call?.input ?? l.tool?.input ?? null);
      if (call?.result) println(`  ${c.dim("result:")} ${oneLine(call.result, 200)}`);
      for (const t of r.reply) println(`  ${c.dim("then:")} ${oneLine(t, 200)}`);
      println();
      if (l.checkpoint) println(`snapshot after the call: #${l.checkpoint.seq} ${c.yellow(l.checkpoint.id)}`);
      if (l.promptCheckpoint) println(`checkpoint of the prompt: ${c.yellow(l.promptCheckpoint)}`);
      if (r.rewind) println(`back to the moment the prompt was submitted: ${c.bold(r.rewind)}`);
    }),
  );
}
