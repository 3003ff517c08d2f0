// How a failure reads in an MCP tool result or resource: Forge's message and its hint.
import { ForgeError } from "../core/errors.js";

/** The error text a tool returns: Forge's message and hint. */
export function errorText(e: unknown): string {
  if (e instanceof ForgeError) return `forge: ${e.message}${e.hint ? `\nhint: ${e.hint}` : ""}`;
  return `forge: ${e instanceof Error ? e.message : String(e)}`;
}
