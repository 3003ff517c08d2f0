// `forge mcp` as a child process, driven by the MCP SDK's own client over stdio.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { FORGE_BIN, forgeEnv } from "../support/cli.js";

export interface McpHarness {
  readonly client: Client;
  readonly stderr: () => string;
  /** Calls a tool that must succeed; returns its structured result. */
  ok(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Calls a tool that must fail; returns the error text. */
  fails(name: string, args?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function startMcp(cwd: string, args: readonly string[] = [], env: Record<string, string> = {}): Promise<McpHarness> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FORGE_BIN, ...args, "mcp"],
    cwd,
    env: forgeEnv(env),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const client = new Client({ name: "forge-test", version: "1.0.0" });
  await client.connect(transport);
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
    async close() {
      await client.close();
    },
  };
}
