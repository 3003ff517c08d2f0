// ForgeSaver: a LangGraph.js checkpoint saver (BaseCheckpointSaver) over any Forge store —
// memory:, file:, sqlite:, postgres: — through the Store and Session API only.
//
// Where things live:
// - A thread is one Forge session, `langgraph/<thread id>` (kind "langgraph"), holding all
//   its namespaces, so deleteThread is one session delete in one transaction.
// - Each put is one Forge checkpoint (an "entry", entry.ts) whose state holds the LangGraph
//   checkpoint, its parent's id and its channel values as a JSON value tree: only channels
//   named in `newVersions` are serialized; every other channel carries the value the parent
//   entry stored if the parent stored it at the same version. Every entry thus has its own
//   complete map, and the value tree stores an unchanged or repeated value once — so two
//   forks that reach one channel version with different values each keep their own (the
//   (channel, version)-keyed blob loss of langgraphjs#1812 cannot happen). Its row's
//   metadata (thread-index.ts) names it, so finding an entry reads no state.
// - Pending writes are side records of the thread's session (Session.putSideRecords): one
//   row per write, keyed by (namespace, checkpoint id) and (task id, idx), in one small
//   transaction — LangGraph's own savers keep them as rows too, and a putWrites costs what
//   theirs does, not a checkpoint. Special channels replace, others keep the first write, as
//   the SQL statements say. They are read with their checkpoint, and merged with the writes
//   an older entry's state holds: ForgeSaver before entry format 2 made every putWrites a new
//   entry of its checkpoint with the writes merged in, and a store that keeps no side
//   records (memory, file) still does. Writes that arrive before their checkpoint's put
//   (LangGraph does not order the two) are simply rows whose checkpoint comes later.
// - Nothing lives only in memory: the index, the entry cache and the serializer's item
//   cache are caches, rebuilt from the store by any new saver in any process.
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  TASKS,
  WRITES_IDX_MAP,
  maxChannelVersion,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type DeltaChannelHistory,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import { isDeepStrictEqual } from "node:util";
import { ForgeError, InvalidArgumentError } from "../../core/errors.js";
import { checkName } from "../../core/ids.js";
import { getOwn, setOwn } from "../../core/own.js";
import { openStore, type OpenOptions, type Store } from "../../timeline/store.js";
import { checkThreadId, describe, readOptionalTarget, readSelection, readTarget } from "./config.js";
import { CARRIED_KEY, ENTRY_FORMAT, buildEntry, inLangGraphOrder, mergeWrites, parseEntry, sameCarried, withWrites } from "./entry.js";
import type { ChannelVersion, EntryContent, StoredWrite } from "./entry.js";
import { rowMetadata, type EntryInfo, type ThreadIndex } from "./thread-index.js";
import { EntryCache, SESSION_KIND, ThreadLog } from "./thread-log.js";
import { recordOfWrite, writeOfRecord, writesByScope, writesScope } from "./write-records.js";
import { ValueCodec, type CodecOptions, type StoredValue } from "./value-codec.js";

export interface ForgeSaverOptions extends CodecOptions {
  /** LangGraph's serializer (JsonPlusSerializer by default). */
  readonly serde?: SerializerProtocol;
  /** Threads are sessions `<prefix>/<thread id>`; "langgraph" by default. */
  readonly sessionPrefix?: string;
}

const TRIGGER_PUT = "langgraph";
const TRIGGER_WRITES = "langgraph-writes";
/** Entries whose decoded state is kept (the parent of the next put, the latest of a thread). */
const CACHED_ENTRIES = 64;
/** Threads whose session and index are kept. */
const CACHED_THREADS = 1024;

export class ForgeSaver extends BaseCheckpointSaver {
  readonly store: Store;
  readonly #prefix: string;
  readonly #codecOptions: CodecOptions;
  #codec: { serde: SerializerProtocol; codec: ValueCodec } | undefined;
  readonly #threads = new Map<string, ThreadLog>();
  readonly #entries = new EntryCache(CACHED_ENTRIES);
  #ownsStore = false;

  /** A saver over `store`; closing the saver leaves `store` open. */
  constructor(store: Store, options: ForgeSaverOptions = {}) {
    super(options.serde);
    this.store = store;
    this.#prefix = checkName("session prefix", options.sessionPrefix ?? "langgraph");
    this.#codecOptions = { ...(options.reuseSerializable !== undefined && { reuseSerializable: options.reuseSerializable }) };
  }

  /** Opens the store at `url` (Forge's usual resolution when omitted); `close` closes it. */
  static async open(url?: string, options: ForgeSaverOptions & OpenOptions = {}): Promise<ForgeSaver> {
    const saver = new ForgeSaver(await openStore(url, options), options);
    saver.#ownsStore = true;
    return saver;
  }

  /** Closes the store if this saver opened it (`ForgeSaver.open`). */
  async close(): Promise<void> {
    if (this.#ownsStore) await this.store.close();
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const target = readOptionalTarget(config, "getTuple");
    if (!target) return undefined;
    const { ns, checkpointId } = target;
    const log = this.#log(target.threadId);
    return this.#retryingRead(log, async () => {
      const index = await log.index(checkpointId === undefined ? { latest: ns } : { entries: [[ns, checkpointId]] });
      if (!index) return undefined;
      const info = checkpointId !== undefined ? index.get(ns, checkpointId) : index.latest(ns);
      return info?.checkpoint ? this.#tuple(log, index, info) : undefined;
    });
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const { limit, before, filter } = options;
    if (limit !== undefined && limit !== null && (!Number.isInteger(limit) || limit < 0)) {
      throw new InvalidArgumentError(`ForgeSaver.list: limit must be a whole number ≥ 0, not ${describe(limit)}`);
    }
    const selection = readSelection(config);
    const beforeId = readSelection(before).checkpointId;
    const wanted = Object.entries(filter ?? {}).filter(([, v]) => v !== undefined);
    const logs = selection.threadId !== undefined ? [this.#log(selection.threadId)] : await this.#allThreads();
    const found: { log: ThreadLog; index: ThreadIndex; info: EntryInfo }[] = [];
    for (const log of logs) {
      const index = await log.index();
      if (!index) continue;
      for (const info of index.checkpoints(selection.ns)) {
        if (selection.checkpointId !== undefined && info.id !== selection.checkpointId) continue;
        if (beforeId !== undefined && !(info.id < beforeId)) continue;
        if (wanted.length > 0 && !(await this.#matches(log, info, wanted))) continue;
        found.push({ log, index, info });
      }
    }
    // Newest first: LangGraph's ids are uuid6, in time order as strings.
    found.sort((a, b) => (a.info.id < b.info.id ? 1 : a.info.id > b.info.id ? -1 : 0));
    const count = limit === undefined || limit === null ? found.length : Math.min(limit, found.length);
    // Each thread's pending writes in one read, when more than one of its checkpoints is listed.
    const writes = new Map<ThreadLog, Promise<Map<string, StoredWrite[]>>>();
    const perLog = new Map<ThreadLog, number>();
    for (const { log } of found.slice(0, count)) perLog.set(log, (perLog.get(log) ?? 0) + 1);
    for (const { log, index, info } of found.slice(0, count)) {
      let all = writes.get(log);
      if (all === undefined && (perLog.get(log) ?? 0) > 1) writes.set(log, (all = this.#recordWrites(log)));
      const tuple = await this.#retryingRead(log, async (again) => {
        if (!again) return this.#tuple(log, index, info, await all);
        // Its entry went missing: read the thread again (it may have been deleted meanwhile).
        const fresh = await log.index();
        const now = fresh?.get(info.ns, info.id);
        return fresh && now?.checkpoint ? this.#tuple(log, fresh, now) : undefined;
      });
      if (tuple) yield tuple;
    }
  }

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const { threadId, ns, checkpointId: parentId } = readTarget(config, "put");
    checkCheckpoint(checkpoint);
    const { channel_values: values = {}, ...rest } = checkpoint;
    const versionsNow: Record<string, ChannelVersion> = checkpoint.channel_versions ?? {};
    const codec = this.#valueCodec();
    const [storedCheckpoint, storedMetadata] = await Promise.all([codec.toStored(rest), codec.toStored(metadata ?? {})]);
    // Only what LangGraph says changed is serialized; the rest comes from the parent.
    const fresh = new Map<string, StoredValue>();
    for (const name of Object.keys(newVersions ?? {})) {
      if (Object.hasOwn(values, name)) fresh.set(name, await codec.toStored((values as Record<string, unknown>)[name]));
    }
    const log = this.#log(threadId);
    // The parent (to carry channels from) and the namespace's latest (is this one the newest?).
    const need = { latest: ns, entries: parentId === undefined ? [] : [[ns, parentId] as const] };
    await log.mutex.run(() =>
      log.append(
        need,
        async (index, lastForgeId) => {
          const parent = parentId === undefined ? undefined : index.get(ns, parentId);
          const from = parent?.checkpoint ? await this.#entry(log, parent) : undefined;
          // Writes an older entry of this checkpoint holds in its state (writes put before its put, by a
          // ForgeSaver before side records or on a store without them) stay with it.
          const earlier = index.get(ns, checkpoint.id);
          const pending = earlier ? (await this.#entry(log, earlier)).writes : [];
          const own = new Map<string, StoredValue>();
          const carried = new Map<string, StoredValue>();
          const versions: Record<string, ChannelVersion> = {};
          for (const name of new Set([...Object.keys(versionsNow), ...fresh.keys()])) {
            const value = fresh.get(name);
            // Channel names are keys: own lookups and own definitions, so a channel named
            // "constructor" or "__proto__" is a channel like any other.
            const version = (getOwn(versionsNow, name) ?? getOwn(newVersions ?? {}, name)) as ChannelVersion;
            if (value !== undefined) {
              own.set(name, value);
              setOwn(versions, name, version);
              continue;
            }
            const inherited = from?.channels.get(name);
            if (inherited !== undefined && version !== undefined && from && getOwn(from.head.versions, name) === version) {
              carried.set(name, inherited);
              setOwn(versions, name, version);
            }
          }
          const latest = index.latest(ns);
          const entry = buildEntry({
            head: { format: ENTRY_FORMAT, thread: threadId, ns, id: checkpoint.id, parent: parentId ?? null, versions },
            checkpoint: storedCheckpoint,
            metadata: storedMetadata,
            fresh: own,
            carried,
            writes: pending,
          });
          // Carried values are the parent's; if this process wrote the parent last, the encoder's memo has them.
          const unchanged =
            parent !== undefined && parent.forgeId === lastForgeId && from !== undefined && carried.size > 0 && sameCarried(from.carried, carried)
              ? new Set([CARRIED_KEY])
              : undefined;
          return {
            entry,
            options: {
              trigger: TRIGGER_PUT,
              message: putMessage(ns, metadata),
              metadata: rowMetadata({
                ns,
                id: checkpoint.id,
                parent: parentId ?? null,
                checkpoint: true,
                ...("json" in storedMetadata && { metadata: storedMetadata.json }),
                top: latest === undefined || latest.id <= checkpoint.id,
              }),
              // A put is on LangGraph's hot path: the search index takes it in at the next search.
              searchIndex: "later",
            },
            ...(unchanged !== undefined && { unchangedSinceLast: unchanged }),
          };
        },
        this.#entries,
      ),
    );
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const { threadId, ns, checkpointId } = readTarget(config, "putWrites", { checkpointId: true });
    const id = checkpointId as string;
    if (typeof taskId !== "string") throw new InvalidArgumentError(`ForgeSaver.putWrites: task id must be a string, not ${describe(taskId)}`);
    if (!Array.isArray(writes)) throw new InvalidArgumentError(`ForgeSaver.putWrites: writes must be an array of [channel, value], not ${describe(writes)}`);
    const codec = this.#valueCodec();
    const stored = async (w: PendingWrite, i: number): Promise<StoredWrite> => {
      if (!Array.isArray(w) || typeof w[0] !== "string")
        throw new InvalidArgumentError(`ForgeSaver.putWrites: write ${i} of task "${taskId}" must be [channel, value], not ${describe(w)}`);
      const channel = w[0];
      const idx = Object.hasOwn(WRITES_IDX_MAP, channel) ? (WRITES_IDX_MAP[channel] as number) : i;
      return { task: taskId, idx, channel, value: await codec.toStored(w[1]), path: taskPath ?? "" };
    };
    // One write (what a task mostly puts) without a Promise.all around it: a putWrites is ~40 µs.
    const added: StoredWrite[] = writes.length === 1 ? [await stored(writes[0] as PendingWrite, 0)] : await Promise.all(writes.map(stored));
    if (added.length === 0) return;
    const log = this.#log(threadId);
    // A row per write, in one transaction: no checkpoint, no index, no lock of this process.
    if (this.store.keepsSideRecords) return log.putSideRecords(added.map((w) => recordOfWrite(ns, id, w)));
    await log.mutex.run(() =>
      log.append(
        { complete: true },
        async (index, lastForgeId) => {
          const info = index.get(ns, id);
          const entry = info ? await this.#entry(log, info) : undefined;
          const merged = mergeWrites(entry?.writes ?? [], added);
          if (!merged.changed) return null;
          const next = entry
            ? withWrites(entry, merged.writes)
            : buildEntry({
                head: { format: ENTRY_FORMAT, thread: threadId, ns, id, parent: null, versions: {} },
                checkpoint: null,
                metadata: null,
                fresh: new Map(),
                carried: new Map(),
                writes: merged.writes,
              });
          const unchanged = new Set(Object.keys(next.state).filter((k) => k !== "writes"));
          return {
            entry: next,
            options: {
              trigger: TRIGGER_WRITES,
              message: `${ns === "" ? "" : `[${ns}] `}writes of task ${taskId}`,
              metadata: rowMetadata({
                ns,
                id,
                parent: info?.parent ?? null,
                checkpoint: info?.checkpoint ?? false,
                ...(info !== undefined && Object.hasOwn(info, "metadata") && { metadata: info.metadata }),
              }),
              searchIndex: "later",
            },
            ...(info !== undefined && info.forgeId === lastForgeId && { unchangedSinceLast: unchanged }),
          };
        },
        this.#entries,
      ),
    );
  }

  async deleteThread(threadId: string): Promise<void> {
    const log = this.#log(checkThreadId(threadId, "deleteThread"));
    await log.mutex.run(() => log.delete());
  }

  /**
   * The writes of the requested channels along the target's ancestors, oldest first, and
   * each channel's nearest stored value as its seed — as BaseCheckpointSaver's default,
   * but walking the in-memory index and reviving only those channels and writes.
   */
  override async getDeltaChannelHistory(options: { config: RunnableConfig; channels: string[] }): Promise<Record<string, DeltaChannelHistory>> {
    const { config, channels } = options;
    if (channels.length === 0) return {};
    const target = readOptionalTarget(config, "getDeltaChannelHistory");
    const log = target && this.#log(target.threadId);
    return this.#retryingRead(log, async () => {
      const collected = new Map<string, CheckpointPendingWrite[]>(channels.map((c) => [c, []]));
      const seeds = new Map<string, unknown>();
      const index = log && (await log.index());
      if (target && log && index) {
        const start = target.checkpointId !== undefined ? index.get(target.ns, target.checkpointId) : index.latest(target.ns);
        const remaining = new Set(channels);
        const codec = this.#valueCodec();
        const records = start?.checkpoint && start.parent !== null ? await this.#recordWrites(log) : undefined;
        let cursor = start?.checkpoint ? start.parent : null;
        for (let seen = new Set<string>(); cursor !== null && remaining.size > 0 && !seen.has(cursor); ) {
          seen.add(cursor);
          const info = index.get(target.ns, cursor);
          if (!info?.checkpoint) break;
          const entry = await this.#entry(log, info);
          // This ancestor's writes, last first (the list is reversed at the end).
          const writes = await this.#pendingWrites(log, info, entry, records);
          for (let i = writes.length - 1; i >= 0; i--) {
            const w = writes[i] as StoredWrite;
            if (remaining.has(w.channel)) collected.get(w.channel)?.push([w.task, w.channel, await codec.revive(w.value)]);
          }
          for (const name of [...remaining]) {
            const stored = entry.channels.get(name);
            if (stored === undefined) continue;
            seeds.set(name, await codec.revive(stored));
            remaining.delete(name);
          }
          cursor = info.parent;
        }
      }
      const out: Record<string, DeltaChannelHistory> = {};
      for (const name of channels) {
        setOwn(out, name, { writes: (collected.get(name) ?? []).reverse(), ...(seeds.has(name) && { seed: seeds.get(name) }) });
      }
      return out;
    });
  }

  /** The codec for the current serializer (LangGraph lets callers replace `serde`). */
  #valueCodec(): ValueCodec {
    if (this.#codec?.serde !== this.serde) this.#codec = { serde: this.serde, codec: new ValueCodec(this.serde, this.#codecOptions) };
    return this.#codec.codec;
  }

  #log(threadId: string): ThreadLog {
    let log = this.#threads.get(threadId);
    if (log) {
      this.#threads.delete(threadId);
    } else {
      log = new ThreadLog(this.store, this.#prefix, threadId);
      if (this.#threads.size >= CACHED_THREADS) this.#threads.delete(this.#threads.keys().next().value as string);
    }
    this.#threads.set(threadId, log);
    return log;
  }

  /** Every thread of this saver's prefix in the store. */
  async #allThreads(): Promise<ThreadLog[]> {
    const out: ThreadLog[] = [];
    for (const s of await this.store.listSessions()) {
      const threadId = s.metadata["threadId"];
      if (s.kind !== SESSION_KIND || typeof threadId !== "string") continue;
      const log = this.#log(threadId);
      if (log.sessionName === s.name) out.push(log);
    }
    return out;
  }

  /** An entry's decoded state (cached: an entry never changes). */
  async #entry(log: ThreadLog, info: EntryInfo): Promise<EntryContent> {
    const cached = this.#entries.get(info.forgeId);
    if (cached) return cached;
    const state = await this.store.objects.readValue(info.stateRoot);
    const entry = parseEntry(state, `checkpoint ${info.forgeId} of session "${log.sessionName}"`);
    this.#entries.set(info.forgeId, entry);
    return entry;
  }

  /** The thread's pending writes kept as side records, by scope (writesScope). */
  async #recordWrites(log: ThreadLog): Promise<Map<string, StoredWrite[]>> {
    return writesByScope(await log.sideRecords(), `LangGraph thread ${JSON.stringify(log.threadId)}`);
  }

  /**
   * A checkpoint's pending writes in LangGraph's order: its side records (`records`, when
   * the thread's were read at once) merged into those its entry's state holds.
   */
  async #pendingWrites(log: ThreadLog, info: EntryInfo, entry: EntryContent, records?: Map<string, StoredWrite[]>): Promise<StoredWrite[]> {
    const scope = writesScope(info.ns, info.id);
    const rows =
      records !== undefined
        ? (records.get(scope) ?? [])
        : (await log.sideRecords(scope)).map((r) => writeOfRecord(r, `LangGraph thread ${JSON.stringify(log.threadId)}`));
    return inLangGraphOrder(entry.writes.length === 0 ? rows : mergeWrites(entry.writes, rows).writes);
  }

  /** Runs a read again once (`again` true), after forgetting the index, if an entry it used was deleted under it. */
  async #retryingRead<T>(log: ThreadLog | undefined, read: (again: boolean) => Promise<T>): Promise<T> {
    try {
      return await read(false);
    } catch (e) {
      if (!(log && e instanceof ForgeError && e.code === "MISSING_OBJECT")) throw e;
      log.forget();
      return read(true);
    }
  }

  async #matches(log: ThreadLog, info: EntryInfo, wanted: [string, unknown][]): Promise<boolean> {
    const codec = this.#valueCodec();
    // The row's copy, when there is one: no state is read to filter.
    const stored = Object.hasOwn(info, "metadata") ? { json: info.metadata } : (await this.#entry(log, info)).metadata;
    const metadata = stored === null ? {} : await codec.revive(stored);
    if (typeof metadata !== "object" || metadata === null) return false;
    return wanted.every(([key, value]) => isDeepStrictEqual(getOwn(metadata, key), value));
  }

  async #tuple(log: ThreadLog, index: ThreadIndex, info: EntryInfo, records?: Map<string, StoredWrite[]>): Promise<CheckpointTuple> {
    const [entry, ownRecords] = await Promise.all([this.#entry(log, info), records === undefined ? log.sideRecords(writesScope(info.ns, info.id)) : undefined]);
    const rows = records ?? writesByScope(ownRecords ?? [], `LangGraph thread ${JSON.stringify(log.threadId)}`);
    const writes = await this.#pendingWrites(log, info, entry, rows);
    // The state's copy: exact (PostgreSQL's jsonb keeps the row's with its keys reordered).
    const storedMetadata = entry.metadata ?? (Object.hasOwn(info, "metadata") ? { json: info.metadata } : null);
    const codec = this.#valueCodec();
    // In the order the put listed them (its head's versions): the carried group keeps them by name.
    const names = [...new Set([...Object.keys(entry.head.versions).filter((n) => entry.channels.has(n)), ...entry.channels.keys()])];
    const [rest, metadata, values, pendingWrites] = await Promise.all([
      entry.checkpoint === null ? {} : codec.revive(entry.checkpoint),
      storedMetadata === null ? {} : codec.revive(storedMetadata),
      Promise.all(names.map((n) => codec.revive(entry.channels.get(n) as StoredValue))),
      Promise.all(writes.map(async (w): Promise<CheckpointPendingWrite> => [w.task, w.channel, await codec.revive(w.value)])),
    ]);
    const channelValues: Record<string, unknown> = {};
    for (const [i, n] of names.entries()) setOwn(channelValues, n, values[i]);
    const checkpoint = { ...(rest as Omit<Checkpoint, "channel_values">), channel_values: channelValues };
    const { threadId } = log;
    const ns = info.ns;
    if (checkpoint.v < 4 && info.parent !== null) await this.#migratePendingSends(log, index, checkpoint, ns, info.parent);
    return {
      config: { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: info.id } },
      checkpoint,
      metadata: metadata as CheckpointMetadata,
      pendingWrites,
      ...(info.parent !== null && { parentConfig: { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: info.parent } } }),
    };
  }

  /**
   * Checkpoints before format 4 kept pending sends as writes of the parent (to TASKS); as
   * LangGraph's own savers do, they are read back into the channel.
   */
  async #migratePendingSends(log: ThreadLog, index: ThreadIndex, checkpoint: Checkpoint, ns: string, parentId: string): Promise<void> {
    let parent = index.get(ns, parentId);
    if (parent === undefined && !index.complete) parent = (await log.index())?.get(ns, parentId);
    const writes = parent ? (await this.#pendingWrites(log, parent, await this.#entry(log, parent))).filter((w) => w.channel === TASKS) : [];
    const codec = this.#valueCodec();
    checkpoint.channel_values[TASKS] = await Promise.all(writes.map((w) => codec.revive(w.value)));
    const versions = Object.values(checkpoint.channel_versions ?? {});
    checkpoint.channel_versions = {
      ...checkpoint.channel_versions,
      [TASKS]: versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined),
    };
  }
}

function checkCheckpoint(checkpoint: Checkpoint): void {
  if (typeof checkpoint !== "object" || checkpoint === null)
    throw new InvalidArgumentError(`ForgeSaver.put: checkpoint must be an object, not ${describe(checkpoint)}`);
  if (typeof checkpoint.id !== "string" || checkpoint.id === "") {
    throw new InvalidArgumentError(`ForgeSaver.put: checkpoint.id must be a non-empty string, not ${describe(checkpoint.id)}`);
  }
  const versions: unknown = checkpoint.channel_versions;
  if (versions !== undefined && (typeof versions !== "object" || versions === null)) {
    throw new InvalidArgumentError(`ForgeSaver.put: checkpoint.channel_versions must be an object, not ${describe(versions)}`);
  }
}

/** The Forge checkpoint message of a put: "loop step 3", "[child] input step -1". */
function putMessage(ns: string, metadata: CheckpointMetadata | undefined): string {
  const source = typeof metadata?.source === "string" ? metadata.source : "checkpoint";
  const step = typeof metadata?.step === "number" ? ` step ${metadata.step}` : "";
  return `${ns === "" ? "" : `[${ns}] `}${source}${step}`;
}
