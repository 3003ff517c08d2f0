// Structural diff of two stored values. Sub-trees with the same hash are skipped without
// being read, so two large states that differ in one place cost a few node reads.
import { createRequire } from "node:module";
import type * as Diff from "diff";
import { CorruptObjectError } from "../core/errors.js";
import type { Hash } from "./hash.js";
import { placeChildren, type PathKey, type TreeNode } from "./node.js";
import { setOwn } from "../core/own.js";
import { assemble, type ObjectStore } from "./object-store.js";
import { ELIDED, elided } from "./value-memo.js";

// jsdiff takes ~40 ms to load; only a compare of two arrays of different lengths needs it.
let jsdiff: typeof Diff | undefined;
const loadDiff = () => (jsdiff ??= createRequire(import.meta.url)("diff") as typeof Diff);

export type ChangeKind = "added" | "removed" | "changed";

export interface ValueChange {
  readonly kind: ChangeKind;
  readonly path: readonly PathKey[];
  /** Absent for "added". */
  readonly oldValue?: unknown;
  /** Absent for "removed". */
  readonly newValue?: unknown;
}

/** A stored sub-tree not read yet. */
class Lazy {
  constructor(readonly hash: Hash) {}
}

/** The leaf chunks of a chunked array, each with its item count. */
class LazyArray {
  constructor(readonly chunks: readonly (readonly [Hash, number])[]) {}
}

export async function diffTrees(store: ObjectStore, a: Hash, b: Hash): Promise<ValueChange[]> {
  const out: ValueChange[] = [];
  if (a !== b) await new TreeDiff(store, out).values(new Lazy(a), new Lazy(b), []);
  return out;
}

class TreeDiff {
  constructor(
    private readonly store: ObjectStore,
    private readonly out: ValueChange[],
  ) {}

  async values(a: unknown, b: unknown, path: PathKey[]): Promise<void> {
    if (a instanceof Lazy && b instanceof Lazy && a.hash === b.hash) return;
    if (a instanceof Lazy) a = await this.open(a);
    if (b instanceof Lazy) b = await this.open(b);
    if (a instanceof LazyArray && b instanceof LazyArray) return this.chunkedArrays(a, b, path);
    if (a instanceof LazyArray) a = await this.items(a.chunks);
    if (b instanceof LazyArray) b = await this.items(b.chunks);
    if (Array.isArray(a) && Array.isArray(b)) return this.arrays(a, b, 0, path);
    if (isRecord(a) && isRecord(b)) return this.objects(a, b, path);
    if (a === b) return;
    this.out.push({ kind: "changed", path, oldValue: await this.full(a), newValue: await this.full(b) });
  }

  async objects(a: Record<string, unknown>, b: Record<string, unknown>, path: PathKey[]): Promise<void> {
    for (const k of Object.keys(a)) {
      if (!Object.hasOwn(b, k)) this.out.push({ kind: "removed", path: [...path, k], oldValue: await this.full(a[k]) });
      else await this.values(a[k], b[k], [...path, k]);
    }
    for (const k of Object.keys(b)) {
      if (!Object.hasOwn(a, k)) this.out.push({ kind: "added", path: [...path, k], newValue: await this.full(b[k]) });
    }
  }

  /** Arrays of items (inline values or Lazy), compared by identity first so inserts are not reported as shifts. */
  async arrays(a: unknown[], b: unknown[], offset: number, path: PathKey[]): Promise<void> {
    if (a.length === b.length) {
      for (let i = 0; i < a.length; i++) await this.values(a[i], b[i], [...path, offset + i]);
      return;
    }
    const parts = loadDiff().diffArrays(a.map(identity), b.map(identity));
    let ia = 0;
    let ib = 0;
    for (let p = 0; p < parts.length; p++) {
      const part = parts[p];
      if (!part) continue;
      const n = part.count ?? part.value.length;
      const next = parts[p + 1];
      if (part.removed && next?.added) {
        // A replaced run: pair items up as changes, the rest as removals or additions.
        const m = next.count ?? next.value.length;
        const k = Math.min(n, m);
        for (let i = 0; i < k; i++) await this.values(a[ia + i], b[ib + i], [...path, offset + ib + i]);
        for (let i = k; i < n; i++) this.out.push({ kind: "removed", path: [...path, offset + ia + i], oldValue: await this.full(a[ia + i]) });
        for (let i = k; i < m; i++) this.out.push({ kind: "added", path: [...path, offset + ib + i], newValue: await this.full(b[ib + i]) });
        ia += n;
        ib += m;
        p++;
      } else if (part.removed) {
        for (let i = 0; i < n; i++) this.out.push({ kind: "removed", path: [...path, offset + ia + i], oldValue: await this.full(a[ia + i]) });
        ia += n;
      } else if (part.added) {
        for (let i = 0; i < n; i++) this.out.push({ kind: "added", path: [...path, offset + ib + i], newValue: await this.full(b[ib + i]) });
        ib += n;
      } else {
        ia += n;
        ib += n;
      }
    }
  }

  /** Skips the chunks both arrays share at the start and the end; diffs the items in between. */
  async chunkedArrays(a: LazyArray, b: LazyArray, path: PathKey[]): Promise<void> {
    const ca = a.chunks;
    const cb = b.chunks;
    let head = 0;
    let offset = 0;
    while (head < ca.length && head < cb.length && ca[head]?.[0] === cb[head]?.[0]) (offset += (ca[head] as [Hash, number])[1]), head++;
    let tail = 0;
    while (tail < ca.length - head && tail < cb.length - head && ca[ca.length - 1 - tail]?.[0] === cb[cb.length - 1 - tail]?.[0]) tail++;
    const itemsA = await this.items(ca.slice(head, ca.length - tail));
    const itemsB = await this.items(cb.slice(head, cb.length - tail));
    await this.arrays(itemsA, itemsB, offset, path);
  }

  /** Opens a stored node one level: a JSON node with its children left lazy, or a chunked array. */
  async open(lazy: Lazy): Promise<unknown> {
    const node = await this.store.getNode(lazy.hash);
    if (node.kind === "a") return new LazyArray(await this.leafChunks(node));
    return withLazyChildren(lazy.hash, node);
  }

  async leafChunks(node: TreeNode): Promise<[Hash, number][]> {
    if (node.kind !== "a") return [];
    const out: [Hash, number][] = [];
    const nodes = await this.store.getNodes(node.entries.map((e) => e[0]));
    for (const [h, count] of node.entries) {
      const child = nodes.get(h) as TreeNode;
      if (child.kind === "a") out.push(...(await this.leafChunks(child)));
      else out.push([h, count]);
    }
    return out;
  }

  async items(chunks: readonly (readonly [Hash, number])[]): Promise<unknown[]> {
    const nodes = await this.store.getNodes(chunks.map((c) => c[0]));
    const out: unknown[] = [];
    for (const [h] of chunks) {
      const items = withLazyChildren(h, nodes.get(h) as TreeNode);
      if (!Array.isArray(items)) throw new CorruptObjectError(h, "it should be a chunk of an array but holds something else");
      for (const item of items) out.push(item);
    }
    return out;
  }

  /** The whole value of an item, reading whatever is still lazy in it. */
  async full(v: unknown): Promise<unknown> {
    if (v instanceof Lazy) {
      const nodes = await this.store.loadTrees([v.hash]);
      return assemble(v.hash, nodes);
    }
    if (v instanceof LazyArray) {
      const out: unknown[] = [];
      for (const [h] of v.chunks) {
        const items = await this.full(new Lazy(h));
        if (!Array.isArray(items)) throw new CorruptObjectError(h, "it should be a chunk of an array but holds something else");
        for (const item of items) out.push(item);
      }
      return out;
    }
    if (Array.isArray(v)) return Promise.all(v.map((x) => this.full(x)));
    if (isRecord(v)) {
      const o: Record<string, unknown> = {};
      for (const k of Object.keys(v)) setOwn(o, k, await this.full(v[k]));
      return o;
    }
    return v;
  }
}

function withLazyChildren(hash: Hash, node: TreeNode): unknown {
  if (node.kind !== "j") throw new CorruptObjectError(hash, `a ${node.kind} node sits where a JSON value was expected`);
  const value: unknown = JSON.parse(node.body);
  placeChildren(hash, value, node.refs, (h) => new Lazy(h));
  return value;
}

/** A key that is equal for equal items: the hash of a stored item, the JSON of an inline one. */
function identity(v: unknown): string {
  if (v instanceof Lazy) return "#" + v.hash;
  return JSON.stringify(v, (_k, x: unknown) => (x instanceof Lazy ? "#" + x.hash : x));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Lazy) && !(v instanceof LazyArray);
}

/** `hypotheses[0].confidence`: a JSON path for people. */
export function formatPath(path: readonly PathKey[]): string {
  if (path.length === 0) return "(root)";
  let s = "";
  const steps = elided(path);
  for (const k of steps) {
    if (k === ELIDED) s += `…(${path.length - steps.length + 1} levels)…`;
    else if (typeof k === "number") s += `[${k}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(k)) s += (s === "" ? "" : ".") + k;
    else s += `[${JSON.stringify(k)}]`;
  }
  return s;
}
