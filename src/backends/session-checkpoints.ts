// One session's checkpoints in the memory and file models, indexed so that a query costs
// what it returns, not the session's length (bench/history.ts).
import type { CheckpointRow } from "./backend.js";

/**
 * One session's checkpoints, kept so that what a caller asks of a session costs what it
 * returns, not the session's length: by seq, the seqs in order, and whether the session's
 * times ever went back as its seqs went up (when they never did, seq order is time order and
 * a time window is found by binary search).
 */
export class SessionCheckpoints {
  readonly bySeq = new Map<number, CheckpointRow>();
  /** Ascending. */
  readonly seqs: number[] = [];
  timesUnordered = false;

  add(row: CheckpointRow): void {
    this.bySeq.set(row.seq, row);
    const seqs = this.seqs;
    if (seqs.length === 0 || row.seq > (seqs[seqs.length - 1] as number)) seqs.push(row.seq);
    else
      seqs.splice(
        lowerBound(seqs.length, (i) => (seqs[i] as number) < row.seq),
        0,
        row.seq,
      );
  }

  remove(row: CheckpointRow): void {
    if (this.bySeq.get(row.seq)?.id !== row.id) return;
    this.bySeq.delete(row.seq);
    const seqs = this.seqs;
    const i = seqs.length > 0 && seqs[seqs.length - 1] === row.seq ? seqs.length - 1 : lowerBound(seqs.length, (j) => (seqs[j] as number) < row.seq);
    if (seqs[i] === row.seq) seqs.splice(i, 1);
  }

  at(index: number): CheckpointRow {
    return this.bySeq.get(this.seqs[index] as number) as CheckpointRow;
  }

  /** Whether a row of `seq` made at `createdAt` would sit out of time order between its neighbours by seq. */
  outOfOrder(seq: number, createdAt: number): boolean {
    const i = lowerBound(this.seqs.length, (j) => (this.seqs[j] as number) < seq);
    const before = i > 0 ? this.at(i - 1) : undefined;
    const afterIndex = this.seqs[i] === seq ? i + 1 : i;
    const after = afterIndex < this.seqs.length ? this.at(afterIndex) : undefined;
    return (before !== undefined && before.createdAt > createdAt) || (after !== undefined && after.createdAt < createdAt);
  }
}

/** The first index in [0, n) for which `below` is false (`below` true on a prefix). */
export function lowerBound(n: number, below: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (below(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
