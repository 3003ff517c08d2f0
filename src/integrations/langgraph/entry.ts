// The state of one Forge checkpoint of a LangGraph thread (an "entry"): a LangGraph
// checkpoint with its parent's id and its channel values, as one JSON value tree. Key names
// are LangGraph's own where they come from LangGraph (channel names, snake_case fields
// inside `checkpoint`).
//
//   langgraph       { format, thread, ns, id, parent, versions }: where the entry belongs;
//                   `versions` are the channel versions of the values stored here
//   checkpoint      the LangGraph checkpoint without channel_values (null: only writes so far)
//   metadata        LangGraph's checkpoint metadata (null when checkpoint is); its row holds
//                   a copy for list filters when it is JSON, but PostgreSQL's jsonb reorders
//                   its keys, so the state's is the one read back
//   channel:NAME    one key per channel value this put serialized (named in newVersions)
//   carried         { channels: { NAME: value }, padding? }: the channels carried over from
//                   the parent entry at the same version, by name (format 2; format 1 kept
//                   them as channel:NAME too); `padding` is spaces, see below
//   writes          pending writes kept in the state, in the order they came (read back in
//                   LangGraph's order, writesSortKey). Format 1 kept every pending write here;
//                   format 2 only where the store keeps no side records (memory, file), or
//                   writes an older entry of the same checkpoint held. Absent when none.
//
// Fresh channels are top-level keys and carried ones one group so that a put can tell the
// value encoder what it carried over unchanged from the entry written just before (an
// UnchangedHint only covers top-level keys), and the group is then taken from the encoder's
// memo unwalked. The group is meant to be an object of its own, stored once while it stays
// the same: the encoder keeps a value of up to 2 KB of JSON inside its parent, and the
// parent here is the entry's root, new at every put — a 1.5 KB system prompt would be
// stored again with each checkpoint (and measured: a third of the database). So a group of
// 512 B to 2 KB is padded with spaces past the encoder's split size (the default
// TreeParams.splitBytes): the spaces deflate to a few bytes, once per group.
import { compareWritesSortKeys, writesSortKey } from "@langchain/langgraph-checkpoint";
import { ForgeError } from "../../core/errors.js";
import { setOwn } from "../../core/own.js";
import { isStoredValue, type StoredValue } from "./value-codec.js";

/** The format this version writes; it reads 1 and 2. */
export const ENTRY_FORMAT = 2;
export const CHANNEL_PREFIX = "channel:";
export const CARRIED_KEY = "carried";
/** The value encoder's default split size (TreeParams.splitBytes): longer JSON becomes an object of its own. */
const SPLIT_BYTES = 2048;
/** A carried group whose JSON inside the root would be at least this long is padded to be an object of its own. */
const PAD_FROM = 512;

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
  /** LangGraph's metadata; null in a writes-only entry. */
  readonly metadata: StoredValue | null;
  /** Every channel value stored, fresh and carried. */
  readonly channels: ReadonlyMap<string, StoredValue>;
  /** The carried group as stored (format 2), to tell whether the next entry's is the same. */
  readonly carried: ReadonlyMap<string, StoredValue>;
  /** Pending writes the state holds (format 1: all of them). */
  readonly writes: readonly StoredWrite[];
}

/** The parts of an entry to build. */
export interface EntryParts {
  readonly head: EntryHead;
  readonly checkpoint: StoredValue | null;
  readonly metadata: StoredValue | null;
  /** Channels serialized by this put. */
  readonly fresh: ReadonlyMap<string, StoredValue>;
  /** Channels carried over from the parent entry. */
  readonly carried: ReadonlyMap<string, StoredValue>;
  readonly writes: readonly StoredWrite[];
}

export function buildEntry(parts: EntryParts): EntryContent {
  const { head, checkpoint, metadata, fresh, writes } = parts;
  const state: Record<string, unknown> = { langgraph: head, checkpoint, metadata };
  const channels = new Map<string, StoredValue>();
  for (const [name, value] of fresh) {
    state[CHANNEL_PREFIX + name] = value;
    channels.set(name, value);
  }
  // By name, so the group is the same object from one entry to the next whatever order LangGraph lists channels in.
  const names = [...parts.carried.keys()].sort();
  const carried = new Map<string, StoredValue>();
  if (names.length > 0) {
    const group: Record<string, unknown> = {};
    let inline = 2; // {}
    for (const name of names) {
      const value = parts.carried.get(name) as StoredValue;
      setOwn(group, name, value);
      carried.set(name, value);
      channels.set(name, value);
      inline += JSON.stringify(name).length + 2 + inlineLength(value);
    }
    // {"channels":…,"padding":"…"} must be longer than SPLIT_BYTES.
    const pad = inline >= PAD_FROM ? SPLIT_BYTES + 32 - inline - 27 : 0;
    state[CARRIED_KEY] = pad > 0 ? { channels: group, padding: " ".repeat(pad) } : { channels: group };
  }
  if (writes.length > 0) state["writes"] = writes;
  return { state, head, checkpoint, metadata, channels, carried, writes };
}

/** The same entry with other pending writes (its state keeps its key order, for the encoder memo). */
export function withWrites(entry: EntryContent, writes: readonly StoredWrite[]): EntryContent {
  return { ...entry, state: { ...entry.state, writes }, writes };
}

/** Whether two carried groups hold the same values (the very same stored objects). */
export function sameCarried(a: ReadonlyMap<string, StoredValue>, b: ReadonlyMap<string, StoredValue>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, value] of a) if (b.get(name) !== value) return false;
  return true;
}

/** The JSON text lengths of stored values (they never change), for `inlineLength`. */
const lengths = new WeakMap<StoredValue, number>();

/**
 * About how much of a value's JSON the encoder keeps inside its parent: all of it up to
 * SPLIT_BYTES, else a placeholder for the object it becomes (`{"json":0}`).
 */
function inlineLength(value: StoredValue): number {
  let n = lengths.get(value);
  if (n === undefined) lengths.set(value, (n = JSON.stringify(value).length));
  return n > SPLIT_BYTES ? 10 : n;
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
  if (head.format !== 1 && head.format !== ENTRY_FORMAT) throw bad(`it has format ${head.format}, this version reads 1 and ${ENTRY_FORMAT}`);
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
  const carried = new Map<string, StoredValue>();
  const wrapper = s[CARRIED_KEY];
  if (wrapper !== undefined) {
    const group = typeof wrapper === "object" && wrapper !== null ? (wrapper as Record<string, unknown>)["channels"] : undefined;
    if (typeof group !== "object" || group === null || Array.isArray(group)) throw bad("its carried channels are malformed");
    for (const [name, value] of Object.entries(group)) {
      if (!isStoredValue(value)) throw bad(`its value of channel "${name}" is malformed`);
      carried.set(name, value);
      channels.set(name, value);
    }
  }
  const writes = s["writes"] ?? [];
  if (!Array.isArray(writes) || !writes.every(isWrite)) throw bad("its pending writes are malformed");
  return { state: s, head, checkpoint, metadata, channels, carried, writes };
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

/** Whether `v` is a stored pending write. */
export function isWrite(v: unknown): v is StoredWrite {
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
