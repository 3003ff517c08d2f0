// `forge mcp` as a child process, driven by the MCP SDK's own client over stdio.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { FORGE_BIN, forgeEnv } from "../support/cli.js";

export interface McpHarness {
  readonly client: Client;
  readonly stderr: () => string;
  /** Calls a tool that must succeed; returns its structured result. */
  ok(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Calls a tool that must fail; returns the error text. */
  fails(name: string, args?: Record<string, unknown>): Promise<string>;
  /** Lists the tools; returns the `result` of the response as it came over the wire, as JSON text. */
  toolsListJson(): Promise<string>;
  close(): Promise<void>;
}

/** Starts `forge ARGS mcp MCPARGS` in `cwd`: global options in `args`, the command's own (`--profile`) in `mcpArgs`. */
export async function startMcp(
  cwd: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
  mcpArgs: readonly string[] = [],
): Promise<McpHarness> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FORGE_BIN, ...args, "mcp", ...mcpArgs],
    cwd,
    // A developer's own FORGE_MCP_PROFILE must not pick the tools a test sees.
    env: forgeEnv({ FORGE_MCP_PROFILE: "", ...env }),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const client = new Client({ name: "forge-test", version: "1.0.0" });
  await client.connect(transport);
  // The tools/list responses as received, before the client's schema parses (and trims) them.
  const toolLists: unknown[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ("result" in message && typeof message.result === "object" && message.result !== null && "tools" in message.result) toolLists.push(message.result);
    deliver?.(message);
  };
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    client,
    stderr: () => stderr,
    async ok(name, args = {}) {
      const r = await call(name, args);
      const text = r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
      if (r.isError) throw new Error(`${name} failed: ${text}\nstderr: ${stderr}`);
      expect(r.structuredContent, `${name} returns structured content`).toBeTypeOf("object");
      return r.structuredContent as Record<string, unknown>;
    },
    async fails(name, args = {}) {
      const r = await call(name, args);
      const text = r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
      expect(r.isError, `${name} ${JSON.stringify(args)} should be a tool error, got ${text}`).toBe(true);
      return text;
    },
    async toolsListJson() {
      const before = toolLists.length;
      await client.listTools();
      expect(toolLists.length, "one tools/list response").toBe(before + 1);
      return JSON.stringify(toolLists.at(-1));
    },
    async close() {
      await client.close();
    },
  };
}
