// The state of one Forge checkpoint of a LangGraph thread (an "entry"): a LangGraph
// checkpoint with its metadata, its parent's id, its channel values and its pending writes,
// as one JSON value tree. Key names are LangGraph's own where they come from LangGraph
// (channel names, snake_case fields inside `checkpoint`).
//
//   langgraph       { format, thread, ns, id, parent, versions }: where the entry belongs;
//                   `versions` are the channel versions of the values stored here
//   checkpoint      the LangGraph checkpoint without channel_values (null: only writes so far)
//   metadata        LangGraph's checkpoint metadata (null when checkpoint is)
//   channel:NAME    one key per stored channel value, in channel order
//   writes          pending writes, in the order they came (read back in LangGraph's
//                   order, writesSortKey: kept in arrival order, a new write is appended,
//                   so the value tree stores one new chunk per putWrites, not a re-sorted list)
//
// Channels are top-level keys so that a put can tell the value encoder which of them it
// carried over unchanged from the entry written just before (an UnchangedHint only covers
// top-level keys), and those are then taken from the encoder's memo without a walk.
import { compareWritesSortKeys, writesSortKey } from "@langchain/langgraph-checkpoint";
import { ForgeError } from "../../core/errors.js";
import { isStoredValue, type StoredValue } from "./value-codec.js";

export const ENTRY_FORMAT = 1;
export const CHANNEL_PREFIX = "channel:";

export type ChannelVersion = number | string;

/** Where an entry belongs. */
export interface EntryHead {
  readonly format: number;
  readonly thread: string;
  readonly ns: string;
  readonly id: string;
  readonly parent: string | null;
  /** The version of each channel whose value this entry stores. */
  readonly versions: Readonly<Record<string, ChannelVersion>>;
}

/** One pending write: LangGraph's (task_id, idx) identify it; `path` orders it. */
export interface StoredWrite {
  readonly task: string;
  readonly idx: number;
  readonly channel: string;
  readonly value: StoredValue;
  readonly path: string;
}

/** An entry's state, read back: the parts, plus the state itself to build the next one from. */
export interface EntryContent {
  readonly state: Readonly<Record<string, unknown>>;
  readonly head: EntryHead;
  readonly checkpoint: StoredValue | null;
  readonly metadata: StoredValue | null;
  readonly channels: ReadonlyMap<string, StoredValue>;
  readonly writes: readonly StoredWrite[];
}

export function buildEntry(
  head: EntryHead,
  checkpoint: StoredValue | null,
  metadata: StoredValue | null,
  channels: ReadonlyMap<string, StoredValue>,
  writes: readonly StoredWrite[],
): EntryContent {
  const state: Record<string, unknown> = { langgraph: head, checkpoint, metadata };
  for (const [name, value] of channels) state[CHANNEL_PREFIX + name] = value;
  state["writes"] = writes;
  return { state, head, checkpoint, metadata, channels, writes };
}

/** The same entry with other pending writes (its state keeps its key order, for the encoder memo). */
export function withWrites(entry: EntryContent, writes: readonly StoredWrite[]): EntryContent {
  return { ...entry, state: { ...entry.state, writes }, writes };
}

/** Reads an entry back from a state; `where` names it in the error if the state is not one. */
export function parseEntry(state: unknown, where: string): EntryContent {
  const bad = (why: string): ForgeError =>
    new ForgeError("CORRUPT_OBJECT", `${where} does not hold a LangGraph checkpoint: ${why}`, {
      hint: "it was not written by ForgeSaver, or was changed; run `forge fsck`",
    });
  if (typeof state !== "object" || state === null || Array.isArray(state)) throw bad("its state is not an object");
  const s = state as Record<string, unknown>;
  const head = s["langgraph"];
  if (!isHead(head)) throw bad("its `langgraph` part is missing or malformed");
  if (head.format !== ENTRY_FORMAT) throw bad(`it has format ${head.format}, this version reads ${ENTRY_FORMAT}`);
  const checkpoint = s["checkpoint"] ?? null;
  const metadata = s["metadata"] ?? null;
  if (checkpoint !== null && !isStoredValue(checkpoint)) throw bad("its checkpoint is malformed");
  if (metadata !== null && !isStoredValue(metadata)) throw bad("its metadata is malformed");
  const channels = new Map<string, StoredValue>();
  for (const key of Object.keys(s)) {
    if (!key.startsWith(CHANNEL_PREFIX)) continue;
    const value = s[key];
    if (!isStoredValue(value)) throw bad(`its value of channel "${key.slice(CHANNEL_PREFIX.length)}" is malformed`);
    channels.set(key.slice(CHANNEL_PREFIX.length), value);
  }
  const writes = s["writes"] ?? [];
  if (!Array.isArray(writes) || !writes.every(isWrite)) throw bad("its pending writes are malformed");
  return { state: s, head, checkpoint, metadata, channels, writes };
}

/**
 * Adds writes as LangGraph's savers do: a write to a special channel (negative idx, see
 * WRITES_IDX_MAP) replaces the one stored under the same (task, idx), in its place; any
 * other write is ignored if that (task, idx) is stored already, else appended. `changed` is
 * false when nothing was added or replaced.
 */
export function mergeWrites(old: readonly StoredWrite[], added: readonly StoredWrite[]): { writes: StoredWrite[]; changed: boolean } {
  const writes = [...old];
  const at = new Map<string, number>();
  for (const [i, w] of writes.entries()) at.set(writeKey(w), i);
  let changed = false;
  for (const w of added) {
    const key = writeKey(w);
    const i = at.get(key);
    if (i === undefined) {
      at.set(key, writes.length);
      writes.push(w);
    } else if (w.idx < 0) {
      writes[i] = w;
    } else {
      continue;
    }
    changed = true;
  }
  return { writes, changed };
}

/** Writes in the order LangGraph applies them and its savers return them: (task path, task id, idx). */
export function inLangGraphOrder(writes: readonly StoredWrite[]): StoredWrite[] {
  return [...writes].sort((a, b) => compareWritesSortKeys(writesSortKey(a.path, a.task, a.idx), writesSortKey(b.path, b.task, b.idx)));
}

function writeKey(w: StoredWrite): string {
  return `${w.idx}\u0000${w.task}`;
}

function isHead(v: unknown): v is EntryHead {
  if (typeof v !== "object" || v === null) return false;
  const h = v as Record<string, unknown>;
  const versions = h["versions"];
  return (
    typeof h["format"] === "number" &&
    typeof h["thread"] === "string" &&
    typeof h["ns"] === "string" &&
    typeof h["id"] === "string" &&
    (h["parent"] === null || typeof h["parent"] === "string") &&
    typeof versions === "object" &&
    versions !== null &&
    Object.values(versions).every((x) => typeof x === "number" || typeof x === "string")
  );
}

function isWrite(v: unknown): v is StoredWrite {
  if (typeof v !== "object" || v === null) return false;
  const w = v as Record<string, unknown>;
  return (
    typeof w["task"] === "string" &&
    typeof w["idx"] === "number" &&
    Number.isInteger(w["idx"]) &&
    typeof w["channel"] === "string" &&
    typeof w["path"] === "string" &&
    isStoredValue(w["value"])
  );
}
