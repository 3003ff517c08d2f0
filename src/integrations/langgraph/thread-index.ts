// Which Forge checkpoint holds what of a LangGraph thread, read from the checkpoints' rows
// (their metadata) without reading any state: the newest entry of each (namespace,
// checkpoint id), and each namespace's latest checkpoint. An index reflects the session at
// one working-state version; every entry write moves that version, so a reader compares
// one number to know whether its index still holds, and a writer's compare-and-swap on it
// fails if another process wrote in between.
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
  const { ns, id, parent, checkpoint } = row;
  if (typeof ns !== "string" || typeof id !== "string" || typeof checkpoint !== "boolean" || (parent !== null && typeof parent !== "string")) return undefined;
  return {
    ns,
    id,
    parent,
    checkpoint,
    ...(Object.hasOwn(row, "metadata") && { metadata: row["metadata"] }),
    forgeId: cp.id,
    seq: cp.seq,
    stateRoot: cp.stateRoot,
  };
}

export class ThreadIndex {
  /** The session's working-state version this index reflects. */
  version: number;
  readonly #byNs = new Map<string, Map<string, EntryInfo>>();
  /** Per namespace, its checkpoint with the greatest id (LangGraph ids are uuid6: time order). */
  readonly #latest = new Map<string, EntryInfo>();

  constructor(version: number, checkpoints: Iterable<Pick<Checkpoint, "id" | "seq" | "stateRoot" | "metadata">>) {
    this.version = version;
    const entries: EntryInfo[] = [];
    for (const cp of checkpoints) {
      const e = entryInfo(cp);
      if (e) entries.push(e);
    }
    entries.sort((a, b) => a.seq - b.seq);
    for (const e of entries) this.add(e);
  }

  /** Records an entry newer than every one known. */
  add(e: EntryInfo): void {
    let ids = this.#byNs.get(e.ns);
    if (!ids) this.#byNs.set(e.ns, (ids = new Map()));
    ids.set(e.id, e);
    const latest = this.#latest.get(e.ns);
    if (e.checkpoint && (latest === undefined || latest.id <= e.id)) this.#latest.set(e.ns, e);
  }

  /** The newest entry of (ns, id), checkpoint or writes only. */
  get(ns: string, id: string): EntryInfo | undefined {
    return this.#byNs.get(ns)?.get(id);
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
