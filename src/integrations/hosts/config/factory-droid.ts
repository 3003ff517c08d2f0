// How `forge enable factory-droid` wires Factory Droid: Forge's hooks where Droid reads the
// project's hooks — `.factory/hooks.json` when it exists (Droid then ignores the `hooks` key of
// settings.json), else the legacy `.factory/hooks/hooks.json`, else the `hooks` key of
// `.factory/settings.json` — and Forge's MCP server in `.factory/mcp.json`.
//
// Followed: https://docs.factory.ai/reference/hooks-reference and
// https://docs.factory.ai/cli/configuration/settings (Factory-AI/factory docs@a80aa7c,
// 2026-07-24): hooks.json at each scope, falling back to settings.json's `hooks` when absent;
// the legacy nested hooks/hooks.json still loads; event → [{matcher?, hooks: [{type:
// "command", command, timeout?}]}], matcher `*` for every tool, none for events without
// matchers. The docs show the hooks object under a `hooks` key and say hooks files are "keyed
// by event name" without a full example of a bare file: a hooks file is edited in the shape
// it already has (`hooks` key, or events at the top). MCP: docs/cli/configuration/mcp.mdx —
// project `.factory/mcp.json`, {"mcpServers": {name: {type: "stdio", command, args}}}.
import { parse } from "jsonc-parser";
import type { CaptureKind, ConfigEdit, HostConfigSpec, JsonOp, ProjectView } from "../types.js";
import { hookGroupOps } from "./entries.js";

/** Droid's hook events Forge listens to, and the Forge event each runs. */
export const DROID_EVENTS: readonly { readonly event: string; readonly kind: CaptureKind; readonly matcher?: string }[] = [
  { event: "SessionStart", kind: "session-start" },
  { event: "UserPromptSubmit", kind: "prompt" },
  { event: "PostToolUse", kind: "tool", matcher: "*" },
  { event: "Stop", kind: "stop" },
  { event: "PreCompact", kind: "pre-compact" },
  { event: "SessionEnd", kind: "session-end" },
];

const KNOWN_EVENTS = new Set([
  "PreToolUse",
  "PostToolUse",
  "Notification",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "PreCompact",
  "SessionStart",
  "SessionEnd",
]);

/** The file Droid reads the project's hooks from, and where in it the events are. */
export function droidHooksFile(project: ProjectView | undefined): { readonly file: string; readonly under: readonly string[] } {
  for (const file of [".factory/hooks.json", ".factory/hooks/hooks.json"]) {
    const text = project?.read(file) ?? null;
    if (text === null) continue;
    const value: unknown = parse(text, [], { allowTrailingComma: true });
    const top = typeof value === "object" && value !== null && !Array.isArray(value) ? Object.keys(value) : [];
    // Events at the top (and no `hooks` key): edited there; otherwise under `hooks`, as the reference shows.
    const bare = !top.includes("hooks") && top.some((k) => KNOWN_EVENTS.has(k));
    return { file, under: bare ? [] : ["hooks"] };
  }
  return { file: ".factory/settings.json", under: ["hooks"] };
}

/** Factory Droid, wired through the project's hooks file and its project MCP file. */
export const config: HostConfigSpec = {
  id: "factory-droid",
  label: "Factory Droid",
  docs: [
    {
      url: "https://docs.factory.ai/reference/hooks-reference",
      version: "Factory-AI/factory docs@a80aa7c (2026-07-24; page at 23d17af): hooks.json, settings.json fallback, payload fields",
    },
    { url: "https://docs.factory.ai/cli/configuration/settings", version: "docs@a80aa7c: .factory/settings.json, settings.local.json, hooksDisabled" },
    { url: "https://docs.factory.ai/cli/configuration/mcp", version: "docs@a80aa7c: project .factory/mcp.json, mcpServers {type: stdio, command, args}" },
  ],
  detect: [".factory"],
  edits(forge: string, project?: ProjectView): readonly ConfigEdit[] {
    const where = droidHooksFile(project);
    const ops: JsonOp[] = hookGroupOps(forge, "factory-droid", DROID_EVENTS).map((op) => ({ ...op, path: [...where.under, ...op.path.slice(1)] }));
    return [
      { file: where.file, format: "json", ops },
      {
        file: ".factory/mcp.json",
        format: "json",
        ops: [{ op: "set", path: ["mcpServers", "forge"], value: { type: "stdio", command: forge, args: ["mcp", "--profile", "lean"] } }],
      },
    ];
  },
};
