// How `forge enable windsurf` wires Windsurf's Cascade: Forge's hooks in the workspace's
// `.windsurf/hooks.json` ({"hooks": {event: [{command, show_output}]}}, merged by Cascade with
// the user's and the system's). `forge disable windsurf` takes out exactly these entries.
//
// Followed: https://docs.windsurf.com/windsurf/cascade/hooks (the page with eleven hook
// events, read 2026-11-25): workspace hooks in `.windsurf/hooks.json`, each hook {command,
// show_output, working_directory (default: the workspace root)}. Cascade has no session-start,
// session-end or compaction hook; reads (post_read_code) change nothing, so Forge does not run
// at them. The MCP server is not registered: Cascade reads MCP servers only from the user's
// ~/.codeium/windsurf/mcp_config.json, not from the project.
import type { CaptureKind, ConfigEdit, HostConfigSpec } from "../types.js";
import { hookCommand } from "./entries.js";

/** Cascade's hook events Forge listens to, and the Forge event each runs. */
export const WINDSURF_EVENTS: Readonly<Record<string, CaptureKind>> = {
  pre_user_prompt: "prompt",
  post_write_code: "tool",
  post_run_command: "tool",
  post_mcp_tool_use: "tool",
  post_cascade_response: "stop",
};

/** Windsurf, wired through the workspace hooks file. */
export const config: HostConfigSpec = {
  id: "windsurf",
  label: "Windsurf",
  docs: [
    {
      url: "https://docs.windsurf.com/windsurf/cascade/hooks",
      version: "Cascade Hooks page with eleven events, read 2026-11-25 (agent_action_name, trajectory_id, execution_id, tool_info)",
    },
  ],
  detect: [".windsurf", ".windsurfrules"],
  edits(forge: string): readonly ConfigEdit[] {
    const ops = Object.entries(WINDSURF_EVENTS).map(([event, kind]) => ({
      op: "append" as const,
      path: ["hooks", event],
      // Cascade shows a hook's output only when show_output is true; Forge's has nothing to show.
      value: { command: hookCommand(forge, kind, "windsurf"), show_output: false },
    }));
    return [{ file: ".windsurf/hooks.json", format: "json", ops }];
  },
};
