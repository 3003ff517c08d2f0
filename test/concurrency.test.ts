// Several processes (test/fixtures/concurrent-writer.mjs) write checkpoints into one
// session of one new store at the same time: each opens the store, says "ready", and all
// start writing when the test says "go". Afterwards every checkpoint is there exactly
// once, seqs have no gap and no duplicate, and the history is one chain.
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Checkpoint } from "../src/index.js";
import { pgStoreUrl } from "./support/postgres.js";
import { requireBuiltLibrary, runFixture, type Exit } from "./support/processes.js";
import { makeTempDir, type TempDir } from "./support/temp.js";

const SESSION = "shared";

interface WriterResult {
  readonly name: string;
  readonly exit: Exit;
  readonly stderr: string;
  /** "<id> <seq> <n>" lines, after "ready". */
  readonly lines: readonly string[];
}

interface ConcurrencyPlan {
  readonly backend: string;
  readonly writers: number;
  readonly each: number;
  readonly url: (dir: string) => string;
}

function describeConcurrentWriters(plan: ConcurrencyPlan): void {
  const total = plan.writers * plan.each;
  describe(`${plan.writers} processes each writing ${plan.each} checkpoints into one session of a new ${plan.backend} store at once`, () => {
    let dir: TempDir;
    const results: WriterResult[] = [];
    let listed: Checkpoint[] = [];
    const restored = new Map<string, unknown>();
    let fsckOk = false;

    beforeAll(async () => {
      requireBuiltLibrary();
      dir = makeTempDir(`concurrency-${plan.backend}`);
      const url = plan.url(dir.path);
      const writers = Array.from({ length: plan.writers }, (_, i) => {
        const name = `w${i + 1}`;
        return { name, fixture: runFixture("concurrent-writer.mjs", [url, SESSION, name, String(plan.each)]) };
      });
      await Promise.all(writers.map((w) => w.fixture.waitForLines(1, 60_000)));
      for (const w of writers) w.fixture.child.stdin.end("go\n");
      for (const w of writers) {
        const exit = await w.fixture.exited;
        results.push({ name: w.name, exit, stderr: w.fixture.stderr(), lines: w.fixture.lines.slice(1) });
      }
      const store = await openStore(url);
      try {
        const session = await store.getSession(SESSION);
        listed = await session.list();
        for (const cp of listed) restored.set(cp.id, await session.state(cp.id));
        fsckOk = (await store.fsck()).ok;
      } finally {
        await store.close();
      }
    }, 240_000);

    afterAll(() => dir?.remove());

    it("every writer exits with status 0 and prints no error", () => {
      expect(results.map((r) => [r.name, r.exit.code, r.stderr])).toEqual(results.map((r) => [r.name, 0, ""]));
    });

    it(`the session holds ${total} checkpoints, and each writer printed ${plan.each}`, () => {
      expect(listed).toHaveLength(total);
      expect(results.map((r) => r.lines.length)).toEqual(results.map(() => plan.each));
    });

    it(`seqs are exactly 1..${total}: no gap, no duplicate`, () => {
      expect(listed.map((c) => c.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    });

    it("the checkpoints form one chain: each one's parent is the checkpoint before it", () => {
      const breaks = listed.filter((c, i) => c.parentId !== (i === 0 ? null : listed[i - 1]?.id)).map((c) => `#${c.seq}`);
      expect(breaks).toEqual([]);
      expect(new Set(listed.map((c) => c.branch))).toEqual(new Set(["main"]));
    });

    it("every id a writer printed is stored with the seq it printed and holds the state that writer saved", () => {
      const byId = new Map(listed.map((c) => [c.id, c]));
      const wrong: string[] = [];
      for (const r of results) {
        for (const line of r.lines) {
          const [id = "", seq, n] = line.split(" ");
          const state = { writer: r.name, n: Number(n), note: `checkpoint ${n} by ${r.name}` };
          if (byId.get(id)?.seq !== Number(seq) || !isDeepStrictEqual(restored.get(id), state)) wrong.push(`${r.name}: ${line}`);
        }
      }
      expect(wrong).toEqual([]);
    });

    it("fsck finds nothing wrong", () => {
      expect(fsckOk).toBe(true);
    });
  });
}

describeConcurrentWriters({ backend: "sqlite", writers: 4, each: 100, url: (dir) => `sqlite:${dir}/forge.db` });
describeConcurrentWriters({ backend: "postgres", writers: 4, each: 100, url: () => pgStoreUrl("concurrency") });
describeConcurrentWriters({ backend: "file", writers: 3, each: 30, url: (dir) => `file:${dir}/store` });
