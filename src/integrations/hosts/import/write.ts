// How an imported stretch of a host session's transcript becomes its Forge session: the
// conversation session "agent/<host>/<id>" live capture writes, its entries keyed as live
// capture keys them and passed through the same seam (prepareForStore), so whichever came
// first, one host session is one timeline and no entry is stored twice.
//
// A session new to the store is written whole at once (Store.importHistory): a checkpoint per
// prompt at the prompt's own time, holding the conversation before it — as live capture's
// prompt checkpoints do, but with no files root, since nobody recorded the files then — then
// one "import" checkpoint holding everything, so the last turn is searchable too. A session the
// store has (captured live, or imported before) gets the new entries appended the same way,
// checkpoint by checkpoint. Every checkpoint says it was imported (metadata `imported`, the
// importer's format and version, and `filesKnown: false`); secrets are redacted on the way in
// like every other write.
import { ForgeError } from "../../../core/errors.js";
import { ConversationSession } from "../../../domains/conversation/conversation-session.js";
import { CONVERSATION_SESSION_KIND, conversationState, type Message } from "../../../domains/conversation/model.js";
import type { HistoryCheckpoint } from "../../../timeline/history-import.js";
import type { Store } from "../../../timeline/store.js";
import { type Checkpoint, MAIN_BRANCH } from "../../../timeline/types.js";
import { promptCheckpoints } from "../agent-sessions.js";
import { PROMPT_TRIGGER, prepareForStore } from "../capture-event.js";
import { isPromptMessage, turnStart } from "../turns.js";
import type { CapturedMessage, HostId } from "../types.js";

/** The trigger of the checkpoint that closes an import (all the messages read). */
export const IMPORT_TRIGGER = "import";

/** What every imported checkpoint and session records about where it came from. */
export interface ImportStamp {
  readonly format: string;
  readonly version: number;
}

export interface ImportWrite {
  readonly host: HostId;
  readonly label: string;
  /** The host's session id, its secrets redacted. */
  readonly shownId: string;
  /** The Forge session. */
  readonly session: string;
  /** The transcript read. */
  readonly file: string;
  /** The entries read, in order (those the session holds already are skipped). */
  readonly entries: readonly CapturedMessage[];
  /** Prompts the session had before these (the hook state's count). */
  readonly promptsBefore: number;
  readonly stamp: ImportStamp;
  /** A sub-agent's session: the host session that started it. */
  readonly parent?: string;
}

export interface ImportWritten {
  /** The store holds the session (false: it was new, and nothing in the entries was conversation to start it with). */
  readonly held: boolean;
  /** The session was new to the store. */
  readonly created: boolean;
  /** Entries stored. */
  readonly added: number;
  /** Prompts among them. */
  readonly prompts: number;
  /** The number of the session's last prompt now (0: none). */
  readonly lastPrompt: number;
  /** When the first and the last entry stored were written by the host (ISO), when they say. */
  readonly first: string | null;
  readonly last: string | null;
}

/** Writes the entries of `input` the session does not hold yet; nothing for a new session with no conversation in them. */
export async function writeImported(store: Store, input: ImportWrite): Promise<ImportWritten> {
  const existing = await store.getSession(input.session).catch((e: unknown) => {
    if (e instanceof ForgeError && e.code === "SESSION_NOT_FOUND") return undefined;
    throw e;
  });
  const conversation = existing === undefined ? undefined : await ConversationSession.open(store, input.session);
  const held = conversation === undefined ? [] : await conversation.messages();
  const known = new Set(held.flatMap((m) => (m.id === undefined ? [] : [m.id])));
  const fresh = input.entries.filter((e) => !known.has(e.key) && known.add(e.key));
  const none: ImportWritten = {
    held: conversation !== undefined,
    created: false,
    added: 0,
    prompts: 0,
    lastPrompt: input.promptsBefore,
    first: null,
    last: null,
  };
  // A session of host records alone (a file the host opened and never talked in) is not one to start.
  if (fresh.length === 0 || (conversation === undefined && !fresh.some((e) => e.message.role !== "system"))) return none;
  const messages = prepareForStore(fresh);
  const times = timesOf(fresh);
  const written = {
    added: fresh.length,
    prompts: fresh.filter((e) => e.prompt).length,
    first: fresh.find((e) => e.at !== undefined)?.at ?? null,
    last: fresh.findLast((e) => e.at !== undefined)?.at ?? null,
  };
  if (conversation === undefined) {
    await createSession(store, input, fresh, messages, times);
    return { held: true, created: true, ...written, lastPrompt: written.prompts };
  }
  const lastPrompt = await appendToSession(conversation, input, fresh, messages, held);
  return { held: true, created: false, ...written, lastPrompt };
}

/** Epoch ms of each entry: its own time, else the last one before it, else the first one after it, else now. */
function timesOf(entries: readonly CapturedMessage[]): number[] {
  const own = entries.map((e) => (e.at === undefined ? Number.NaN : Date.parse(e.at)));
  const firstKnown = own.find((t) => !Number.isNaN(t)) ?? Date.now();
  let last = firstKnown;
  return own.map((t) => (Number.isNaN(t) ? last : (last = t)));
}

function promptText(m: Message): string {
  if (typeof m.content === "string") return m.content;
  return (m.content ?? []).flatMap((p) => (p.type === "text" && typeof p["text"] === "string" ? [p["text"]] : [])).join("\n");
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 72 ? `${line.slice(0, 71)}…` : line;
}

/** What a prompt's checkpoint carries: what live capture's does, and that it was imported. */
function promptCheckpoint(input: ImportWrite, n: number, text: string, before: number, at: string | undefined) {
  return {
    message: `prompt ${n}: ${oneLine(text)}`,
    tags: [input.host, "imported"],
    trigger: PROMPT_TRIGGER,
    metadata: {
      host: input.host,
      hostSession: input.shownId,
      prompt: n,
      text,
      messages: before,
      imported: { ...input.stamp },
      filesKnown: false,
      ...(at !== undefined && { at }),
    },
  };
}

/** What the closing checkpoint carries. */
function importCheckpoint(input: ImportWrite, added: number, total: number, prompts: number) {
  return {
    message: `imported ${added} ${added === 1 ? "entry" : "entries"} from ${input.label}'s transcript`,
    tags: [input.host, "imported"],
    trigger: IMPORT_TRIGGER,
    metadata: {
      host: input.host,
      hostSession: input.shownId,
      messages: total,
      prompts,
      imported: { ...input.stamp },
      filesKnown: false,
      file: input.file,
    },
  };
}

async function createSession(store: Store, input: ImportWrite, fresh: readonly CapturedMessage[], messages: Message[], times: readonly number[]) {
  const checkpoints: HistoryCheckpoint[] = [];
  let parent: string | null = null;
  fresh.forEach((e, i) => {
    if (!e.prompt) return;
    const n = checkpoints.length + 1;
    const key = `prompt-${n}`;
    const cp = promptCheckpoint(input, n, promptText(messages[i] as Message), i, e.at);
    checkpoints.push({ key, seq: n, parent, branch: MAIN_BRANCH, createdAt: times[i] as number, ...cp, state: conversationState(messages.slice(0, i)) });
    parent = key;
  });
  const closing = importCheckpoint(input, fresh.length, messages.length, checkpoints.length);
  checkpoints.push({
    key: "import",
    seq: checkpoints.length + 1,
    parent,
    branch: MAIN_BRANCH,
    createdAt: times[times.length - 1] as number,
    ...closing,
    state: conversationState(messages),
  });
  await store.importHistory({
    name: input.session,
    kind: CONVERSATION_SESSION_KIND,
    metadata: {
      host: input.host,
      hostSession: input.shownId,
      imported: { ...input.stamp, at: new Date().toISOString(), file: input.file },
      ...(input.parent !== undefined && { parent: input.parent }),
    },
    checkpoints,
    branches: [{ name: MAIN_BRANCH, checkpoint: "import" }],
    head: { branch: MAIN_BRANCH },
  });
}

async function appendToSession(
  conversation: ConversationSession,
  input: ImportWrite,
  fresh: readonly CapturedMessage[],
  messages: Message[],
  heldMessages: readonly Message[],
): Promise<number> {
  const held = heldMessages.length;
  // The hook state's count, or the store's when the state was lost.
  const numbered = await conversation.session.list({ trigger: PROMPT_TRIGGER });
  let n = numbered.reduce((max, cp) => Math.max(max, Number(cp.metadata["prompt"]) || 0), input.promptsBefore);
  const waiting = awaitingPrompts(await promptCheckpoints(conversation.session), heldMessages);
  let from = 0;
  const flush = async (to: number) => {
    if (to > from) await conversation.append(messages.slice(from, to), { format: "forge" });
    from = to;
  };
  for (const [i, e] of fresh.entries()) {
    if (!e.prompt) continue;
    await flush(i);
    if ((await conversation.session.working()) === undefined) await conversation.replace([]);
    const k = waiting.findIndex((cp) => isPromptMessage(messages[i], String(cp.metadata["text"])));
    const live = k < 0 ? undefined : waiting.splice(0, k + 1)[k];
    if (live !== undefined) {
      // The prompt a hook checkpointed before the host wrote it down: that checkpoint, now knowing where its turn starts.
      await conversation.session.checkpointWorking({
        message: live.message,
        trigger: PROMPT_TRIGGER,
        tags: [...live.tags, "imported"],
        metadata: { ...live.metadata, messages: held + i, fills: live.id, at: live.createdAt.toISOString() },
        filesRoot: live.filesRoot,
      });
      continue;
    }
    n += 1;
    await conversation.session.checkpointWorking({ ...promptCheckpoint(input, n, promptText(messages[i] as Message), held + i, e.at), filesRoot: null });
  }
  await flush(messages.length);
  await conversation.session.checkpointWorking({ ...importCheckpoint(input, fresh.length, held + messages.length, n), filesRoot: null });
  return n;
}

/**
 * The prompt checkpoints live capture made whose prompt the conversation does not hold yet, in
 * order: the host wrote the prompt down after its hook and no later hook read it (a turn an
 * import catches halfway), or its hooks read no transcript at all (OpenCode's plugin).
 */
function awaitingPrompts(prompts: readonly Checkpoint[], held: readonly Message[]): Checkpoint[] {
  return prompts.filter((cp) => {
    const text = cp.metadata["text"];
    return cp.metadata["imported"] === undefined && typeof text === "string" && !isPromptMessage(held[turnStart(cp, held)], text);
  });
}
