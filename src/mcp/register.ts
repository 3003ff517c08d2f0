// Operations as MCP tools: each tool is an operation's name, description and input schema
// (strict: an argument the tool does not know is an error that names it, not silently
// ignored), its result the operation's one JSON shape as structured content and as text for
// clients that read only text. A failure is a tool error with Forge's message; the server
// itself never fails because a call did.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { jsonText } from "../core/json-text.js";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { OperationContext } from "../operations/context.js";
import type { AnyOperation, Effect } from "../operations/operation.js";
import { errorText } from "./errors.js";

const ANNOTATIONS: Record<Effect, ToolAnnotations> = {
  read: { readOnlyHint: true, openWorldHint: false },
  write: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  destructive: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
};

export interface RegisterOptions {
  /** Repeat the title in the annotations (older clients read it there); the lean profile saves the bytes. */
  readonly titleAnnotation?: boolean;
}

export function registerOperation(server: McpServer, ctx: OperationContext, op: AnyOperation, { titleAnnotation = true }: RegisterOptions = {}): void {
  server.registerTool(
    op.name,
    {
      title: op.title,
      description: op.description,
      inputSchema: z.object(op.input(z)).strict(),
      annotations: { ...(titleAnnotation && { title: op.title }), ...ANNOTATIONS[op.effect], ...(op.openWorld && { openWorldHint: true }) },
    },
    // The SDK validated the arguments against the schema before this runs.
    (async (args: never): Promise<CallToolResult> => {
      try {
        const result = await op.run(ctx, args);
        return {
          content: [{ type: "text", text: op.text?.(result) ?? jsonText(result, 2) }],
          structuredContent: result as Record<string, unknown>,
        };
      } catch (e) {
        return { content: [{ type: "text", text: errorText(e) }], isError: true };
      }
    }) as never,
  );
}
