// How `forge enable opencode` wires Forge into a project: OpenCode has no command hooks, so Forge
// writes a plugin of its own (`.opencode/plugins/forge.js`) whose handlers run `forge hook`, and
// registers its MCP server in `opencode.json`. `forge disable opencode` takes both back.
import type { CaptureKind, ConfigEdit, HostConfigSpec } from "../types.js";

/**
 * OpenCode plugin hooks and bus events Forge's plugin handles, and the Forge event each runs.
 * OpenCode has no session-end: a deleted session is the one end it announces.
 */
export const OPENCODE_EVENTS: Readonly<Record<string, CaptureKind>> = {
  "session.created": "session-start",
  "chat.message": "prompt",
  "tool.execute.after": "tool",
  "session.idle": "stop",
  "experimental.session.compacting": "pre-compact",
  "session.deleted": "session-end",
};

/** Where the plugin goes: OpenCode loads `.opencode/{plugin,plugins}/*.{ts,js}` at startup. */
export const OPENCODE_PLUGIN_FILE = ".opencode/plugins/forge.js";

/**
 * The plugin's source for Forge run as `forge`. Plain JavaScript (ESM, no imports but Node's),
 * so Bun loads it as is and a project's own type checker has nothing to say about it. It exports
 * one named plugin function and no default object: OpenCode up to 1.3.3 calls every export, later
 * versions call every export when the default is not a `{id, server}` module.
 */
export function opencodePlugin(forge: string): string {
  return `// Forge's OpenCode plugin: written by \`forge enable opencode\`, deleted by \`forge disable opencode\`.
// Each handler runs \`<forge> hook <kind> --host opencode\` with the event as JSON on stdin.
import { spawn } from "node:child_process";

const COMMAND = ${JSON.stringify(forge)};

export const ForgePlugin = async ({ client, directory }) => {
  // Sub-agent sessions: their file changes reach Forge through the parent's task tool.
  const children = new Set();
  // Tool arguments by call, for OpenCode versions whose tool.execute.after input has none.
  const args = new Map();
  // What Forge printed at session start, given to the model as system text.
  const brief = new Map();

  const report = async (kind, message) => {
    const text = \`forge hook \${kind}: \${message}\`;
    try {
      await client.app.log({ body: { service: "forge", level: "warn", message: text } });
    } catch {
      console.error(text);
    }
  };

  const run = (kind, payload) =>
    new Promise((resolve) => {
      const child = spawn(\`\${COMMAND} hook \${kind} --host opencode\`, { cwd: directory, shell: true, stdio: ["pipe", "pipe", "pipe"] });
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (err += d));
      child.stdin.on("error", (e) => report(kind, e.message));
      child.on("error", (e) => report(kind, e.message).then(() => resolve("")));
      child.on("close", (code) => {
        if (code !== 0) report(kind, err.trim() || \`exit status \${code}\`);
        resolve(out);
      });
      child.stdin.end(JSON.stringify({ directory, ...payload }));
    });

  return {
    event: async ({ event }) => {
      const p = event.properties ?? {};
      if (event.type === "session.created" && p.info) {
        if (p.info.parentID) return void children.add(p.info.id);
        const text = (await run("session-start", { event: event.type, sessionID: p.info.id, directory: p.info.directory ?? directory, session: p.info })).trim();
        if (text) brief.set(p.info.id, text);
      } else if (event.type === "session.idle" && !children.has(p.sessionID)) {
        await run("stop", { event: event.type, sessionID: p.sessionID });
      } else if (event.type === "session.deleted" && p.info && !children.has(p.info.id)) {
        brief.delete(p.info.id);
        await run("session-end", { event: event.type, sessionID: p.info.id, directory: p.info.directory ?? directory, session: p.info });
      }
    },
    "chat.message": async (input, output) => {
      if (children.has(input.sessionID)) return;
      const typed = (output.parts ?? []).filter((x) => x.type === "text" && !x.synthetic && !x.ignored);
      const prompt = typed.map((x) => x.text).join("\\n");
      await run("prompt", { event: "chat.message", sessionID: input.sessionID, messageID: input.messageID ?? output.message?.id, agent: input.agent, prompt });
    },
    "tool.execute.before": async (input, output) => {
      args.set(input.callID, output.args);
    },
    "tool.execute.after": async (input, output) => {
      const toolArgs = input.args ?? args.get(input.callID);
      args.delete(input.callID);
      if (children.has(input.sessionID)) return;
      await run("tool", {
        event: "tool.execute.after",
        sessionID: input.sessionID,
        callID: input.callID,
        tool: input.tool,
        args: toolArgs,
        title: output.title,
        output: output.output,
        metadata: output.metadata,
      });
    },
    "experimental.session.compacting": async (input) => {
      if (!children.has(input.sessionID)) await run("pre-compact", { event: "experimental.session.compacting", sessionID: input.sessionID });
    },
    "experimental.chat.system.transform": async (input, output) => {
      const text = input.sessionID ? brief.get(input.sessionID) : undefined;
      if (text) output.system.push(text);
    },
  };
};
`;
}

/** OpenCode, wired through a plugin file Forge owns and the project's `opencode.json`. */
export const config: HostConfigSpec = {
  id: "opencode",
  label: "OpenCode",
  docs: [
    { url: "https://opencode.ai/docs/plugins/", version: "anomalyco/opencode packages/web docs@006a254 (2026): .opencode/plugins/, events list" },
    {
      url: "https://github.com/anomalyco/opencode/blob/dev/packages/plugin/src/index.ts",
      version: "@opencode-ai/plugin Hooks@0d4d22f: chat.message, tool.execute.after {tool, sessionID, callID, args}, experimental.session.compacting",
    },
    {
      url: "https://github.com/anomalyco/opencode/blob/dev/packages/sdk/js/src/gen/types.gen.ts",
      version: "@opencode-ai/sdk types@00078e8: session.created/idle/deleted properties, TextPart.synthetic",
    },
    { url: "https://opencode.ai/docs/mcp-servers/", version: "docs@00a9a98: mcp.<name> {type: local, command: [...], enabled}" },
    { url: "https://opencode.ai/docs/tools/", version: "docs@0e83f10: built-in tool names, apply_patch patchText markers" },
  ],
  detect: ["opencode.json", "opencode.jsonc", ".opencode"],
  edits(forge: string): readonly ConfigEdit[] {
    return [
      { file: OPENCODE_PLUGIN_FILE, format: "owned", text: opencodePlugin(forge) },
      {
        file: "opencode.json",
        format: "json",
        ops: [{ op: "set", path: ["mcp", "forge"], value: { type: "local", command: [forge, "mcp", "--profile", "lean"], enabled: true } }],
      },
    ];
  },
};
