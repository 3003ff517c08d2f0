// Metadata held in plain in-process maps, for the memory and file backends. Writes inside
// a transaction record their inverse, so a failed transaction leaves the model untouched.
import { ForgeError } from "../core/errors.js";
import type { CheckpointQuery, CheckpointRow, DeletedObjects, MetaWriter, MilestoneRow, RefRow, SessionPatch, SessionRow } from "./backend.js";
import type { SearchIndexWriter } from "./search/search-index.js";
import { lowerBound, SessionCheckpoints } from "./session-checkpoints.js";

/** The model as plain JSON, for the file backend to persist. */
export interface MetaDoc {
  /** 1: the whole metadata; 2: the metadata as of `journal`, whose records in meta.log follow it. */
  readonly version: 1 | 2;
  /** Version 2: the id the journal records that apply on top of this document carry. */
  readonly journal?: string;
  readonly gcEpoch: number;
  readonly sessions: SessionRow[];
  readonly checkpoints: CheckpointRow[];
  readonly refs: RefRow[];
  /** Absent in documents written before milestones existed. */
  readonly milestones?: MilestoneRow[];
}

/**
 * Which rows a transaction changed, by key, for the file backend's journal: the record of a
 * transaction holds the final value of each (or null when it went), not the whole model.
 */
export class ChangeSet {
  readonly sessions = new Set<string>();
  readonly checkpoints = new Set<string>();
  /** sessionId \0 branch name */
  readonly refs = new Set<string>();
  /** Sessions whose refs all went (a deleted session). */
  readonly droppedRefs = new Set<string>();
  /** sessionId \0 milestone name */
  readonly milestones = new Set<string>();
  readonly droppedMilestones = new Set<string>();
  gcEpoch = false;
  /**
   * A row written before changed content or went (a tag, a deletion, a prune, a redaction, a
   * renamed session): its old content would stay readable in the journal's earlier lines, so
   * the commit folds the journal into a new meta.json instead — a deleted or redacted secret
   * leaves no copy on disk, as when meta.json was rewritten whole.
   */
  rewritten = false;

  get empty(): boolean {
    return (
      !this.gcEpoch &&
      this.sessions.size + this.checkpoints.size + this.refs.size + this.droppedRefs.size + this.milestones.size + this.droppedMilestones.size === 0
    );
  }
}

/** One committed transaction in the file backend's journal (meta.log): final values of the rows it changed. */
export interface JournalRecord {
  /** The journal id of the meta.json this record follows. */
  readonly j: string;
  readonly s?: Record<string, SessionRow | null>;
  readonly c?: Record<string, CheckpointRow | null>;
  readonly R?: string[];
  readonly r?: [string, string, string | null][];
  readonly M?: string[];
  readonly m?: [string, string, MilestoneRow | null][];
  readonly e?: number;
}

export class MetaModel {
  readonly sessions = new Map<string, SessionRow>();
  /** Every checkpoint by id; change it only through `putCheckpoint`, which keeps `bySession` in step. */
  readonly checkpoints = new Map<string, CheckpointRow>();
  /** sessionId → its checkpoints, indexed */
  readonly bySession = new Map<string, SessionCheckpoints>();
  /** sessionId → branch name → checkpoint id */
  readonly refs = new Map<string, Map<string, string>>();
  /** sessionId → milestone name → milestone */
  readonly milestones = new Map<string, Map<string, MilestoneRow>>();
  gcEpoch = 0;

  static fromDoc(doc: MetaDoc): MetaModel {
    const m = new MetaModel();
    m.gcEpoch = doc.gcEpoch;
    // Documents written before working states existed lack their fields.
    for (const s of doc.sessions) m.sessions.set(s.id, withWorkFields(s));
    // Each session's seqs sorted once (in whatever order the document lists its checkpoints).
    for (const c of doc.checkpoints) {
      m.checkpoints.set(c.id, c);
      const list = m.checkpointsOf(c.sessionId);
      list.bySeq.set(c.seq, c);
      list.seqs.push(c.seq);
    }
    for (const list of m.bySession.values()) {
      list.seqs.sort((a, b) => a - b);
      for (let i = 1; i < list.seqs.length && !list.timesUnordered; i++) list.timesUnordered = list.at(i).createdAt < list.at(i - 1).createdAt;
    }
    for (const r of doc.refs) m.#refsOf(r.sessionId).set(r.name, r.checkpointId);
    for (const ms of doc.milestones ?? []) m.milestonesOf(ms.sessionId).set(ms.name, ms);
    return m;
  }

  /** The whole model as a version-2 document, the base of the journal `journal`. */
  toDoc(journal: string): MetaDoc {
    const refs: RefRow[] = [];
    for (const [sessionId, names] of this.refs) for (const [name, checkpointId] of names) refs.push({ sessionId, name, checkpointId });
    return {
      version: 2,
      journal,
      gcEpoch: this.gcEpoch,
      sessions: [...this.sessions.values()],
      checkpoints: [...this.checkpoints.values()],
      refs,
      milestones: [...this.milestones.values()].flatMap((names) => [...names.values()]),
    };
  }

  /** The journal record of a transaction's changes: each changed row's value now (null: gone). */
  record(changes: ChangeSet, journal: string): JournalRecord {
    const pair = (key: string) => key.split("\0") as [string, string];
    const rec: { -readonly [K in keyof JournalRecord]: JournalRecord[K] } = { j: journal };
    if (changes.sessions.size > 0) rec.s = Object.fromEntries([...changes.sessions].map((id) => [id, this.sessions.get(id) ?? null]));
    if (changes.checkpoints.size > 0) rec.c = Object.fromEntries([...changes.checkpoints].map((id) => [id, this.checkpoints.get(id) ?? null]));
    if (changes.droppedRefs.size > 0) rec.R = [...changes.droppedRefs];
    if (changes.refs.size > 0) rec.r = [...changes.refs].map((k) => [...pair(k), this.refs.get(pair(k)[0])?.get(pair(k)[1]) ?? null]);
    if (changes.droppedMilestones.size > 0) rec.M = [...changes.droppedMilestones];
    if (changes.milestones.size > 0) rec.m = [...changes.milestones].map((k) => [...pair(k), this.milestones.get(pair(k)[0])?.get(pair(k)[1]) ?? null]);
    if (changes.gcEpoch) rec.e = this.gcEpoch;
    return rec;
  }

  /** Applies a journal record (another transaction's, or this one's replayed on open). */
  apply(rec: JournalRecord): void {
    for (const id of rec.R ?? []) this.refs.delete(id);
    for (const id of rec.M ?? []) this.milestones.delete(id);
    for (const [id, row] of Object.entries(rec.s ?? {})) {
      if (row === null) this.sessions.delete(id);
      else this.sessions.set(id, withWorkFields(row));
    }
    for (const [id, row] of Object.entries(rec.c ?? {})) {
      if (row !== null && !this.checkpoints.has(id)) {
        const list = this.checkpointsOf(row.sessionId);
        if (!list.timesUnordered && list.outOfOrder(row.seq, row.createdAt)) list.timesUnordered = true;
      }
      this.putCheckpoint(id, row ?? undefined);
    }
    for (const [sessionId, name, id] of rec.r ?? []) {
      if (id === null) this.refs.get(sessionId)?.delete(name);
      else this.#refsOf(sessionId).set(name, id);
    }
    for (const [sessionId, name, row] of rec.m ?? []) {
      if (row === null) this.milestones.get(sessionId)?.delete(name);
      else this.milestonesOf(sessionId).set(name, row);
    }
    if (rec.e !== undefined) this.gcEpoch = rec.e;
  }

  /** Sets (or, with undefined, deletes) the checkpoint `id`, in the map by id and in its session's index. */
  putCheckpoint(id: string, row: CheckpointRow | undefined): void {
    const old = this.checkpoints.get(id);
    if (old && row && old.sessionId === row.sessionId && old.seq === row.seq) {
      // A changed row in the same place (tags, a parent re-linked): no seq moves.
      this.checkpoints.set(id, row);
      this.checkpointsOf(row.sessionId).bySeq.set(row.seq, row);
      return;
    }
    if (old) this.bySession.get(old.sessionId)?.remove(old);
    if (row === undefined) {
      this.checkpoints.delete(id);
      return;
    }
    this.checkpoints.set(id, row);
    this.checkpointsOf(row.sessionId).add(row);
  }

  checkpointsOf(sessionId: string): SessionCheckpoints {
    let list = this.bySession.get(sessionId);
    if (!list) this.bySession.set(sessionId, (list = new SessionCheckpoints()));
    return list;
  }

  #refsOf(sessionId: string): Map<string, string> {
    let m = this.refs.get(sessionId);
    if (!m) this.refs.set(sessionId, (m = new Map()));
    return m;
  }

  /**
   * A reader/writer over the model. Writes need an undo log (they record how to roll back)
   * and, for gc, the backend's own object deletion; the full-text index's writes are the
   * backend's in-process index, whose changes go on the same undo log.
   */
  view(undo?: (() => void)[], deleteObjects?: DeleteObjects, search?: SearchIndexWriter, changes?: ChangeSet): MetaWriter {
    return new ModelView(this, undo, deleteObjects, search, changes);
  }

  refsOf(sessionId: string): Map<string, string> {
    return this.#refsOf(sessionId);
  }

  milestonesOf(sessionId: string): Map<string, MilestoneRow> {
    let m = this.milestones.get(sessionId);
    if (!m) this.milestones.set(sessionId, (m = new Map()));
    return m;
  }
}

type DeleteObjects = (hashes: readonly string[], createdBefore: number) => Promise<DeletedObjects>;

function withWorkFields(s: SessionRow): SessionRow {
  return { ...s, workRoot: s.workRoot ?? null, workVersion: s.workVersion ?? 0 };
}

class ModelView implements MetaWriter {
  readonly #m: MetaModel;
  readonly #undo: (() => void)[] | undefined;
  readonly #deleteObjects: DeleteObjects | undefined;
  readonly #search: SearchIndexWriter | undefined;
  /** Where the keys of changed rows are noted, when the backend journals them. */
  readonly #changes: ChangeSet | undefined;

  constructor(model: MetaModel, undo?: (() => void)[], deleteObjects?: DeleteObjects, search?: SearchIndexWriter, changes?: ChangeSet) {
    this.#m = model;
    this.#undo = undo;
    this.#deleteObjects = deleteObjects;
    this.#search = search;
    this.#changes = changes;
  }

  get search(): SearchIndexWriter {
    this.#writable();
    if (!this.#search) throw new ForgeError("CONFLICT", "this view has no search index to write");
    return this.#search;
  }

  #writable(): (() => void)[] {
    if (!this.#undo) throw new ForgeError("CONFLICT", "metadata writes need a transaction");
    return this.#undo;
  }

  /** Sets `map[key] = value` (or deletes it) and records how to put it back. */
  #put<K, V>(map: Map<K, V>, key: K, value: V | undefined): void {
    const undo = this.#writable();
    const had = map.has(key);
    const old = map.get(key);
    undo.push(() => (had ? map.set(key, old as V) : map.delete(key)));
    if (value === undefined) map.delete(key);
    else map.set(key, value);
  }

  /** Sets or deletes a checkpoint (and its place in its session's index) and records how to put it back. */
  #putCheckpoint(id: string, row: CheckpointRow | undefined): void {
    const undo = this.#writable();
    const old = this.#m.checkpoints.get(id);
    undo.push(() => this.#m.putCheckpoint(id, old));
    this.#m.putCheckpoint(id, row);
    if (this.#changes) {
      this.#changes.checkpoints.add(id);
      if (old) this.#changes.rewritten = true;
    }
  }

  async getSessionById(id: string): Promise<SessionRow | undefined> {
    return this.#m.sessions.get(id);
  }

  async getSessionByName(name: string): Promise<SessionRow | undefined> {
    for (const s of this.#m.sessions.values()) if (s.name === name) return s;
    return undefined;
  }

  async listSessions(): Promise<SessionRow[]> {
    return [...this.#m.sessions.values()].sort((a, b) => a.createdAt - b.createdAt || cmp(a.id, b.id));
  }

  async getCheckpoint(id: string): Promise<CheckpointRow | undefined> {
    return this.#m.checkpoints.get(id);
  }

  async findCheckpointsByPrefix(prefix: string, limit: number, sessionId?: string): Promise<CheckpointRow[]> {
    const out: CheckpointRow[] = [];
    for (const c of this.#m.checkpoints.values()) {
      if (c.id.startsWith(prefix) && (sessionId === undefined || c.sessionId === sessionId)) out.push(c);
    }
    return out.sort((a, b) => cmp(a.id, b.id)).slice(0, limit);
  }

  async getCheckpointBySeq(sessionId: string, seq: number): Promise<CheckpointRow | undefined> {
    return this.#m.bySession.get(sessionId)?.bySeq.get(seq);
  }

  async listCheckpoints(q: CheckpointQuery): Promise<CheckpointRow[]> {
    const passes = (c: CheckpointRow) =>
      (q.branch === undefined || c.branch === q.branch) &&
      (q.tag === undefined || c.tags.includes(q.tag)) &&
      (q.trigger === undefined || c.trigger === q.trigger) &&
      (q.since === undefined || c.createdAt >= q.since) &&
      (q.until === undefined || c.createdAt <= q.until);
    if (q.sessionId === undefined) {
      const rows = [...this.#m.checkpoints.values()].filter(passes);
      rows.sort((a, b) => a.createdAt - b.createdAt || cmp(a.id, b.id));
      if (q.order === "desc") rows.reverse();
      return q.limit === undefined ? rows : rows.slice(0, q.limit);
    }
    // One session: its rows in seq order, read from the end the order starts at, until the limit.
    const list = this.#m.bySession.get(q.sessionId);
    if (!list) return [];
    let lo = 0;
    let hi = list.seqs.length;
    if (!list.timesUnordered) {
      // Times never go back in seq order: the window is a run of seqs, found by binary search.
      if (q.since !== undefined) lo = lowerBound(hi, (i) => list.at(i).createdAt < (q.since as number));
      if (q.until !== undefined) hi = lowerBound(hi, (i) => list.at(i).createdAt <= (q.until as number));
    }
    const limit = q.limit ?? Number.POSITIVE_INFINITY;
    const out: CheckpointRow[] = [];
    const desc = q.order === "desc";
    for (let i = desc ? hi - 1 : lo; desc ? i >= lo : i < hi; desc ? i-- : i++) {
      if (out.length >= limit) break;
      const c = list.at(i);
      if (passes(c)) out.push(c);
    }
    return out;
  }

  async countCheckpoints(sessionId?: string): Promise<number> {
    if (sessionId === undefined) return this.#m.checkpoints.size;
    return this.#m.bySession.get(sessionId)?.seqs.length ?? 0;
  }

  async listRefs(sessionId: string): Promise<RefRow[]> {
    const names = this.#m.refs.get(sessionId);
    if (!names) return [];
    return [...names].map(([name, checkpointId]) => ({ sessionId, name, checkpointId })).sort((a, b) => cmp(a.name, b.name));
  }

  async getRef(sessionId: string, name: string): Promise<RefRow | undefined> {
    const id = this.#m.refs.get(sessionId)?.get(name);
    return id === undefined ? undefined : { sessionId, name, checkpointId: id };
  }

  async listMilestones(sessionId: string): Promise<MilestoneRow[]> {
    const names = this.#m.milestones.get(sessionId);
    if (!names) return [];
    return [...names.values()].sort((a, b) => a.createdAt - b.createdAt || cmp(a.name, b.name));
  }

  async getMilestone(sessionId: string, name: string): Promise<MilestoneRow | undefined> {
    return this.#m.milestones.get(sessionId)?.get(name);
  }

  async listRoots(): Promise<string[]> {
    const out: string[] = [];
    for (const c of this.#m.checkpoints.values()) {
      out.push(c.stateRoot);
      if (c.filesRoot !== null) out.push(c.filesRoot);
    }
    for (const s of this.#m.sessions.values()) if (s.workRoot !== null) out.push(s.workRoot);
    return [...new Set(out)];
  }

  async getGcEpoch(): Promise<number> {
    return this.#m.gcEpoch;
  }

  async insertSession(row: SessionRow): Promise<void> {
    if (this.#m.sessions.has(row.id) || (await this.getSessionByName(row.name))) {
      throw new ForgeError("SESSION_EXISTS", `session "${row.name}" already exists`);
    }
    this.#put(this.#m.sessions, row.id, row);
    this.#changes?.sessions.add(row.id);
  }

  async updateSession(id: string, patch: SessionPatch): Promise<void> {
    const s = this.#m.sessions.get(id);
    if (!s) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${id}`);
    this.#put(this.#m.sessions, id, { ...s, ...patch });
    if (this.#changes) {
      this.#changes.sessions.add(id);
      if (patch.name !== undefined || patch.metadata !== undefined) this.#changes.rewritten = true;
    }
  }

  async deleteSession(id: string): Promise<void> {
    const list = this.#m.bySession.get(id);
    if (list) for (const row of [...list.bySeq.values()]) this.#putCheckpoint(row.id, undefined);
    this.#put(this.#m.refs, id, undefined);
    this.#put(this.#m.milestones, id, undefined);
    this.#put(this.#m.sessions, id, undefined);
    if (this.#changes) {
      this.#changes.droppedRefs.add(id);
      this.#changes.droppedMilestones.add(id);
      this.#changes.sessions.add(id);
      this.#changes.rewritten = true;
    }
  }

  async allocateSeq(sessionId: string): Promise<number> {
    const s = this.#m.sessions.get(sessionId);
    if (!s) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${sessionId}`);
    this.#put(this.#m.sessions, sessionId, { ...s, nextSeq: s.nextSeq + 1 });
    this.#changes?.sessions.add(sessionId);
    return s.nextSeq;
  }

  async insertCheckpoint(row: CheckpointRow): Promise<void> {
    const s = this.#m.sessions.get(row.sessionId);
    if (!s) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${row.sessionId}`);
    if (this.#m.checkpoints.has(row.id)) throw new ForgeError("CONFLICT", `checkpoint ${row.id} already exists`);
    if (await this.getCheckpointBySeq(row.sessionId, row.seq)) {
      throw new ForgeError("CONFLICT", `session "${s.name}" already has a checkpoint #${row.seq}`);
    }
    const list = this.#m.checkpointsOf(row.sessionId);
    if (!list.timesUnordered && list.outOfOrder(row.seq, row.createdAt)) {
      this.#writable().push(() => (list.timesUnordered = false));
      list.timesUnordered = true;
    }
    this.#putCheckpoint(row.id, row);
    if (row.seq >= s.nextSeq) this.#put(this.#m.sessions, s.id, { ...s, nextSeq: row.seq + 1 });
    this.#changes?.sessions.add(s.id);
  }

  async updateCheckpoint(id: string, patch: Partial<Pick<CheckpointRow, "tags" | "parentId" | "message" | "metadata" | "stateRoot">>): Promise<void> {
    const c = this.#m.checkpoints.get(id);
    if (!c) throw new ForgeError("CHECKPOINT_NOT_FOUND", `no checkpoint with id ${id}`);
    this.#putCheckpoint(id, { ...c, ...patch });
  }

  async deleteCheckpoints(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.#putCheckpoint(id, undefined);
  }

  async setRef(sessionId: string, name: string, checkpointId: string): Promise<void> {
    this.#put(this.#m.refsOf(sessionId), name, checkpointId);
    this.#changes?.refs.add(`${sessionId}\0${name}`);
  }

  async deleteRef(sessionId: string, name: string): Promise<void> {
    this.#put(this.#m.refsOf(sessionId), name, undefined);
    this.#changes?.refs.add(`${sessionId}\0${name}`);
  }

  async setMilestone(row: MilestoneRow): Promise<void> {
    if (!this.#m.sessions.has(row.sessionId)) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${row.sessionId}`);
    const replaced = this.#m.milestones.get(row.sessionId)?.has(row.name) === true;
    this.#put(this.#m.milestonesOf(row.sessionId), row.name, row);
    if (this.#changes) {
      this.#changes.milestones.add(`${row.sessionId}\0${row.name}`);
      if (replaced) this.#changes.rewritten = true;
    }
  }

  async deleteMilestone(sessionId: string, name: string): Promise<void> {
    this.#put(this.#m.milestonesOf(sessionId), name, undefined);
    if (this.#changes) {
      this.#changes.milestones.add(`${sessionId}\0${name}`);
      this.#changes.rewritten = true;
    }
  }

  async bumpGcEpoch(): Promise<number> {
    const undo = this.#writable();
    const old = this.#m.gcEpoch;
    undo.push(() => (this.#m.gcEpoch = old));
    if (this.#changes) this.#changes.gcEpoch = true;
    return ++this.#m.gcEpoch;
  }

  async deleteObjects(hashes: readonly string[], createdBefore: number): Promise<DeletedObjects> {
    this.#writable();
    if (!this.#deleteObjects) throw new ForgeError("CONFLICT", "this view cannot delete objects");
    return this.#deleteObjects(hashes, createdBefore);
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
