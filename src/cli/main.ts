// The `forge` command line: parse, call the library, render; errors become
// `forge: <what> (<what to do>)` on stderr (with --json, one object {code, message, hint}),
// exit 1 for a failure and 2 for a wrong command line.
import { Command, CommanderError } from "commander";
import { envFlag } from "../core/config.js";
import { isForgeError } from "../core/errors.js";
import { UsageError } from "./context.js";
import { guardStdout, writeOut } from "./output.js";
import { VERSION } from "./version.js";
import { mark } from "../core/trace.js";
import { ownProcess } from "../core/cli-process.js";

/**
 * Where each command is defined. Only the module of the command being run is loaded (a
 * hook or a status pays for its own command, not for forty); help and unknown commands load
 * them all. The order is the order `forge --help` lists them in.
 */
const MODULES: readonly { readonly names: readonly string[]; readonly load: () => Promise<Command[]> }[] = [
  { names: ["init"], load: async () => [(await import("./commands/store.js")).initCommand()] },
  { names: ["checkpoint", "cp"], load: async () => [(await import("./commands/checkpoint.js")).checkpointCommand()] },
  { names: ["milestone"], load: async () => [(await import("./commands/milestone.js")).milestoneCommand()] },
  { names: ["search"], load: async () => [(await import("./commands/search.js")).searchCommand()] },
  { names: ["session"], load: async () => [(await import("./commands/store.js")).sessionCommand()] },
  {
    names: [
      "hypothesis",
      "hyp",
      "evidence",
      "belief",
      "contradictions",
      "gap",
      "note",
      "task",
      "verify",
      "run",
      "brief",
      "recover",
      "code",
      "branch",
      "switch",
      "branches",
    ],
    load: async () => (await import("./commands/reasoning.js")).reasoningCommands(),
  },
  { names: ["files"], load: async () => [(await import("./commands/files.js")).filesCommand()] },
  { names: ["runs"], load: async () => [(await import("./commands/runs.js")).runsCommand()] },
  { names: ["chat"], load: async () => [(await import("./commands/chat.js")).chatCommand()] },
  { names: ["ui"], load: async () => [(await import("./commands/ui.js")).uiCommand()] },
  { names: ["watch"], load: async () => [(await import("./commands/watch.js")).watchCommand()] },
  { names: ["mcp"], load: async () => [(await import("./commands/mcp.js")).mcpCommand()] },
  { names: ["hook"], load: async () => [(await import("./commands/hook.js")).hookCommand()] },
  {
    names: ["enable", "disable", "status"],
    load: async () => {
      const m = await import("./commands/enable.js");
      return [m.enableCommand(), m.disableCommand(), m.statusCommand()];
    },
  },
  {
    names: ["agent", "rewind"],
    load: async () => {
      const m = await import("./commands/agent.js");
      return [m.agentCommand(), m.rewindCommand()];
    },
  },
  {
    names: ["blame", "why"],
    load: async () => {
      const m = await import("./commands/blame.js");
      return [m.blameCommand(), m.whyCommand()];
    },
  },
  {
    names: ["du", "gc", "fsck"],
    load: async () => {
      const m = await import("./commands/store.js");
      return [m.duCommand(), m.gcCommand(), m.fsckCommand()];
    },
  },
  {
    names: ["scan", "redact"],
    load: async () => {
      const m = await import("./commands/scan.js");
      return [m.scanCommand(), m.redactCommand()];
    },
  },
  { names: ["demo"], load: async () => [(await import("./demo.js")).demoCommand()] },
];

/** Global options that take a value: the word after them is not the command. */
const VALUE_OPTIONS = new Set(["--store", "--session"]);

/** The command word of `argv` (after node and the script), if any. */
function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i] as string;
    if (VALUE_OPTIONS.has(a)) i++;
    else if (!a.startsWith("-")) return a;
  }
  return undefined;
}

/** The program with the commands `argv` needs (all of them when it names none this table knows). */
export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command("forge")
    .description("Checkpoints and time travel for AI agents")
    .version(VERSION, "-V, --version")
    .option("--store <url>", "the store: sqlite:PATH, postgres://…, file:DIR or memory: (default: FORGE_STORE, else the nearest .forge/forge.db)")
    .option("--session <name>", 'the session to work in (default: FORGE_SESSION, else "default")')
    .option("--json", "print JSON for scripts (an error too: one JSON object on stdout)")
    .hook("preAction", (_program, action) => {
      mark("cli: command parsed");
      failing = action;
      ran = commandPath(action);
    });
  const word = commandWord(argv);
  const wanted = MODULES.filter((m) => word !== undefined && m.names.includes(word));
  for (const m of wanted.length > 0 ? wanted : MODULES) for (const cmd of await m.load()) program.addCommand(cmd);
  configure(program);
  mark("cli: commands built");
  return program;
}

/** The command whose action runs, or whose command line commander refused: named in a usage error's hint. */
let failing: Command | undefined;
/** The words of the last command whose action ran ("forge files status"). */
let ran = "";

/** The words of the command `main` last ran ("forge files status"; "" when none ran): bin/code-cache.js keeps the bytecode each command compiled. */
export function lastCommand(): string {
  return ran;
}

/**
 * Every command alike: errors thrown to `main` (not printed by commander, so that `report`
 * prints each kind of error one way, as JSON under --json), and help that shows the global
 * options with each command's own.
 */
function configure(cmd: Command): void {
  cmd.exitOverride();
  cmd.configureOutput({
    outputError: () => {
      failing = cmd;
    },
  });
  cmd.configureHelp({ ...cmd.configureHelp(), showGlobalOptions: true });
  for (const sub of cmd.commands) configure(sub);
}

/** bin/forge.js hands over the walk or stat preload it started (domains/workspace/walk-preload.ts, stat-preload.ts). */
export { adoptStatPreload, adoptWalkPreload } from "../operations/files/preload.js";
export { adoptHookInput } from "./hook-input.js";
/** Which way the command went (core/trace.ts): bin/code-cache.js writes a command's cache again for a way it has not seen. */
export { waysTaken } from "../core/trace.js";

export async function main(argv: string[]): Promise<number> {
  guardStdout();
  ownProcess();
  mark("cli: started");
  try {
    const program = await buildProgram(argv);
    await program.parseAsync(argv);
    mark("cli: done");
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (e) {
    return report(e, wantsJson(argv));
  } finally {
    failing = undefined;
  }
}

/** Whether the command line asks for JSON: `--json` before any `--` (after which words are a command's). */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--", 2);
  return argv.slice(2, end < 0 ? undefined : end).includes("--json");
}

/** `forge checkpoint list`: the words that run `cmd`. */
function commandPath(cmd: Command | undefined): string {
  const names: string[] = [];
  for (let c: Command | null = cmd ?? null; c; c = c.parent) names.unshift(c.name());
  return names.length > 0 ? names.join(" ") : "forge";
}

/** What went wrong, as `report` prints it: one line `forge: message (hint)`, or with --json one object. */
interface Failure {
  /** A ForgeError's code; USAGE for a wrong command line; INTERNAL for a bug. */
  readonly code: string;
  readonly message: string;
  readonly hint: string | null;
  readonly data?: Readonly<Record<string, unknown>>;
  /** The exit status: 1 failure, 2 usage. */
  readonly exit: 1 | 2;
  /** Printed after the line (text) or as a field (JSON) under FORGE_DEBUG=1. */
  readonly stack?: string;
}

/** Prints an error and returns the exit status: ForgeError 1, usage 2, anything else (a bug) 1. */
function report(e: unknown, json: boolean): number {
  if (e instanceof CommanderError) {
    // Help and version are not errors (help without a subcommand included).
    if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.code === "commander.help") return 0;
    return print(commanderFailure(e), json);
  }
  return print(failure(e), json);
}

function failure(e: unknown): Failure {
  const debug = envFlag("FORGE_DEBUG");
  if (e instanceof UsageError) return { code: "USAGE", message: e.message, hint: `see \`${commandPath(failing)} --help\``, exit: 2 };
  if (isForgeError(e)) {
    const cause = e.cause as Error | undefined;
    return {
      code: e.code,
      message: e.message,
      hint: e.hint ?? null,
      ...(Object.keys(e.data).length > 0 && { data: e.data }),
      exit: 1,
      ...(debug && cause !== undefined && { stack: String(cause.stack ?? cause) }),
    };
  }
  const err = e as Error | undefined;
  return {
    code: "INTERNAL",
    message: `internal error: ${err?.message ?? String(e)}`,
    hint: "this is a bug; FORGE_DEBUG=1 shows the stack",
    exit: 1,
    ...(debug && { stack: err?.stack ?? String(e) }),
  };
}

/** commander's message ("error: unknown command 'chekpoint'\n(Did you mean checkpoint?)") as a usage failure. */
function commanderFailure(e: CommanderError): Failure {
  const [first = "", ...rest] = e.message.replace(/^error: /, "").split("\n");
  const suggestion = /^\(Did you mean (.+)\?\)$/.exec(rest.join(" ").trim());
  return {
    code: "USAGE",
    message: first,
    hint: suggestion ? `did you mean ${suggestion[1]}?` : `see \`${commandPath(failing)} --help\``,
    exit: 2,
  };
}

function print(f: Failure, json: boolean): number {
  // Under --json stdout holds one JSON object whatever happens: the result, or this error.
  // The line for people goes to stderr either way.
  if (json) {
    const { exit: _, stack, ...fields } = f;
    writeOut(`${JSON.stringify({ ...fields, ...(stack !== undefined && { stack }) })}\n`);
  }
  process.stderr.write(`forge: ${f.message}${f.hint ? ` (${f.hint})` : ""}\n`);
  if (f.stack !== undefined) process.stderr.write(`${f.stack}\n`);
  return f.exit;
}
