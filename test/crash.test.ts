// Crash safety: a writer process (test/fixtures/crash-writer.mjs) makes checkpoints of
// stateFor(i) as fast as it can and is killed with SIGKILL at random moments — before it
// has opened the store, between its object writes and its metadata transaction, inside
// that transaction, after it commits but before it prints. Each time the store is opened
// afresh and checked: fsck is clean, every id the writer printed is there and restores to
// its state, and every checkpoint in the store (printed or not) restores to the state its
// message names. Then a new writer continues in the same store.
//
// A squash is one metadata transaction too: a writer that checkpoints and squashes in a loop
// (test/milestones/fixtures/squash-writer.mjs) is killed the same way, and after each kill
// main's history covers every index once, in order, with no gap (a half-done squash would
// leave a run both replaced and present, or a hole).
import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/index.js";
import { stateFor } from "./fixtures/deterministic-state.mjs";
import { requireBuiltLibrary, runFixture, seededRandom } from "./support/processes.js";
import { makeTempDir, type TempDir } from "./support/temp.js";

const SESSION = "crash";

interface AfterKill {
  readonly kill: number;
  /** Lines the killed writer printed. */
  readonly printed: number;
  readonly killedBySignal: boolean;
  readonly stderr: string;
  readonly fsck: { readonly ok: boolean; readonly detail: string };
  /** Ids printed by any writer so far that the store does not have, or has under another index. */
  readonly lostPrinted: readonly string[];
  /** Checkpoints whose state is not stateFor(the index in their message), or cannot be read. */
  readonly wrongState: readonly string[];
  readonly seqs: readonly number[];
}

interface CrashPlan {
  readonly backend: string;
  readonly kills: number;
  readonly url: (dir: string) => string;
  /** Longest wait, after a writer's first line, before it is killed. */
  readonly maxDelayMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function describeCrashes(plan: CrashPlan): void {
  describe(`a ${plan.backend} store whose writer is killed with SIGKILL ${plan.kills} times`, () => {
    const seed = randomInt(2 ** 31);
    const where = `(seed ${seed})`;
    let dir: TempDir;
    const observations: AfterKill[] = [];

    beforeAll(async () => {
      requireBuiltLibrary();
      dir = makeTempDir(`crash-${plan.backend}`);
      const url = plan.url(dir.path);
      const random = seededRandom(seed);
      const printed = new Map<string, number>();
      let next = 0;
      for (let kill = 1; kill <= plan.kills; kill++) {
        const writer = runFixture("crash-writer.mjs", [url, SESSION, String(next)]);
        if (kill % 7 === 3) {
          // Now and then, kill it while it is still starting up or opening the store.
          await sleep(Math.floor(random() * 60));
        } else {
          await writer.waitForLines(1, 30_000);
          await sleep(Math.floor(random() * plan.maxDelayMs));
        }
        writer.child.kill("SIGKILL");
        const exit = await writer.exited;
        for (const line of writer.lines) {
          const [id, index] = line.split(" ");
          if (id !== undefined && index !== undefined) printed.set(id, Number(index));
        }

        const store = await openStore(url);
        try {
          const report = await store.fsck();
          const session = await store.session(SESSION);
          const all = await session.list();
          const byId = new Map(all.map((c) => [c.id, c]));
          const lostPrinted = [...printed].filter(([id, index]) => byId.get(id)?.message !== `i=${index}`).map(([id]) => id);
          const wrongState: string[] = [];
          for (const cp of all) {
            const index = Number(/^i=(\d+)$/.exec(cp.message)?.[1] ?? Number.NaN);
            const state = await session.state(cp.id).catch((e: unknown) => e);
            if (!isDeepStrictEqual(state, stateFor(index))) wrongState.push(`${cp.id} #${cp.seq} ${cp.message}`);
            if (index >= next) next = index + 1;
          }
          observations.push({
            kill,
            printed: writer.lines.length,
            killedBySignal: exit.signal === "SIGKILL",
            stderr: writer.stderr(),
            fsck: { ok: report.ok, detail: JSON.stringify({ corrupt: report.corrupt, missing: report.missing, problems: report.problems }) },
            lostPrinted,
            wrongState,
            seqs: all.map((c) => c.seq),
          });
        } finally {
          await store.close();
        }
      }
    }, 300_000);

    afterAll(() => dir?.remove());

    it("fsck finds nothing wrong after any kill", () => {
      const failed = observations.filter((o) => !o.fsck.ok).map((o) => `kill ${o.kill}: ${o.fsck.detail}`);
      expect(failed, where).toEqual([]);
    });

    it("every id a writer printed is still in the store after every later kill", () => {
      const lost = observations.filter((o) => o.lostPrinted.length > 0).map((o) => `kill ${o.kill}: ${o.lostPrinted.join(", ")}`);
      expect(lost, where).toEqual([]);
    });

    it("every checkpoint, printed or not, restores to the state its index names", () => {
      const wrong = observations.filter((o) => o.wrongState.length > 0).map((o) => `kill ${o.kill}: ${o.wrongState.join(", ")}`);
      expect(wrong, where).toEqual([]);
    });

    it("seqs stay 1..N with no gap or duplicate across crashes", () => {
      const broken = observations.filter((o) => !o.seqs.every((seq, i) => seq === i + 1)).map((o) => `kill ${o.kill}: ${o.seqs.join(",")}`);
      expect(broken, where).toEqual([]);
    });

    it("each writer ran until the kill, reporting no error, and later writers kept adding checkpoints", () => {
      expect(observations).toHaveLength(plan.kills);
      expect(
        observations.filter((o) => !o.killedBySignal || o.stderr !== "").map((o) => `kill ${o.kill}: ${o.stderr}`),
        where,
      ).toEqual([]);
      // Writers waited on for their first line made checkpoints before dying: the kills landed mid-work.
      const working = observations.filter((o) => o.kill % 7 !== 3);
      expect(
        working.every((o) => o.printed >= 1),
        where,
      ).toBe(true);
      const last = observations[observations.length - 1];
      expect(last?.seqs.length ?? 0, where).toBeGreaterThanOrEqual(working.length);
    });
  });
}

describeCrashes({ backend: "sqlite", kills: 20, url: (dir) => `sqlite:${dir}/forge.db`, maxDelayMs: 150 });
describeCrashes({ backend: "file", kills: 5, url: (dir) => `file:${dir}/store`, maxDelayMs: 200 });

// A squash killed half-way.

const SQUASH_WRITER = fileURLToPath(new URL("./milestones/fixtures/squash-writer.mjs", import.meta.url));
const SQUASH_KILLS = 10;

function covers(message: string): [number, number] {
  const m = /^i=(\d+)(?:\.\.(\d+))?$/.exec(message);
  if (!m) throw new Error(`unexpected message ${JSON.stringify(message)}`);
  return [Number(m[1]), Number(m[2] ?? m[1])];
}

/** Starts a writer; `ready` settles once it has finished its first squash. */
function startSquashWriter(url: string): { kill: () => Promise<void>; squashes: () => number; ready: Promise<void> } {
  const child = spawn(process.execPath, [SQUASH_WRITER, url, "s"], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (out.includes("\n")) clearInterval(timer), resolve();
      else if (child.exitCode !== null) clearInterval(timer), reject(new Error(`writer exited: ${err}`));
    }, 5);
  });
  return {
    ready,
    squashes: () => out.split("\n").filter(Boolean).length,
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

for (const backend of ["sqlite", "file"] as const) {
  describe(`a ${backend} store whose squashing writer is killed with SIGKILL ${SQUASH_KILLS} times`, () => {
    it("is whole after every kill: no half-squashed run, every state as its message says", async () => {
      requireBuiltLibrary();
      const seed = randomInt(2 ** 31);
      const random = seededRandom(seed);
      const dir = makeTempDir(`squash-crash-${backend}`);
      const url = backend === "sqlite" ? `sqlite:${dir.path}/forge.db` : `file:${dir.path}/store`;
      let squashes = 0;
      try {
        for (let kill = 1; kill <= SQUASH_KILLS; kill++) {
          const writer = startSquashWriter(url);
          await writer.ready;
          await new Promise((r) => setTimeout(r, Math.floor(random() * 150)));
          await writer.kill();
          squashes += writer.squashes();
          const store = await openStore(url);
          try {
            const report = await store.fsck();
            expect(report.ok, `seed ${seed}, kill ${kill}: ${JSON.stringify(report.problems)} ${JSON.stringify(report.missing)}`).toBe(true);
            const session = await store.session("s");
            const all = await session.list();
            // Walk main from its head to the root: the covered ranges tile 0..end exactly.
            const chain = [];
            for (let cp = (await session.head()).checkpoint; cp; cp = cp.parentId === null ? null : await session.get(cp.parentId)) chain.push(cp);
            expect(chain.length, `seed ${seed}: every checkpoint is on main`).toBe(all.length);
            let expectStart = 0;
            for (const cp of chain.reverse()) {
              const [a, b] = covers(cp.message);
              expect(a, `seed ${seed}, kill ${kill}: #${cp.seq} "${cp.message}" follows index ${expectStart - 1}`).toBe(expectStart);
              expect(isDeepStrictEqual(await session.state(cp.id), stateFor(b)), `seed ${seed}: #${cp.seq} holds stateFor(${b})`).toBe(true);
              expectStart = b + 1;
            }
          } finally {
            await store.close();
          }
        }
        expect(squashes, `seed ${seed}: the writers squashed something`).toBeGreaterThan(0);
      } finally {
        dir.remove();
      }
    });
  });
}
