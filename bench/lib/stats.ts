// Timing and summary helpers for the benchmarks.

/** Milliseconds elapsed since `start` (a process.hrtime.bigint() reading). */
export function msSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Times one async call; returns its result and the elapsed milliseconds. */
export async function timeAsync<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { value, ms: msSince(start) };
}

/** Times one synchronous call. */
export function timeSync<T>(fn: () => T): { value: T; ms: number } {
  const start = process.hrtime.bigint();
  const value = fn();
  return { value, ms: msSince(start) };
}

/** The p-th percentile (0..100) of `samples`, linearly interpolated between closest ranks. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (rank - lo);
}

export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly p95: number;
  readonly mean: number;
  readonly min: number;
  readonly max: number;
}

export function summarize(samples: readonly number[]): Summary {
  let sum = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const s of samples) {
    sum += s;
    if (s < min) min = s;
    if (s > max) max = s;
  }
  return {
    n: samples.length,
    median: percentile(samples, 50),
    p95: percentile(samples, 95),
    mean: samples.length > 0 ? sum / samples.length : Number.NaN,
    min,
    max,
  };
}

/** Runs a full garbage collection when node was started with --expose-gc. */
export function collectGarbage(): void {
  if (typeof globalThis.gc === "function") globalThis.gc();
}

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "—";
  if (ms < 0.1) return `${(ms * 1000).toFixed(0)} µs`;
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(0)} ms`;
}

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return "—";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(2)} MiB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(2)} GiB`;
}

export function formatRatio(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return "—";
  const r = a / b;
  return r >= 10 ? `${r.toFixed(1)}×` : r >= 0.1 ? `${r.toFixed(2)}×` : `${r.toFixed(3)}×`;
}

export function formatPercent(fraction: number): string {
  if (!Number.isFinite(fraction)) return "—";
  const p = fraction * 100;
  return p < 1 ? `${p.toFixed(2)} %` : `${p.toFixed(1)} %`;
}
