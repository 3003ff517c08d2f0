// How `forge enable claude-code` wires Claude Code: Forge's hooks in the project's
// .claude/settings.json (`hooks.<Event>`: a list of `{matcher?, hooks: [{type: "command",
// command}]}`) and Forge's MCP server in the project's .mcp.json (`mcpServers.forge`).
import type { HostConfigSpec } from "../types.js";
import { hookGroupOps } from "./entries.js";

/** Claude Code's project config: hooks in .claude/settings.json, the MCP server in .mcp.json. */
export const config: HostConfigSpec = {
  id: "claude-code",
  label: "Claude Code",
  docs: [
    // Settings files, the hooks object, matchers ("*" matches every tool; events without matchers omit it), event names.
    { url: "https://docs.claude.com/en/docs/claude-code/hooks", version: "hooks reference, read 2026-11-25" },
    // Project-scoped servers: .mcp.json at the project root, {"mcpServers": {name: {command, args}}}.
    { url: "https://docs.claude.com/en/docs/claude-code/mcp", version: "MCP page (project scope), read 2026-11-25" },
  ],
  detect: [".claude", "CLAUDE.md", ".mcp.json"],
  edits: (forge) => [
    {
      file: ".claude/settings.json",
      format: "json",
      ops: hookGroupOps(forge, "claude-code", [
        { event: "SessionStart", kind: "session-start" },
        { event: "UserPromptSubmit", kind: "prompt" },
        { event: "PostToolUse", kind: "tool", matcher: "*" },
        { event: "Stop", kind: "stop" },
        { event: "PreCompact", kind: "pre-compact" },
        { event: "SessionEnd", kind: "session-end" },
      ]),
    },
    { file: ".mcp.json", format: "json", ops: [{ op: "set", path: ["mcpServers", "forge"], value: { command: forge, args: ["mcp", "--profile", "lean"] } }] },
  ],
};
