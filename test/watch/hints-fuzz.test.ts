// Seeded rounds of random changes — edits in place and by rename, new files and folders,
// deletions, renames and moves, modes, touches — with a real `forge watch --files` running:
// after each round, `forge files status` asking the watcher (watch-hint.ts) must say what a
// status comparing every file says, and every few rounds a snapshot moves the kept stats on.
import { chmodSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { forge as runForge, json } from "../support/cli.js";
import { requireBuiltLibrary, seededRandom } from "../support/processes.js";
import { put, tempDir } from "../workspace/support.js";
import { forge, place, sleep, watch, type Place, type WatchLine } from "./support.js";

beforeAll(() => requireBuiltLibrary());

const ROUNDS = 14;

function status(p: Place, tmp: string): { changes: string[]; hinted: boolean } {
  const r = runForge(p.root, ["--json", "files", "status"], { env: { TMPDIR: tmp, FORGE_TRACE: "1" }, timeoutMs: 30_000 });
  const changes = json<{ changes: { kind: string; path: string; from?: string }[] }>(r, { allowStderr: true }).changes.map(
    (c) => `${c.kind} ${c.path}${c.from === undefined ? "" : ` <- ${c.from}`}`,
  );
  return { changes, hinted: /watch: changed paths from the watcher/.test(r.stderr) };
}

/** Every regular file under `root` but .forge, relative. */
function filesIn(root: string, dir = ""): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = dir === "" ? e.name : `${dir}/${e.name}`;
    if (path === ".forge") continue;
    if (e.isDirectory()) out.push(...filesIn(root, path));
    else if (e.isFile()) out.push(path);
  }
  return out.sort();
}

function change(root: string, random: () => number, round: number): void {
  const folder = () => `d${Math.floor(random() * 5)}`;
  const ops = 1 + Math.floor(random() * 4);
  for (let k = 0; k < ops; k++) {
    const tag = `${round}.${k}`;
    const what = Math.floor(random() * 10);
    const files = filesIn(root);
    const f = files[Math.floor(random() * files.length)];
    if (f === undefined) return;
    if (what === 0) writeFileSync(join(root, f), `edited in place ${tag}\n`);
    else if (what === 1) {
      // An editor's save: a temporary file renamed over the old one.
      writeFileSync(join(root, `${f}.tmp~`), `saved ${tag}\n`);
      renameSync(join(root, `${f}.tmp~`), join(root, f));
    } else if (what === 2) put(root, `${folder()}/new-${tag}.txt`, `new ${tag}\n`);
    else if (what === 3) put(root, `n${tag.replace(".", "-")}/deep/x.txt`, `in a new folder ${tag}\n`);
    else if (what === 4 && files.length > 10) rmSync(join(root, f));
    else if (what === 5) renameSync(join(root, f), join(root, `${f.split("/")[0]}/renamed-${tag}.txt`));
    else if (what === 6) {
      mkdirSync(join(root, folder()), { recursive: true });
      renameSync(join(root, f), join(root, `${folder()}/moved-${tag}.txt`));
    } else if (what === 7) chmodSync(join(root, f), (statSync(join(root, f)).mode & 0o100) === 0 ? 0o755 : 0o644);
    else if (what === 8) {
      const t = Date.now() / 1000 - 60;
      utimesSync(join(root, f), t, t); // touched: the same content
    } else writeFileSync(join(root, f), `${`longer edit ${tag} `.repeat(1 + Math.floor(random() * 40))}\n`);
  }
}

describe("statuses asking a running watcher, over seeded rounds of random changes", () => {
  for (const seed of [11, 29]) {
    it(`say what a comparison of every file says (seed ${seed})`, async () => {
      const random = seededRandom(seed);
      const p = place(`hints-fuzz-${seed}`);
      for (let i = 0; i < 40; i++) put(p.root, `d${i % 5}/f${i}.txt`, `file ${i}\n`);
      expect(forge(p, ["files", "snapshot", "one"]).code).toBe(0);
      const w = watch(p, ["--files", "--every", "1h", "--quiet-period", "1h", "--rescan", "off"]);
      await w.waitFor((l: WatchLine) => l.event === "started");
      await sleep(2100);
      put(p.root, "d0/base.txt", "recorded once the watcher's word counts\n");
      expect(forge(p, ["files", "snapshot", "base"]).code).toBe(0);
      const elsewhere = tempDir("no-watcher").path;
      let hinted = 0;
      for (let round = 0; round < ROUNDS; round++) {
        change(p.root, random, round);
        const got = status(p, p.tmp);
        const walked = status(p, elsewhere);
        expect(walked.hinted).toBe(false);
        expect(got.changes, `round ${round}`).toEqual(walked.changes);
        if (got.hinted) hinted++;
        if (random() < 0.35) expect(forge(p, ["files", "snapshot", `r${round}`]).code).toBe(0);
      }
      // It cannot pass by never taking the watcher's word.
      expect(hinted).toBeGreaterThanOrEqual(ROUNDS / 2);
      w.child.kill("SIGTERM");
      expect((await w.exited).code).toBe(0);
    }, 120_000);
  }
});
