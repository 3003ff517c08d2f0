// A workspace prunes its snapshots after a snapshot once there are more than keepLast, keeping
// every one younger than keepDays (by the store's clock); it does not read the whole session
// while none is old enough to go.
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ManualClock, openStore } from "../../src/index.js";
import { Workspace } from "../../src/domains/workspace/workspace.js";
import { tempDir } from "./support.js";

const DAY = 86_400_000;

describe("workspace retention", () => {
  it("keeps every snapshot younger than keepDays, then prunes to keepLast once older ones exist", async () => {
    const parent = realpathSync(tempDir("retention").path);
    const root = join(parent, "ws");
    mkdirSync(join(root, ".forge"), { recursive: true });
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const store = await openStore(`sqlite:${join(root, ".forge", "forge.db")}`, { clock });
    try {
      const ws = await Workspace.open(store, { root, retention: { keepLast: 3, keepDays: 30 } });
      const snap = async (i: number) => {
        writeFileSync(join(root, "f.txt"), `version ${i}\n`);
        clock.advance(60_000);
        return (await ws.snapshot(`s${i}`)).snapshot;
      };
      for (let i = 0; i < 6; i++) await snap(i);
      expect(await ws.session.count()).toBe(6); // all younger than 30 days
      clock.advance(29 * DAY);
      await snap(6);
      expect(await ws.session.count()).toBe(7); // the first six are 29 days old: kept
      clock.advance(2 * DAY);
      const last = await snap(7);
      // s0–s5 are now 31 days old; the last three (s5, s6, s7) stay whatever their age, s0–s4 go.
      expect((await ws.session.list()).map((c) => c.message)).toEqual(["s5", "s6", "s7"]);
      expect((await ws.session.head()).checkpoint?.id).toBe(last.id);
    } finally {
      await store.close();
    }
  });
});
