// Metadata held in plain in-process maps, for the memory and file backends. Writes inside
// a transaction record their inverse, so a failed transaction leaves the model untouched.
import { ForgeError } from "../core/errors.js";
import type { CheckpointQuery, CheckpointRow, DeletedObjects, MetaWriter, MilestoneRow, RefRow, SessionPatch, SessionRow } from "./backend.js";
import type { SearchIndexWriter } from "./search/search-index.js";

/** The model as plain JSON, for the file backend to persist. */
export interface MetaDoc {
  readonly version: 1;
  readonly gcEpoch: number;
  readonly sessions: SessionRow[];
  readonly checkpoints: CheckpointRow[];
  readonly refs: RefRow[];
  /** Absent in documents written before milestones existed. */
  readonly milestones?: MilestoneRow[];
}

export class MetaModel {
  readonly sessions = new Map<string, SessionRow>();
  readonly checkpoints = new Map<string, CheckpointRow>();
  /** sessionId → branch name → checkpoint id */
  readonly refs = new Map<string, Map<string, string>>();
  /** sessionId → milestone name → milestone */
  readonly milestones = new Map<string, Map<string, MilestoneRow>>();
  gcEpoch = 0;

  static fromDoc(doc: MetaDoc): MetaModel {
    const m = new MetaModel();
    m.gcEpoch = doc.gcEpoch;
    // Documents written before working states existed lack their fields.
    for (const s of doc.sessions) m.sessions.set(s.id, { ...s, workRoot: s.workRoot ?? null, workVersion: s.workVersion ?? 0 });
    for (const c of doc.checkpoints) m.checkpoints.set(c.id, c);
    for (const r of doc.refs) m.#refsOf(r.sessionId).set(r.name, r.checkpointId);
    for (const ms of doc.milestones ?? []) m.milestonesOf(ms.sessionId).set(ms.name, ms);
    return m;
  }

  toDoc(): MetaDoc {
    const refs: RefRow[] = [];
    for (const [sessionId, names] of this.refs) for (const [name, checkpointId] of names) refs.push({ sessionId, name, checkpointId });
    return {
      version: 1,
      gcEpoch: this.gcEpoch,
      sessions: [...this.sessions.values()],
      checkpoints: [...this.checkpoints.values()],
      refs,
      milestones: [...this.milestones.values()].flatMap((names) => [...names.values()]),
    };
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
  view(undo?: (() => void)[], deleteObjects?: DeleteObjects, search?: SearchIndexWriter): MetaWriter {
    return new ModelView(this, undo, deleteObjects, search);
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

class ModelView implements MetaWriter {
  readonly #m: MetaModel;
  readonly #undo: (() => void)[] | undefined;
  readonly #deleteObjects: DeleteObjects | undefined;
  readonly #search: SearchIndexWriter | undefined;

  constructor(model: MetaModel, undo?: (() => void)[], deleteObjects?: DeleteObjects, search?: SearchIndexWriter) {
    this.#m = model;
    this.#undo = undo;
    this.#deleteObjects = deleteObjects;
    this.#search = search;
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
    for (const c of this.#m.checkpoints.values()) if (c.sessionId === sessionId && c.seq === seq) return c;
    return undefined;
  }

  async listCheckpoints(q: CheckpointQuery): Promise<CheckpointRow[]> {
    const rows = [...this.#m.checkpoints.values()].filter(
      (c) =>
        (q.sessionId === undefined || c.sessionId === q.sessionId) &&
        (q.branch === undefined || c.branch === q.branch) &&
        (q.tag === undefined || c.tags.includes(q.tag)) &&
        (q.trigger === undefined || c.trigger === q.trigger) &&
        (q.since === undefined || c.createdAt >= q.since) &&
        (q.until === undefined || c.createdAt <= q.until),
    );
    rows.sort(q.sessionId === undefined ? (a, b) => a.createdAt - b.createdAt || cmp(a.id, b.id) : (a, b) => a.seq - b.seq);
    if (q.order === "desc") rows.reverse();
    return q.limit === undefined ? rows : rows.slice(0, q.limit);
  }

  async countCheckpoints(sessionId?: string): Promise<number> {
    if (sessionId === undefined) return this.#m.checkpoints.size;
    let n = 0;
    for (const c of this.#m.checkpoints.values()) if (c.sessionId === sessionId) n++;
    return n;
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
  }

  async updateSession(id: string, patch: SessionPatch): Promise<void> {
    const s = this.#m.sessions.get(id);
    if (!s) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${id}`);
    this.#put(this.#m.sessions, id, { ...s, ...patch });
  }

  async deleteSession(id: string): Promise<void> {
    for (const c of [...this.#m.checkpoints.values()]) if (c.sessionId === id) this.#put(this.#m.checkpoints, c.id, undefined);
    this.#put(this.#m.refs, id, undefined);
    this.#put(this.#m.milestones, id, undefined);
    this.#put(this.#m.sessions, id, undefined);
  }

  async allocateSeq(sessionId: string): Promise<number> {
    const s = this.#m.sessions.get(sessionId);
    if (!s) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${sessionId}`);
    this.#put(this.#m.sessions, sessionId, { ...s, nextSeq: s.nextSeq + 1 });
    return s.nextSeq;
  }

  async insertCheckpoint(row: CheckpointRow): Promise<void> {
    const s = this.#m.sessions.get(row.sessionId);
    if (!s) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${row.sessionId}`);
    if (this.#m.checkpoints.has(row.id)) throw new ForgeError("CONFLICT", `checkpoint ${row.id} already exists`);
    if (await this.getCheckpointBySeq(row.sessionId, row.seq)) {
      throw new ForgeError("CONFLICT", `session "${s.name}" already has a checkpoint #${row.seq}`);
    }
    this.#put(this.#m.checkpoints, row.id, row);
    if (row.seq >= s.nextSeq) this.#put(this.#m.sessions, s.id, { ...s, nextSeq: row.seq + 1 });
  }

  async updateCheckpoint(id: string, patch: Partial<Pick<CheckpointRow, "tags" | "parentId" | "message" | "metadata" | "stateRoot">>): Promise<void> {
    const c = this.#m.checkpoints.get(id);
    if (!c) throw new ForgeError("CHECKPOINT_NOT_FOUND", `no checkpoint with id ${id}`);
    this.#put(this.#m.checkpoints, id, { ...c, ...patch });
  }

  async deleteCheckpoints(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.#put(this.#m.checkpoints, id, undefined);
  }

  async setRef(sessionId: string, name: string, checkpointId: string): Promise<void> {
    this.#put(this.#m.refsOf(sessionId), name, checkpointId);
  }

  async deleteRef(sessionId: string, name: string): Promise<void> {
    this.#put(this.#m.refsOf(sessionId), name, undefined);
  }

  async setMilestone(row: MilestoneRow): Promise<void> {
    if (!this.#m.sessions.has(row.sessionId)) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${row.sessionId}`);
    this.#put(this.#m.milestonesOf(row.sessionId), row.name, row);
  }

  async deleteMilestone(sessionId: string, name: string): Promise<void> {
    this.#put(this.#m.milestonesOf(sessionId), name, undefined);
  }

  async bumpGcEpoch(): Promise<number> {
    const undo = this.#writable();
    const old = this.#m.gcEpoch;
    undo.push(() => (this.#m.gcEpoch = old));
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
