// What the value encoder works with besides its one pass: how a value appears in its
// parent's text (Enc), the memo it keeps of the last state of a stream (Memo, TreeMemo),
// the interned keys and quoted names it shares across passes, and small helpers.
import type { Hash } from "./hash.js";
import type { ChunkEntry, JsonRef, PathKey } from "./node.js";

/** How a value appears in its parent's text: its JSON (with `0` where a child object goes), and those children. */
export interface Enc {
  readonly text: string;
  /** Children, with paths relative to this value; a value that is itself an object is `[[hash]]`. */
  readonly refs: readonly JsonRef[];
  /** Length of the value's own JSON text (its logical size). */
  readonly len: number;
}

export function enc(text: string, refs: readonly JsonRef[], len: number): Enc {
  return { text, refs, len };
}

/** A value that is not plain JSON; where it is, findBad works out once the encoder has stopped. */
export class BadValue extends Error {
  constructor(readonly why: string) {
    super(why);
  }
}

/**
 * The path to the first value, in the encoder's order, that is not plain JSON. The encoder
 * stops at that same value (the parts it skips were valid when first encoded), so its
 * hot loops need not track paths.
 */
export function findBad(v: unknown, path: PathKey[] = []): PathKey[] | undefined {
  if (typeof v === "object" && v !== null) {
    const proto: unknown = Object.getPrototypeOf(v);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const inner = !(i in v) ? [...path, i] : findBad(v[i], [...path, i]);
        if (inner) return inner;
      }
      return undefined;
    }
    if (proto !== Object.prototype && proto !== null) return path;
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      if (x === undefined) continue;
      const inner = findBad(x, [...path, k]);
      if (inner) return inner;
    }
    return undefined;
  }
  return v === null || typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)) ? undefined : path;
}

export type Primitive = string | number | boolean | null;
export type Kid = Primitive | Memo;

/** The memo of one container: enough to tell whether a new value equals it, and its encoding. */
export interface Memo {
  readonly isArray: boolean;
  /** Property names in order (objects only; properties holding undefined are left out). */
  readonly keys: readonly string[] | null;
  readonly kids: readonly Kid[];
  readonly kidEnc: readonly Enc[];
  readonly enc: Enc;
  /** Arrays: 1 + n + the length of every item's text (decides chunking, kept up to date by change). */
  readonly textLen: number;
  /** For a chunked array: its chunk tree. */
  readonly chunked: ChunkedMemo | null;
}

/** A chunked array's tree, kept so that a change rebuilds only the chunks and groups it touches. */
export interface ChunkedMemo {
  /** Boundary bits and weight of each item, in step with the memo's kids. */
  readonly bits: Uint32Array;
  readonly weights: Uint32Array;
  /** Leaf chunks in order. */
  readonly chunks: readonly ChunkMemo[];
  /** The `a` levels above the chunks: levels[0] groups chunks, levels[1] groups levels[0], … */
  readonly levels: readonly (readonly GroupMemo[])[];
}

export interface ChunkMemo {
  readonly from: number;
  readonly to: number;
  readonly entry: ChunkEntry;
}

export interface GroupMemo {
  /** The entries below it, by identity: an unchanged group has the very same entry objects. */
  readonly below: readonly ChunkEntry[];
  readonly entry: ChunkEntry;
}

/** What the encoder remembers of the last state of one stream. */
export interface TreeMemo {
  readonly root: Kid;
  readonly rootEnc: Enc;
  readonly rootHash: Hash;
}

/**
 * A caller's promise that the values under some top-level keys are exactly those of the
 * state whose root is `since` (a domain that knows which of its parts changed): those are
 * taken from the memo without a walk. Ignored unless the memo is of that very state.
 */
export interface UnchangedHint {
  readonly since: Hash;
  readonly keys: ReadonlySet<string>;
}

export interface EncodedTree {
  readonly root: Hash;
  /** Raw bytes of nodes not in `known`: the ones that may need writing. */
  readonly fresh: Map<Hash, Buffer>;
  /** Length of the state's JSON text. */
  readonly logicalBytes: number;
  /** The memo to pass to the next encoding of the same stream. */
  readonly memo: TreeMemo;
  /** Nodes this encoding built and hashed: what the change cost (unchanged parts cost none). */
  readonly hashed: number;
}

export const NO_REFS: readonly JsonRef[] = Object.freeze([]);
export const EMPTY_KEYS: readonly string[] = Object.freeze([]);
export const EMPTY_KIDS: readonly Kid[] = Object.freeze([]);
export const EMPTY_ENCS: readonly Enc[] = Object.freeze([]);

/** Whether for-in over a plain object yields only its own keys (true unless Object.prototype was polluted). */
export let ownOnly = true;
export function checkPrototype(): void {
  ownOnly = true;
  for (const _k in {}) ownOnly = false;
}
/** What an item that is itself an object costs its chunk: its entry in the chunk's ref list. */
export const REF_WEIGHT = 72;
export const TWO_32 = 4294967296;
export const PLACEHOLDER = "0";

/**
 * Key lists shared by every object with the same keys in the same order: a state's many
 * objects of one shape then compare against one array that stays in the CPU cache.
 */
export const keyLists = new Map<string, string[]>();
export function internKeys(keys: string[]): string[] {
  if (keys.length > 64) return keys;
  const id = JSON.stringify(keys); // unambiguous: [] vs [""], ["a\u0000", "b"] vs ["a", "\u0000b"]
  const found = keyLists.get(id);
  if (found) return found;
  if (keyLists.size < 10_000) keyLists.set(id, keys);
  return keys;
}

/** JSON.stringify of property names, remembered: states repeat the same few keys. */
export const quotedKeys = new Map<string, string>();
export function quoteKey(k: string): string {
  let q = quotedKeys.get(k);
  if (q === undefined) {
    q = JSON.stringify(k);
    if (quotedKeys.size < 50_000) quotedKeys.set(k, q);
  }
  return q;
}

export const TRUE: Enc = Object.freeze({ text: "true", refs: NO_REFS, len: 4 });
export const FALSE: Enc = Object.freeze({ text: "false", refs: NO_REFS, len: 5 });
export const NULL: Enc = Object.freeze({ text: "null", refs: NO_REFS, len: 4 });

/** `$.hypotheses[3].evidence`: where a bad value sits, for error messages. */
export function formatPath(path: readonly PathKey[]): string {
  let p = "$";
  for (const k of path) p += typeof k === "number" ? `[${k}]` : /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`;
  return p;
}

export function indexKeys(keys: readonly string[]): Map<string, number> {
  return new Map(keys.map((k, i) => [k, i]));
}

/** Whether a[aFrom…] and b[bFrom…] hold the same `count` kids. */
export function sameRun(a: readonly Kid[], aFrom: number, b: readonly Kid[], bFrom: number, count: number): boolean {
  if (aFrom + count > a.length) return false;
  for (let i = 0; i < count; i++) if (a[aFrom + i] !== b[bFrom + i]) return false;
  return true;
}

export function prefixed(ref: JsonRef, key: PathKey): JsonRef {
  const out = new Array(ref.length + 1) as JsonRef;
  out[0] = ref[0];
  out[1] = key;
  for (let i = 1; i < ref.length; i++) out[i + 1] = ref[i] as PathKey;
  return out;
}

/** 32-bit FNV-1a of a string's UTF-16 code units: cheap, deterministic boundary bits for small items. */
export function fnv1a(s: string): number {
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
