// The run store of flowgraph's ADR-015 over any Forge store: workflow code saves the bytes
// of each node's result under (runId, nodeId) and, after a crash, loads them to resume.
//
// Each run is a Forge session (kind "run"); each save is a checkpoint of that session whose
// files tree holds one file, `data`, with the bytes — so saves are chunked, deduplicated
// and compressed like workspace files, and a run's saves are a timeline the rest of Forge
// (list, diff, gc, export) understands. Unlike the ADR's stores, an overwritten
// (run, node) stays in that timeline as an earlier checkpoint until deleted or pruned: a
// loop that revisits a node keeps its earlier iterations (`history`, `loadSequence`).
import { createHash } from "node:crypto";
import { CheckpointNotFoundError, ForgeError, InvalidArgumentError } from "../../core/errors.js";
import { parseTime, type TimeInput } from "../../core/time.js";
import { buildTree, fileObjects, readFileObject, readTree } from "../../objects/file-tree.js";
import type { Checkpoint } from "../../timeline/types.js";
import type { Session } from "../../timeline/session.js";
import { openStore, type OpenOptions, type Store } from "../../timeline/store.js";

/** What `list` and `history` say of a save, without loading its bytes. */
export interface RunCheckpointInfo {
  readonly runId: string;
  readonly nodeId: string;
  /** The save's place in its run: increasing, never reused (a later save has a larger one). */
  readonly sequence: number;
  readonly timestamp: Date;
  /** Length of the saved bytes. */
  readonly size: number;
  /** The Forge checkpoint holding it (for `forge checkpoint …` and the library). */
  readonly checkpointId: string;
}

export interface RunInfo {
  readonly runId: string;
  /** Nodes with a current save. */
  readonly nodes: number;
  /** Saves kept, earlier iterations included. */
  readonly saves: number;
  readonly createdAt: Date;
  /** When the last save was made (the run's creation if none is left). */
  readonly updatedAt: Date;
}

const KIND = "run";
const TRIGGER = "run-save";
/** Run ids that can be session names as they are; others are named by their hash. */
const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$/;
const MAX_NODE_ID = 1024;
const CHUNK_ABOVE = 64 * 1024;

export class RunStore {
  readonly #store: Store;

  /** A run store over `store`; closing it leaves `store` open. */
  constructor(store: Store) {
    this.#store = store;
  }

  /** Opens the store at `url` (the usual resolution when omitted) for runs; `close` closes it. */
  static async open(url?: string, options?: OpenOptions): Promise<RunStore> {
    return new OwnedRunStore(await openStore(url, options));
  }

  get store(): Store {
    return this.#store;
  }

  /** Saves `data` as the current checkpoint of (runId, nodeId); an earlier one stays in the run's history. */
  async save(runId: string, nodeId: string, data: Uint8Array): Promise<RunCheckpointInfo> {
    checkRunId(runId);
    checkNodeId(nodeId);
    if (!(data instanceof Uint8Array)) throw new InvalidArgumentError(`data for node "${nodeId}" of run "${runId}" must be a Uint8Array, not ${kindOf(data)}`);
    const session = await this.#store.session(sessionName(runId), { kind: KIND, metadata: { runId } });
    await checkKind(session, runId);
    // A run's state is agent data: text in it is redacted like every other value (binary data is kept exact).
    const kept = await this.#store.redactor.redactBytes(data);
    const bytes = Buffer.from(kept.buffer, kept.byteOffset, kept.byteLength);
    // Chunked from 64 KiB: a run's states often grow by appending, and the chunks before
    // the new part are shared with the earlier saves.
    const file = fileObjects(bytes, CHUNK_ABOVE);
    const dir = buildTree({
      files: new Map([["data", { type: "f", mode: 0o644, size: bytes.length, hash: file.hash }]]),
      dirs: new Map([["", { mode: 0o755 }]]),
    });
    return this.#store.withGcEpoch(async (epoch) => {
      await this.#store.objects.putRaw(new Map([...file.objects, ...dir.objects]), "fast");
      const cp = await session.checkpoint(
        { runId, nodeId, size: bytes.length },
        { message: `node ${nodeId}`, trigger: TRIGGER, metadata: { node: nodeId, size: bytes.length }, filesRoot: dir.root, gcEpoch: epoch },
      );
      return toInfo(runId, cp);
    });
  }

  /** The bytes last saved for (runId, nodeId); CheckpointNotFoundError when there are none. */
  async load(runId: string, nodeId: string): Promise<Uint8Array> {
    checkRunId(runId);
    checkNodeId(nodeId);
    const session = await this.#session(runId);
    const saves = session ? await saveCheckpoints(session, "desc") : [];
    const cp = saves.find((c) => nodeOf(c) === nodeId);
    if (!session || !cp)
      throw new CheckpointNotFoundError(
        `${runId}/${nodeId}`,
        `\`forge runs show ${runId}\` lists its nodes`,
        `no checkpoint of node "${nodeId}" in run "${runId}"`,
      );
    return this.#read(cp);
  }

  /** The bytes of the save with this sequence number, current or overwritten. */
  async loadSequence(runId: string, sequence: number): Promise<Uint8Array> {
    checkRunId(runId);
    if (!Number.isInteger(sequence) || sequence < 1) throw new InvalidArgumentError(`sequence must be a whole number ≥ 1, not ${sequence}`);
    const session = await this.#session(runId);
    const cp = session ? (await saveCheckpoints(session, "asc")).find((c) => c.seq === sequence) : undefined;
    if (!cp)
      throw new CheckpointNotFoundError(
        `${runId}#${sequence}`,
        `\`forge runs show ${runId} --history\` lists its saves`,
        `no save #${sequence} in run "${runId}"`,
      );
    return this.#read(cp);
  }

  /** The current checkpoint of each node of the run, ordered by sequence; [] for an unknown run. */
  async list(runId: string): Promise<RunCheckpointInfo[]> {
    checkRunId(runId);
    const session = await this.#session(runId);
    if (!session) return [];
    const latest = new Map<string, Checkpoint>();
    for (const cp of await saveCheckpoints(session, "asc")) latest.set(nodeOf(cp), cp);
    return [...latest.values()].sort((a, b) => a.seq - b.seq).map((cp) => toInfo(runId, cp));
  }

  /** Every save of the run kept (of one node, if given), overwritten ones included, oldest first. */
  async history(runId: string, nodeId?: string): Promise<RunCheckpointInfo[]> {
    checkRunId(runId);
    if (nodeId !== undefined) checkNodeId(nodeId);
    const session = await this.#session(runId);
    if (!session) return [];
    const saves = await saveCheckpoints(session, "asc");
    return saves.filter((cp) => nodeId === undefined || nodeOf(cp) === nodeId).map((cp) => toInfo(runId, cp));
  }

  /** Removes every save of (runId, nodeId), its history included; returns how many went. */
  async delete(runId: string, nodeId: string): Promise<number> {
    checkRunId(runId);
    checkNodeId(nodeId);
    const session = await this.#session(runId);
    if (!session) return 0;
    const ids = (await saveCheckpoints(session, "asc")).filter((cp) => nodeOf(cp) === nodeId).map((cp) => cp.id);
    return (await session.deleteCheckpoints(ids)).length;
  }

  /** Removes the run with all its saves; false if there was no such run. */
  async deleteRun(runId: string): Promise<boolean> {
    checkRunId(runId);
    const session = await this.#session(runId);
    if (!session) return false;
    try {
      await this.#store.deleteSession(session.name);
      return true;
    } catch (e) {
      if (e instanceof ForgeError && e.code === "SESSION_NOT_FOUND") return false; // deleted meanwhile
      throw e;
    }
  }

  /**
   * Keeps the current save of each node and the `keepEarlier` most recent overwritten ones
   * per node (default 0); deletes the rest of the run's history. Returns how many went.
   */
  async prune(runId: string, options: { keepEarlier?: number } = {}): Promise<number> {
    checkRunId(runId);
    const keepEarlier = options.keepEarlier ?? 0;
    if (!Number.isInteger(keepEarlier) || keepEarlier < 0) throw new InvalidArgumentError(`keepEarlier must be a whole number ≥ 0, not ${keepEarlier}`);
    const session = await this.#session(runId);
    if (!session) return 0;
    const seen = new Map<string, number>();
    const gone: string[] = [];
    for (const cp of await saveCheckpoints(session, "desc")) {
      const n = (seen.get(nodeOf(cp)) ?? 0) + 1;
      seen.set(nodeOf(cp), n);
      if (n > 1 + keepEarlier) gone.push(cp.id);
    }
    return (await session.deleteCheckpoints(gone)).length;
  }

  /** The runs in the store, most recently saved first; `olderThan` keeps those whose last save is before it. */
  async listRuns(options: { olderThan?: TimeInput } = {}): Promise<RunInfo[]> {
    const cutoff = options.olderThan === undefined ? undefined : parseTime(options.olderThan, new Date(this.#store.clock.now())).getTime();
    const runs: RunInfo[] = [];
    for (const s of await this.#store.listSessions()) {
      if (s.kind !== KIND) continue;
      const session = await this.#store.getSession(s.name).catch(() => undefined);
      if (!session) continue;
      const saves = await saveCheckpoints(session, "asc");
      const runId = typeof s.metadata["runId"] === "string" ? s.metadata["runId"] : s.name.replace(/^runs\//, "");
      const updatedAt = saves.at(-1)?.createdAt ?? s.createdAt;
      if (cutoff !== undefined && updatedAt.getTime() >= cutoff) continue;
      runs.push({ runId, nodes: new Set(saves.map(nodeOf)).size, saves: saves.length, createdAt: s.createdAt, updatedAt });
    }
    return runs.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || (a.runId < b.runId ? -1 : 1));
  }

  /** Closes the store if this run store opened it (`RunStore.open`); a store passed in stays open. */
  async close(): Promise<void> {}

  async #session(runId: string): Promise<Session | undefined> {
    try {
      const session = await this.#store.getSession(sessionName(runId));
      await checkKind(session, runId);
      return session;
    } catch (e) {
      if (e instanceof ForgeError && e.code === "SESSION_NOT_FOUND") return undefined;
      throw e;
    }
  }

  async #read(cp: Checkpoint): Promise<Uint8Array> {
    if (cp.filesRoot === null) throw new ForgeError("CORRUPT_OBJECT", `checkpoint ${cp.id} of run session "${cp.session}" holds no data`);
    const tree = await readTree(this.#store.objects, cp.filesRoot);
    const file = tree.files.get("data");
    if (file?.type !== "f") throw new ForgeError("CORRUPT_OBJECT", `checkpoint ${cp.id} of run session "${cp.session}" holds no data file`);
    const bytes = await readFileObject(this.#store.objects, file.hash);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
}

/** A RunStore that owns (and closes) its store. */
class OwnedRunStore extends RunStore {
  override async close(): Promise<void> {
    await this.store.close();
  }
}

/** The session a run lives in: `runs/<id>`, or `runs-by-hash/<sha256>` for ids a session name cannot hold. */
export function sessionName(runId: string): string {
  if (PLAIN_ID.test(runId)) return `runs/${runId}`;
  return `runs-by-hash/${createHash("sha256").update(runId).digest("hex").slice(0, 40)}`;
}

async function checkKind(session: Session, runId: string): Promise<void> {
  const info = await session.info();
  if (info.kind !== KIND) {
    throw new ForgeError("INVALID_ARGUMENT", `session "${session.name}" (for run "${runId}") is a ${info.kind} session, not a run`, {
      hint: "choose another run id, or delete that session",
    });
  }
}

/** The run's save checkpoints (other checkpoints someone made in the session are not saves). */
async function saveCheckpoints(session: Session, order: "asc" | "desc"): Promise<Checkpoint[]> {
  return (await session.list({ trigger: TRIGGER, order })).filter((cp) => typeof cp.metadata["node"] === "string");
}

function nodeOf(cp: Checkpoint): string {
  return cp.metadata["node"] as string;
}

function toInfo(runId: string, cp: Checkpoint): RunCheckpointInfo {
  return { runId, nodeId: nodeOf(cp), sequence: cp.seq, timestamp: cp.createdAt, size: Number(cp.metadata["size"] ?? 0), checkpointId: cp.id };
}

function checkRunId(runId: unknown): asserts runId is string {
  if (typeof runId !== "string" || runId.length === 0 || runId.length > MAX_NODE_ID) {
    throw new InvalidArgumentError(`invalid run id ${describe(runId)}`, `a non-empty string of at most ${MAX_NODE_ID} characters`);
  }
}

function checkNodeId(nodeId: unknown): asserts nodeId is string {
  if (typeof nodeId !== "string" || nodeId.length === 0 || nodeId.length > MAX_NODE_ID) {
    throw new InvalidArgumentError(`invalid node id ${describe(nodeId)}`, `a non-empty string of at most ${MAX_NODE_ID} characters`);
  }
}

function describe(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? (v.constructor?.name ?? "an object") : `${typeof v} ${String(v)}`;
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return `a ${v.constructor?.name ?? "plain object"}`;
  return `a ${typeof v}`;
}
