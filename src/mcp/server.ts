// `forge mcp`: Forge as a Model Context Protocol server. An agent sees checkpoints, time
// travel, the reasoning board and workspace snapshots as tools, and the current brief and
// timeline as resources, instead of shelling out to the CLI and parsing its text. The lean
// profile serves a handful of short tools instead, for hosts that pay for the list every turn.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { jsonText } from "../core/json-text.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { VERSION } from "../cli/version.js";
import { OperationContext, type ContextOptions } from "../operations/context.js";
import { timelineOperation } from "../operations/checkpoint/read.js";
import type { AnyOperation } from "../operations/operation.js";
import { briefOperation } from "../operations/reasoning/resume.js";
import { serveFileHints } from "../operations/watch/hints.js";
import { errorText } from "./errors.js";
import { LEAN_OPERATIONS } from "./lean.js";
import { MCP_OPERATIONS } from "./operations.js";
import { DEFAULT_MCP_PROFILE, type McpProfile } from "./profiles.js";
import { registerOperation, type RegisterOptions } from "./register.js";

const INSTRUCTIONS = `Forge keeps checkpoints of your working state so nothing is lost to a context compaction, a bad experiment or a crash.
- Record your reasoning as you go: task_set, hypothesis_add/update, evidence_add, belief_add, gap_add/fill, note_add, verify. Confirming or rejecting a hypothesis and other significant changes make automatic checkpoints.
- checkpoint_create before anything risky (with files: true to include the code); files_snapshot after edits.
- After a compaction or a restart, read the brief (tool or resource forge://brief) first.
- checkpoint_compare and files_diff show what changed; checkpoint_restore and files_restore go back (they change state: read their descriptions).`;

const LEAN_INSTRUCTIONS = `Forge keeps checkpoints of your reasoning and files; the host records the conversation and file edits. After a compaction or restart read brief first. Record your reasoning with record; checkpoint_create before anything risky. checkpoint_restore and files_restore change state.`;

/** What a profile serves: its tools and the instructions that introduce them. */
const PROFILES: Record<McpProfile, { readonly operations: readonly AnyOperation[]; readonly instructions: string; readonly register: RegisterOptions }> = {
  full: { operations: MCP_OPERATIONS, instructions: INSTRUCTIONS, register: {} },
  lean: { operations: LEAN_OPERATIONS, instructions: LEAN_INSTRUCTIONS, register: { titleAnnotation: false } },
};

export interface McpServerOptions extends ContextOptions {
  /** Which tools to serve (default full: every tool). */
  readonly profile?: McpProfile;
}

export function createMcpServer(options: McpServerOptions = {}): { server: McpServer; context: OperationContext } {
  const { profile = DEFAULT_MCP_PROFILE, ...contextOptions } = options;
  const { operations, instructions, register } = PROFILES[profile];
  const context = new OperationContext(contextOptions);
  const server = new McpServer({ name: "forge", title: "Forge checkpoints", version: VERSION }, { instructions, capabilities: { tools: {}, resources: {} } });
  for (const op of operations) registerOperation(server, context, op, register);

  server.registerResource(
    "brief",
    "forge://brief",
    { title: "Brief", description: "The default session's reasoning state as a markdown brief", mimeType: "text/markdown" },
    async (uri) => {
      try {
        const brief = await briefOperation.run(context, { includeState: false });
        return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: brief.markdown }] };
      } catch (e) {
        throw new Error(errorText(e));
      }
    },
  );
  server.registerResource(
    "timeline",
    "forge://timeline",
    { title: "Timeline", description: "The default session's checkpoints, parents and branch heads", mimeType: "application/json" },
    async (uri) => {
      try {
        const data = await timelineOperation.run(context, {});
        return { contents: [{ uri: uri.href, mimeType: "application/json", text: jsonText(data, 2) }] };
      } catch (e) {
        throw new Error(errorText(e));
      }
    },
  );
  return { server, context };
}

/** Serves on standard input and output until the client closes them. */
export async function serveStdio(options: McpServerOptions = {}): Promise<void> {
  const { server, context } = createMcpServer(options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await server.connect(transport);
  refusePrototypeKeyArguments(transport);
  // While it runs, the hooks and statuses of the workspace ask it which files changed, and
  // the capture hooks hand it their work (over the store it opened from a URL, not one given open).
  const given = options.store;
  const hints = await serveFileHints(options.root, typeof given === "object" ? undefined : { open: () => context.store(), url: given });
  try {
    await closed;
  } finally {
    hints?.close();
  }
  await server.close().catch(() => undefined);
  await context.close();
}

/** A tool's argument no schema can see: the SDK reads arguments with z.record, which drops it. */
const UNSEEN_ARGUMENT = "__proto__";

/**
 * Answers a tool call with an argument named "__proto__" as the strict schemas answer any
 * argument a tool does not know — a tool error naming it — instead of letting the SDK drop
 * it silently and run the tool without it. Every other message goes on to the server.
 */
function refusePrototypeKeyArguments(transport: StdioServerTransport): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    const m = message as { method?: unknown; id?: unknown; params?: { name?: unknown; arguments?: unknown } };
    const args = m.params?.arguments;
    if (
      m.method === "tools/call" &&
      (typeof m.id === "string" || typeof m.id === "number") &&
      typeof args === "object" &&
      args !== null &&
      Object.hasOwn(args, UNSEEN_ARGUMENT)
    ) {
      const text = `forge: unknown argument "${UNSEEN_ARGUMENT}" of tool ${JSON.stringify(m.params?.name)}: no tool takes an argument by that name`;
      transport
        .send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text }], isError: true } })
        .catch((e: unknown) => transport.onerror?.(e as Error));
      return;
    }
    deliver?.(message);
  };
}
