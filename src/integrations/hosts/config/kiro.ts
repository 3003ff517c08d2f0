// How `forge enable kiro` wires Kiro, IDE and CLI: three hook files of Forge's own in
// `.kiro/hooks/` for the IDE (prompt submit, post tool use, agent stop), and Forge's hooks in
// each of the project's CLI agents, `.kiro/agents/*.json` (agentSpawn, userPromptSubmit,
// postToolUse, stop), next to the user's own. `forge disable kiro` takes out exactly these.
//
// Followed: https://kiro.dev/docs/hooks/types and /hooks/actions (IDE, read 2026-11-25:
// triggers Prompt Submit, Agent Stop, Pre/Post Tool Use with tool names or `*`, file
// triggers; a shell command action gets the prompt in USER_PROMPT) and
// https://kiro.dev/docs/cli/hooks with the agent configuration reference (CLI; the text of
// aws/amazon-q-developer-cli docs/hooks.md and agent-format.md at 15cc8f3, 2026-04-23):
// "hooks": {agentSpawn|userPromptSubmit|preToolUse|postToolUse|stop: [{command, matcher?,
// timeout_ms?}]}. kiro.dev documents the IDE's triggers and actions but not the fields of a
// `.kiro.hook` file: Forge writes the shape the IDE's own hook files have ({version, enabled,
// name, description, when: {type, toolTypes?}, then: {type: "runCommand", command}}). A project
// with no agent file of its own gets only the IDE hooks: a CLI agent is a whole
// configuration (its tools among them), which Forge does not invent. The CLI v3 standalone
// hooks files (.kiro/hooks/<name>.json, "version": "v1") are not written: the page followed
// shows their shape, not the payload their commands get. No MCP server is registered.
import type { CaptureKind, ConfigEdit, HostConfigSpec, ProjectView } from "../types.js";
import { hookCommand } from "./entries.js";

/** The CLI agent hooks Forge adds, and the Forge event each runs. */
export const KIRO_CLI_EVENTS: Readonly<Record<string, CaptureKind>> = {
  agentSpawn: "session-start",
  userPromptSubmit: "prompt",
  postToolUse: "tool",
  stop: "stop",
};

/** The IDE hook files Forge owns: name, trigger, Forge event. */
export const KIRO_IDE_HOOKS: readonly {
  readonly name: string;
  readonly when: Readonly<Record<string, unknown>>;
  readonly kind: CaptureKind;
  readonly what: string;
}[] = [
  { name: "forge-prompt", when: { type: "promptSubmit" }, kind: "prompt", what: "checkpoints the files and the prompt at each prompt" },
  { name: "forge-tool", when: { type: "postToolUse", toolTypes: ["*"] }, kind: "tool", what: "snapshots the files after each tool" },
  { name: "forge-stop", when: { type: "agentStop" }, kind: "stop", what: "snapshots the files when the agent stops" },
];

/** A `.kiro.hook` file of Forge's. Its command reads nothing on stdin (the IDE documents none; USER_PROMPT carries the prompt). */
function ideHook(forge: string, h: (typeof KIRO_IDE_HOOKS)[number]): string {
  const hook = {
    version: "1.0.0",
    enabled: true,
    name: h.name,
    description: `Forge ${h.what} (written by forge enable kiro, removed by forge disable kiro)`,
    when: h.when,
    // biome-ignore lint/suspicious/noThenProperty: the .kiro.hook format names its action "then"; the object is only serialized.
    then: { type: "runCommand", command: `${hookCommand(forge, h.kind, "kiro")} </dev/null` },
  };
  return `${JSON.stringify(hook, null, 2)}\n`;
}

/** Kiro, wired through Forge's IDE hook files and the project's CLI agents. */
export const config: HostConfigSpec = {
  id: "kiro",
  label: "Kiro",
  docs: [
    { url: "https://kiro.dev/docs/hooks/types", version: "IDE hook triggers and actions, read 2026-11-25 (USER_PROMPT at Prompt Submit)" },
    {
      url: "https://kiro.dev/docs/cli/hooks",
      version:
        "CLI hooks = aws/amazon-q-developer-cli docs/hooks.md@15cc8f3 (2026-04-23): stdin {hook_event_name, cwd, prompt, tool_name, tool_input, tool_response}",
    },
    {
      url: "https://kiro.dev/docs/cli/custom-agents/configuration-reference",
      version: "agent-format.md@15cc8f3: .kiro/agents/*.json, hooks {agentSpawn, userPromptSubmit, preToolUse, postToolUse, stop}",
    },
  ],
  detect: [".kiro"],
  edits(forge: string, project?: ProjectView): readonly ConfigEdit[] {
    const ide: ConfigEdit[] = KIRO_IDE_HOOKS.map((h) => ({ file: `.kiro/hooks/${h.name}.kiro.hook`, format: "owned", text: ideHook(forge, h) }));
    const agents = (project?.list(".kiro/agents") ?? []).filter((n) => n.endsWith(".json"));
    const cli: ConfigEdit[] = agents.map((name) => ({
      file: `.kiro/agents/${name}`,
      format: "json",
      ops: Object.entries(KIRO_CLI_EVENTS).map(([event, kind]) => ({
        op: "append" as const,
        path: ["hooks", event],
        value: { ...(kind === "tool" && { matcher: "*" }), command: hookCommand(forge, kind, "kiro") },
      })),
    }));
    return [...ide, ...cli];
  },
};
