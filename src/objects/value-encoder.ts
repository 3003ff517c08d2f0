// Turns a JSON state into a tree of content-addressed objects. A sub-value whose JSON text
// exceeds `splitBytes` becomes its own object; a long array is cut into content-defined
// chunks (boundaries drawn from the items' own hashes, as in Prolly trees), so appending
// to it or editing one item rewrites one chunk, not the array.
//
// Checkpoint cost follows the size of the change, not of the state: the encoder keeps a
// memo of the last state it encoded (per stream, e.g. per session) that mirrors its shape —
// keys, primitive values, and each sub-value's encoding. The next state is compared with
// the memo by value (=== on primitives, recursion on containers), so a caller may mutate
// its state in place or rebuild it from JSON: only sub-trees whose values differ are
// re-encoded and re-hashed, and unchanged chunks keep their hashes without being rebuilt.
//
// Secret redaction happens here, on the strings (and keys) being encoded: a string the memo
// already holds was redacted when it was first encoded, so only what changed is scanned.
import { InvalidStateError } from "../core/errors.js";
import type { JsonPathKey, Redactor } from "../core/redact/redactor.js";
import { isFrozenJson } from "./frozen-json.js";
import { redactKey } from "./key-redaction.js";
import { DEFAULT_TREE_PARAMS, type TreeParams } from "./tree-params.js";
import { hashBits, sha256, type Hash } from "./hash.js";
import { arrayNodeText, jsonNodeText, type ChunkEntry, type JsonRef } from "./node.js";
import { BadValue, EMPTY_ENCS, EMPTY_KEYS, EMPTY_KIDS, FALSE, NO_REFS, NULL, PLACEHOLDER, REF_WEIGHT, TRUE, TWO_32, checkPrototype } from "./value-memo.js";
import { cutPoints, enc, findBad, fnv1a, formatPath, indexKeys, internKeys, objectFault, ownOnly, prefixed, quoteKey, sameRun } from "./value-memo.js";
import { chunksByFirst, keptGroups, sameKeys } from "./value-memo.js";
import type { ChunkMemo, Enc, EncodedTree, GroupMemo, Kid, Memo, Primitive, TreeMemo, UnchangedHint } from "./value-memo.js";

export type { EncodedTree, TreeMemo, UnchangedHint } from "./value-memo.js";

export { DEFAULT_TREE_PARAMS, type TreeParams } from "./tree-params.js";

/**
 * How many levels one encoding call may recurse through before a deep state is encoded from
 * the bottom up (two stack frames a level; Node's default stack holds a few thousand).
 */
const DEEP_STEP = 256;

/** One encoding pass; not reusable. */
class Encoder {
  readonly #p: TreeParams;
  readonly #known: ReadonlySet<Hash>;
  /** Redacts each string before it is encoded; undefined: strings are kept as they are. */
  readonly #redactor: Redactor | undefined;
  /** Where the walk is, kept only when the redactor's allow-list names paths. */
  #path: JsonPathKey[] | null;
  readonly fresh = new Map<Hash, Buffer>();
  hashed = 0;
  /** Containers encoded ahead, deepest first, when the state nests too deeply to recurse through. */
  #ahead: Map<object, Memo> | undefined;

  constructor(params: TreeParams, known: ReadonlySet<Hash>, redactor: Redactor | undefined) {
    this.#p = params;
    this.#known = known;
    this.#redactor = redactor?.enabled === true ? redactor : undefined;
    this.#path = redactor?.tracksPaths === true ? [] : null;
  }

  /**
   * For a state that nests deeper than the stack allows (JSON.parse builds them without
   * limit): encodes every container whose height is a multiple of DEEP_STEP first, lowest
   * first, so no encoding later recurses more than DEEP_STEP levels. Their old memos are
   * not consulted, which costs time on such states only; the hashes are the same.
   */
  encodeAhead(value: unknown): void {
    const found = cutPoints(value, DEEP_STEP);
    if ("fault" in found) throw new BadValue(found.fault.why);
    // Containers encoded ahead do not know their path: no string in the state is allowed by path.
    this.#path = null;
    this.#ahead = new Map();
    for (const o of found.cuts) this.#ahead.set(o, this.#container(o, undefined));
  }

  encodeRoot(value: unknown, old: TreeMemo | undefined, unchanged?: ReadonlySet<string>): TreeMemo {
    let root: Kid;
    let e: Enc;
    if (unchanged !== undefined && typeof value === "object" && value !== null && !Array.isArray(value)) {
      const memo = old?.root;
      const m = this.#object(value, memo !== null && typeof memo === "object" && !memo.isArray ? memo : undefined, unchanged);
      root = m;
      e = m.enc;
    } else if (typeof value === "object" && value !== null) {
      const m = this.#container(value, old?.root);
      root = m;
      e = m.enc;
    } else {
      root = value as Primitive;
      e = old !== undefined && value === old.root ? old.rootEnc : this.#primitive(value);
    }
    if (old && e === old.rootEnc) return old;
    const only = e.refs[0];
    // A root that was itself split off (a long string, a chunked array) is its own node.
    const rootHash =
      e.text === PLACEHOLDER && e.refs.length === 1 && only !== undefined && only.length === 1 ? only[0] : this.#node(jsonNodeText(e.refs, e.text));
    return { root, rootEnc: e, rootHash };
  }

  /** The memo of an object or array, the old one itself when nothing in it changed. */
  #container(v: object, old: Kid | undefined): Memo {
    const ahead = this.#ahead?.get(v);
    if (ahead !== undefined) return ahead;
    const memo = old !== null && typeof old === "object" ? old : undefined;
    // A frozen value met at the same place again: the same JSON, not walked.
    if (memo !== undefined && memo.src === v) return memo;
    const m = Array.isArray(v) ? this.#array(v, memo?.isArray === true ? memo : undefined) : this.#object(v, memo?.isArray === false ? memo : undefined);
    if (m.src !== v && isFrozenJson(v)) m.src = v;
    return m;
  }

  #primitive(v: unknown): Enc {
    switch (typeof v) {
      case "string": {
        const text = JSON.stringify(this.#redactor === undefined ? v : this.#redactor.redact(v, this.#path ?? undefined));
        return text.length > this.#p.splitBytes ? this.#split(text, NO_REFS, text.length) : enc(text, NO_REFS, text.length);
      }
      case "number": {
        if (!Number.isFinite(v)) throw new BadValue();
        const text = JSON.stringify(v);
        return enc(text, NO_REFS, text.length);
      }
      case "boolean":
        return v ? TRUE : FALSE;
      case "object":
        return NULL;
      default:
        throw new BadValue();
    }
  }

  // The two loops below are the hot path of every checkpoint: an unchanged sub-tree costs
  // a walk with === comparisons and no allocation. Primitives are handled inline.

  /** `unchanged` (root only): keys whose values the caller vouches are the memo's, taken without a walk. */
  #object(o: object, old: Memo | undefined, unchanged?: ReadonlySet<string>): Memo {
    const proto: unknown = Object.getPrototypeOf(o);
    if (proto !== Object.prototype && proto !== null) throw new BadValue(objectFault(o));
    const rec = o as Record<string, unknown>;
    const oldKeys = old === undefined ? EMPTY_KEYS : (old.keys as readonly string[]);
    const oldKids = old === undefined ? EMPTY_KIDS : old.kids;
    const oldEncs = old === undefined ? EMPTY_ENCS : old.kidEnc;
    // Compare with the memo until the first difference; only then start building anew.
    let keys: string[] | null = old === undefined ? [] : null;
    let kids: Kid[] | null = old === undefined ? [] : null;
    let encs: Enc[] | null = old === undefined ? [] : null;
    let oldIndex: Map<string, number> | undefined;
    let j = 0;
    for (const k in rec) {
      const val = rec[k];
      if (val === undefined) continue; // as JSON.stringify does
      // Inherited enumerable properties exist only if Object.prototype was polluted; JSON skips them.
      if (!ownOnly && !Object.hasOwn(rec, k)) continue;
      // Where this key was in the memo: at the same place (the common case), or — after a
      // key was added or removed before it — wherever the memo has it. A key that moved
      // still reuses its old encoding; the object as a whole is rebuilt.
      let oi = -1;
      if (j < oldKeys.length && oldKeys[j] === k) oi = j;
      else if (old !== undefined) oi = (oldIndex ??= indexKeys(oldKeys)).get(k) ?? -1;
      const oldKid = oi >= 0 ? oldKids[oi] : undefined;
      // An encoding is only looked up once building starts: an unchanged walk reads no Enc.
      let kid: Kid;
      let e: Enc | undefined;
      if (oi >= 0 && unchanged?.has(k)) {
        kid = oldKid as Kid;
      } else if (typeof val === "object" && val !== null) {
        this.#path?.push(k);
        const m = this.#container(val, oldKid);
        this.#path?.pop();
        kid = m;
        e = m.enc;
      } else if (oi >= 0 && val === oldKid) {
        kid = oldKid;
      } else {
        kid = val as Primitive;
        this.#path?.push(k);
        e = this.#primitive(val);
        this.#path?.pop();
      }
      if (keys === null && (oi !== j || kid !== oldKid)) {
        keys = oldKeys.slice(0, j);
        kids = oldKids.slice(0, j);
        encs = oldEncs.slice(0, j);
      }
      if (keys !== null) {
        keys.push(k);
        (kids as Kid[]).push(kid);
        (encs as Enc[]).push(e ?? (oldEncs[oi] as Enc));
      }
      j++;
    }
    if (keys === null) {
      if (j === oldKeys.length) return old as Memo;
      keys = oldKeys.slice(0, j);
      kids = oldKids.slice(0, j);
      encs = oldEncs.slice(0, j);
    }
    // The memo's keys when they are the same (a value changed, not the shape): interned already.
    keys = sameKeys(keys, oldKeys) ? (oldKeys as string[]) : internKeys(keys);
    const kidEnc = encs as Enc[];
    let text = "{";
    let len = 2;
    let refs: JsonRef[] | null = null;
    for (let i = 0; i < keys.length; i++) {
      // Keys are redacted like strings; two that redact alike keep the last, as JSON.parse would.
      const k = this.#redactor === undefined ? (keys[i] as string) : redactKey(this.#redactor, keys[i] as string, this.#path);
      const e = kidEnc[i] as Enc;
      const q = quoteKey(k);
      text += (i === 0 ? "" : ",") + q + ":" + e.text;
      len += (i === 0 ? 0 : 1) + q.length + 1 + e.len;
      if (e.refs.length > 0) {
        refs ??= [];
        for (const r of e.refs) refs.push(prefixed(r, k));
      }
    }
    text += "}";
    const e = text.length > this.#p.splitBytes ? this.#split(text, refs ?? NO_REFS, len) : enc(text, refs ?? NO_REFS, len);
    return { isArray: false, keys, kids: kids as Kid[], kidEnc, enc: e, textLen: 0, chunked: null, src: null };
  }

  #array(a: readonly unknown[], old: Memo | undefined): Memo {
    const n = a.length;
    const oldKids = old === undefined ? EMPTY_KIDS : old.kids;
    const oldEncs = old === undefined ? EMPTY_ENCS : old.kidEnc;
    const oldN = oldKids.length;
    let kids: Kid[] | null = old === undefined ? new Array<Kid>(n) : null;
    let encs: Enc[] | null = old === undefined ? new Array<Enc>(n) : null;
    let same = old === undefined ? 0 : n; // leading items that are the memo's own kids
    // The text length follows the change: only items that differ from the memo are measured.
    let textLen = old === undefined ? 1 + n : old.textLen + (n - oldN);
    for (let i = oldN - 1; i >= n; i--) textLen -= (oldEncs[i] as Enc).text.length;
    for (let i = 0; i < n; i++) {
      const val = a[i];
      const oldKid = i < oldN ? oldKids[i] : undefined;
      let kid: Kid;
      let e: Enc | undefined;
      if (typeof val === "object" && val !== null) {
        this.#path?.push(i);
        const m = this.#container(val, oldKid);
        this.#path?.pop();
        kid = m;
        e = m.enc;
      } else if (val === oldKid && i < oldN) {
        kid = oldKid as Kid;
      } else {
        if (val === undefined && !(i in a)) throw new BadValue();
        kid = val as Primitive;
        this.#path?.push(i);
        e = this.#primitive(val);
        this.#path?.pop();
      }
      if (kids === null && kid !== oldKid) {
        same = i;
        // Filled in order from here on: appended, so the arrays stay packed.
        kids = oldKids.slice(0, i);
        encs = oldEncs.slice(0, i);
      }
      if (kids !== null) {
        kids[i] = kid;
        const ne = e ?? (oldEncs[i] as Enc);
        (encs as Enc[])[i] = ne;
        if (old === undefined || i >= oldN) textLen += ne.text.length;
        else if (kid !== oldKid) textLen += ne.text.length - (oldEncs[i] as Enc).text.length;
      }
    }
    if (kids === null) {
      if (n === oldN) return old as Memo;
      kids = oldKids.slice(0, n);
      encs = oldEncs.slice(0, n);
    }
    const kidEnc = encs as Enc[];
    if (textLen > this.#p.chunkArrayBytes && n >= 2) return this.#chunked(kids, kidEnc, textLen, old, same);
    let text = "[";
    let len = 1 + Math.max(n, 1);
    let refs: JsonRef[] | null = null;
    for (let i = 0; i < n; i++) {
      const e = kidEnc[i] as Enc;
      text += (i === 0 ? "" : ",") + e.text;
      len += e.len;
      if (e.refs.length > 0) {
        refs ??= [];
        for (const r of e.refs) refs.push(prefixed(r, i));
      }
    }
    text += "]";
    const e = text.length > this.#p.splitBytes ? this.#split(text, refs ?? NO_REFS, len) : enc(text, refs ?? NO_REFS, len);
    return { isArray: true, keys: null, kids, kidEnc, enc: e, textLen, chunked: null, src: null };
  }

  /**
   * Cuts an array into content-defined chunks; it becomes an `a` node (or a tree of them).
   * Per-item boundary data, chunks and groups are carried over from the memo wherever the
   * items under them are the same, so a change costs the chunks and groups it touches plus
   * one cheap pass over typed arrays. The first `same` kids are the memo's own: their data is
   * copied and the chunks wholly among them kept, so a list that grows costs its tail.
   */
  #chunked(kids: Kid[], encs: Enc[], textLen: number, old: Memo | undefined, same: number): Memo {
    const target = this.#p.chunkTargetBytes;
    const n = kids.length;
    const prev = old?.chunked ?? null;
    const oldKids = old?.kids ?? EMPTY_KIDS;
    const keep = prev === null ? 0 : Math.min(same, n, oldKids.length);
    const bits = new Uint32Array(n);
    const weights = new Uint32Array(n);
    if (prev !== null) bits.set(prev.bits.subarray(0, keep));
    if (prev !== null) weights.set(prev.weights.subarray(0, keep));
    let len = 1 + Math.max(n, 1);
    for (let i = keep; i < n; i++) {
      if (prev !== null && i < oldKids.length && kids[i] === oldKids[i]) {
        bits[i] = prev.bits[i] as number;
        weights[i] = prev.weights[i] as number;
        continue;
      }
      // An item that is its own object draws its boundary from its hash; others from their text.
      const e = encs[i] as Enc;
      const only = e.refs[0];
      const isRef = e.text === PLACEHOLDER && e.refs.length === 1 && only !== undefined && only.length === 1;
      weights[i] = isRef ? REF_WEIGHT : e.text.length + e.refs.length * REF_WEIGHT;
      bits[i] = isRef ? hashBits((only as JsonRef)[0]) : fnv1a(e.text);
    }
    // The logical length: the old one adjusted by the items that changed, else summed.
    if (old !== undefined && old.chunked !== null) {
      len = old.enc.len + (n - oldKids.length);
      for (let i = keep; i < Math.max(n, oldKids.length); i++) {
        if (i < n && i < oldKids.length && kids[i] === oldKids[i]) continue;
        if (i < n) len += (encs[i] as Enc).len;
        if (i < oldKids.length) len -= (old.kidEnc[i] as Enc).len;
      }
    } else {
      for (let i = 0; i < n; i++) len += (encs[i] as Enc).len;
    }
    const oldChunks = prev?.chunks ?? [];
    let byFirst: Map<Kid, ChunkMemo> | undefined;
    const chunks: ChunkMemo[] = [];
    let from = 0;
    let bytes = 0;
    let p = 0;
    // A chunk among the kept kids that its own content ended (not the old array's end) ends there again.
    for (let c = oldChunks[0]; c !== undefined && c.to <= keep && c.to < oldKids.length; c = oldChunks[++p]) {
      chunks.push(c);
      from = c.to;
    }
    for (let i = from; i < n; i++) {
      const weight = weights[i] as number;
      bytes += weight + 1;
      if (i === n - 1 || (bits[i] as number) / TWO_32 < weight / target || bytes > target * 4) {
        const to = i + 1;
        // The old chunk at the same place, else one that starts with the same item elsewhere.
        while (p < oldChunks.length && (oldChunks[p] as ChunkMemo).from < from) p++;
        let c: ChunkMemo | undefined = oldChunks[p];
        if (c === undefined || c.from !== from || !sameRun(oldKids, c.from, kids, from, to - from) || c.to !== to) {
          // None moved here when the old chunk here began with this item, or (every old kid kept) it begins among new ones.
          const noneMoved = (c !== undefined && c.from === from && oldKids[from] === kids[from]) || (keep === oldKids.length && from >= keep);
          if (!noneMoved) byFirst ??= chunksByFirst(oldKids, oldChunks);
          const moved = noneMoved ? undefined : byFirst?.get(kids[from] as Kid);
          c = moved !== undefined && moved.to - moved.from === to - from && sameRun(oldKids, moved.from, kids, from, to - from) ? moved : undefined;
          if (c !== undefined) c = { from, to, entry: c.entry };
        }
        chunks.push(c ?? { from, to, entry: [this.#chunkNode(encs, from, to), to - from] });
        from = to;
        bytes = 0;
      }
    }
    const levels: GroupMemo[][] = [];
    let level: readonly ChunkEntry[] = chunks.map((c) => c.entry);
    for (let depth = 0; level.length > this.#p.maxFanout; depth++) {
      const groups = this.#groupLevel(level, prev?.levels[depth] ?? []);
      levels.push(groups);
      level = groups.map((g) => g.entry);
    }
    const top = this.#node(arrayNodeText(level));
    return {
      isArray: true,
      keys: null,
      kids,
      kidEnc: encs,
      enc: enc(PLACEHOLDER, [[top]], len),
      textLen,
      chunked: { bits, weights, chunks, levels },
      src: null,
    };
  }

  #chunkNode(encs: Enc[], from: number, to: number): Hash {
    let text = "[";
    const refs: JsonRef[] = [];
    for (let i = from; i < to; i++) {
      const e = encs[i] as Enc;
      text += (i === from ? "" : ",") + e.text;
      for (const r of e.refs) refs.push(prefixed(r, i - from));
    }
    return this.#node(jsonNodeText(refs, text + "]"));
  }

  /**
   * One more level of the chunk tree: groups entries by boundaries drawn from their hashes.
   * A group over the very same entries as an old one keeps its node.
   */
  #groupLevel(entries: readonly ChunkEntry[], old: readonly GroupMemo[]): GroupMemo[] {
    const max = this.#p.maxFanout * 2;
    const out = keptGroups(entries, old, max);
    let start = out.reduce((n, g) => n + g.below.length, 0);
    const byFirst = new Map<ChunkEntry, GroupMemo>();
    for (const g of old) byFirst.set(g.below[0] as ChunkEntry, g);
    let count = 0;
    for (let i = start; i < entries.length; i++) {
      const e = entries[i] as ChunkEntry;
      count += e[1];
      if (i === entries.length - 1 || hashBits(e[0]) % 16 === 0 || i + 1 - start >= max) {
        const below = entries.slice(start, i + 1);
        const was = byFirst.get(below[0] as ChunkEntry);
        const same = was !== undefined && was.below.length === below.length && was.below.every((x, k) => x === below[k]);
        out.push(same ? was : { below, entry: [this.#node(arrayNodeText(below)), count] });
        start = i + 1;
        count = 0;
      }
    }
    return out;
  }

  /** Makes a value its own object; its parent sees a placeholder and one child. */
  #split(text: string, refs: readonly JsonRef[], len: number): Enc {
    return enc(PLACEHOLDER, [[this.#node(jsonNodeText(refs, text))]], len);
  }

  #node(text: string): Hash {
    this.hashed++;
    const hash = sha256(text);
    if (!this.#known.has(hash) && !this.fresh.has(hash)) this.fresh.set(hash, Buffer.from(text, "utf8"));
    return hash;
  }
}

/**
 * Encodes `value` as a tree of objects. `known` holds hashes the store is known to have;
 * nodes outside it come back in `fresh`. `memo` is what the previous call for the same
 * stream returned: it makes unchanged parts free — and it must come from a call with the
 * same `redactor`. `redactor`, if given, redacts every string and key before it is encoded
 * (it throws RulesNotLoaded when a string needs rules not loaded yet: load them and call
 * again). Throws InvalidStateError, naming the path, for anything that is not plain JSON
 * (undefined properties are dropped, as JSON does).
 */
export function encodeTree(
  value: unknown,
  known: ReadonlySet<Hash>,
  memo?: TreeMemo,
  params: TreeParams = DEFAULT_TREE_PARAMS,
  hint?: UnchangedHint,
  redactor?: Redactor,
): EncodedTree {
  return encode(value, known, memo, params, hint, false, redactor);
}

/**
 * What encodeTree does for a state that nests deeper than the stack: encodes it from the
 * bottom up. The tree is the same either way (the tests hold it to that), so it is only
 * worth calling directly to check exactly that.
 */
export function encodeTreeBottomUp(value: unknown, known: ReadonlySet<Hash>, memo?: TreeMemo, params: TreeParams = DEFAULT_TREE_PARAMS): EncodedTree {
  return encode(value, known, memo, params, undefined, true, undefined);
}

function encode(
  value: unknown,
  known: ReadonlySet<Hash>,
  memo: TreeMemo | undefined,
  params: TreeParams,
  hint: UnchangedHint | undefined,
  bottomUp: boolean,
  redactor: Redactor | undefined,
): EncodedTree {
  checkPrototype();
  // The hint holds only for the state it was given against: the memo's own.
  const unchanged = hint !== undefined && memo !== undefined && memo.rootHash === hint.since ? hint.keys : undefined;
  const pass = (deep: boolean): [Encoder, TreeMemo] => {
    const encoder = new Encoder(params, known, redactor);
    if (deep) encoder.encodeAhead(value);
    return [encoder, encoder.encodeRoot(value, memo, unchanged)];
  };
  let encoder: Encoder;
  let next: TreeMemo;
  try {
    try {
      [encoder, next] = pass(bottomUp);
    } catch (err) {
      // A state deeper than the stack: once more, from the bottom up (rare, so the hot path stays recursive).
      if (bottomUp || !isStackOverflow(err)) throw err;
      [encoder, next] = pass(true);
    }
  } catch (err) {
    if (err instanceof BadValue) {
      const bad = findBad(value);
      throw new InvalidStateError(formatPath(bad?.path ?? []), bad?.why ?? err.message);
    }
    if (isStackOverflow(err)) throw new InvalidStateError("$", "is nested too deeply for the stack left to encode it");
    throw err;
  }
  return { root: next.rootHash, fresh: encoder.fresh, logicalBytes: next.rootEnc.len, memo: next, hashed: encoder.hashed };
}

function isStackOverflow(err: unknown): boolean {
  return err instanceof RangeError && /call stack/i.test(err.message);
}
