// What Forge does at a host's hook: one host session, one timeline. At every event the new
// part of the host's transcript is imported into the session's conversation (each entry
// once, by its key), and the files are snapshotted when they may have changed (a prompt
// boundary, a tool that may write, the end of a turn) — shell commands and the user's own
// edits between turns included. A prompt is a checkpoint of that moment: the conversation
// before it (the prompt's own message, when the host wrote it down before its hook, comes
// after the checkpoint: a turn starts with its prompt, see turns.ts), the files as they were
// (its files root) and the reasoning session's HEAD, so a rewind to prompt N brings back exactly that.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { FORGE_DIR, findForgeRoot } from "../../core/config.js";
import { ForgeError } from "../../core/errors.js";
import type { Message } from "../../domains/conversation/model.js";
import type { Store } from "../../timeline/store.js";
import type { Checkpoint } from "../../timeline/types.js";
import type { HookReport } from "../hooks/hooks.js";
import { type AgentState, withAgentState } from "./agent-state.js";
import { hostCapture } from "./capture/index.js";
import { recordAgentWrite, writeOfEvent } from "./agent-writes.js";
import { markFired } from "./fired.js";
import { implicitSessionId } from "./implicit-session.js";
import { ownPromptIndex } from "./turns.js";
import type { CaptureKind, CapturedMessage, HostCapture, HostEvent, HostId } from "./types.js";

/** The trigger of a prompt's checkpoint (`forge rewind --to-prompt N` finds it by its `prompt` metadata). */
export const PROMPT_TRIGGER = "prompt";

export interface CaptureOptions {
  /** The folder the hook runs in when the payload names none. */
  readonly cwd: string;
  /** The reasoning session whose HEAD a prompt's checkpoint names (default "default"). */
  readonly reasoningSession: string;
  /** For session-start: the brief to give the host (after a compaction, resume or clear). */
  readonly brief?: (event: HostEvent) => Promise<string>;
}

/**
 * Every captured message passes here on its way into the store: the one place where what a
 * host wrote is changed before it is kept. Secrets are not redacted here but where every
 * write passes, in the value encoder (docs/ARCHITECTURE.md, Secrets): a transcript's
 * messages, the payload facts in checkpoint metadata and the host's session id alike.
 */
export function prepareForStore(messages: readonly CapturedMessage[]): Message[] {
  return messages.map((m) => ({ ...m.message, id: m.key }));
}

/** Runs Forge's side of `host`'s `kind` hook on its payload. */
export async function captureEvent(
  store: Store,
  host: HostId,
  kind: CaptureKind,
  payload: Readonly<Record<string, unknown>>,
  options: CaptureOptions,
): Promise<HookReport> {
  const cap = await hostCapture(host);
  const foreign = cap.foreign?.(payload);
  if (foreign !== undefined) return { actions: [`skipped: ${foreign}`], warnings: [], stdout: cap.output(kind, "") };
  const event = cap.normalize(kind, payload);
  const cwd = event.cwd ?? options.cwd;
  const root = findForgeRoot(cwd) ?? cwd;
  const forgeDir = join(root, FORGE_DIR);
  if (existsSync(forgeDir)) markFired(forgeDir, host, kind);
  const actions: string[] = [];
  const warnings: string[] = [];
  let context = "";
  if (kind === "session-start" && options.brief && event.source !== undefined && event.source !== "startup") context = await options.brief(event);

  const files = filesMoment(event);
  const sessionId = event.sessionId ?? (cap.implicitSession && existsSync(forgeDir) ? await implicitSessionId(forgeDir, host, kind) : undefined);
  if (sessionId === undefined) {
    warnings.push(`the ${host} ${kind} payload names no session: files only`);
    if (files) await snapshotFiles(store, root, event, files, actions);
    return { actions, warnings, stdout: cap.output(kind, context) };
  }
  // The host's id is kept (state file, checkpoint metadata) only with its secrets redacted.
  const shownId = await store.redactor.redactText(sessionId);
  await withAgentState(
    forgeDir,
    host,
    sessionId,
    async (state) => {
      const { ConversationSession } = await import("../../domains/conversation/conversation-session.js");
      const conversation = await ConversationSession.open(store, state.session);
      if (state.cursor === null && state.prompts === 0) state.prompts = await promptCount(conversation.session);
      const held = await conversation.messages();
      const imported = importTranscript(cap, event, state, new Set(held.flatMap((m) => (m.id === undefined ? [] : [m.id]))));
      // A prompt's checkpoint holds the conversation before the prompt's own message, which a
      // host that writes it down before its hook has among the new entries: those go in after it.
      const cut = kind === "prompt" ? ownPromptIndex(imported, event.prompt, cap.promptBeforeHook === true) : imported.length;
      const before = imported.slice(0, cut);
      const after = imported.slice(cut);
      if (imported.length > 0) actions.push(`conversation: ${imported.length} new ${imported.length === 1 ? "entry" : "entries"} from ${state.transcript}`);
      if (before.length > 0) await conversation.append(prepareForStore(before), { format: "forge" });
      const epoch = await store.gcEpoch();
      // A tool's snapshot is recorded as that tool call's doing, for `forge blame`.
      const wrote: Wrote | undefined =
        kind === "tool"
          ? (snap, wsSession) =>
              recordAgentWrite(store, root, wsSession, {
                snapshot: snap.id,
                host,
                session: state.session,
                hostSession: shownId,
                prompt: state.prompts,
                ...writeOfEvent(event, root),
              })
          : undefined;
      const snapshot = files ? await snapshotFiles(store, root, event, files, actions, wrote) : null;
      if (kind === "prompt") {
        state.prompts += 1;
        if ((await conversation.session.working()) === undefined) await conversation.replace([]);
        const cp = await conversation.session.checkpointWorking({
          message: `prompt ${state.prompts}: ${oneLine(event.prompt ?? "")}`,
          trigger: PROMPT_TRIGGER,
          tags: [host],
          metadata: {
            host,
            hostSession: shownId,
            prompt: state.prompts,
            ...(event.prompt !== undefined && { text: event.prompt }),
            messages: held.length + before.length,
            ...(snapshot && { filesSnapshot: snapshot.id }),
            reasoning: await reasoningHead(store, options.reasoningSession),
          },
          filesRoot: snapshot?.filesRoot ?? null,
          gcEpoch: epoch,
        });
        actions.push(`prompt ${state.prompts}: checkpoint #${cp.seq} ${cp.id.slice(0, 10)}`);
      } else if (kind === "pre-compact" && (await conversation.session.working()) !== undefined) {
        const cp = await conversation.session.checkpointWorking({
          message: `before ${event.trigger ?? ""} compaction`.replace(/\s+/g, " "),
          trigger: "pre-compact",
          tags: [host],
          metadata: { host, hostSession: shownId, prompt: state.prompts },
          filesRoot: snapshot?.filesRoot ?? null,
          gcEpoch: epoch,
        });
        actions.push(`before compaction: checkpoint #${cp.seq}`);
      }
      if (after.length > 0) await conversation.append(prepareForStore(after), { format: "forge" });
      // A host with no transcript to read: what the payload itself says (the prompt, the tool call, the reply).
      const said = cap.transcript === undefined ? (cap.payloadMessages?.(event, `hook:${kind}:${held.length + imported.length}`) ?? []) : [];
      if (said.length > 0) {
        await conversation.append(prepareForStore(said), { format: "forge" });
        actions.push(`conversation: ${said.length} ${said.length === 1 ? "entry" : "entries"} from the ${kind} payload`);
      }
      if (snapshot) state.filesRoot = snapshot.filesRoot;
      const now = new Date().toISOString();
      state.lastActivity = now;
      state.lastEvent = kind;
      if (kind === "session-end") state.ended = now;
      else if (kind === "session-start") state.ended = null;
    },
    shownId,
  );
  return { actions, warnings, stdout: cap.output(kind, context) };
}

/** Told of a new snapshot an event took (and the workspace session holding it). */
type Wrote = (snapshot: Checkpoint, workspaceSession: string) => Promise<unknown>;

/** Whether this event is a moment to snapshot the files, and the paths its tool says it edited. */
function filesMoment(event: HostEvent): { readonly edited: readonly string[] } | null {
  if (event.kind === "tool") return event.tool?.mayWrite === false ? null : { edited: event.tool?.editedPaths ?? [] };
  return { edited: [] };
}

async function snapshotFiles(
  store: Store,
  root: string,
  event: HostEvent,
  files: { readonly edited: readonly string[] },
  actions: string[],
  wrote?: Wrote,
): Promise<Checkpoint | null> {
  const { openConfiguredWorkspace } = await import("../../domains/workspace/configured.js");
  const ws = await openConfiguredWorkspace(store, { root });
  if (files.edited.length > 0) await ws.recordEdit(files.edited.map((p) => (p.startsWith("/") ? p : join(event.cwd ?? root, p))));
  const what = event.kind === "tool" ? `after ${event.tool?.name ?? "a tool"}` : event.kind === "prompt" ? "at a prompt" : `at ${event.kind}`;
  const r = await ws.snapshotIfChanged(`${event.host}: ${what}`, { strategy: "warn", tags: ["hook", event.host] });
  if (r === null) return (await ws.session.head()).checkpoint;
  actions.push(`files: snapshot #${r.snapshot.seq}, ${r.changes.length} ${r.changes.length === 1 ? "change" : "changes"}`);
  if (wrote) await wrote(r.snapshot, ws.session.name);
  return r.snapshot;
}

/** The transcript's entries since the last read that the conversation does not hold yet. */
function importTranscript(cap: HostCapture, event: HostEvent, state: AgentState, known: ReadonlySet<string>): CapturedMessage[] {
  const format = cap.transcript;
  const path = event.transcriptPath ?? cap.locateTranscript?.(event) ?? state.transcript ?? undefined;
  if (format === undefined || path === undefined || !existsSync(path)) return [];
  // Another file (a resumed or forked session): read it from its start; known entries are skipped by key.
  const cursor = path === state.transcript ? state.cursor : null;
  const read = format.read(path, cursor);
  state.transcript = path;
  state.cursor = read.cursor;
  const out: CapturedMessage[] = [];
  const seen = new Set(known);
  for (const m of read.messages) {
    if (seen.has(m.key)) continue;
    seen.add(m.key);
    out.push(m);
  }
  return out;
}

async function promptCount(session: { list(filter: { trigger: string }): Promise<Checkpoint[]> }): Promise<number> {
  return (await session.list({ trigger: PROMPT_TRIGGER })).reduce((n, cp) => Math.max(n, Number(cp.metadata["prompt"]) || 0), 0);
}

/** The reasoning session's HEAD checkpoint id, if it has one. */
async function reasoningHead(store: Store, name: string): Promise<string | null> {
  const session = await store.getSession(name).catch((e: unknown) => {
    if (e instanceof ForgeError && e.code === "SESSION_NOT_FOUND") return undefined;
    throw e;
  });
  return (await session?.head())?.checkpoint?.id ?? null;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 72 ? `${line.slice(0, 71)}…` : line;
}
