// Turns a JSON state into a tree of content-addressed objects in one pass. A sub-value
// whose JSON text exceeds `splitBytes` becomes its own object; a long array is cut into
// content-defined chunks (boundaries drawn from the items' own hashes, as in Prolly
// trees), so appending to it or editing one item rewrites one chunk, not the array.
// Hashing is skipped for node texts seen before (a text → hash cache), and nothing is
// written for hashes the store already holds.
import { InvalidStateError } from "../core/errors.js";
import { hashBits, sha256, type Hash } from "./hash.js";
import { arrayNodeText, jsonNodeText, type ChunkEntry, type JsonRef, type PathKey } from "./node.js";

export interface TreeParams {
  /** A sub-value whose JSON text is longer than this becomes its own object. */
  readonly splitBytes: number;
  /** Arrays whose JSON text is longer than this are chunked. */
  readonly chunkArrayBytes: number;
  /** The average chunk size content-defined boundaries aim for. */
  readonly chunkTargetBytes: number;
  /** The most entries one `a` node may list before another level is built. */
  readonly maxFanout: number;
}

export const DEFAULT_TREE_PARAMS: TreeParams = Object.freeze({
  splitBytes: 512,
  chunkArrayBytes: 8192,
  chunkTargetBytes: 4096,
  maxFanout: 64,
});

/** What an item that is itself an object costs its chunk: its entry in the chunk's ref list. */
const REF_WEIGHT = 72;
const TWO_32 = 4294967296;

/** Node text → hash, kept for two generations so a state's unchanged nodes are not re-hashed. */
export class NodeHashCache {
  #current = new Map<string, Hash>();
  #previous = new Map<string, Hash>();
  readonly #maxEntries: number;

  constructor(maxEntries = 200_000) {
    this.#maxEntries = maxEntries;
  }

  hashOf(text: string): { hash: Hash; computed: boolean } {
    let hash = this.#current.get(text);
    if (hash !== undefined) return { hash, computed: false };
    hash = this.#previous.get(text);
    const computed = hash === undefined;
    if (hash === undefined) hash = sha256(text);
    this.#current.set(text, hash);
    if (this.#current.size > this.#maxEntries) this.nextGeneration();
    return { hash, computed };
  }

  /** Ages the cache: entries not used since the last call are dropped at the next one. */
  nextGeneration(): void {
    this.#previous = this.#current;
    this.#current = new Map();
  }
}

export interface EncodedTree {
  readonly root: Hash;
  /** Raw bytes of nodes not in `known`: the ones that may need writing. */
  readonly fresh: Map<Hash, Buffer>;
  /** Length of the state's JSON text. */
  readonly logicalBytes: number;
  /** Objects in the tree (shared ones counted once per occurrence). */
  readonly nodeCount: number;
}

interface PendingRef {
  readonly hash: Hash;
  /** Absolute path from the state's root. */
  readonly path: PathKey[];
}

/** One encoding pass; not reusable. */
class Encoder {
  readonly #params: TreeParams;
  readonly #cache: NodeHashCache;
  readonly #known: ReadonlySet<Hash>;
  readonly #stack: PathKey[] = [];
  readonly #refs: PendingRef[] = [];
  readonly fresh = new Map<Hash, Buffer>();
  nodeCount = 0;
  /** Characters of node bodies that are not the state's own text (placeholders, chunk brackets). */
  overhead = 0;
  bodyChars = 0;

  constructor(params: TreeParams, cache: NodeHashCache, known: ReadonlySet<Hash>) {
    this.#params = params;
    this.#cache = cache;
    this.#known = known;
  }

  encodeRoot(value: unknown): Hash {
    const text = this.#value(value);
    const only = this.#refs[0];
    // A root that was itself split off (a long string, a chunked array) is its own node.
    if (text === "0" && this.#refs.length === 1 && only !== undefined && only.path.length === 0) {
      this.overhead -= 1;
      return only.hash;
    }
    return this.#makeJsonNode(text, 0, 0);
  }

  #value(v: unknown): string {
    switch (typeof v) {
      case "string": {
        const s = JSON.stringify(v);
        return s.length > this.#params.splitBytes ? this.#split(s, this.#refs.length) : s;
      }
      case "number":
        if (!Number.isFinite(v)) throw new InvalidStateError(this.#where(), `is ${v}, which JSON cannot hold`);
        return JSON.stringify(v);
      case "boolean":
        return v ? "true" : "false";
      case "object":
        if (v === null) return "null";
        if (Array.isArray(v)) return this.#array(v);
        return this.#object(v);
      default:
        throw new InvalidStateError(this.#where(), `is ${typeof v === "undefined" ? "undefined" : `a ${typeof v}`}, which JSON cannot hold`);
    }
  }

  #object(o: object): string {
    const proto: unknown = Object.getPrototypeOf(o);
    if (proto !== Object.prototype && proto !== null) {
      const name = (o as { constructor?: { name?: string } }).constructor?.name ?? "object";
      throw new InvalidStateError(this.#where(), `is a ${name}, not a plain object`);
    }
    const start = this.#refs.length;
    const rec = o as Record<string, unknown>;
    let s = "{";
    let first = true;
    for (const k of Object.keys(rec)) {
      const val = rec[k];
      if (val === undefined) continue; // as JSON.stringify does
      this.#stack.push(k);
      const t = this.#value(val);
      this.#stack.pop();
      s += (first ? "" : ",") + JSON.stringify(k) + ":" + t;
      first = false;
    }
    s += "}";
    return s.length > this.#params.splitBytes ? this.#split(s, start) : s;
  }

  #array(a: readonly unknown[]): string {
    const start = this.#refs.length;
    const n = a.length;
    const texts: string[] = new Array<string>(n);
    const refEnds: number[] = new Array<number>(n);
    let total = 1 + n;
    for (let i = 0; i < n; i++) {
      if (!(i in a)) throw new InvalidStateError(this.#where() + `[${i}]`, "is a hole in a sparse array");
      this.#stack.push(i);
      const t = this.#value(a[i]);
      this.#stack.pop();
      texts[i] = t;
      refEnds[i] = this.#refs.length;
      total += t.length;
    }
    if (total <= this.#params.splitBytes) return "[" + texts.join(",") + "]";
    if (total <= this.#params.chunkArrayBytes || n < 2) return this.#split("[" + texts.join(",") + "]", start);
    return this.#chunked(texts, refEnds, start);
  }

  /** Cuts an array into content-defined chunks; the array becomes an `a` node (or a tree of them). */
  #chunked(texts: string[], refEnds: number[], start: number): string {
    const depth = this.#stack.length;
    const refs = this.#refs;
    const target = this.#params.chunkTargetBytes;
    const entries: ChunkEntry[] = [];
    let chunkStart = 0;
    let chunkRefStart = start;
    let chunkBytes = 0;
    const n = texts.length;
    for (let i = 0; i < n; i++) {
      const t = texts[i] as string;
      const refEnd = refEnds[i] as number;
      const prevEnd = i === 0 ? start : (refEnds[i - 1] as number);
      // An item that is its own object draws its boundary from its hash; others from their text.
      let bits: number;
      let weight = t.length;
      if (refEnd - prevEnd === 1 && t === "0") {
        bits = hashBits((refs[prevEnd] as PendingRef).hash);
        weight = REF_WEIGHT;
      } else {
        bits = fnv1a(t);
        weight += (refEnd - prevEnd) * REF_WEIGHT;
      }
      chunkBytes += weight + 1;
      const last = i === n - 1;
      if (last || bits / TWO_32 < weight / target || chunkBytes > target * 4) {
        const chunkRefs: JsonRef[] = [];
        for (let r = chunkRefStart; r < refEnd; r++) {
          const ref = refs[r] as PendingRef;
          const rel = ref.path.slice(depth);
          rel[0] = (rel[0] as number) - chunkStart;
          chunkRefs.push([ref.hash, ...rel]);
        }
        const body = "[" + texts.slice(chunkStart, i + 1).join(",") + "]";
        entries.push([this.#node(jsonNodeText(chunkRefs, body), body.length), i + 1 - chunkStart]);
        chunkStart = i + 1;
        chunkRefStart = refEnd;
        chunkBytes = 0;
      }
    }
    // Chunks concatenate into one array: all but one pair of brackets, and the commas between chunks, are ours.
    this.overhead += entries.length - 1;
    let level = entries;
    while (level.length > this.#params.maxFanout) level = this.#groupLevel(level);
    const top = this.#node(arrayNodeText(level), 0);
    refs.length = start;
    refs.push({ hash: top, path: this.#stack.slice() });
    this.overhead += 1;
    return "0";
  }

  /** One more level of the chunk tree: groups entries by boundaries drawn from their hashes. */
  #groupLevel(entries: ChunkEntry[]): ChunkEntry[] {
    const out: ChunkEntry[] = [];
    const max = this.#params.maxFanout * 2;
    let group: ChunkEntry[] = [];
    let count = 0;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i] as ChunkEntry;
      group.push(e);
      count += e[1];
      if (i === entries.length - 1 || hashBits(e[0]) % 16 === 0 || group.length >= max) {
        out.push([this.#node(arrayNodeText(group), 0), count]);
        group = [];
        count = 0;
      }
    }
    return out;
  }

  /** Makes the value whose text is `s` (with refs from index `start`) its own object; returns its placeholder. */
  #split(s: string, start: number): string {
    const hash = this.#makeJsonNode(s, start, this.#stack.length);
    this.#refs.length = start;
    this.#refs.push({ hash, path: this.#stack.slice() });
    this.overhead += 1;
    return "0";
  }

  #makeJsonNode(body: string, start: number, depth: number): Hash {
    const refs = this.#refs;
    const nodeRefs: JsonRef[] = [];
    for (let r = start; r < refs.length; r++) {
      const ref = refs[r] as PendingRef;
      nodeRefs.push([ref.hash, ...ref.path.slice(depth)] as JsonRef);
    }
    return this.#node(jsonNodeText(nodeRefs, body), body.length);
  }

  #node(text: string, bodyChars: number): Hash {
    this.nodeCount++;
    this.bodyChars += bodyChars;
    const { hash } = this.#cache.hashOf(text);
    if (!this.#known.has(hash) && !this.fresh.has(hash)) this.fresh.set(hash, Buffer.from(text, "utf8"));
    return hash;
  }

  #where(): string {
    let p = "$";
    for (const k of this.#stack) p += typeof k === "number" ? `[${k}]` : /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`;
    return p;
  }
}

/** 32-bit FNV-1a of a string's UTF-16 code units: cheap, deterministic boundary bits for small items. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // Mix the low bits up: FNV's low bits are weak for short inputs.
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}

/**
 * Encodes `value` as a tree of objects. `known` holds hashes the store is known to have;
 * nodes outside it come back in `fresh`. Throws InvalidStateError, naming the path, for
 * anything that is not plain JSON (undefined properties are dropped, as JSON does).
 */
export function encodeTree(
  value: unknown,
  cache: NodeHashCache,
  known: ReadonlySet<Hash>,
  params: TreeParams = DEFAULT_TREE_PARAMS,
): EncodedTree {
  const enc = new Encoder(params, cache, known);
  const root = enc.encodeRoot(value);
  return { root, fresh: enc.fresh, logicalBytes: enc.bodyChars - enc.overhead, nodeCount: enc.nodeCount };
}
