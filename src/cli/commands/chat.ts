// `forge chat …`: a conversation's messages — every role, tool calls intact — saved,
// listed, shown, restored (branching or linear), deleted, exported and imported, in the
// session the global --session / FORGE_SESSION names.
import { Command, Option } from "commander";
import { ForgeError } from "../../core/errors.js";
import { readInputFile, writeFileAtomic } from "../../core/files.js";
import { plural } from "../../core/text.js";
import type { Content, Message } from "../../domains/conversation/model.js";
import { INPUT_FORMATS, OUTPUT_FORMATS, ROLES, type InputFormat, type OutputFormat, type Role } from "../../operations/chat/names.js";
import type { ConversationCheckpointJson } from "../../operations/chat/shared.js";
import { commaList, run } from "../command.js";
import { UsageError } from "../context.js";
import { ago, c, printJson, println, shortId, writeOut } from "../output.js";

/** The chat operations, loaded by the action that runs one (they bring the timeline engine). */
const ops = {
  messages: () => import("../../operations/chat/messages.js"),
  checkpoints: () => import("../../operations/chat/checkpoints.js"),
  transfer: () => import("../../operations/chat/transfer.js"),
};

/** Text from a file, or standard input for "-"; an error names the file and why. */
function readText(source: string): string {
  return source === "-" ? readInputFile(source) : readInputFile(source, "name a JSON file, or - to read standard input");
}

function parseJson(text: string, label: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ForgeError("INVALID_ARGUMENT", `${label} is not JSON: ${(e as Error).message}`, { hint: "nothing was written", cause: e });
  }
}

/** A message argument without --role: "-" (standard input), JSON text, or a JSON file. */
function readMessageArgument(arg: string): unknown {
  if (arg === "-") return parseJson(readText("-"), "standard input");
  if (/^\s*[[{]/.test(arg)) return parseJson(arg, "the message");
  return parseJson(readText(arg), arg);
}

function checkpointRow(cp: ConversationCheckpointJson, head: boolean): string {
  const parts = [
    (head ? c.green("* ") : "  ") + c.bold(`#${cp.seq}`.padEnd(5)),
    cp.name,
    c.dim(cp.messageCount === null ? "? messages" : plural(cp.messageCount, "message")),
    c.cyan(cp.branch),
    c.yellow(shortId(cp.id)),
    c.dim(ago(cp.createdAt)),
  ];
  if (cp.tags.length > 0) parts.push(c.magenta(`[${cp.tags.join(", ")}]`));
  if (cp.description) parts.push(c.dim(`— ${cp.description}`));
  return parts.join("  ");
}

function indent(text: string, by: string): string {
  return text.split("\n").join(`\n${by}`);
}

function contentText(content: Content): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content
    .map((p) => {
      if (p.type === "text" && typeof p["text"] === "string") return p["text"];
      const url = (p["image_url"] as { url?: unknown } | undefined)?.url;
      return c.dim(`[${p.type}${typeof url === "string" ? `: ${url.length > 80 ? `${url.slice(0, 77)}…` : url}` : ""}]`);
    })
    .join("\n");
}

/** A readable transcript: one block per message, tool calls and the calls tool results answer shown. */
function printTranscript(messages: readonly Message[]): void {
  if (messages.length === 0) {
    println(c.dim('no messages yet: `forge chat append --role user "…"` adds one'));
    return;
  }
  const width = String(messages.length - 1).length;
  for (const [i, m] of messages.entries()) {
    const pad = " ".repeat(width + 3);
    let who: string;
    if (m.role === "tool")
      who = `${c.magenta("tool")}${m.name ? ` ${m.name}` : ""}${m.toolCallId ? c.dim(` (answers ${m.toolCallId})`) : c.dim(" (function result)")}`;
    else {
      const role = m.role === "user" ? c.green(m.role) : m.role === "assistant" ? c.cyan(m.role) : c.yellow(m.role);
      who = `${role}${m.name ? ` (${m.name})` : ""}`;
    }
    const text = contentText(m.content);
    println(`${c.dim(`[${String(i).padStart(width)}]`)} ${who}:${text ? ` ${indent(text, pad)}` : ""}`);
    for (const call of m.toolCalls ?? []) {
      const args = call.argumentsText ?? JSON.stringify(call.arguments);
      println(`${pad}${c.cyan("→")} ${c.bold(call.name)} ${args}${call.id ? c.dim(`  (${call.id})`) : ""}`);
    }
  }
}

export function chatCommand(): Command {
  const cmd = new Command("chat").description(
    "conversations: messages of every role, tool calls included, saved and restored (--session picks the conversation)",
  );

  cmd
    .command("new")
    .description("start a conversation session")
    .argument("[name]", 'its name (default: --session, FORGE_SESSION, else "default")')
    .option("--system <text>", "start it with this system message")
    .action(
      run(async (ctx, name: string | undefined, opts: { system?: string }) => {
        const r = await ctx.call((await ops.messages()).chatNewOperation, {
          ...(name !== undefined && { session: name }),
          ...(opts.system !== undefined && { system: opts.system }),
        });
        if (ctx.json) return printJson(r);
        println(`${c.green("started")} conversation ${c.bold(r.session)}${r.messages ? ` with ${plural(r.messages, "message")}` : ""}`);
        if (r.session !== ctx.sessionName()) println(c.dim(`  use it with --session ${r.session} (or FORGE_SESSION=${r.session})`));
      }),
    );

  cmd
    .command("append")
    .description("add a message: --role ROLE TEXT, or a message (or list) as JSON text, a JSON file or - (standard input)")
    .argument("[message]", "with --role, the text (- reads it from standard input); without, JSON text, a JSON file, or -")
    .addOption(new Option("--role <role>", "the message's role").choices(ROLES))
    .option("--name <name>", "the participant's (or, for a tool message, the tool's) name")
    .option("--tool-call-id <id>", "the call a tool message answers")
    .option("--tool-call <json>", 'a tool call of an assistant message: {"id", "name", "arguments": {…}} (repeatable)', (v: string, prev: string[] = []) => [
      ...prev,
      v,
    ])
    .addOption(new Option("--format <format>", "the JSON's format (default: detected per message)").choices(INPUT_FORMATS).default("auto"))
    .addHelpText(
      "after",
      `\nExamples:\n  forge chat append --role user "what is the weather in Paris?"\n  forge chat append --role assistant --tool-call '{"id":"call_1","name":"weather","arguments":{"city":"Paris"}}'\n  forge chat append --role tool --tool-call-id call_1 --name weather '{"temp": 21}'\n  forge chat append '{"role":"assistant","content":"21 °C"}'        # OpenAI, LangChain or Forge JSON\n  forge chat append transcript.json                                  # a message or a list, from a file`,
    )
    .action(
      run(async (ctx, arg: string | undefined, opts: { role?: Role; name?: string; toolCallId?: string; toolCall?: string[]; format: InputFormat }) => {
        let message: unknown;
        let format = opts.format;
        if (opts.role !== undefined) {
          const calls = (opts.toolCall ?? []).map((t, i) => parseJson(t, `--tool-call ${i + 1}`));
          let content: Content;
          if (arg !== undefined) content = arg === "-" ? readText("-") : arg;
          else if (opts.role === "assistant" && calls.length > 0) content = null;
          else throw new UsageError("give the message's text (or - to read it from standard input)");
          message = {
            role: opts.role,
            content,
            ...(opts.name !== undefined && { name: opts.name }),
            ...(opts.toolCallId !== undefined && { toolCallId: opts.toolCallId }),
            ...(calls.length > 0 && { toolCalls: calls }),
          };
          format = "forge";
        } else {
          if (opts.name !== undefined || opts.toolCallId !== undefined || opts.toolCall !== undefined)
            throw new UsageError("--name, --tool-call-id and --tool-call go with --role");
          if (arg === undefined) throw new UsageError("give --role ROLE and the text, or a message as JSON (text, a file, or - for standard input)");
          message = readMessageArgument(arg);
        }
        // The domain checks every message and names the one that is wrong; the schema only says "an object or a list".
        const r = await ctx.call((await ops.messages()).chatAppendOperation, {
          message: message as Record<string, unknown> | Record<string, unknown>[],
          format,
        });
        if (ctx.json) return printJson(r);
        println(`${c.green("appended")} ${plural(r.appended.length, "message")} ${c.dim(`(${r.session} now holds ${plural(r.count, "message")})`)}`);
      }),
    );

  cmd
    .command("save")
    .description('save the conversation as a checkpoint (named "Checkpoint N" unless named)')
    .argument("[name]", "the checkpoint's name")
    .option("--description <text>", "what it is")
    .option("-t, --tags <tags>", "comma-separated tags", commaList, [])
    .action(
      run(async (ctx, name: string | undefined, opts: { description?: string; tags: string[] }) => {
        const r = await ctx.call((await ops.checkpoints()).chatSaveOperation, {
          tags: opts.tags,
          ...(name !== undefined && { name }),
          ...(opts.description !== undefined && { description: opts.description }),
        });
        if (ctx.json) return printJson(r);
        const cp = r.checkpoint;
        println(`${c.green("saved")} ${c.bold(cp.name)} ${c.dim(`(#${cp.seq}, ${plural(cp.messageCount ?? 0, "message")}, ${cp.branch})`)}`);
      }),
    );

  cmd
    .command("list")
    .alias("ls")
    .description("the conversation's checkpoints, oldest first (* marks HEAD)")
    .action(
      run(async (ctx) => {
        const r = await ctx.call((await ops.checkpoints()).chatListOperation, {});
        if (ctx.json) return printJson(r);
        if (r.checkpoints.length === 0) return println(c.dim("no checkpoints yet: `forge chat save` saves the conversation"));
        for (const cp of r.checkpoints) println(checkpointRow(cp, cp.id === r.head.checkpoint));
      }),
    );

  cmd
    .command("show")
    .description("the conversation as a transcript (or a checkpoint's, by name, #N or any ref)")
    .argument("[ref]", "a checkpoint (default: the messages it holds now)")
    .action(
      run(async (ctx, ref: string | undefined) => {
        const r = await ctx.call((await ops.messages()).chatShowOperation, { ...(ref !== undefined && { ref }) });
        if (ctx.json) return printJson(r);
        const cp = r.checkpoint;
        if (cp) println(c.dim(`${cp.name} (#${cp.seq}, ${cp.branch}, ${ago(cp.createdAt)})`));
        printTranscript(r.messages);
      }),
    );

  cmd
    .command("restore")
    .description("make a checkpoint's messages the conversation's again; later checkpoints stay on their branch unless --linear")
    .argument("<ref>", 'a checkpoint: its name ("Checkpoint 2"), #N, an id prefix, HEAD~1, …')
    .option("--linear", "discard every checkpoint made after it on its branch")
    .action(
      run(async (ctx, ref: string, opts: { linear?: boolean }) => {
        const r = await ctx.call((await ops.checkpoints()).chatRestoreOperation, { ref, linear: opts.linear === true });
        if (ctx.json) return printJson(r);
        println(`${c.green("restored")} ${c.bold(r.checkpoint.name)} ${c.dim(`(#${r.checkpoint.seq})`)}: ${plural(r.messages.length, "message")}`);
        if (opts.linear) {
          if (r.discarded.length > 0)
            println(c.dim(`  discarded ${plural(r.discarded.length, "later checkpoint")}: ${r.discarded.map((d) => `#${d.seq} ${d.name}`).join(", ")}`));
        } else if (r.head.branch === null) {
          println(c.dim("  later checkpoints stay on their branch; the next save starts a new one"));
        }
      }),
    );

  cmd
    .command("delete")
    .alias("rm")
    .description("delete checkpoints (the messages the conversation holds now stay)")
    .argument("<refs...>", "checkpoints: names, #N, id prefixes, …")
    .action(
      run(async (ctx, refs: string[]) => {
        const r = await ctx.call((await ops.checkpoints()).chatDeleteOperation, { refs });
        if (ctx.json) return printJson(r);
        for (const cp of r.deleted) println(`${c.red("deleted")} #${cp.seq} ${cp.name}`);
      }),
    );

  cmd
    .command("clear")
    .description("delete every checkpoint of the conversation and empty its messages")
    .action(
      run(async (ctx) => {
        const r = await ctx.call((await ops.checkpoints()).chatClearOperation, {});
        if (ctx.json) return printJson(r);
        println(`${c.red("cleared")} ${r.session}: deleted ${plural(r.deleted.length, "checkpoint")} and ${plural(r.messages, "message")}`);
      }),
    );

  cmd
    .command("latest")
    .description("the checkpoint saved last, with its messages")
    .action(
      run(async (ctx) => {
        const r = await ctx.call((await ops.checkpoints()).chatLatestOperation, {});
        if (ctx.json) return printJson(r);
        println(checkpointRow(r.checkpoint, false).trim());
        printTranscript(r.messages);
      }),
    );

  cmd
    .command("export")
    .description("the conversation as JSON: Forge's document (checkpoints included), or its messages for OpenAI or LangChain")
    .option("--output <file>", "write it here (default: standard output)")
    .addOption(
      new Option("--format <format>", "forge: the whole session; openai, langchain (serialized), langchain-stored: messages only")
        .choices(OUTPUT_FORMATS)
        .default("forge"),
    )
    .option("--ref <ref>", "with openai/langchain formats: a checkpoint's messages instead of the current ones")
    .action(
      run(async (ctx, opts: { output?: string; format: OutputFormat; ref?: string }) => {
        if (opts.format === "forge" && opts.ref !== undefined)
          throw new UsageError("--ref goes with --format openai, langchain or langchain-stored (the forge format holds every checkpoint)");
        const { document, ...summary } = await ctx.call((await ops.transfer()).chatExportOperation, {
          format: opts.format,
          ...(opts.ref !== undefined && { ref: opts.ref }),
        });
        const text = JSON.stringify(document, null, 2) + "\n";
        // Without --output the document is the output, --json or not.
        if (opts.output === undefined) {
          writeOut(text);
          return;
        }
        writeFileAtomic(opts.output, text);
        if (ctx.json)
          return printJson({
            session: summary.session,
            output: opts.output,
            format: summary.format,
            messages: summary.messages,
            checkpoints: summary.checkpoints,
          });
        println(
          `exported ${plural(summary.messages, "message")}${summary.format === "forge" ? ` and ${plural(summary.checkpoints, "checkpoint")}` : ""} of ${summary.session} to ${opts.output} ${c.dim(`(${summary.format})`)}`,
        );
      }),
    );

  cmd
    .command("import")
    .description("import a conversation as a NEW session: a `forge chat export` document, or a list of messages (OpenAI, LangChain or Forge)")
    .argument("<file>", "the JSON file, or - for standard input")
    .option("--as <name>", "the new session's name (default: the document's; for a plain list, --session)")
    .addOption(new Option("--format <format>", "for a plain list: the messages' format (default: detected per message)").choices(INPUT_FORMATS).default("auto"))
    .action(
      run(async (ctx, file: string, opts: { as?: string; format: InputFormat }) => {
        const document = parseJson(readText(file), file === "-" ? "standard input" : file);
        const r = await ctx.call((await ops.transfer()).chatImportOperation, { document, format: opts.format, ...(opts.as !== undefined && { as: opts.as }) });
        if (ctx.json) return printJson(r);
        println(`${c.green("imported")} conversation ${c.bold(r.session)}: ${plural(r.checkpoints, "checkpoint")}, ${plural(r.messages, "message")}`);
        if (r.session !== ctx.sessionName()) println(c.dim(`  use it with --session ${r.session}`));
      }),
    );

  return cmd;
}
