// Which Forge checkpoint holds what of a LangGraph thread, read from the checkpoints' rows
// (their metadata) without reading any state: the newest entry of each (namespace,
// checkpoint id), and each namespace's latest checkpoint. An index reflects the session at
// one working-state version; every entry write moves that version, so a reader compares
// one number to know whether its index still holds, and a writer's compare-and-swap on it
// fails if another process wrote in between.
//
// An index is complete (built from every row) or partial: built from the session's newest
// row alone, when that row says it is its namespace's latest checkpoint (`top`) — what the
// first getTuple of a process needs, in one query instead of a read of every row. A partial
// index knows that entry and those this process appends after it; whoever needs another
// makes a complete one.
import type { Checkpoint } from "../../timeline/types.js";

/** What the row of an entry says (Forge checkpoint metadata under "langgraph"). */
export interface EntryRow {
  readonly ns: string;
  readonly id: string;
  readonly parent: string | null;
  /** The entry holds the LangGraph checkpoint (false: only pending writes put before it). */
  readonly checkpoint: boolean;
  /** LangGraph's metadata as stored JSON (for list filters); absent when not stored as JSON. */
  readonly metadata?: unknown;
  /**
   * When it was put, no checkpoint of its namespace in the thread had a greater id: if no
   * entry came after it, it is its namespace's latest. Written since entry format 2.
   */
  readonly top?: boolean;
}

/** One entry, as the index knows it. */
export interface EntryInfo extends EntryRow {
  /** The Forge checkpoint. */
  readonly forgeId: string;
  readonly seq: number;
  readonly stateRoot: string;
}

const ROW_KEY = "langgraph";

/** The Forge checkpoint metadata for an entry. */
export function rowMetadata(row: EntryRow): Record<string, unknown> {
  return { [ROW_KEY]: row };
}

/** The entry a Forge checkpoint is, or undefined for a checkpoint ForgeSaver did not make. */
export function entryInfo(cp: Pick<Checkpoint, "id" | "seq" | "stateRoot" | "metadata">): EntryInfo | undefined {
  const r = cp.metadata[ROW_KEY];
  if (typeof r !== "object" || r === null) return undefined;
  const row = r as Record<string, unknown>;
  const { ns, id, parent, checkpoint, top } = row;
  if (typeof ns !== "string" || typeof id !== "string" || typeof checkpoint !== "boolean" || (parent !== null && typeof parent !== "string")) return undefined;
  return {
    ns,
    id,
    parent,
    checkpoint,
    ...(Object.hasOwn(row, "metadata") && { metadata: row["metadata"] }),
    ...(top === true && { top }),
    forgeId: cp.id,
    seq: cp.seq,
    stateRoot: cp.stateRoot,
  };
}

export class ThreadIndex {
  /** The session's working-state version this index reflects. */
  version: number;
  /** Built from every row (false: from the newest row alone, see the file's head). */
  readonly complete: boolean;
  readonly #byNs = new Map<string, Map<string, EntryInfo>>();
  /** Per namespace, its checkpoint with the greatest id (LangGraph ids are uuid6: time order). */
  readonly #latest = new Map<string, EntryInfo>();

  constructor(version: number, checkpoints: Iterable<Pick<Checkpoint, "id" | "seq" | "stateRoot" | "metadata">>, complete = true) {
    this.version = version;
    this.complete = complete;
    const entries: EntryInfo[] = [];
    for (const cp of checkpoints) {
      const e = entryInfo(cp);
      if (e) entries.push(e);
    }
    entries.sort((a, b) => a.seq - b.seq);
    for (const e of entries) this.add(e);
  }

  /**
   * A partial index from the session's newest row, when that row is its namespace's latest
   * checkpoint (see EntryRow.top); undefined when it is not.
   */
  static fromNewest(version: number, newest: Pick<Checkpoint, "id" | "seq" | "stateRoot" | "metadata"> | undefined): ThreadIndex | undefined {
    const e = newest && entryInfo(newest);
    if (!newest || !e?.checkpoint || e.top !== true) return undefined;
    return new ThreadIndex(version, [newest], false);
  }

  /** Records an entry newer than every one known. */
  add(e: EntryInfo): void {
    let ids = this.#byNs.get(e.ns);
    if (!ids) this.#byNs.set(e.ns, (ids = new Map()));
    ids.set(e.id, e);
    const latest = this.#latest.get(e.ns);
    if (e.checkpoint && (latest === undefined || latest.id <= e.id)) this.#latest.set(e.ns, e);
  }

  /** The newest entry of (ns, id), checkpoint or writes only (in a partial index: if it knows it). */
  get(ns: string, id: string): EntryInfo | undefined {
    return this.#byNs.get(ns)?.get(id);
  }

  /** Whether `latest(ns)` is the answer: a complete index always knows, a partial one for the namespace it was made for. */
  knowsLatest(ns: string): boolean {
    return this.complete || this.#latest.has(ns);
  }

  /** The namespace's checkpoint with the greatest id. */
  latest(ns: string): EntryInfo | undefined {
    return this.#latest.get(ns);
  }

  /** The newest entry of every checkpoint, of one namespace or all. */
  *checkpoints(ns?: string): Generator<EntryInfo> {
    for (const [name, ids] of this.#byNs) {
      if (ns !== undefined && name !== ns) continue;
      for (const e of ids.values()) if (e.checkpoint) yield e;
    }
  }
}
