// How a state is cut into objects: when a sub-value becomes its own object, when an array
// is chunked, how big its chunks aim to be, and how wide an array node may grow.

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
  splitBytes: 2048,
  chunkArrayBytes: 8192,
  chunkTargetBytes: 2048,
  maxFanout: 64,
});
