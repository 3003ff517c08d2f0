// `forge mcp`: the Model Context Protocol server on stdin/stdout (see src/mcp/).
import { Command, Option } from "commander";
import { readEnv } from "../../core/config.js";
import { DEFAULT_MCP_PROFILE, isMcpProfile, MCP_PROFILES, type McpProfile } from "../../mcp/profiles.js";
import { type GlobalOptions, UsageError } from "../context.js";

/** The variable that picks the profile when `--profile` is not given. */
const PROFILE_VARIABLE = "FORGE_MCP_PROFILE";

export function mcpCommand(): Command {
  return new Command("mcp")
    .description("serve Forge's tools to an agent over the Model Context Protocol (stdio); stdout carries only protocol messages")
    .addOption(
      new Option(
        "--profile <name>",
        `which tools to serve: lean (8 short ones, for agent hosts) or full (every tool); default: ${PROFILE_VARIABLE}, else full`,
      ).choices(MCP_PROFILES),
    )
    .option("--root <dir>", "the workspace folder of the files tools (default: the folder holding .forge, else the current one)")
    .option("--files-session <name>", 'the session holding workspace snapshots (default "workspace")')
    .addHelpText(
      "after",
      `
Profiles:
  full  every tool: checkpoints, time travel, the whole reasoning board, experiments, files
  lean  brief, record, checkpoint_create, checkpoint_list, checkpoint_compare, checkpoint_restore,
        files_diff, files_restore: short descriptions and few arguments, for hosts whose hooks
        already record the conversation and the files (\`forge mcp --profile lean\`)`,
    )
    .action(async (opts: { profile?: McpProfile; root?: string; filesSession?: string }, cmd: Command) => {
      const global = cmd.optsWithGlobals<GlobalOptions>();
      const profile = opts.profile ?? profileFromEnv();
      // The SDK is loaded only here: other commands start without it.
      const { serveStdio } = await import("../../mcp/server.js");
      await serveStdio({
        profile,
        ...(global.store !== undefined && { store: global.store }),
        ...(global.session !== undefined && { session: global.session }),
        ...(opts.root !== undefined && { root: opts.root }),
        ...(opts.filesSession !== undefined && { filesSession: opts.filesSession }),
      });
    });
}

function profileFromEnv(): McpProfile {
  const name = readEnv([PROFILE_VARIABLE])[PROFILE_VARIABLE];
  if (name === undefined || name === "") return DEFAULT_MCP_PROFILE;
  if (!isMcpProfile(name)) throw new UsageError(`${PROFILE_VARIABLE} is "${name}": choose ${MCP_PROFILES.join(" or ")}`);
  return name;
}
