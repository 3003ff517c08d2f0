// `forge redact` through the library, on every embedded backend: a store written without
// redaction holds a secret in three checkpoints; afterwards scan finds none, the other content
// is unchanged, fsck is clean, and an export carries no trace of it.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/timeline/store.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { leaksIn, leaksUnder } from "./leaks.js";

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const token = () => `ghp_${[...randomBytes(36)].map((b) => ALNUM[b % ALNUM.length]).join("")}`;

let dir: TempDir;
beforeEach(() => {
  dir = makeTempDir("redact-history");
});
afterEach(() => dir.remove());

const URLS: Record<string, (d: string) => string> = {
  memory: () => "memory:",
  file: (d) => `file:${join(d, "objects")}`,
  sqlite: (d) => `sqlite:${join(d, "forge.db")}`,
};

/** Five checkpoints; the token in the state of #2, #3 and #4 (#5 dropped it), and in #3's message. */
async function leaky(url: string, gh: string): Promise<Store> {
  const store = await openStore(url, { cwd: dir.path, redaction: { enabled: false } });
  const session = await store.session("work", { kind: "generic" });
  const notes: string[] = [];
  for (let i = 1; i <= 5; i++) {
    notes.push(i === 2 ? `rotated the key to ${gh}` : `step ${i} of the deploy`);
    const kept = i === 5 ? notes.filter((n) => !n.includes(gh)) : [...notes];
    await session.checkpoint(
      { notes: kept, padding: "x".repeat(5000), list: Array.from({ length: 300 }, (_, k) => `item ${k}`) },
      { message: i === 3 ? `with ${gh}` : `step ${i}` },
    );
  }
  return store;
}

describe.each(Object.keys(URLS))("forge redact on %s", (backend) => {
  it("rewrites a secret in three checkpoints out of history: scan finds none, the rest unchanged, fsck clean, export clean", async () => {
    const gh = token();
    const store = await leaky((URLS[backend] as (d: string) => string)(dir.path), gh);
    try {
      const session = await store.getSession("work");
      const before = await session.list();
      const states = await Promise.all(before.map((c) => session.state(c.id)));
      const scan = await store.scanSecrets();
      expect(scan.findings.flatMap((f) => f.checkpoints.map((c) => c.seq)).sort()).toEqual([2, 3, 3, 4]);

      const dry = await store.redactSecrets({ dryRun: true });
      expect(dry).toMatchObject({ dryRun: true, states: 3, checkpoints: 3, gc: null });
      expect((await store.scanSecrets()).findings.length).toBe(scan.findings.length);

      const r = await store.redactSecrets();
      expect(r.states).toBe(3);
      expect(r.gc?.deleted).toBeGreaterThan(0);
      expect((await store.scanSecrets()).findings).toEqual([]);
      expect((await store.fsck()).ok).toBe(true);

      const after = await session.list();
      expect(after.map((c) => [c.id, c.seq, c.createdAt.getTime()])).toEqual(before.map((c) => [c.id, c.seq, c.createdAt.getTime()]));
      expect(after[2]?.message).toBe("with [REDACTED:github-pat]");
      for (const [i, cp] of after.entries()) {
        const was = JSON.stringify(states[i]);
        expect(JSON.stringify(await session.state(cp.id))).toBe(was.replaceAll(gh, "[REDACTED:github-pat]"));
      }
      expect((await session.working())?.root).toBe(after[4]?.stateRoot);
      expect(leaksIn((await store.export({ session: "work" })).bytes, [gh])).toEqual([]);
    } finally {
      await store.close();
    }
    if (backend === "file") expect(leaksUnder(join(dir.path, "objects"), [gh])).toEqual([]);
  });
});
