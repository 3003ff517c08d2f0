// What the value encoder works with besides its one pass: how a value appears in its
// parent's text (Enc), the memo it keeps of the last state of a stream (Memo, TreeMemo),
// the interned keys and quoted names it shares across passes, and small helpers.
import { hashBits, type Hash } from "./hash.js";
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

/** A value that is not plain JSON; where it is and why, findBad works out once the encoder has stopped. */
export class BadValue extends Error {}

/** Why a primitive (or a function, symbol…) cannot be JSON, or undefined when it can. */
export function primitiveFault(v: unknown): string | undefined {
  switch (typeof v) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(v) ? undefined : `is ${v}, which JSON cannot hold`;
    case "object":
      return v === null ? undefined : "is an object";
    default:
      return `is ${v === undefined ? "undefined" : `a ${typeof v}`}, which JSON cannot hold`;
  }
}

/** Why an object is not a plain one (a Date, a Map, a class instance), or undefined when it is. */
export function objectFault(o: object): string | undefined {
  const proto: unknown = Object.getPrototypeOf(o);
  if (proto === Object.prototype || proto === null) return undefined;
  const name = (o as { constructor?: { name?: string } }).constructor?.name ?? "object";
  return `is ${/^[AEIOU]/i.test(name) ? "an" : "a"} ${name}, not a plain object`;
}

/** One container being walked: its entries (keys or indexes) and how far the walk has gone. */
interface WalkFrame {
  readonly value: object;
  readonly keys: readonly PathKey[];
  i: number;
  height: number;
}

function entriesOf(v: object): PathKey[] {
  if (!Array.isArray(v)) return Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined);
  const out = new Array<number>(v.length);
  for (let i = 0; i < v.length; i++) out[i] = i;
  return out;
}

/**
 * Walks every container in `value` depth-first, in the encoder's order, with its own stack
 * (a state may nest as deeply as JSON.parse allows). `leave` sees each container once, after
 * its children, with its height (1 + the highest child container); a container met again
 * (the same object under two keys) is not walked twice. Returns the first fault: a value JSON
 * cannot hold, a hole in an array, or a container inside itself.
 */
function walk(value: unknown, leave?: (o: object, height: number) => void): { path: PathKey[]; why: string } | undefined {
  const rootFault = typeof value === "object" && value !== null ? objectFaultOf(value) : primitiveFault(value);
  if (rootFault !== undefined) return { path: [], why: rootFault };
  if (typeof value !== "object" || value === null) return undefined;
  const done = new Map<object, number>();
  const stack: WalkFrame[] = [{ value, keys: entriesOf(value), i: 0, height: 1 }];
  const onPath = new Set<object>([value]);
  const here = (k: PathKey) => [...stack.map((f) => f.keys[f.i - 1] as PathKey).slice(0, -1), k];
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as WalkFrame;
    if (top.i === top.keys.length) {
      stack.pop();
      onPath.delete(top.value);
      done.set(top.value, top.height);
      leave?.(top.value, top.height);
      const parent = stack[stack.length - 1];
      if (parent !== undefined) parent.height = Math.max(parent.height, top.height + 1);
      continue;
    }
    const k = top.keys[top.i++] as PathKey;
    if (typeof k === "number" && !(k in top.value)) return { path: here(k), why: "is a hole in a sparse array" };
    const v = (top.value as Record<PathKey, unknown>)[k];
    if (typeof v !== "object" || v === null) {
      const why = primitiveFault(v);
      if (why !== undefined) return { path: here(k), why };
      continue;
    }
    if (onPath.has(v)) return { path: here(k), why: "contains itself (a cycle), which JSON cannot hold" };
    const seen = done.get(v);
    if (seen !== undefined) {
      top.height = Math.max(top.height, seen + 1);
      continue;
    }
    const why = objectFaultOf(v);
    if (why !== undefined) return { path: here(k), why };
    onPath.add(v);
    stack.push({ value: v, keys: entriesOf(v), i: 0, height: 1 });
  }
  return undefined;
}

function objectFaultOf(v: object): string | undefined {
  return Array.isArray(v) ? undefined : objectFault(v);
}

/**
 * The first value, in the encoder's order, that is not plain JSON: its path and why. The
 * encoder stops at that same value (the parts it skips were valid when first encoded), so
 * its hot loops need not track paths.
 */
export function findBad(v: unknown): { path: PathKey[]; why: string } | undefined {
  return walk(v);
}

/**
 * The containers of a state (valid JSON, else the fault) whose height is a multiple of
 * `step`, lowest first: encoded in that order, no encoding recurses more than `step` levels.
 */
export function cutPoints(v: unknown, step: number): { cuts: object[] } | { fault: { path: PathKey[]; why: string } } {
  const cuts: [object, number][] = [];
  const fault = walk(v, (o, height) => {
    if (height % step === 0) cuts.push([o, height]);
  });
  if (fault !== undefined) return { fault };
  return { cuts: cuts.sort((a, b) => a[1] - b[1]).map(([o]) => o) };
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
  /** A value it was made from or found equal to that can never change (frozen-json.ts): met again at its place, it is this memo. */
  src: object | null;
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
  for (const k of elided(path)) p += k === ELIDED ? `…(${path.length - PATH_HEAD - PATH_TAIL} levels)…` : pathStep(k);
  return p;
}

/** One step of a path as JavaScript would write it: `.name`, `[3]` or `["odd key"]`. */
function pathStep(k: PathKey): string {
  return typeof k === "number" ? `[${k}]` : /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`;
}

const PATH_HEAD = 12;
const PATH_TAIL = 6;
/** Where a path too long to read is cut short. */
export const ELIDED: unique symbol = Symbol("elided");

/** The path, or for one thousands of levels deep its first and last steps around ELIDED. */
export function elided(path: readonly PathKey[]): readonly (PathKey | typeof ELIDED)[] {
  return path.length <= PATH_HEAD + PATH_TAIL + 2 ? path : [...path.slice(0, PATH_HEAD), ELIDED, ...path.slice(-PATH_TAIL)];
}

export function indexKeys(keys: readonly string[]): Map<string, number> {
  return new Map(keys.map((k, i) => [k, i]));
}

/** The old chunks by their first item (the last of them, for an item that starts several). */
export function chunksByFirst(oldKids: readonly Kid[], chunks: readonly ChunkMemo[]): Map<Kid, ChunkMemo> {
  const byFirst = new Map<Kid, ChunkMemo>();
  for (const c of chunks) byFirst.set(oldKids[c.from] as Kid, c);
  return byFirst;
}

/** Whether two key lists are the same keys in the same order. */
export function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The old groups of a chunk-tree level over the level's first entries that their own last
 * entry ended (its hash bits, or the group full at `max`; not the old level's end): they end
 * there again, so they are kept without drawing a boundary from each entry's hash.
 */
export function keptGroups(entries: readonly ChunkEntry[], old: readonly GroupMemo[], max: number): GroupMemo[] {
  const out: GroupMemo[] = [];
  let start = 0;
  for (const g of old) {
    const b = g.below;
    const last = b[b.length - 1];
    if (last === undefined || start + b.length > entries.length || !(hashBits(last[0]) % 16 === 0 || b.length >= max)) break;
    let k = 0;
    while (k < b.length && b[k] === entries[start + k]) k++;
    if (k < b.length) break;
    out.push(g);
    start += b.length;
  }
  return out;
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
