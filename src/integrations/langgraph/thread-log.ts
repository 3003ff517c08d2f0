// One LangGraph thread in a Forge store: a session (kind "langgraph") whose checkpoints are
// an append-only log of entries (one per put), with the thread's pending writes beside them
// as side records of the session (see forge-saver.ts for why).
//
// Every append is a working-state write with a compare-and-swap on the session's version
// that is also a Forge checkpoint (Session.setWorking with `checkpoint`), so entry and
// version commit together: a process whose index is stale (another process appended)
// fails the swap, rebuilds its index from the session and tries again — no write is made
// from stale knowledge, and no lock outlives a call.
import { createHash } from "node:crypto";
import { ForgeError } from "../../core/errors.js";
import { Mutex } from "../../core/mutex.js";
import type { UnchangedHint } from "../../objects/value-encoder.js";
import type { Session } from "../../timeline/session.js";
import type { SideRecordValue } from "../../timeline/side-records.js";
import type { Store } from "../../timeline/store.js";
import type { Checkpoint, CheckpointOptions } from "../../timeline/types.js";
import type { EntryContent } from "./entry.js";
import { ThreadIndex, entryInfo, type EntryInfo } from "./thread-index.js";

export const SESSION_KIND = "langgraph";
/**
 * Session metadata of a thread created on a store that keeps side records: every pending
 * write of it is a side record, so no entry of it is writes-only and a partial index (one
 * query) may answer what the newest entry answers. Threads without it (written by an older
 * ForgeSaver, or on a memory or file store) are always read through a complete index.
 */
const WRITES_MARK = { key: "pendingWrites", value: "side-records" } as const;
/** Thread ids that can be session names as they are; others are named by their hash. */
const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
/** Tries of a write whose compare-and-swap keeps failing (other processes writing the thread). */
const MAX_ATTEMPTS = 8;

/** The session of a thread: `<prefix>/<thread id>`, or `<prefix>-by-hash/<sha256>` for ids a session name cannot hold. */
export function threadSessionName(prefix: string, threadId: string): string {
  if (PLAIN_ID.test(threadId)) return `${prefix}/${threadId}`;
  return `${prefix}-by-hash/${createHash("sha256").update(threadId).digest("hex").slice(0, 40)}`;
}

/** What an append writes: the entry, and how. */
export interface Append {
  readonly entry: EntryContent;
  readonly options: CheckpointOptions;
  /** Top-level keys whose values equal those of the entry `plan` was told this process wrote last. */
  readonly unchangedSinceLast?: ReadonlySet<string>;
}

/** What a caller needs of an index; a complete index has everything. */
export interface IndexNeed {
  /** The latest checkpoint of this namespace. */
  readonly latest?: string;
  /** These entries, by [namespace, checkpoint id], when they exist. */
  readonly entries?: readonly (readonly [string, string])[];
  /** Nothing less than every entry. */
  readonly complete?: boolean;
}

function satisfies(index: ThreadIndex, need: IndexNeed): boolean {
  if (index.complete) return true;
  if (need.complete) return false;
  if (need.latest !== undefined && !index.knowsLatest(need.latest)) return false;
  return (need.entries ?? []).every(([ns, id]) => index.get(ns, id) !== undefined);
}

/** Entries by Forge checkpoint id (their content never changes), least recently used dropped first. */
export class EntryCache {
  readonly #map = new Map<string, EntryContent>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get(forgeId: string): EntryContent | undefined {
    const e = this.#map.get(forgeId);
    if (e) {
      this.#map.delete(forgeId);
      this.#map.set(forgeId, e);
    }
    return e;
  }

  set(forgeId: string, entry: EntryContent): void {
    this.#map.delete(forgeId);
    this.#map.set(forgeId, entry);
    if (this.#map.size > this.#max) this.#map.delete(this.#map.keys().next().value as string);
  }
}

export class ThreadLog {
  readonly threadId: string;
  readonly sessionName: string;
  /** Appends of this process run one at a time (LangGraph puts writes of parallel tasks at once). */
  readonly mutex = new Mutex();
  readonly #store: Store;
  #session: Session | undefined;
  /** The session is marked (WRITES_MARK) and the store keeps side records: partial indexes may serve. */
  #partialOk = false;
  #index: ThreadIndex | undefined;
  /** The entry this process appended last, while it is the session's newest: the encoder's memo holds its state. */
  #last: { readonly forgeId: string; readonly root: string } | undefined;

  constructor(store: Store, prefix: string, threadId: string) {
    this.#store = store;
    this.threadId = threadId;
    this.sessionName = threadSessionName(prefix, threadId);
  }

  /**
   * An index as the session is now (one version read), holding at least what `need` asks:
   * the one this process has, a partial one from the newest row, or one rebuilt from every
   * row. Undefined when the thread has no session.
   */
  async index(need: IndexNeed = { complete: true }): Promise<ThreadIndex | undefined> {
    for (let attempt = 1; ; attempt++) {
      // A session looked up now comes with its row as read now: its version needs no read of its own.
      const lookedUp = this.#session === undefined;
      const session = await this.#resolve(false);
      if (!session) return undefined;
      try {
        return await this.#indexFor(session, lookedUp ? session.opened.workVersion : await session.workVersion(), need);
      } catch (e) {
        // Deleted (and maybe created again) by another process since we looked it up.
        if (!isCode(e, "SESSION_NOT_FOUND") || attempt >= 2) throw e;
        this.forget();
      }
    }
  }

  /** Forgets the index and session: the next call reads them again (after a failed read of a gone entry). */
  forget(): void {
    this.#session = undefined;
    this.#index = undefined;
    this.#last = undefined;
  }

  /**
   * Appends the entry `plan` builds from an index holding `need` (null: nothing to write),
   * with a compare-and-swap on the index's version; on a conflict the index is rebuilt and
   * `plan` runs again. `plan` is told which entry this process appended last, if any: keys
   * it reports unchanged since that one are taken from the value encoder's memo unwalked.
   * Call inside `mutex`.
   */
  async append(
    need: IndexNeed,
    plan: (index: ThreadIndex, lastForgeId: string | undefined) => Promise<Append | null>,
    cache: EntryCache,
  ): Promise<EntryInfo | null> {
    for (let attempt = 1; ; attempt++) {
      const session = (await this.#resolve(true)) as Session;
      try {
        // A kept index is used as it is: if it is stale, the compare-and-swap says so.
        let index = this.#index;
        if (index === undefined || !satisfies(index, need)) index = await this.#indexFor(session, await session.workVersion(), need);
        const last = this.#last;
        const append = await plan(index, last?.forgeId);
        if (append === null) return null;
        const hint: UnchangedHint | undefined =
          last !== undefined && append.unchangedSinceLast !== undefined && append.unchangedSinceLast.size > 0
            ? { since: last.root, keys: append.unchangedSinceLast }
            : undefined;
        const result = await session.setWorking(append.entry.state, {
          expectedVersion: index.version,
          ...(hint !== undefined && { unchanged: hint }),
          checkpoint: append.options,
        });
        const cp = result.checkpoint as Checkpoint;
        const info = entryInfo(cp);
        if (!info) throw new ForgeError("INVALID_STATE", `ForgeSaver wrote checkpoint ${cp.id} without its entry row`);
        index.add(info);
        index.version = result.version;
        this.#last = { forgeId: cp.id, root: result.root };
        cache.set(cp.id, append.entry);
        return info;
      } catch (e) {
        // CONFLICT: another process appended since our index was made (or a gc kept
        // running); SESSION_NOT_FOUND: the thread was deleted meanwhile; MISSING_OBJECT: an
        // entry the plan read was deleted and collected. Read the thread again and retry.
        if (!(isCode(e, "CONFLICT") || isCode(e, "SESSION_NOT_FOUND") || isCode(e, "MISSING_OBJECT")) || attempt >= MAX_ATTEMPTS) throw e;
        if (isCode(e, "SESSION_NOT_FOUND")) this.#session = undefined;
        this.#index = undefined;
        this.#last = undefined;
      }
    }
  }

  /** Writes side records of the thread, creating its session if need be (again, if it was deleted meanwhile). */
  async putSideRecords(records: readonly (SideRecordValue & { readonly replace?: boolean })[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const session = this.#session ?? ((await this.#resolve(true)) as Session);
      try {
        return await session.putSideRecords(records);
      } catch (e) {
        if (!isCode(e, "SESSION_NOT_FOUND") || attempt >= MAX_ATTEMPTS) throw e;
        this.forget();
      }
    }
  }

  /** The thread's side records (of one scope, or all); none when it has no session or the store keeps none. */
  async sideRecords(scope?: string): Promise<SideRecordValue[]> {
    const session = await this.#resolve(false);
    if (!session?.keepsSideRecords) return [];
    return session.sideRecords(scope);
  }

  /** Deletes the thread's session (all namespaces); false if there was none. Call inside `mutex`. */
  async delete(): Promise<boolean> {
    const session = await this.#resolve(false);
    this.forget();
    if (!session) return false;
    try {
      await this.#store.deleteSession(this.sessionName);
      return true;
    } catch (e) {
      if (isCode(e, "SESSION_NOT_FOUND")) return false; // deleted meanwhile
      throw e;
    }
  }

  /** The thread's session: looked up (and with `create`, made) on first use, then kept. */
  async #resolve(create: boolean): Promise<Session | undefined> {
    if (this.#session) return this.#session;
    let session: Session;
    if (create) {
      const marked = this.#store.keepsSideRecords ? { [WRITES_MARK.key]: WRITES_MARK.value } : {};
      session = await this.#store.session(this.sessionName, { kind: SESSION_KIND, metadata: { threadId: this.threadId, ...marked } });
    } else {
      try {
        session = await this.#store.getSession(this.sessionName);
      } catch (e) {
        if (isCode(e, "SESSION_NOT_FOUND")) return undefined;
        throw e;
      }
    }
    const info = session.opened;
    if (info.kind !== SESSION_KIND || info.metadata["threadId"] !== this.threadId) {
      throw new ForgeError(
        "INVALID_ARGUMENT",
        `session "${this.sessionName}" (for LangGraph thread ${JSON.stringify(this.threadId)}) is not that thread's: it is a ${info.kind} session${info.kind === SESSION_KIND ? ` of thread ${JSON.stringify(info.metadata["threadId"])}` : ""}`,
        {
          hint: "use another sessionPrefix for ForgeSaver, or delete that session",
        },
      );
    }
    this.#session = session;
    this.#partialOk = info.metadata[WRITES_MARK.key] === WRITES_MARK.value && session.keepsSideRecords;
    return session;
  }

  /** The kept index if it is of `version` and holds `need`, else a partial one if that does, else a complete one. */
  async #indexFor(session: Session, version: number, need: IndexNeed): Promise<ThreadIndex> {
    const kept = this.#index;
    if (kept?.version === version) {
      if (satisfies(kept, need)) return kept;
      // Else the rows are those it was made from: only all of them can tell more.
    } else if (this.#partialOk && !need.complete) {
      // The version is read before the rows: rows newer than it only make the next check read again.
      const [newest] = await session.list({ order: "desc", limit: 1 });
      const partial = ThreadIndex.fromNewest(version, newest);
      if (partial && satisfies(partial, need)) return (this.#index = partial);
    }
    const index = new ThreadIndex(version, await session.list());
    this.#index = index;
    return index;
  }
}

function isCode(e: unknown, code: string): boolean {
  return e instanceof ForgeError && e.code === code;
}
