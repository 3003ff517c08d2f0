// Hook payloads to HostEvent. Claude Code, Codex and Gemini CLI name the common fields alike
// (session_id, cwd, transcript_path, prompt, tool_name, tool_input, tool_response, source,
// trigger); each host module says which of its tools only read and where its edit tools
// name the files they write.
import { copyData } from "../../../core/own.js";
import type { CaptureKind, HostEvent, HostId } from "../types.js";
import { field, isObject, list, str, text } from "./fields.js";

/** What differs between hosts in reading a payload. */
export interface PayloadPolicy {
  /** Tools known to only read (files, the web, the agent's own notes): every other tool may write. */
  readonly readOnlyTools: ReadonlySet<string>;
  /** The paths an edit tool says it writes, from its input; [] for other tools. */
  editedPaths(toolName: string, input: unknown): string[];
}

/** A hook payload, normalized: own properties only, empty strings and nulls left out. */
/** The fields of a HostEvent a payload may give; undefined where it gave none. */
export type EventFields = { readonly [K in Exclude<keyof HostEvent, "host" | "kind" | "raw">]?: HostEvent[K] | undefined };

/** A HostEvent from what a host's payload gave: a field it did not give is left out, never set to undefined. */
export function hostEvent(host: HostId, kind: CaptureKind, raw: Readonly<Record<string, unknown>>, fields: EventFields): HostEvent {
  const out: Record<string, unknown> = { host, kind };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  out["raw"] = raw;
  return out as unknown as HostEvent;
}

export function normalizePayload(host: HostId, kind: CaptureKind, payload: Readonly<Record<string, unknown>>, policy: PayloadPolicy): HostEvent {
  const raw = copyData(isObject(payload) ? payload : {}) as Record<string, unknown>;
  const sessionId = text(raw, "session_id");
  const cwd = text(raw, "cwd");
  const transcriptPath = text(raw, "transcript_path");
  const source = kind === "session-start" ? text(raw, "source") : undefined;
  const trigger = kind === "pre-compact" ? text(raw, "trigger") : undefined;
  const prompt = kind === "prompt" ? str(raw, "prompt") : undefined;
  const toolName = kind === "tool" ? text(raw, "tool_name") : undefined;
  const tool =
    toolName === undefined
      ? undefined
      : {
          name: toolName,
          ...(text(raw, "tool_use_id") !== undefined && { id: text(raw, "tool_use_id") }),
          ...(field(raw, "tool_input") !== undefined && { input: field(raw, "tool_input") }),
          ...(field(raw, "tool_response") !== undefined && { response: field(raw, "tool_response") }),
          mayWrite: !policy.readOnlyTools.has(toolName),
          editedPaths: policy.editedPaths(toolName, field(raw, "tool_input")),
        };
  return hostEvent(host, kind, raw, { sessionId, cwd, transcriptPath, prompt, tool, source, trigger });
}

/**
 * The paths an edit tool's input names: `file_path`, `notebook_path`, `path`, `absolute_path`,
 * and the same fields of each entry of an `edits` list. Duplicates are given once.
 */
export function inputPaths(input: unknown): string[] {
  const out: string[] = [];
  const add = (o: unknown) => {
    for (const key of ["file_path", "notebook_path", "path", "absolute_path"]) {
      const p = text(o, key);
      if (p !== undefined && !out.includes(p)) out.push(p);
    }
  };
  add(input);
  for (const edit of list(input, "edits") ?? []) add(edit);
  return out;
}

/**
 * The files a Codex-style patch (`*** Begin Patch` … `*** End Patch`) adds, updates, deletes
 * or moves to, in the order it names them.
 */
export function patchPaths(patch: string): string[] {
  const out: string[] = [];
  for (const line of patch.split(/\r?\n/)) {
    const m = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/.exec(line);
    const p = m?.[1]?.trim();
    if (p !== undefined && p !== "" && !out.includes(p)) out.push(p);
  }
  return out;
}
