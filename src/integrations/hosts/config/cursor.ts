// How `forge enable cursor` wires Forge into a project: hooks in `.cursor/hooks.json`, the MCP
// server in `.cursor/mcp.json`. `forge disable cursor` takes out exactly these entries.
import type { CaptureKind, ConfigEdit, HostConfigSpec } from "../types.js";
import { hookCommand } from "./entries.js";

/**
 * Cursor's agent hook events Forge listens to, and the Forge event each runs. The three
 * `after*` events are Cursor's long-standing tool hooks (since 1.7): they name the edited file
 * and the shell command, which the generic `postToolUse` does not document for its tools; both
 * wired at once would run Forge twice per tool.
 */
export const CURSOR_EVENTS: Readonly<Record<string, CaptureKind>> = {
  sessionStart: "session-start",
  beforeSubmitPrompt: "prompt",
  afterFileEdit: "tool",
  afterShellExecution: "tool",
  afterMCPExecution: "tool",
  stop: "stop",
  preCompact: "pre-compact",
  sessionEnd: "session-end",
};

/** Cursor, wired through its project hooks file and its project MCP file. */
export const config: HostConfigSpec = {
  id: "cursor",
  label: "Cursor",
  docs: [
    {
      url: "https://cursor.com/docs/hooks",
      version: "page as of 2026-08-24 (hooks.json version 1; hooks since Cursor 1.7, example payload cursor_version 1.7.2)",
    },
    { url: "https://cursor.com/docs/mcp", version: "page as of 2026-10-22 (project .cursor/mcp.json, mcpServers {command, args})" },
  ],
  detect: [".cursor", ".cursorrules"],
  edits(forge: string): readonly ConfigEdit[] {
    const hooks = Object.entries(CURSOR_EVENTS).map(([event, kind]) => ({
      op: "append" as const,
      path: ["hooks", event],
      // Project hooks run from the project root; Cursor reads the JSON Forge prints on stdout.
      value: { command: hookCommand(forge, kind, "cursor") },
    }));
    return [
      { file: ".cursor/hooks.json", format: "json", ops: [{ op: "set", path: ["version"], value: 1 }, ...hooks] },
      {
        file: ".cursor/mcp.json",
        format: "json",
        ops: [{ op: "set", path: ["mcpServers", "forge"], value: { command: forge, args: ["mcp", "--profile", "lean"] } }],
      },
    ];
  },
};
