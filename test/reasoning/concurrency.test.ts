// Two ReasoningSession objects on one session of one SQLite store (two connections, as two
// processes would have) updating at once: update() retries on CONFLICT from the other's
// state, so no update is lost and ids never repeat.
import { describe, expect, it } from "vitest";
import type { ForgeError } from "../../src/index.js";
import { rejectsWith } from "../support/errors.js";
import { reasoningBench } from "./support.js";

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe("two session objects updating one reasoning session", () => {
  it("retries an update that lost the race on the other's state, so neither is lost", async () => {
    const bench = await reasoningBench("shared");
    const a = bench.rs;
    await a.update((r) => r.setTask("find the slow query")); // the session has a working state
    const { rs: b } = await bench.reopen();
    const aInside = gate();
    const release = gate();
    let aAttempts = 0;
    // A reads the state and changes it, then waits while B saves a change of its own.
    const aDone = a.update(async (r) => {
      aAttempts++;
      const h = r.hypotheses.add("from A");
      if (aAttempts === 1) {
        aInside.open();
        await release.promise;
      }
      return h;
    });
    await aInside.promise;
    const bResult = await b.update((r) => r.hypotheses.add("from B"));
    release.open();
    const aResult = await aDone;

    expect(aAttempts).toBe(2);
    expect(bResult.result.id).toBe("H1");
    expect(aResult.result.id).toBe("H2");
    await a.reload();
    await b.reload();
    expect(a.hypotheses.list().map((h) => [h.id, h.statement])).toEqual([
      ["H1", "from B"],
      ["H2", "from A"],
    ]);
    expect(b.state()).toEqual(a.state());
  });

  // A session with no working state stored yet is still at a version (0): were it at none,
  // save() would write without expectedVersion and the second writer would silently
  // overwrite the first (reasoning-session.ts, reload() and save()).
  it("does not lose either of two racing first updates of a new session", async () => {
    const bench = await reasoningBench("shared");
    const a = bench.rs;
    const { rs: b } = await bench.reopen();
    const aInside = gate();
    const release = gate();
    let aAttempts = 0;
    // A reads the state and changes it, then waits while B saves a change of its own.
    const aDone = a.update(async (r) => {
      aAttempts++;
      const h = r.hypotheses.add("from A");
      if (aAttempts === 1) {
        aInside.open();
        await release.promise;
      }
      return h;
    });
    await aInside.promise;
    const bResult = await b.update((r) => r.hypotheses.add("from B"));
    release.open();
    const aResult = await aDone;

    await a.reload();
    expect(a.hypotheses.list().map((h) => [h.id, h.statement])).toEqual([
      ["H1", "from B"],
      ["H2", "from A"],
    ]);
    expect([bResult.result.id, aResult.result.id]).toEqual(["H1", "H2"]);
    expect(aAttempts).toBe(2);
  });

  it("loses no update when both add hypotheses interleaved, and hands out unique ids", async () => {
    const bench = await reasoningBench("shared");
    const a = bench.rs;
    await a.update((r) => r.setTask("find the slow query")); // the session has a working state
    const { rs: b } = await bench.reopen();
    // Each lost race is a win of the other writer, so one update needs at most each + 1 = 7
    // attempts: within update()'s 8, whatever the interleaving.
    const each = 6;
    const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
    const writer = async (rs: typeof a, who: string) => {
      const out: string[] = [];
      for (let i = 0; i < each; i++) {
        const { result } = await rs.update(async (r) => {
          const h = r.hypotheses.add(`${who} ${i}`);
          await tick(); // let the other writer in between read and write
          return h;
        });
        out.push(result.id);
      }
      return out;
    };
    const [fromA, fromB] = await Promise.all([writer(a, "A"), writer(b, "B")]);
    const all = [...fromA, ...fromB];
    expect(new Set(all).size).toBe(2 * each);

    await a.reload();
    const stored = a.hypotheses.list();
    expect(stored).toHaveLength(2 * each);
    expect(new Set(stored.map((h) => h.id)).size).toBe(2 * each);
    expect(stored.map((h) => h.statement).sort()).toEqual(
      [...Array.from({ length: each }, (_, i) => `A ${i}`), ...Array.from({ length: each }, (_, i) => `B ${i}`)].sort(),
    );
    // Each writer's ids are the ids its statements were stored under.
    for (const [who, got] of [
      ["A", fromA],
      ["B", fromB],
    ] as const) {
      expect(got.map((id) => stored.find((h) => h.id === id)?.statement)).toEqual(Array.from({ length: each }, (_, i) => `${who} ${i}`));
    }
  });

  it("refuses a plain save() over another's newer state with CONFLICT, and keeps the other's change", async () => {
    const bench = await reasoningBench("shared");
    const a = bench.rs;
    const { rs: b } = await bench.reopen();
    await a.update((r) => r.hypotheses.add("first"));
    await b.reload();
    await a.update((r) => r.hypotheses.add("second, by A"));
    b.hypotheses.add("stale, by B");
    const e: ForgeError = await rejectsWith(b.save(), "CONFLICT");
    expect(e.message).toMatch(/changed meanwhile/);
    await b.reload();
    expect(b.hypotheses.list().map((h) => h.statement)).toEqual(["first", "second, by A"]);
  });

  it("fires a trigger once even when the update that raised it is retried", async () => {
    const bench = await reasoningBench("shared");
    const a = bench.rs;
    const { rs: b } = await bench.reopen();
    await a.update((r) => r.hypotheses.add("x"));
    const aInside = gate();
    const release = gate();
    let attempts = 0;
    const aDone = a.update(async (r) => {
      attempts++;
      r.hypotheses.update("H1", { status: "confirmed" });
      if (attempts === 1) {
        aInside.open();
        await release.promise;
      }
    });
    await aInside.promise;
    await b.update((r) => r.notes.add("meanwhile"));
    release.open();
    const { saved } = await aDone;
    expect(attempts).toBe(2);
    expect(saved.checkpoint?.trigger).toBe("hypothesis-status");
    const list = await a.session.list();
    expect(list.map((c) => c.trigger)).toEqual(["hypothesis-status"]);
    expect((await a.stateAt(list[0]?.id as string)).state.notes.map((n) => n.text)).toEqual(["meanwhile"]);
  });
});
