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
// One function per event (the hook operations call them). A hook must never break the
// host's action: the caller (the CLI) reports a failure on stderr and exits 0 unless
// strict. This module only does the work and says what it did.
import { existsSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { InvalidArgumentError } from "../../core/errors.js";
import { getOwn } from "../../core/own.js";
import type { ReasoningSession } from "../../domains/reasoning/reasoning-session.js";
import type { WorkspaceLocation } from "../../domains/workspace/configured.js";
import type { Strategy } from "../../domains/workspace/names.js";
import type { Store } from "../../timeline/store.js";

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

/** What every hook event is told besides the host's input. */
export interface HookOptions {
  /** The Forge session holding the reasoning (default "default"). */
  readonly session: string;
  /** Where the workspace is (default: the hook input's cwd's .forge folder, else that cwd). */
  readonly workspace?: WorkspaceLocation;
  /** What snapshots do with changes made outside the agent (default warn). */
  readonly strategy?: Strategy;
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

// Each event loads only what it uses: a hook runs as its own process at every event of the
// host, and the reasoning session and the workspace engine are most of what it could load.

async function openReasoning(store: Store, session: string): Promise<ReasoningSession> {
  const { ReasoningSession } = await import("../../domains/reasoning/reasoning-session.js");
  return ReasoningSession.open(store, session);
}

function workspaceLocation(input: HookInput, options: HookOptions): WorkspaceLocation {
  const cwd = hookCwd(input);
  return { ...(cwd !== undefined && { cwd }), ...options.workspace };
}

/**
 * Records `edited` as the agent's, then (unless `recordOnly`) snapshots — only when
 * something changed, with `onlyIfChanged`. Says what it did in `actions` and `warnings`.
 */
async function snapshotFiles(
  store: Store,
  location: WorkspaceLocation,
  options: HookOptions,
  report: { actions: string[]; warnings: string[] },
  step: { message: string; edited?: readonly string[]; onlyIfChanged?: boolean; recordOnly?: boolean },
): Promise<void> {
  const { openConfiguredWorkspace } = await import("../../domains/workspace/configured.js");
  const ws = await openConfiguredWorkspace(store, location);
  const edited = step.edited ?? [];
  if (edited.length > 0) {
    const inside = edited.map((p) => resolve(location.cwd ?? ws.root, p));
    await ws.recordEdit(inside);
    report.actions.push(`recorded ${edited.length} edited path(s) as the agent's`);
  }
  if (step.recordOnly) return;
  const strategy = options.strategy ?? "warn";
  // One walk either way: snapshotIfChanged compares with the last snapshot as it records.
  const r = step.onlyIfChanged
    ? await ws.snapshotIfChanged(step.message, { strategy, tags: ["hook"] })
    : await ws.snapshot(step.message, { strategy, tags: ["hook"] });
  if (r === null) {
    report.actions.push(`files: unchanged since snapshot #${(await ws.session.head()).checkpoint?.seq ?? "?"}`);
    return;
  }
  if (r.changes.length === 0 && !r.external) report.actions.push(`files: nothing changed (snapshot #${r.snapshot.seq})`);
  else
    report.actions.push(
      `files: snapshot #${r.snapshot.seq}, ${r.changes.length} change(s)${r.external ? `, after #${r.external.seq} of changes made outside the agent` : ""}`,
    );
  if (r.unknown.length > 0 && !r.external)
    report.warnings.push(`${r.unknown.length} file(s) changed outside the agent: ${r.unknown.slice(0, 8).join(", ")}${r.unknown.length > 8 ? ", …" : ""}`);
}

/** session-start: the brief, for the host to add to the context — after a compaction, a resume or a clear, or always with `always`. */
export async function sessionStart(store: Store, input: HookInput, options: HookOptions & { readonly always?: boolean }): Promise<HookReport> {
  const source = input.source ?? "startup";
  if (!options.always && source === "startup") return { actions: ["session start: nothing to restore (a new session)"], warnings: [], stdout: "" };
  const existing = (await store.listSessions()).find((s) => s.name === options.session);
  if (!existing) return { actions: [`no session "${options.session}" yet: no brief`], warnings: [], stdout: "" };
  const brief = await (await openReasoning(store, options.session)).brief();
  return {
    actions: [`brief of "${options.session}" printed for the host (${source})`],
    warnings: [],
    stdout: `${brief.markdown.trimEnd()}\n\n(Forge: this brief is the reasoning saved before the ${source}; the \`forge\` tools or CLI continue it.)\n`,
  };
}

/** pre-compact: a checkpoint with the compaction trigger, changed or not; with `files`, a snapshot when the files changed. */
export async function preCompact(store: Store, input: HookInput, options: HookOptions & { readonly files?: boolean }): Promise<HookReport> {
  const report = { actions: [] as string[], warnings: [] as string[] };
  const rs = await openReasoning(store, options.session);
  const before = (await rs.session.head()).checkpoint;
  const cp = await rs.compactionWarning();
  // setWorking with a checkpoint makes one even when nothing changed: the compaction is the event.
  report.actions.push(
    `checkpoint #${cp.seq} (${cp.trigger}) before the ${input.trigger ?? "context"} compaction${before && before.stateRoot === cp.stateRoot ? " (state unchanged since the last)" : ""}`,
  );
  if (options.files) {
    await snapshotFiles(store, workspaceLocation(input, options), options, report, {
      message: `before ${input.trigger ?? ""} compaction`.replace(/\s+/g, " "),
      onlyIfChanged: true,
    });
  }
  return { ...report, stdout: "" };
}

/** post-edit: the edited paths recorded as the agent's, then (unless `snapshot` is false) a snapshot. */
export async function postEdit(store: Store, input: HookInput, options: HookOptions & { readonly snapshot?: boolean }): Promise<HookReport> {
  const report = { actions: [] as string[], warnings: [] as string[] };
  const paths = editedPaths(input);
  const message = paths.length > 0 ? `after ${input.tool_name ?? "edit"} ${paths.join(", ")}` : `after ${input.tool_name ?? "a tool"}`;
  await snapshotFiles(store, workspaceLocation(input, options), options, report, { message, edited: paths, recordOnly: options.snapshot === false });
  return { ...report, stdout: "" };
}

/** stop: a closing checkpoint when the reasoning changed since the last, and (unless `files` is false) a snapshot when files changed. */
export async function stop(store: Store, input: HookInput, options: HookOptions & { readonly files?: boolean }): Promise<HookReport> {
  const report = { actions: [] as string[], warnings: [] as string[] };
  const rs = await openReasoning(store, options.session);
  if (await rs.dirty()) {
    const cp = await rs.session.checkpointWorking({ message: "end of turn", trigger: "session-end", metadata: hostMetadata(input) });
    report.actions.push(`checkpoint #${cp.seq} (session-end)`);
  } else report.actions.push("reasoning unchanged since the last checkpoint: no checkpoint");
  if (options.files !== false) await snapshotFiles(store, workspaceLocation(input, options), options, report, { message: "end of turn", onlyIfChanged: true });
  return { ...report, stdout: "" };
}
