// Hooks for coding-agent hosts (Claude Code and any host that runs a command with the
// event's JSON on stdin): checkpoint at the moments that matter without the agent asking.
//
//   session-start  the brief of the session, printed for the host to add to the context
//                  (Claude Code's SessionStart adds a hook's stdout); only after a
//                  compaction, a resume or a clear unless `--always` says otherwise
//   pre-compact    an automatic checkpoint with the compaction trigger, changed or not
//   post-edit      the edited paths recorded as the agent's own, then a workspace
//                  snapshot: whatever else changed is reported as changed outside the agent
//   stop           a closing checkpoint of the reasoning (when it changed since the last)
//                  and a workspace snapshot (when files changed)
//
// A hook must never break the host's action: the caller (the CLI) reports a failure on
// stderr and exits 0 unless strict. This module only does the work and says what it did.
import { existsSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { InvalidArgumentError } from "../../core/errors.js";
import { getOwn } from "../../core/own.js";
import { ReasoningSession } from "../../domains/reasoning/reasoning-session.js";
import { openConfiguredWorkspace, type WorkspaceLocation } from "../../domains/workspace/configured.js";
import { STRATEGIES, type Strategy } from "../../domains/workspace/names.js";
import type { Store } from "../../timeline/store.js";

import { HOOK_EVENTS, type HookEvent } from "./events.js";
export { HOOK_EVENTS, type HookEvent };

/** The fields Forge reads from a host's hook input (Claude Code's names); all optional. */
export interface HookInput {
  readonly session_id?: string;
  readonly transcript_path?: string;
  readonly cwd?: string;
  readonly hook_event_name?: string;
  /** PreCompact: "manual" or "auto". SessionStart: not used. */
  readonly trigger?: string;
  /** SessionStart: "startup", "resume", "clear" or "compact". */
  readonly source?: string;
  readonly tool_name?: string;
  readonly tool_input?: Record<string, unknown>;
  readonly tool_response?: unknown;
  readonly stop_hook_active?: boolean;
}

export interface HookOptions {
  /** The Forge session holding the reasoning (default "default"). */
  readonly session: string;
  /** Where the workspace is (default: the hook input's cwd's .forge folder, else that cwd). */
  readonly workspace?: WorkspaceLocation;
  /** What snapshots do with changes made outside the agent (default warn). */
  readonly strategy?: Strategy;
  /** post-edit: only record the edit, no snapshot (a later stop hook takes it). */
  readonly snapshot?: boolean;
  /** pre-compact and stop: also snapshot the files. */
  readonly files?: boolean;
  /** session-start: print the brief whatever the source. */
  readonly always?: boolean;
}

export interface HookReport {
  /** One line per thing done, for stderr or logs. */
  readonly actions: readonly string[];
  /** What the host should read on stdout (session-start's brief); empty otherwise. */
  readonly stdout: string;
  /** Warnings worth showing (changes made outside the agent, …). */
  readonly warnings: readonly string[];
}

/** The fields of HookInput, the only ones read from a host's input. */
const INPUT_FIELDS = [
  "session_id",
  "transcript_path",
  "cwd",
  "hook_event_name",
  "trigger",
  "source",
  "tool_name",
  "tool_input",
  "tool_response",
  "stop_hook_active",
] as const satisfies readonly (keyof HookInput)[];

/** Parses a hook's stdin: empty is {}; anything but a JSON object is an error naming it. */
export function parseHookInput(text: string): HookInput {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new InvalidArgumentError(`the hook input is not JSON: ${(e as Error).message}`, "the host sends one JSON object on stdin; nothing else is read");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new InvalidArgumentError("the hook input is not a JSON object");
  // The input's own fields, by name: a key such as "__proto__" stays data that no lookup of
  // a field reaches, and a field the input lacks is never found on a prototype.
  const input: Record<string, unknown> = {};
  for (const k of INPUT_FIELDS) {
    const v = getOwn(value, k);
    if (v !== undefined) input[k] = v;
  }
  return input as HookInput;
}

/** The host's working folder from its input, if it names one that exists. */
export function hookCwd(input: HookInput): string | undefined {
  const cwd = input.cwd;
  return typeof cwd === "string" && isAbsolute(cwd) && existsSync(cwd) && statSync(cwd).isDirectory() ? cwd : undefined;
}

/** Paths an edit tool changed, from its input (Edit, Write, MultiEdit, NotebookEdit and the like). */
export function editedPaths(input: HookInput): string[] {
  const ti: object = typeof input.tool_input === "object" && input.tool_input !== null ? input.tool_input : {};
  const out = new Set<string>();
  for (const key of ["file_path", "notebook_path", "path"]) {
    const v = getOwn(ti, key);
    if (typeof v === "string" && v !== "") out.add(v);
  }
  const paths = getOwn(ti, "paths");
  if (Array.isArray(paths)) for (const p of paths) if (typeof p === "string" && p !== "") out.add(p);
  return [...out];
}

function hostMetadata(input: HookInput): Record<string, unknown> {
  return {
    hook: input.hook_event_name ?? null,
    ...(input.session_id !== undefined && { hostSession: input.session_id }),
    ...(input.transcript_path !== undefined && { transcript: input.transcript_path }),
  };
}

/** Runs one hook event against `store`. */
export async function runHook(store: Store, event: HookEvent, input: HookInput, options: HookOptions): Promise<HookReport> {
  if (!(HOOK_EVENTS as readonly string[]).includes(event)) throw new InvalidArgumentError(`unknown hook "${event}"`, `use one of ${HOOK_EVENTS.join(", ")}`);
  const strategy = options.strategy ?? "warn";
  if (!(STRATEGIES as readonly string[]).includes(strategy)) throw new InvalidArgumentError(`unknown strategy "${strategy}"`, `use one of ${STRATEGIES.join(", ")}`);
  const actions: string[] = [];
  const warnings: string[] = [];
  const location: WorkspaceLocation = { ...(hookCwd(input) !== undefined && { cwd: hookCwd(input) as string }), ...options.workspace };

  /** Records `edited` as the agent's, then snapshots (only when something changed, with `onlyIfChanged`). */
  const snapshot = async (message: string, edited: readonly string[] = [], onlyIfChanged = false): Promise<void> => {
    const ws = await openConfiguredWorkspace(store, location);
    if (edited.length > 0) {
      const inside = edited.map((p) => resolve(location.cwd ?? ws.root, p));
      await ws.recordEdit(inside);
      actions.push(`recorded ${edited.length} edited path(s) as the agent's`);
    }
    if (options.snapshot === false) return;
    // One walk either way: snapshotIfChanged compares with the last snapshot as it records.
    const r = onlyIfChanged ? await ws.snapshotIfChanged(message, { strategy, tags: ["hook"] }) : await ws.snapshot(message, { strategy, tags: ["hook"] });
    if (r === null) {
      actions.push(`files: unchanged since snapshot #${(await ws.session.head()).checkpoint?.seq ?? "?"}`);
      return;
    }
    if (r.changes.length === 0 && !r.external) actions.push(`files: nothing changed (snapshot #${r.snapshot.seq})`);
    else actions.push(`files: snapshot #${r.snapshot.seq}, ${r.changes.length} change(s)${r.external ? `, after #${r.external.seq} of changes made outside the agent` : ""}`);
    if (r.unknown.length > 0 && !r.external) warnings.push(`${r.unknown.length} file(s) changed outside the agent: ${r.unknown.slice(0, 8).join(", ")}${r.unknown.length > 8 ? ", …" : ""}`);
  };

  switch (event) {
    case "session-start": {
      const source = input.source ?? "startup";
      if (!options.always && source === "startup") {
        actions.push("session start: nothing to restore (a new session)");
        break;
      }
      const existing = (await store.listSessions()).find((s) => s.name === options.session);
      if (!existing) {
        actions.push(`no session "${options.session}" yet: no brief`);
        break;
      }
      const rs = await ReasoningSession.open(store, options.session);
      const brief = await rs.brief();
      actions.push(`brief of "${options.session}" printed for the host (${source})`);
      return { actions, warnings, stdout: `${brief.markdown.trimEnd()}\n\n(Forge: this brief is the reasoning saved before the ${source}; the \`forge\` tools or CLI continue it.)\n` };
    }
    case "pre-compact": {
      const rs = await ReasoningSession.open(store, options.session);
      const before = (await rs.session.head()).checkpoint;
      const cp = await rs.compactionWarning();
      // setWorking with a checkpoint makes one even when nothing changed: the compaction is the event.
      actions.push(`checkpoint #${cp.seq} (${cp.trigger}) before the ${input.trigger ?? "context"} compaction${before && before.stateRoot === cp.stateRoot ? " (state unchanged since the last)" : ""}`);
      if (options.files) await snapshot(`before ${input.trigger ?? ""} compaction`.replace(/\s+/g, " "), [], true);
      break;
    }
    case "post-edit": {
      const paths = editedPaths(input);
      await snapshot(paths.length > 0 ? `after ${input.tool_name ?? "edit"} ${paths.join(", ")}` : `after ${input.tool_name ?? "a tool"}`, paths);
      break;
    }
    case "stop": {
      const rs = await ReasoningSession.open(store, options.session);
      if (await rs.dirty()) {
        const cp = await rs.session.checkpointWorking({ message: "end of turn", trigger: "session-end", metadata: hostMetadata(input) });
        actions.push(`checkpoint #${cp.seq} (session-end)`);
      } else actions.push("reasoning unchanged since the last checkpoint: no checkpoint");
      if (options.files !== false) await snapshot("end of turn", [], true);
      break;
    }
  }
  return { actions, warnings, stdout: "" };
}
