// A squash is one metadata transaction: a writer that checkpoints and squashes in a loop is
// killed with SIGKILL at random moments, and after each kill the store is whole — fsck is
// clean, main's history covers every index once, in order, with no gap (a half-done squash
// would leave a run both replaced and present, or a hole), and every checkpoint holds the
// state its message names. Then a new writer carries on in the same store.
import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/index.js";
import { stateFor } from "../fixtures/deterministic-state.mjs";
import { requireBuiltLibrary, seededRandom } from "../support/processes.js";
import { makeTempDir } from "../support/temp.js";

const WRITER = fileURLToPath(new URL("./fixtures/squash-writer.mjs", import.meta.url));
const KILLS = 10;

function covers(message: string): [number, number] {
  const m = /^i=(\d+)(?:\.\.(\d+))?$/.exec(message);
  if (!m) throw new Error(`unexpected message ${JSON.stringify(message)}`);
  return [Number(m[1]), Number(m[2] ?? m[1])];
}

/** Starts a writer; `ready` settles once it has finished its first squash. */
function startWriter(url: string): { kill: () => Promise<void>; squashes: () => number; ready: Promise<void> } {
  const child = spawn(process.execPath, [WRITER, url, "s"], { stdio: ["ignore", "pipe", "pipe"] });
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
  describe(`a ${backend} store whose squashing writer is killed with SIGKILL ${KILLS} times`, () => {
    it("is whole after every kill: no half-squashed run, every state as its message says", async () => {
      requireBuiltLibrary();
      const seed = randomInt(2 ** 31);
      const random = seededRandom(seed);
      const dir = makeTempDir(`squash-crash-${backend}`);
      const url = backend === "sqlite" ? `sqlite:${dir.path}/forge.db` : `file:${dir.path}/store`;
      let squashes = 0;
      try {
        for (let kill = 1; kill <= KILLS; kill++) {
          const writer = startWriter(url);
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
