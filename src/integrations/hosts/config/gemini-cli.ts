// How `forge enable gemini-cli` wires Gemini CLI: Forge's hooks and its MCP server in the
// project's .gemini/settings.json (`hooks.<Event>` lists of `{matcher?, hooks: [{name,
// type: "command", command}]}`; `mcpServers.forge`). The file may hold comments: kept.
import type { HostConfigSpec } from "../types.js";
import { hookGroupOps } from "./entries.js";

/** Gemini CLI's project config: hooks and the MCP server, both in .gemini/settings.json. */
export const config: HostConfigSpec = {
  id: "gemini-cli",
  label: "Gemini CLI",
  docs: [
    // Events (SessionStart, BeforeAgent, AfterTool, AfterAgent, PreCompress, SessionEnd), the hooks object, "*" matching every tool, `name`.
    { url: "https://geminicli.com/docs/hooks/", version: "google-gemini/gemini-cli docs/hooks/index.md at b45b1492, read 2026-11-25" },
    { url: "https://geminicli.com/docs/hooks/reference", version: "google-gemini/gemini-cli docs/hooks/reference.md at b45b1492, read 2026-11-25" },
    // mcpServers in settings.json: {name: {command, args}}.
    { url: "https://geminicli.com/docs/tools/mcp-server", version: "google-gemini/gemini-cli docs/tools/mcp-server.md, read 2026-11-25" },
  ],
  detect: [".gemini", "GEMINI.md"],
  edits: (forge) => [
    {
      file: ".gemini/settings.json",
      format: "json",
      ops: [
        ...hookGroupOps(
          forge,
          "gemini-cli",
          [
            { event: "SessionStart", kind: "session-start" },
            { event: "BeforeAgent", kind: "prompt" },
            { event: "AfterTool", kind: "tool", matcher: "*" },
            { event: "AfterAgent", kind: "stop" },
            { event: "PreCompress", kind: "pre-compact" },
            { event: "SessionEnd", kind: "session-end" },
          ],
          // Gemini CLI names hooks for `/hooks enable|disable <name>`.
          (kind) => ({ name: `forge-${kind}` }),
        ),
        { op: "set", path: ["mcpServers", "forge"], value: { command: forge, args: ["mcp", "--profile", "lean"] } },
      ],
    },
  ],
};
