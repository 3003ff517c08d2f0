// What the MCP tools share besides the operation context: Forge's error as a tool's text,
// and any value as plain JSON data.
import { ForgeError } from "../core/errors.js";

/** Any value as plain JSON data: Dates become ISO strings, undefined fields go. */
export function plain<T>(value: T): unknown {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}

/** The error text a tool returns: Forge's message and hint. */
export function errorText(e: unknown): string {
  if (e instanceof ForgeError) return `forge: ${e.message}${e.hint ? `\nhint: ${e.hint}` : ""}`;
  return `forge: ${e instanceof Error ? e.message : String(e)}`;
}
