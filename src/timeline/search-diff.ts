// What a checkpoint changed against its parent, as the search index counts it: the documents
// (state nodes, files, the message) that appeared and went. The two trees are walked from
// their roots as one signed multiset — the new tree's nodes +1, the old one's −1 — expanding
// a node only while its count is not zero, so every sub-tree the two share cancels unread and
// the work follows the change. A node's place (its path in the new state, or a file's path)
// is taken from where the walk first met it on the new side.
import { ForgeError } from "../core/errors.js";
import type { DocPlace } from "../backends/search/search-index.js";
import type { Hash } from "../objects/hash.js";
import type { PathKey, TreeNode } from "../objects/node.js";
import type { ObjectStore } from "../objects/object-store.js";
import { messageKey } from "./search-text.js";

/** What a checkpoint holds, for the index: its state, its files, its message. */
export interface IndexedRoots {
  readonly state: Hash;
  readonly files: Hash | null;
  readonly message: string;
}

/** A document that appeared (delta > 0) or went (delta < 0). */
export type DocChange =
  | { readonly kind: "node"; readonly key: Hash; readonly delta: number; readonly place: DocPlace | undefined; readonly node: TreeNode }
  | { readonly kind: "file"; readonly key: Hash; readonly delta: number; readonly place: DocPlace | undefined; readonly size: number }
  | { readonly kind: "message"; readonly key: Hash; readonly delta: number; readonly place: DocPlace | undefined; readonly text: string };

type ItemKind = "node" | "dir" | "file" | "message";

interface Item {
  kind: ItemKind;
  n: number;
  place: DocPlace | undefined;
  size: number;
  text: string;
}

/** Thrown when indexing a checkpoint would cost more than its budget allows (the caller defers the work). */
export class OverBudget extends ForgeError {
  constructor(what: string) {
    super("CONFLICT", `indexing this checkpoint needs ${what}; it is left to the next search`);
  }
}

/**
 * The documents that differ between `now` and `before` (null: a checkpoint without parent).
 * With `maxNodes`, OverBudget once more nodes than that would be read.
 */
export async function diffRoots(
  objects: ObjectStore,
  now: IndexedRoots,
  before: IndexedRoots | null,
  maxNodes = Number.POSITIVE_INFINITY,
): Promise<DocChange[]> {
  let pending = new Map<string, Item>();
  const add = (key: string, n: number, kind: ItemKind, place: DocPlace, size = 0, text = "") => {
    const it = pending.get(key);
    if (it) {
      it.n += n;
      if (n > 0 && it.place === undefined) it.place = place;
    } else pending.set(key, { kind, n, place: n > 0 ? place : undefined, size, text });
  };
  const roots = (r: IndexedRoots, n: number) => {
    add(r.state, n, "node", { path: [] });
    if (r.files !== null) add(r.files, n, "dir", { path: [""] });
    if (r.message !== "") add(messageKey(r.message), n, "message", { path: [] }, 0, r.message);
  };
  roots(now, 1);
  if (before) roots(before, -1);

  const settled = new Map<string, Item & { node?: TreeNode }>();
  let loaded = 0;
  while (pending.size > 0) {
    const round = [...pending].filter(([, it]) => it.n !== 0);
    pending = new Map();
    const load = round.filter(([, it]) => it.kind === "node" || it.kind === "dir").map(([k]) => k);
    loaded += load.length;
    if (loaded > maxNodes) throw new OverBudget(`more than ${maxNodes} nodes read`);
    const nodes = load.length > 0 ? await objects.getNodes(load) : new Map<Hash, TreeNode>();
    for (const [key, it] of round) {
      const s = settled.get(key);
      if (s) {
        s.n += it.n;
        s.place ??= it.place;
      } else settled.set(key, { ...it });
      const node = nodes.get(key);
      if (!node) continue;
      (settled.get(key) as { node?: TreeNode }).node = node;
      const place = it.place ?? { path: [] };
      if (it.kind === "dir") expandDir(node, it.n, place, add);
      else expandValue(key, node, it.n, place, add);
    }
  }
  const out: DocChange[] = [];
  for (const [key, it] of settled) {
    if (it.n === 0) continue;
    if (it.kind === "file") out.push({ kind: "file", key, delta: it.n, place: it.place, size: it.size });
    else if (it.kind === "message") out.push({ kind: "message", key, delta: it.n, place: it.place, text: it.text });
    else if (it.kind === "node" && it.node?.kind === "j") out.push({ kind: "node", key, delta: it.n, place: it.place, node: it.node });
  }
  return out;
}

type Add = (key: string, n: number, kind: ItemKind, place: DocPlace, size?: number) => void;

/** A state node's children: a `j` node's refs (paths inside its value), an `a` node's chunks (runs of items). */
function expandValue(hash: Hash, node: TreeNode, n: number, place: DocPlace, add: Add): void {
  if (node.kind === "j") {
    for (const [child, ...rel] of node.refs) add(child, n, "node", { path: joinPath(place, rel) });
  } else if (node.kind === "a") {
    let at = place.offset ?? 0;
    for (const [child, count] of node.entries) {
      add(child, n, "node", { path: place.path, offset: at });
      at += count;
    }
  } else {
    throw new ForgeError("CORRUPT_OBJECT", `object ${hash} is a ${node.kind} node where a state's value was expected`, {
      hint: "run `forge fsck` to list every damaged object",
    });
  }
}

/** A path inside a node's value, from the state's root: a chunk's items start at its offset. */
export function joinPath(place: DocPlace, rel: readonly PathKey[]): PathKey[] {
  if (place.offset === undefined || rel.length === 0) return [...place.path, ...rel];
  return [...place.path, place.offset + (rel[0] as number), ...rel.slice(1)];
}

/** A folder's entries: sub-folders to walk, files as documents (links and files not stored are not text). */
function expandDir(node: TreeNode, n: number, place: DocPlace, add: Add): void {
  if (node.kind !== "d") throw new ForgeError("CORRUPT_OBJECT", `a files tree holds a ${node.kind} node where a folder was expected`);
  const dir = place.path[0] as string;
  for (const [hash, name, type, , size] of node.entries) {
    const path = dir === "" ? name : `${dir}/${name}`;
    if (type === "d") add(hash, n, "dir", { path: [path] });
    else if (type === "f") add(hash, n, "file", { path: [path] }, size);
  }
}
