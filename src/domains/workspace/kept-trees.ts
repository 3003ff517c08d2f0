// The trees a Workspace object keeps at hand: the one it committed last (the base while
// HEAD is still that root) and the tree cache (.forge/tree-cache.bin) as it last read it.
// A tree is never changed once committed or read (a quick walk copies the one it starts
// from), so one read of the cache serves a whole restore (its target, HEAD, the safety
// snapshot's base) and a status that walks after comparing stats; the file is read again
// only when it changed.
import { readTree, type Tree } from "../../objects/file-tree.js";
import type { Hash } from "../../objects/hash.js";
import type { ObjectStore } from "../../objects/object-store.js";
import type { QuickBase } from "./scanner.js";
import { fileStamp } from "./stat-cache.js";
import { readTreeColumns, treeFromColumns, type TreeColumns } from "./tree-cache.js";

export class KeptTrees {
  /** The tree cache's file. */
  readonly path: string;
  /** The tree this object last committed (the tree cache holds it too). */
  lastCommit: { root: Hash; tree: Tree } | null = null;

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
    const cols = this.#load();
    if (cols !== undefined && this.#built?.cols !== cols) {
      const tree = treeFromColumns(cols);
      this.#built = tree && { cols, tree };
    }
    const built = this.#built;
    if (built !== undefined && built.cols.root === root) return { tree: built.tree, cached: true, ...(built.cols.stats && { quick: built }) };
    return { tree: await readTree(objects, root, built?.tree ?? this.lastCommit?.tree), cached: false };
  }

  /** The tree cache's columns if it holds `root`'s tree (no tree built): what a comparison by stats needs. */
  columns(root: Hash): TreeColumns | undefined {
    const cols = this.#load();
    return cols?.root === root ? cols : undefined;
  }

  /** `root`'s tree as the cache keeps it with its walk's stats (a quick snapshot's base), unless it is the last one committed here. */
  withStats(root: Hash | null | undefined): TreeColumns | undefined {
    if (!root || this.lastCommit?.root === root) return undefined;
    const cols = this.columns(root);
    return cols?.stats ? cols : undefined;
  }

  /** The cache file's columns, read again only when the file changed (another process, or a status, rewrote it). */
  #load(): TreeColumns | undefined {
    const stamp = fileStamp(this.path);
    if (stamp !== this.#stamp) {
      this.#cols = readTreeColumns(this.path, undefined);
      this.#stamp = stamp;
    }
    return this.#cols;
  }

  #cols: TreeColumns | undefined;
  #stamp: string | undefined;
  /** The tree the columns last read hold, built from them (in their order, as a quick walk needs). */
  #built: { cols: TreeColumns; tree: Tree } | undefined;
}
