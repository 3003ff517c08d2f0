// A host's hook payload as the capture hooks read it, shared by the hook run in this process
// (operations/hooks/capture-run.ts) and the client that hands it to a long-lived Forge
// process first (domains/workspace/hook-client.ts), so both find the same working folder.
import { existsSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { ForgeError } from "./errors.js";

/** The payload a host sent on stdin: a JSON object (empty input: {}); its own fields kept as given. */
export function parsePayload(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  const value: unknown = JSON.parse(text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ForgeError("INVALID_ARGUMENT", "the hook input is not a JSON object");
  return value as Record<string, unknown>;
}

/** The folder a payload names as the host's working folder (Claude Code, Codex, Gemini CLI: cwd; Cursor: workspace_roots; Cline: workspaceRoots), if it exists. */
export function payloadCwd(payload: Record<string, unknown>): string | undefined {
  const roots = Object.hasOwn(payload, "workspace_roots")
    ? payload["workspace_roots"]
    : Object.hasOwn(payload, "workspaceRoots")
      ? payload["workspaceRoots"]
      : undefined;
  const named = Object.hasOwn(payload, "cwd") ? payload["cwd"] : Array.isArray(roots) ? roots[0] : undefined;
  return typeof named === "string" && isAbsolute(named) && existsSync(named) && statSync(named).isDirectory() ? named : undefined;
}
