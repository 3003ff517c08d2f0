// How `forge enable copilot` wires Forge into a project for GitHub Copilot CLI: a hooks file of
// Forge's own in `.github/hooks/`, and the MCP server in the project's `.github/mcp.json`.
import type { CaptureKind, ConfigEdit, HostConfigSpec } from "../types.js";
import { hookCommand } from "./entries.js";

/**
 * Copilot CLI's hook events Forge listens to (the camelCase names, so payloads come in camelCase),
 * and the Forge event each runs. A failed tool may have written files too, so both tool events
 * run `tool`.
 */
export const COPILOT_EVENTS: Readonly<Record<string, CaptureKind>> = {
  sessionStart: "session-start",
  userPromptSubmitted: "prompt",
  postToolUse: "tool",
  postToolUseFailure: "tool",
  agentStop: "stop",
  preCompact: "pre-compact",
  sessionEnd: "session-end",
};

/** Seconds Copilot waits for a Forge hook (its default is 30): a checkpoint of a large workspace may take longer. */
const TIMEOUT_SEC = 60;

/** GitHub Copilot CLI, wired through a repository hooks file and the repository MCP file. */
export const config: HostConfigSpec = {
  id: "copilot",
  label: "GitHub Copilot CLI",
  docs: [
    {
      url: "https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference",
      version: "github/docs@927566b (2026): .github/hooks/*.json version 1, camelCase payloads",
    },
    { url: "https://docs.github.com/en/copilot/reference/hooks-configuration", version: "github/docs@1912b4f: toolArgs as a JSON string, output fields" },
    {
      url: "https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers",
      version: "github/docs@091100a: per-repository .mcp.json and .github/mcp.json, mcpServers",
    },
    {
      url: "https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-config-dir-reference",
      version: "github/docs@03b432e: ~/.copilot (COPILOT_HOME), session-state/<id>/events.jsonl",
    },
  ],
  detect: [".github/copilot-instructions.md", ".github/hooks", ".github/copilot", ".github/mcp.json"],
  edits(forge: string): readonly ConfigEdit[] {
    const hooks: Record<string, unknown[]> = {};
    for (const [event, kind] of Object.entries(COPILOT_EVENTS)) {
      const command = hookCommand(forge, kind, "copilot");
      // The same line runs in PowerShell, which Copilot uses on Windows instead of `bash`.
      hooks[event] = [{ type: "command", bash: command, powershell: command, timeoutSec: TIMEOUT_SEC }];
    }
    return [
      // The whole file is Forge's (Copilot loads every .github/hooks/*.json), so disable deletes it.
      { file: ".github/hooks/forge.json", format: "owned", text: `${JSON.stringify({ version: 1, hooks }, null, 2)}\n` },
      // `.github/mcp.json` is the shared, committed one of the two project files the CLI reads.
      {
        file: ".github/mcp.json",
        format: "json",
        ops: [{ op: "set", path: ["mcpServers", "forge"], value: { type: "local", command: forge, args: ["mcp", "--profile", "lean"], tools: ["*"] } }],
      },
    ];
  },
};
