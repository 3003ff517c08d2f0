// The object layer over a backend: writes value trees (only the objects the store lacks),
// reads and verifies nodes in batches with a bounded cache, and assembles values.
import { CorruptObjectError, ForgeError, MissingObjectError } from "../core/errors.js";
import { Redactor, RulesNotLoaded } from "../core/redact/redactor.js";
import type { Backend, StoredObject } from "../backends/backend.js";
import { pack, unpack, type Effort } from "./codec.js";
import type { Hash } from "./hash.js";
import { setOwn } from "../core/own.js";
import { childHashes, parseNode, placeChildren, type TreeNode } from "./node.js";
import { readNodes, sharedTextOf } from "./batch-read.js";
import { DEFAULT_TREE_PARAMS, type TreeParams } from "./tree-params.js";
import type { TreeMemo, UnchangedHint } from "./value-encoder.js";

// What only writing needs — the encoder, the limits, the compression thread — is loaded by the
// first write: a process that only reads (a restore, a hook's status) never loads it.
interface WriteSupport {
  readonly encoder: typeof import("./value-encoder.js");
  readonly limits: typeof import("./limits.js");
  readonly pool: typeof import("./compress-pool.js");
}
let loadingWriters: Promise<WriteSupport> | undefined;
/** Set once loaded: from then on a write encodes at once, as when these were static imports. */
let writers: WriteSupport | undefined;
function loadWriters(): Promise<WriteSupport> {
  loadingWriters ??= Promise.all([import("./value-encoder.js"), import("./limits.js"), import("./compress-pool.js")]).then(
    ([encoder, limits, pool]) => (writers = { encoder, limits, pool }),
  );
  return loadingWriters;
}

/** A tree `prepareValue` encoded, whose new objects may still be for the caller to write. */
export interface PreparedTree {
  readonly root: Hash;
  readonly logicalBytes: number;
  /** Packed objects the store may lack, for the caller's transaction to write; empty when written already. */
  readonly unwritten: readonly StoredObject[];
  /** The tree as written, once `unwritten` added `newBytes` stored bytes. */
  written(newBytes: number): WrittenTree;
  /** Tells the store that the transaction that wrote `unwritten` committed: it counts on them from then on. */
  stored(): void;
}

export interface WrittenTree {
  readonly root: Hash;
  readonly logicalBytes: number;
  /** Stored bytes this write added to the backend. */
  readonly newBytes: number;
  /** Objects handed to the backend: those it lacked (a write of a few nodes hands them all, see prepareValue). */
  readonly newObjects: number;
}

/** More fresh nodes than this on a write, and the backend is asked first which it has (fewer are packed without asking). */
const ASK_ABOVE = 8;
const NONE: ReadonlySet<Hash> = new Set();
/** How many hashes one backend read asks for at most. */
const BATCH = 500;
/** How many streams (sessions) keep an encoder memo; each costs about one state's text. */
const MEMO_STREAMS = 8;

export class ObjectStore {
  readonly #backend: Backend;
  readonly #params: TreeParams;
  /** Hashes known to be stored; cleared when a gc may have removed some. */
  #known = new Set<Hash>();
  /** The encoder's memo of the last state written per stream; it vouches for its nodes being stored. */
  readonly #memos = new Map<string, TreeMemo>();
  readonly #nodes = new NodeCache(64 * 1024 * 1024);
  /** Every string of every value written passes it before it is hashed (docs/ARCHITECTURE.md, Secrets). */
  readonly redactor: Redactor;

  constructor(backend: Backend, params: TreeParams = DEFAULT_TREE_PARAMS, redactor: Redactor = new Redactor()) {
    this.#backend = backend;
    this.#params = params;
    this.redactor = redactor;
  }

  /** Forgets which objects are stored: after a gc, what was stored may be gone. */
  forgetKnown(): void {
    this.#known = new Set();
    this.#memos.clear();
  }

  /**
   * Stores `value` as a tree, writing only what the backend does not have, every string
   * redacted first (by the store's redactor, or `redactor`: a stream's values must all be
   * written with the same one). Values written under the same `stream` (a session) one after
   * another cost only what changed.
   */
  async writeValue(value: unknown, stream = "", hint?: UnchangedHint, redactor: Redactor = this.redactor): Promise<WrittenTree> {
    return (await this.prepareValue(value, stream, hint, redactor, false)).written(0);
  }

  /**
   * `writeValue`, except that with `leave` a few new objects (a small change's) are not
   * written but handed back packed (`unwritten`) for the caller to write in the transaction
   * that commits the tree (MetaWriter.putObjects); `stored()` then tells the store they
   * are, and only then does it count on them (its memo and the objects it knows).
   */
  async prepareValue(value: unknown, stream: string, hint: UnchangedHint | undefined, redactor: Redactor, leave: boolean): Promise<PreparedTree> {
    const { encoder, limits } = writers ?? (await loadWriters());
    const { encodeTree } = encoder;
    const { nodeLimitProblem, stateTooBig } = limits;
    const encode = () => encodeTree(value, this.#known, this.#memos.get(stream), this.#params, hint, redactor);
    let tree: ReturnType<typeof encodeTree>;
    try {
      tree = encode();
    } catch (e) {
      // A string needs the redaction rules: load them (once per process) and encode again.
      if (!(e instanceof RulesNotLoaded)) throw e;
      await redactor.load();
      tree = encode();
    }
    // No node past a limit is written: a bundle holding it would be refused on import.
    for (const raw of tree.fresh.values()) {
      const problem = nodeLimitProblem(raw);
      if (problem !== null) throw stateTooBig(value, raw, problem);
    }
    const { fresh, memo, root, logicalBytes } = tree;
    // A few nodes (a checkpoint of a small change) are packed without asking the backend which
    // it has: `putObjects` writes only those missing, and the query costs what packing them does.
    const present = fresh.size <= ASK_ABOVE ? NONE : await this.#backend.hasObjects([...fresh.keys()]);
    const missing: StoredObject[] = [];
    for (const [hash, raw] of fresh) if (!present.has(hash)) missing.push({ hash, data: pack(raw) });
    const later = leave && fresh.size <= ASK_ABOVE && missing.length > 0;
    const written = later || missing.length === 0 ? 0 : await this.#backend.putObjects(missing);
    let counted = false;
    const stored = (): void => {
      if (counted) return;
      counted = true;
      for (const h of fresh.keys()) this.#known.add(h);
      for (const [hash, raw] of fresh) this.#nodes.set(hash, parseNode(hash, raw, true));
      // Only a stored tree may vouch for its nodes; keep the most recent streams.
      this.#memos.delete(stream);
      this.#memos.set(stream, memo);
      if (this.#memos.size > MEMO_STREAMS) this.#memos.delete(this.#memos.keys().next().value as string);
    };
    // Written already: the store counts on them at once, whatever the caller's transaction does.
    if (!later) stored();
    return {
      root,
      logicalBytes,
      unwritten: later ? missing : [],
      written: (newBytes) => ({ root, logicalBytes, newBytes: later ? newBytes : written, newObjects: missing.length }),
      stored,
    };
  }

  /**
   * Stores raw objects already hashed (file blobs, directories) that the store lacks; big
   * ones are compressed on the thread pool, several at a time. Returns what was written.
   */
  async putRaw(objects: ReadonlyMap<Hash, Buffer>, effort: Effort = "best"): Promise<{ newBytes: number; newObjects: number }> {
    const wanted = [...objects.keys()].filter((h) => !this.#known.has(h));
    if (wanted.length === 0) return { newBytes: 0, newObjects: 0 };
    const present = new Set<Hash>();
    for (let i = 0; i < wanted.length; i += BATCH) for (const h of await this.#backend.hasObjects(wanted.slice(i, i + BATCH))) present.add(h);
    const missing = wanted.filter((h) => !present.has(h));
    const { limits, pool } = writers ?? (await loadWriters());
    const { nodeLimitProblem } = limits;
    const { packMany } = pool;
    for (const hash of missing) {
      const raw = objects.get(hash) as Buffer;
      const problem = nodeLimitProblem(raw);
      if (problem !== null) {
        throw new ForgeError("INVALID_STATE", `object ${hash} (a ${JSON.stringify(String.fromCharCode(raw[0] ?? 0))} node) cannot be stored: ${problem}`);
      }
    }
    const data = await packMany(
      missing.map((hash) => objects.get(hash) as Buffer),
      effort,
    );
    const packed = missing.map((hash, i) => ({ hash, data: data[i] as Uint8Array }));
    const newBytes = packed.length > 0 ? await this.#backend.putObjects(packed) : 0;
    for (const h of wanted) this.#known.add(h);
    return { newBytes, newObjects: packed.length };
  }

  /**
   * Stores objects packed elsewhere (the worker that reads and packs a big snapshot's files)
   * that the store lacks. The worker checked each against the node limits as it packed it;
   * reading one back re-hashes it, as for any object. No query first: they are packed
   * already, and `putObjects` writes only those missing (returning their bytes).
   */
  async putPacked(objects: readonly StoredObject[]): Promise<{ newBytes: number }> {
    const wanted = objects.filter((o) => !this.#known.has(o.hash));
    if (wanted.length === 0) return { newBytes: 0 };
    const newBytes = await this.#backend.putObjects(wanted);
    for (const o of wanted) this.#known.add(o.hash);
    return { newBytes };
  }

  /** Which of `hashes` are stored (the known set first, then the backend in batches). */
  async hasMany(hashes: readonly Hash[]): Promise<Set<Hash>> {
    const out = new Set<Hash>();
    const ask: Hash[] = [];
    for (const h of hashes) {
      if (this.#known.has(h)) out.add(h);
      else ask.push(h);
    }
    for (let i = 0; i < ask.length; i += BATCH) {
      for (const h of await this.#backend.hasObjects(ask.slice(i, i + BATCH))) {
        out.add(h);
        this.#known.add(h);
      }
    }
    return out;
  }

  /** Whether an object is stored (the known set first, then the backend). */
  async has(hash: Hash): Promise<boolean> {
    if (this.#known.has(hash)) return true;
    const found = (await this.#backend.hasObjects([hash])).has(hash);
    if (found) this.#known.add(hash);
    return found;
  }

  /** Reads, verifies and parses nodes; a hash that is not stored is a MissingObjectError. */
  async getNodes(hashes: readonly Hash[]): Promise<Map<Hash, TreeNode>> {
    const out = new Map<Hash, TreeNode>();
    const wanted: Hash[] = [];
    for (const h of hashes) {
      const cached = this.#nodes.get(h);
      if (cached) out.set(h, cached);
      else if (!out.has(h)) wanted.push(h);
    }
    for (let i = 0; i < wanted.length; i += BATCH) {
      const batch = wanted.slice(i, i + BATCH);
      const got = await this.#backend.getObjects(batch);
      const stored = batch.map((h) => {
        const s = got.get(h);
        if (!s) throw new MissingObjectError(h);
        return s;
      });
      // Inflated, verified and decoded as one batch (batch-read.ts).
      const nodes = readNodes(batch, stored);
      for (let k = 0; k < batch.length; k++) {
        const h = batch[k] as Hash;
        const node = nodes[k] as TreeNode;
        this.#nodes.set(h, node);
        this.#known.add(h);
        out.set(h, node);
      }
    }
    return out;
  }

  async getNode(hash: Hash): Promise<TreeNode> {
    return (await this.getNodes([hash])).get(hash) as TreeNode;
  }

  /** Raw verified bytes of objects, for export. */
  async getRaw(hashes: readonly Hash[]): Promise<Map<Hash, Buffer>> {
    const out = new Map<Hash, Buffer>();
    for (let i = 0; i < hashes.length; i += BATCH) {
      const batch = hashes.slice(i, i + BATCH);
      const got = await this.#backend.getObjects(batch);
      for (const h of batch) {
        const stored = got.get(h);
        if (!stored) throw new MissingObjectError(h);
        out.set(h, unpack(h, stored));
      }
    }
    return out;
  }

  /**
   * Loads every node reachable from `roots`, level by level, one batched read per level;
   * sub-trees whose root is in `skip` are not entered.
   */
  async loadTrees(roots: readonly Hash[], skip?: ReadonlySet<Hash>): Promise<Map<Hash, TreeNode>> {
    const all = new Map<Hash, TreeNode>();
    let level = [...new Set(roots)].filter((h) => !skip?.has(h));
    while (level.length > 0) {
      const nodes = await this.getNodes(level);
      const next = new Set<Hash>();
      for (const [h, node] of nodes) {
        all.set(h, node);
        for (const c of childHashes(node)) if (!all.has(c) && !skip?.has(c)) next.add(c);
      }
      level = [...next];
    }
    return all;
  }

  /** The JSON value stored under `root`, as a fresh object the caller may change. */
  async readValue(root: Hash): Promise<unknown> {
    const nodes = await this.loadTrees([root]);
    return assemble(root, nodes);
  }
}

/** Builds a fresh copy of the value of `hash` from loaded nodes. */
export function assemble(hash: Hash, nodes: ReadonlyMap<Hash, TreeNode>): unknown {
  const node = nodes.get(hash);
  if (!node) throw new MissingObjectError(hash);
  if (node.kind === "a") {
    const out: unknown[] = [];
    for (const [h] of node.entries) {
      const part = assemble(h, nodes);
      if (!Array.isArray(part)) throw new CorruptObjectError(h, "it should be a chunk of an array but holds something else");
      for (const item of part) out.push(item);
    }
    return out;
  }
  if (node.kind !== "j") throw new CorruptObjectError(hash, `it is a ${node.kind} node where a JSON value was expected`);
  const value = freshBody(node);
  placeChildren(hash, value, node.refs, (h) => assemble(h, nodes));
  return value;
}

/** Parsed nodes by hash, least recently used dropped first once over a size budget. */
class NodeCache {
  readonly #map = new Map<Hash, TreeNode>();
  readonly #budget: number;
  #size = 0;

  constructor(budgetChars: number) {
    this.#budget = budgetChars;
  }

  get(hash: Hash): TreeNode | undefined {
    const node = this.#map.get(hash);
    if (node) {
      this.#map.delete(hash);
      this.#map.set(hash, node);
    }
    return node;
  }

  set(hash: Hash, node: TreeNode): void {
    if (this.#map.has(hash)) return;
    this.#map.set(hash, node);
    this.#size += this.#cost(node, 1);
    while (this.#size > this.#budget) {
      const oldest = this.#map.keys().next();
      if (oldest.done) break;
      const old = this.#map.get(oldest.value) as TreeNode;
      this.#map.delete(oldest.value);
      this.#size -= this.#cost(old, -1);
    }
  }

  /**
   * What keeping `node` costs (`delta` 1: it comes in; -1: it goes). A node whose body is a
   * slice of a text shared with other nodes of its batch keeps all of that text alive: the
   * text is counted once, with the first of its nodes kept, and freed with the last.
   */
  #cost(node: TreeNode, delta: 1 | -1): number {
    const shared = sharedTextOf(node);
    if (shared === undefined) return sizeOf(node);
    const before = shared.users;
    shared.users += delta;
    const held = 80 * (node.kind === "j" ? node.refs.length + 1 : 1);
    return held + ((delta === 1 && before === 0) || (delta === -1 && shared.users === 0) ? shared.size : 0);
  }
}

/**
 * A node's body as a new value. The first time, the parse itself is handed out: a one-off
 * read (a CLI call, a hook, a restore after a crash) parses each node once and copies
 * nothing. A node read again is parsed once more and that parse kept, and from then on every
 * value handed out is a clone of it — cloning plain JSON is several times faster than
 * parsing it, so a long-lived process pays one extra parse per node, not one per read.
 */
const templates = new WeakMap<TreeNode, unknown>();
const handedOut = new WeakSet<TreeNode>();
function freshBody(node: TreeNode & { kind: "j" }): unknown {
  let t = templates.get(node);
  if (t === undefined) {
    if (!handedOut.has(node)) {
      handedOut.add(node);
      return JSON.parse(node.body) as unknown;
    }
    t = JSON.parse(node.body) as unknown;
    templates.set(node, t);
  }
  return cloneJson(t);
}

/** A deep copy of plain JSON data. */
export function cloneJson(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    const n = v.length;
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) out[i] = cloneJson(v[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  const rec = v as Record<string, unknown>;
  // Own keys only ("__proto__" from JSON.parse among them, kept as data).
  for (const k of Object.keys(rec)) {
    if (k === "__proto__") setOwn(out, k, cloneJson(rec[k]));
    else out[k] = cloneJson(rec[k]);
  }
  return out;
}

function sizeOf(node: TreeNode): number {
  switch (node.kind) {
    case "j":
      return node.body.length + 80 * node.refs.length;
    case "b":
      return node.data.length;
    default:
      return 80 * node.entries.length;
  }
}
