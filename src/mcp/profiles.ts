// The tool sets `forge mcp` can serve. A constant module: the CLI checks `--profile` with it
// before anything of the server (the MCP SDK, the operations) is loaded.

/** lean: a few short tools for agent hosts whose hooks already record the session; full: every tool. */
export const MCP_PROFILES = ["lean", "full"] as const;
export type McpProfile = (typeof MCP_PROFILES)[number];

/** The profile served when none is asked for: what `forge mcp` served before profiles existed. */
export const DEFAULT_MCP_PROFILE: McpProfile = "full";

export function isMcpProfile(name: string): name is McpProfile {
  return (MCP_PROFILES as readonly string[]).includes(name);
}
