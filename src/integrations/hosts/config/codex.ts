// How `forge enable codex` wires Codex: Forge's hooks in the project's .codex/hooks.json
// (`hooks.<Event>`: lists of `{matcher?, hooks: [{type: "command", command}]}`; the file's
// root holds only `hooks` and `description`), the hooks feature switched on and Forge's MCP
// server in .codex/config.toml. Codex reads a project's .codex/ only once it trusts it.
import type { HostConfigSpec } from "../types.js";
import { hookGroupOps } from "./entries.js";

/** Codex's project config: hooks in .codex/hooks.json, the feature flag and the MCP server in .codex/config.toml. */
export const config: HostConfigSpec = {
  id: "codex",
  label: "Codex",
  docs: [
    // hooks.json beside a config layer, events (SessionStart, UserPromptSubmit, PostToolUse, Stop, PreCompact, SessionEnd),
    // an omitted matcher matching every tool, and [features]: `codex_hooks` (required before hooks were on by default,
    // still read as the alias of `hooks` after).
    {
      url: "https://developers.openai.com/codex/hooks",
      version: "hooks.md of 2026-05-18 (PreCompact from 2026-05-07, SessionEnd from Codex 0.146), read 2026-11-25",
    },
    // [mcp_servers.<name>] with command and args, in a trusted project's .codex/config.toml.
    { url: "https://developers.openai.com/codex/mcp", version: "MCP page, read 2026-11-25" },
  ],
  detect: [".codex"],
  edits: (forge) => [
    {
      file: ".codex/hooks.json",
      format: "json",
      ops: hookGroupOps(forge, "codex", [
        { event: "SessionStart", kind: "session-start" },
        { event: "UserPromptSubmit", kind: "prompt" },
        { event: "PostToolUse", kind: "tool" },
        { event: "Stop", kind: "stop" },
        { event: "PreCompact", kind: "pre-compact" },
        { event: "SessionEnd", kind: "session-end" },
      ]),
    },
    {
      file: ".codex/config.toml",
      format: "toml",
      ops: [
        { table: "features", key: "codex_hooks", value: true },
        { table: "mcp_servers.forge", key: "command", value: forge },
        { table: "mcp_servers.forge", key: "args", value: ["mcp", "--profile", "lean"] },
      ],
    },
  ],
};
