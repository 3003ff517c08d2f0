// The write order of DESIGN §3 under concurrent gc: objects first, then the metadata in one
// transaction that begins by checking the gc epoch read before the objects were written. If
// a gc ran in between, the objects this write reused may be gone, so it starts again from
// the top; after a few rounds it gives up with CONFLICT rather than spin against a gc.
import { ForgeError } from "../core/errors.js";
import type { MetaWriter } from "../backends/backend.js";
import type { PreparedTree, WrittenTree } from "../objects/object-store.js";
import type { UnchangedHint } from "../objects/value-encoder.js";
import type { StoreContext } from "./store-context.js";

const MAX_ATTEMPTS = 5;

/**
 * `writeObjects()` then `commit(tx, written)` in a transaction, both again while a gc keeps
 * running in between. `what` names the write for the error ("save session \"x\"").
 */
export async function writeUnderEpoch<W, T>(
  ctx: StoreContext,
  what: string,
  writeObjects: () => Promise<W>,
  commit: (tx: MetaWriter, written: W) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    // A first attempt goes by the epoch this process last saw, unread: the transaction checks
    // it, and a gc since makes the next attempt read it (forgetting which objects are stored).
    const epoch = (attempt === 1 ? ctx.knownGcEpoch() : undefined) ?? (await ctx.syncGcEpoch());
    const written = await writeObjects();
    const done = await ctx.backend.transaction(async (tx) => {
      if ((await tx.getGcEpoch()) !== epoch) return { retry: true as const };
      return { retry: false as const, value: await commit(tx, written) };
    });
    if (!done.retry) return done.value;
    if (attempt >= MAX_ATTEMPTS) {
      throw new ForgeError("CONFLICT", `could not ${what}: garbage collection kept running during ${attempt} attempts`, {
        // Not marked as a gc race: this is the give-up, not one to retry from outside.
        hint: "try again when no `forge gc` is running",
      });
    }
  }
}

/**
 * A state's tree written and `commit(tx, tree)` run with it, as `writeUnderEpoch` does; where
 * the backend writes objects best inside a transaction (SQLite), a small change's new objects
 * go into the commit's own, and the object store counts on them only once it committed.
 */
export async function writeStateUnderEpoch<T>(
  ctx: StoreContext,
  what: string,
  state: unknown,
  stream: string,
  hint: UnchangedHint | undefined,
  commit: (tx: MetaWriter, tree: WrittenTree) => Promise<T>,
): Promise<T> {
  const leave = ctx.backend.objectsInTransaction === true;
  let prepared: PreparedTree | undefined;
  const value = await writeUnderEpoch(
    ctx,
    what,
    async () => (prepared = await ctx.objects.prepareValue(state, stream, hint, ctx.objects.redactor, leave)),
    async (tx, p) => {
      if (p.unwritten.length > 0 && !tx.putObjects) throw new ForgeError("INVALID_STATE", `${ctx.backend.url} cannot write objects inside a transaction`);
      return commit(tx, p.written(p.unwritten.length > 0 ? await (tx.putObjects as NonNullable<MetaWriter["putObjects"]>)(p.unwritten) : 0));
    },
  );
  // Committed: only now may the store count on the objects that transaction wrote.
  prepared?.stored();
  return value;
}
