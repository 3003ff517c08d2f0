// The `forge` command line: parse, call the library, render; errors become
// `forge: <what> (<what to do>)` on stderr with exit 1, usage errors exit 2.
import { Command, CommanderError } from "commander";
import { envFlag } from "../core/config.js";
import { isForgeError } from "../core/errors.js";
import { chatCommand } from "./commands/chat.js";
import { checkpointCommand } from "./commands/checkpoint.js";
import { filesCommand } from "./commands/files.js";
import { hookCommand } from "./commands/hook.js";
import { mcpCommand } from "./commands/mcp.js";
import { milestoneCommand } from "./commands/milestone.js";
import { reasoningCommands } from "./commands/reasoning.js";
import { runsCommand } from "./commands/runs.js";
import { uiCommand } from "./commands/ui.js";
import { watchCommand } from "./commands/watch.js";
import { duCommand, fsckCommand, gcCommand, initCommand, sessionCommand } from "./commands/store.js";
import { UsageError } from "./context.js";
import { demoCommand } from "./demo.js";
import { VERSION } from "./version.js";

export function buildProgram(): Command {
  const program = new Command("forge")
    .description("Checkpoints and time travel for AI agents")
    .version(VERSION, "-V, --version")
    .option("--store <url>", "the store: sqlite:PATH, postgres://…, file:DIR or memory: (default: FORGE_STORE, else the nearest .forge/forge.db)")
    .option("--session <name>", "the session to work in (default: FORGE_SESSION, else \"default\")")
    .option("--json", "print JSON for scripts")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({
      outputError: (str, write) => write(`forge: ${str.replace(/^error: /, "")}`),
    })
    .exitOverride();
  program.addCommand(initCommand());
  program.addCommand(checkpointCommand());
  program.addCommand(milestoneCommand());
  program.addCommand(sessionCommand());
  for (const cmd of reasoningCommands()) program.addCommand(cmd);
  program.addCommand(filesCommand());
  program.addCommand(runsCommand());
  program.addCommand(chatCommand());
  program.addCommand(uiCommand());
  program.addCommand(watchCommand());
  program.addCommand(mcpCommand());
  program.addCommand(hookCommand());
  program.addCommand(duCommand());
  program.addCommand(gcCommand());
  program.addCommand(fsckCommand());
  program.addCommand(demoCommand());
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
  const program = buildProgram();
  try {
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
