// The write order of DESIGN §3 under concurrent gc: objects first, then the metadata in one
// transaction that begins by checking the gc epoch read before the objects were written. If
// a gc ran in between, the objects this write reused may be gone, so it starts again from
// the top; after a few rounds it gives up with CONFLICT rather than spin against a gc.
import { ForgeError } from "../core/errors.js";
import type { MetaWriter } from "../backends/backend.js";
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
    const epoch = await ctx.syncGcEpoch();
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
