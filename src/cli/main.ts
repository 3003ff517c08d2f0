// The `forge` command line: parse, call the library, render; errors become
// `forge: <what> (<what to do>)` on stderr with exit 1, usage errors exit 2.
import { Command, CommanderError } from "commander";
import { envFlag } from "../core/config.js";
import { isForgeError } from "../core/errors.js";
import { UsageError } from "./context.js";
import { VERSION } from "./version.js";

/**
 * Where each command is defined. Only the module of the command being run is loaded (a
 * hook or a status pays for its own command, not for forty); help and unknown commands load
 * them all. The order is the order `forge --help` lists them in.
 */
const MODULES: readonly { readonly names: readonly string[]; readonly load: () => Promise<Command[]> }[] = [
  { names: ["init"], load: async () => [(await import("./commands/store.js")).initCommand()] },
  { names: ["checkpoint", "cp"], load: async () => [(await import("./commands/checkpoint.js")).checkpointCommand()] },
  { names: ["milestone"], load: async () => [(await import("./commands/milestone.js")).milestoneCommand()] },
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
    names: ["du", "gc", "fsck"],
    load: async () => {
      const m = await import("./commands/store.js");
      return [m.duCommand(), m.gcCommand(), m.fsckCommand()];
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
    .option("--json", "print JSON for scripts")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({
      outputError: (str, write) => write(`forge: ${str.replace(/^error: /, "")}`),
    })
    .exitOverride();
  const word = commandWord(argv);
  const wanted = MODULES.filter((m) => word !== undefined && m.names.includes(word));
  for (const m of wanted.length > 0 ? wanted : MODULES) for (const cmd of await m.load()) program.addCommand(cmd);
  for (const sub of program.commands) applyExitOverride(sub);
  return program;
}

function applyExitOverride(cmd: Command): void {
  cmd.exitOverride();
  cmd.configureOutput({ outputError: (str, write) => write(`forge: ${str.replace(/^error: /, "")}`) });
  cmd.showHelpAfterError("(run with --help for usage)");
  for (const sub of cmd.commands) applyExitOverride(sub);
}

export async function main(argv: string[]): Promise<number> {
  try {
    const program = await buildProgram(argv);
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (e) {
    return report(e);
  }
}

function report(e: unknown): number {
  if (e instanceof CommanderError) {
    // commander has printed its message already; help and version are not errors.
    return e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.code === "commander.help" ? 0 : 2;
  }
  if (e instanceof UsageError) {
    process.stderr.write(`forge: ${e.message} (run with --help for usage)\n`);
    return 2;
  }
  if (isForgeError(e)) {
    process.stderr.write(`forge: ${e.message}${e.hint ? ` (${e.hint})` : ""}\n`);
    if (envFlag("FORGE_DEBUG") && e.cause) process.stderr.write(`${String((e.cause as Error).stack ?? e.cause)}\n`);
    return 1;
  }
  const err = e as Error;
  process.stderr.write(`forge: internal error: ${err?.message ?? String(e)} (this is a bug; FORGE_DEBUG=1 shows the stack)\n`);
  if (envFlag("FORGE_DEBUG")) process.stderr.write(`${err?.stack ?? ""}\n`);
  return 1;
}
