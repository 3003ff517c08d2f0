// `forge mcp`: the Model Context Protocol server on stdin/stdout (see src/mcp/).
import { Command } from "commander";
import type { GlobalOptions } from "../context.js";

export function mcpCommand(): Command {
  return new Command("mcp")
    .description("serve Forge's tools to an agent over the Model Context Protocol (stdio); stdout carries only protocol messages")
    .option("--root <dir>", "the workspace folder of the files tools (default: the folder holding .forge, else the current one)")
    .option("--files-session <name>", 'the session holding workspace snapshots (default "workspace")')
    .action(async (opts: { root?: string; filesSession?: string }, cmd: Command) => {
      const global = cmd.optsWithGlobals<GlobalOptions>();
      // The SDK is loaded only here: other commands start without it.
      const { serveStdio } = await import("../../mcp/server.js");
      await serveStdio({
        ...(global.store !== undefined && { store: global.store }),
        ...(global.session !== undefined && { session: global.session }),
        ...(opts.root !== undefined && { root: opts.root }),
        ...(opts.filesSession !== undefined && { filesSession: opts.filesSession }),
      });
    });
}
