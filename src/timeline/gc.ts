// Garbage collection: mark every object a checkpoint reaches, sweep the rest.
//
// Safety against writers in flight: objects younger than the grace period are never
// swept, and the sweep runs inside a metadata transaction that first bumps the store's gc
// epoch and marks any checkpoint committed since the mark began. A writer commits only if
// the epoch it saw before choosing which objects to reuse is unchanged, so a checkpoint
// can never commit pointing at an object this sweep deletes.
import { ForgeError } from "../core/errors.js";
import type { ProgressListener } from "../core/progress.js";
import type { Hash } from "../objects/hash.js";
import type { StoreContext } from "./store-context.js";

export interface GcOptions {
  /** Objects written less than this long ago are kept (default 10 minutes). */
  readonly graceMs?: number;
  readonly dryRun?: boolean;
  readonly onProgress?: ProgressListener;
}

export interface GcReport {
  readonly dryRun: boolean;
  /** Objects reachable from some checkpoint. */
  readonly live: number;
  /** Unreachable objects kept because they are younger than the grace period. */
  readonly young: number;
  readonly deleted: number;
  readonly bytesFreed: number;
}

export const DEFAULT_GC_GRACE_MS = 10 * 60_000;

export async function collectGarbage(ctx: StoreContext, options: GcOptions = {}): Promise<GcReport> {
  const graceMs = options.graceMs ?? DEFAULT_GC_GRACE_MS;
  if (!Number.isFinite(graceMs) || graceMs < 0) throw new ForgeError("INVALID_ARGUMENT", `grace period must be ≥ 0 ms, not ${graceMs}`);
  const seenRoots = new Set(await ctx.backend.meta.listRoots());
  const live = await mark(ctx, [...seenRoots], new Set());
  const createdBefore = Date.now() - graceMs;
  const candidates = new Map<Hash, number>();
  let young = 0;
  const total = options.onProgress ? await ctx.backend.countObjects() : 0;
  let scanned = 0;
  for await (const o of ctx.backend.listObjects()) {
    if (options.onProgress && ++scanned % 1000 === 0) options.onProgress({ phase: "scanning objects", done: scanned, total: Math.max(total, scanned) });
    if (live.has(o.hash)) continue;
    if (o.createdAt < createdBefore) candidates.set(o.hash, o.size);
    else young++;
  }
  if (options.dryRun) {
    return { dryRun: true, live: live.size, young, deleted: candidates.size, bytesFreed: sum(candidates.values()) };
  }
  const deleted = await ctx.backend.transaction(async (tx) => {
    await tx.bumpGcEpoch();
    const fresh = (await tx.listRoots()).filter((r) => !seenRoots.has(r));
    if (fresh.length > 0) for (const h of await mark(ctx, fresh, live)) candidates.delete(h);
    if (candidates.size === 0) return { count: 0, bytes: 0 };
    return tx.deleteObjects([...candidates.keys()], createdBefore);
  });
  // This process's own knowledge of stored objects is stale now too.
  await ctx.syncGcEpoch();
  return { dryRun: false, live: live.size, young, deleted: deleted.count, bytesFreed: deleted.bytes };
}

/** Every hash reachable from `roots`, added to `into`. A damaged tree stops the gc: sweeping past it could delete live data. */
async function mark(ctx: StoreContext, roots: Hash[], into: Set<Hash>): Promise<Set<Hash>> {
  try {
    for (const h of (await ctx.objects.loadTrees(roots, into)).keys()) into.add(h);
  } catch (e) {
    throw new ForgeError("CORRUPT_OBJECT", `gc stopped before deleting anything: ${(e as Error).message}`, {
      hint: "run `forge fsck` to see the damage; gc runs again once every checkpoint reads whole",
      cause: e,
    });
  }
  return into;
}

function sum(values: Iterable<number>): number {
  let n = 0;
  for (const v of values) n += v;
  return n;
}
