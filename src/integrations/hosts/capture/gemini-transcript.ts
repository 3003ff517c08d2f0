// Reading Gemini CLI's chat files incrementally. Since 0.39 (April 2026) a session is a JSONL
// log, session-<time>-<id8>.jsonl: a metadata line, then message records appended whole each
// time one changes (so one id can appear several times), `$set` metadata updates (lastUpdated,
// a `messages` checkpoint after /compress) and `$rewindTo` markers. Before that it was one JSON
// document, session-<time>-<id8>.json, rewritten whole as it grew. Both are read here with the
// same entries (gemini-records.ts); the cursor remembers the message that may still grow.
import { closeSync, readFileSync } from "node:fs";
import { ForgeError } from "../../../core/errors.js";
import type { CapturedMessage, TranscriptCursor } from "../types.js";
import { field, isObject, list, str } from "./fields.js";
import { type Entry, isMessageRecord, recordEntries } from "./gemini-records.js";
import { jsonlMark, lineKey, openTranscript, parseLine, readJsonl, readLineAt } from "./jsonl.js";
import { hostRecord } from "./messages.js";

const HOST = "gemini-cli";
/** The host's name in errors about its files. */
export const LABEL = "Gemini CLI";

/** A captured message and where its record is: a line's byte offset (JSONL) or a message's index (JSON). */
export interface Located {
  readonly message: CapturedMessage;
  readonly at: number;
}

/** A read of a chat file: its entries with where each record is, and the cursor to read on from. */
export interface GeminiRead {
  readonly messages: readonly Located[];
  readonly cursor: TranscriptCursor;
  readonly reset: boolean;
}

/** Whether `path` is a pre-0.39 session document (one JSON object) rather than a JSONL log. */
export function isLegacyDocument(path: string): boolean {
  return path.endsWith(".json");
}

/** The entries after `from`; the incomplete ones only when `closing` (a later record means they will not change). */
function take(entries: readonly Entry[], from: number, closing: boolean): { out: CapturedMessage[]; done: number } {
  const out: CapturedMessage[] = [];
  let i = from;
  for (; i < entries.length; i++) {
    const e = entries[i] as Entry;
    if (!closing && !e.complete) break;
    out.push(e.message);
  }
  return { out, done: Math.max(i, from) };
}

interface Open {
  id: string;
  record: unknown;
  line: number;
  done: number;
}

/** Reads the JSONL log after `cursor`. */
export function readJsonlLog(path: string, cursor: TranscriptCursor | null): GeminiRead {
  const chunk = readJsonl(path, jsonlMark(cursor), LABEL);
  const out: Located[] = [];
  let open = chunk.reset ? undefined : reopen(path, cursor);
  const emit = (messages: readonly CapturedMessage[], at: number) => {
    for (const message of messages) out.push({ message, at });
  };
  for (const line of chunk.lines) {
    const parsed = parseLine(line.text);
    const key = lineKey(line.offset, line.text);
    if (!parsed.ok) {
      emit([hostRecord(HOST, key, line.text, undefined, "not JSON")], line.offset);
      continue;
    }
    const record = parsed.value;
    if (!isMessageRecord(record)) {
      emit([hostRecord(HOST, key, record)], line.offset);
      continue;
    }
    const id = str(record, "id") as string;
    if (open !== undefined && open.id === id) {
      open.record = record;
      open.line = line.offset;
    } else {
      if (open !== undefined) emit(take(recordEntries(open.record, open.id), open.done, true).out, open.line);
      open = { id, record, line: line.offset, done: 0 };
    }
    const r = take(recordEntries(open.record, open.id), open.done, false);
    emit(r.out, line.offset);
    open.done = r.done;
  }
  const next: TranscriptCursor = {
    offset: chunk.offset,
    ino: chunk.ino,
    head: chunk.head,
    open: open?.line ?? -1,
    openId: open?.id ?? "",
    done: open?.done ?? 0,
  };
  return { messages: out, cursor: next, reset: chunk.reset };
}

/** The message record that may still grow, as the cursor left it (its latest line read again). */
function reopen(path: string, cursor: TranscriptCursor | null): Open | undefined {
  const line = cursor?.["open"];
  const id = cursor?.["openId"];
  const done = cursor?.["done"];
  if (typeof line !== "number" || line < 0 || typeof id !== "string" || typeof done !== "number") return undefined;
  const text = readLineAt(path, line, LABEL);
  const parsed = text === undefined ? undefined : parseLine(text);
  if (parsed === undefined || !parsed.ok || str(parsed.value, "id") !== id) return undefined;
  return { id, record: parsed.value, line, done };
}

/** The pre-0.39 document, or undefined while it is being rewritten (not whole JSON yet). */
export function readDocument(path: string): Record<string, unknown> | undefined {
  closeSync(openTranscript(path, LABEL)); // a missing file is an error naming it
  const text = readFileSync(path, "utf8");
  const parsed = parseLine(text);
  if (!parsed.ok) return undefined;
  if (!isObject(parsed.value) || !Array.isArray(field(parsed.value, "messages"))) {
    throw new ForgeError("INVALID_ARGUMENT", `${path} is not a Gemini CLI session file: it has no "messages" list`, {
      hint: "give the chat file Gemini CLI wrote for the session",
      data: { path },
    });
  }
  return parsed.value;
}

/** Reads the pre-0.39 document after `cursor` (it counts the messages done and the entries of the one that may grow). */
export function readLegacyDocument(path: string, cursor: TranscriptCursor | null): GeminiRead {
  const doc = readDocument(path);
  if (doc === undefined) return { messages: [], cursor: cursor ?? { count: 0, done: 0, sessionId: "", header: 0 }, reset: false };
  const messages = list(doc, "messages") ?? [];
  const sessionId = str(doc, "sessionId") ?? "";
  let count = typeof cursor?.["count"] === "number" ? cursor["count"] : 0;
  let done = typeof cursor?.["done"] === "number" ? cursor["done"] : 0;
  let header = cursor?.["header"] === 1;
  let reset = false;
  if (cursor !== null && (cursor["sessionId"] !== sessionId || messages.length < count + (done > 0 ? 1 : 0))) {
    // Rewritten shorter, or another session: read again from the start.
    reset = true;
    count = 0;
    done = 0;
    header = false;
  }
  const out: Located[] = [];
  if (!header) {
    const meta: Record<string, unknown> = {};
    for (const k of Object.keys(doc))
      if (k !== "messages") Object.defineProperty(meta, k, { value: doc[k], enumerable: true, writable: true, configurable: true });
    out.push({ message: hostRecord(HOST, `${sessionId}#session`, meta, str(doc, "startTime")), at: -1 });
    header = true;
  }
  for (let i = count; i < messages.length; i++) {
    const closing = i < messages.length - 1;
    const r = take(recordEntries(messages[i], `#${i}`), i === count ? done : 0, closing);
    for (const message of r.out) out.push({ message, at: i });
    if (closing) {
      count = i + 1;
      done = 0;
    } else {
      count = i;
      done = r.done;
    }
  }
  return { messages: out, cursor: { count, done, sessionId, header: header ? 1 : 0 }, reset };
}
