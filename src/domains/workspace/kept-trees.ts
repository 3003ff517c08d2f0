// The trees a Workspace object keeps at hand: the one it committed last (the base while
// HEAD is still that root) and the tree cache (.forge/tree-cache.bin) as it last read it.
// A tree is never changed once committed or read (a quick walk copies the one it starts
// from), so one read of the cache serves a whole restore: its target, HEAD, the safety
// snapshot's base.
import { readTree, type Tree } from "../../objects/file-tree.js";
import type { Hash } from "../../objects/hash.js";
import type { ObjectStore } from "../../objects/object-store.js";
import type { QuickBase } from "./scanner.js";
import { readTreeColumns, treeFromColumns, type TreeColumns } from "./tree-cache.js";

export class KeptTrees {
  /** The tree cache's file. */
  readonly path: string;
  /** The tree this object last committed (the tree cache holds it too). */
  lastCommit: { root: Hash; tree: Tree } | null = null;
  #cacheRead: { root: Hash; tree: Tree; quick?: QuickBase } | null = null;

  constructor(path: string) {
    this.path = path;
  }

  /**
   * The tree a files root holds: the last committed one, or the tree cache's, when it is
   * that one (with its walk's stats, for a quick walk, when the cache keeps them); else from
   * `objects` — reading only the folders that differ from the cache's tree (a restore of a
   * few files in 10,000 reads a few folders, not ~500).
   */
  async read(root: Hash, objects: ObjectStore): Promise<{ tree: Tree; cached: boolean; quick?: QuickBase }> {
    if (this.lastCommit?.root === root) return { tree: this.lastCommit.tree, cached: true };
    let held = this.#cacheRead;
    if (held?.root !== root) {
      const cols = this.#cols?.root === root ? this.#cols : readTreeColumns(this.path, undefined);
      const tree = cols && treeFromColumns(cols);
      if (cols !== undefined && tree !== undefined) held = this.#cacheRead = { root: cols.root, tree, ...(cols.stats && { quick: { cols, tree } }) };
    }
    if (held?.root === root) return { tree: held.tree, cached: true, ...(held.quick && { quick: held.quick }) };
    return { tree: await readTree(objects, root, held?.tree ?? this.lastCommit?.tree), cached: false };
  }

  /** The tree cache's columns if it holds `root`'s tree, read once (no tree built): what a comparison by stats needs. */
  columns(root: Hash): TreeColumns | undefined {
    if (this.#cols?.root !== root) this.#cols = readTreeColumns(this.path, root);
    return this.#cols?.root === root ? this.#cols : undefined;
  }

  #cols: TreeColumns | undefined;
}
