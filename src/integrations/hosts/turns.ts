// Where a turn starts: with its own prompt's message. A prompt's checkpoint records the length
// of the conversation before that message (metadata `messages`), whichever read the message —
// an import, or a hook that ran before or after the host wrote the prompt down.
//
// Live capture before this rule (Claude Code writes the prompt to its transcript before its
// UserPromptSubmit hook runs) counted the prompt's message into its own checkpoint, so the
// previous turn seemed to end with it. Stores written then are read as they are: a live
// checkpoint whose count stops just after its own prompt's message starts its turn at that message.
import type { Message } from "../../domains/conversation/model.js";
import type { Checkpoint } from "../../timeline/types.js";
import type { CapturedMessage } from "./types.js";

/** The text of a message: its string content, or its text parts joined by newlines. */
export function messageText(m: Message): string {
  if (typeof m.content === "string") return m.content;
  return (m.content ?? []).flatMap((p) => (p.type === "text" && typeof p["text"] === "string" ? [p["text"]] : [])).join("\n");
}

const squeeze = (text: string) => text.replace(/\s+/g, " ").trim();

/**
 * Whether `m` is the user's message of the prompt whose text is `prompt` (as the hook was
 * told it): a user message holding that text, whitespace aside (a host may wrap it, as Cursor's
 * `<user_query>` does).
 */
export function isPromptMessage(m: Message | undefined, prompt: string | undefined): boolean {
  if (m === undefined || m.role !== "user" || prompt === undefined) return false;
  const want = squeeze(prompt);
  return want !== "" && squeeze(messageText(m)).includes(want);
}

/**
 * Where the event's own prompt is among the entries a prompt hook read, or `entries.length`
 * when they do not hold it (the host writes it after its hook): the last prompt entry, when it
 * holds the prompt's text or the host writes every prompt before its hook (`recordedBeforeHook`).
 */
export function ownPromptIndex(entries: readonly CapturedMessage[], prompt: string | undefined, recordedBeforeHook: boolean): number {
  const i = entries.findLastIndex((e) => e.prompt);
  if (i < 0) return entries.length;
  return recordedBeforeHook || isPromptMessage(entries[i]?.message, prompt) ? i : entries.length;
}

/**
 * Where the turn of the prompt checkpoint `cp` starts in `messages`: at its prompt's message,
 * which is at the checkpoint's count or just after host records the host wrote before it (a
 * hook that ran before the host wrote its turn's records down, as Codex's does), or — in a
 * store written before this rule — just before the count, host records aside (see the file's head).
 */
export function turnStart(cp: Checkpoint, messages: readonly Message[]): number {
  const n = Math.min(Math.max(0, Number(cp.metadata["messages"]) || 0), messages.length);
  const text = typeof cp.metadata["text"] === "string" ? cp.metadata["text"] : undefined;
  if (cp.metadata["imported"] !== undefined) return n;
  let i = n;
  while (messages[i]?.role === "system") i++;
  if (isPromptMessage(messages[i], text)) return i;
  let j = n - 1;
  while (messages[j]?.role === "system") j--;
  return isPromptMessage(messages[j], text) ? j : n;
}

/** Each turn's messages, from its prompt up to the next one's, for prompt checkpoints in order; and what came before the first. */
export function splitTurns(prompts: readonly Checkpoint[], messages: readonly Message[]): { preamble: Message[]; turns: Message[][] } {
  const starts = prompts.map((cp) => turnStart(cp, messages));
  // A start is never before the one of the turn ahead of it.
  for (let i = 1; i < starts.length; i++) starts[i] = Math.max(starts[i] as number, starts[i - 1] as number);
  const turns = starts.map((from, i) => messages.slice(from, i + 1 < starts.length ? starts[i + 1] : messages.length));
  return { preamble: messages.slice(0, starts[0] ?? messages.length), turns };
}
