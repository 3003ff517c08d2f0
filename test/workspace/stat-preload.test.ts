// The stat preload (src/domains/workspace/stat-preload.ts): GNU find, started by bin/forge.js,
// lists the kept files whose inode changed since their stats were kept, and a comparison by
// stats trusts the files it does not list. It may only ever spare lstats, never change what a
// status says: each test compares with a status that looked at every file itself, after find
// has judged every file, so that what the main thread takes from it is all of it.
import { chmodSync, closeSync, existsSync, openSync, readFileSync, readdirSync, renameSync, unlinkSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { startStatPreload } from "../../src/domains/workspace/stat-preload-start.js";
import { adoptStatPreload, CHUNK, StatPreload, type StatPreloadHandle } from "../../src/domains/workspace/stat-preload.js";
import type { FileChange } from "../../src/domains/workspace/workspace.js";
import { forge } from "../support/cli.js";
import { seededRandom } from "../support/processes.js";
import { FILE_STAT, readTreeColumns, type TreeColumns } from "../../src/domains/workspace/tree-cache.js";
import { sha256 } from "../../src/objects/hash.js";
import { cachePath, tempDir, put, workspaceBench, walkedStatus, type Bench } from "./support.js";

afterEach(() => adoptStatPreload(undefined));

const lines = (changes: readonly FileChange[]) => changes.map((c) => `${c.kind} ${c.path}${c.from === undefined ? "" : ` <- ${c.from}`}`).sort();
const N = 3 * CHUNK + 17; // four chunks, the last one short
const path = (i: number) => `d${i % 7}/f${i}.txt`;

/**
 * N files written more than a second before the snapshot, so that their kept stats are not
 * racy and find's word decides (a file changed within the racy second is looked at anyway).
 */
async function settled(): Promise<Bench> {
  const b = await workspaceBench();
  for (let i = 0; i < N; i++) put(b.root, path(i), `file ${i}\n`);
  await sleep(1100);
  await b.ws.snapshot("one");
  return b;
}

function start(root: string): StatPreloadHandle {
  const handle = startStatPreload(root, 0);
  expect(handle, "find starts on a tree cache with stats").toBeDefined();
  return handle as StatPreloadHandle;
}

/** Waits until find has judged every file (what it listed by then), reading its output beside the handle's own reader. */
async function judgedAll(b: Bench, handle: StatPreloadHandle): Promise<Set<string>> {
  const watcher = new StatPreload({ ...handle, stop: () => {} });
  // The paths find was given: the tree cache's files, in its order.
  const cols = readTreeColumns(cachePath(b.root), undefined) as TreeColumns;
  const files = cols.strings.slice(cols.nDirs, cols.nDirs + cols.nFiles);
  expect(files.length).toBe(handle.nFiles);
  for (let waited = 0; waited < 5000; waited += 5) {
    const seen = watcher.judged((j) => files[j] as string);
    expect(seen, "find's output makes sense").toBeDefined();
    if (seen !== undefined && seen.judged === files.length) return new Set([...seen.listed].map((j) => files[j] as string));
    await sleep(5);
  }
  throw new Error(`find did not judge ${b.root}'s ${files.length} files in 5 s`);
}

describe("the stat preload", () => {
  it("lists exactly the files whose inode changed, and a status that trusts the rest says what a full look says", async () => {
    const b = await settled();
    put(b.root, path(5), "edited in place, same length\n".slice(0, `file 5\n`.length));
    chmodSync(join(b.root, path(300)), 0o755);
    // Replaced by a file of the same size and times: a new inode, so a new ctime.
    writeFileSync(join(b.root, "tmp"), "file X\n");
    renameSync(join(b.root, "tmp"), join(b.root, path(700)));
    put(b.root, path(N - 1), "the last file, in the short chunk\n");
    const handle = start(b.root);
    expect(await judgedAll(b, handle)).toEqual(new Set([path(5), path(300), path(700), path(N - 1)]));
    adoptStatPreload(handle);
    const got = await (await b.open()).status();
    expect(lines(got.changes)).toEqual([`modified ${path(5)}`, `modified ${path(300)}`, `modified ${path(700)}`, `modified ${path(N - 1)}`].sort());
    expect(got).toEqual(await walkedStatus(b));
  }, 30_000);

  it("lists nothing on a tree as kept, and the status is clean; a later status in the process looks for itself", async () => {
    // Nothing changed: an empty listing with every chunk judged leaves the main thread nothing to lstat.
    const b = await settled();
    const handle = start(b.root);
    expect(await judgedAll(b, handle)).toEqual(new Set());
    adoptStatPreload(handle);
    expect((await (await b.open()).status()).changes).toEqual([]);
    // The preload was the first comparison's: the next one lstat's every file itself.
    put(b.root, path(9), "changed after find looked\n");
    expect(lines((await (await b.open()).status()).changes)).toEqual([`modified ${path(9)}`]);
  }, 30_000);

  it("a status that brings the kept stats up to date leaves none older than its time: a file changed before it stays changed", async () => {
    // The refresh moves the cache's time on; stats kept from before it for a file that had
    // changed would pass for current once its ctime is older than the new time's racy bound.
    const b = await settled();
    put(b.root, path(123), "changed before the refreshing status\n");
    const touched = join(b.root, path(321));
    utimesSync(touched, new Date(), new Date()); // same content, new times: read, found the same, refreshed
    await sleep(1100);
    const refreshing = await (await b.open()).status();
    expect(lines(refreshing.changes)).toEqual([`modified ${path(123)}`]);
    await sleep(1100);
    const handle = start(b.root);
    await judgedAll(b, handle);
    adoptStatPreload(handle);
    expect(lines((await (await b.open()).status()).changes)).toEqual([`modified ${path(123)}`]);
  }, 30_000);

  it("looks at a file whose kept stats are unknown even when find did not list it", async () => {
    // Kept NaN (a racy file found changed): its inode may be old while its content is not the
    // tree's. Made here by hand: the columns say another content, with NaN stats, for a file
    // find will not list. Trusting it would miss the change.
    const b = await settled();
    const treeRoot = (await b.ws.session.head()).checkpoint?.filesRoot as string;
    const cols = readTreeColumns(cachePath(b.root), treeRoot) as TreeColumns;
    const j = cols.strings.indexOf(path(77)) - cols.nDirs;
    const raw = Buffer.from(cols.raw);
    const { nDirs, nFiles } = cols;
    const textBytes = raw.readUInt32LE(12);
    const hashAt = 80 + 8 * (nDirs + 2 * nFiles);
    raw.fill(0xab, hashAt + 32 * (nDirs + j), hashAt + 32 * (nDirs + j + 1));
    const statsAt = hashAt + 32 * (nDirs + nFiles) + nFiles + textBytes + 24;
    for (let k = 0; k < FILE_STAT; k++) raw.writeDoubleLE(Number.NaN, statsAt + 8 * (3 * nDirs + FILE_STAT * j + k));
    Buffer.from(sha256(raw.subarray(48)), "hex").copy(raw, 16);
    writeFileSync(cachePath(b.root), raw);
    const handle = start(b.root);
    expect(await judgedAll(b, handle)).toEqual(new Set());
    adoptStatPreload(handle);
    expect(lines((await (await b.open()).status()).changes)).toEqual([`modified ${path(77)}`]);
  }, 30_000);

  it("goes by the main thread's own lstats when find's output makes no sense, or is for another tree", async () => {
    const b = await settled();
    put(b.root, path(40), "changed\n");
    const expected = [`modified ${path(40)}`];
    const treeRoot = (await b.ws.session.head()).checkpoint?.filesRoot as string;
    const files = [...Array(N).keys()].map(path).sort();
    const dir = tempDir("stat-preload-fake").path;
    /** A fake find's handle: its output is `out` (every chunk judged, nothing listed, unless `out` says otherwise). */
    const fake = (out: string, over: Partial<StatPreloadHandle> = {}): StatPreloadHandle => {
      const file = join(dir, `out-${Math.random()}`);
      writeFileSync(file, out);
      return { kind: "stat", root: b.root, startedAt: Date.now(), treeRoot, nFiles: N, since: 0, outFd: openSync(file, "r"), stop: () => {}, ...over };
    };
    const allJudged = "/\0".repeat(Math.ceil(N / CHUNK));
    // Nonsense: a path that is not in the chunk find was in (the second).
    const nonsense = new StatPreload(fake(`/\0${files[1]}\0${allJudged}`));
    expect(nonsense.judged((j) => files[j] as string)).toBeUndefined();
    nonsense.close();
    for (const handle of [fake(`/\0${files[1]}\0${allJudged}`), fake(allJudged, { treeRoot: "0".repeat(64) }), fake(allJudged, { nFiles: N - 1 })]) {
      adoptStatPreload(handle);
      expect(lines((await (await b.open()).status()).changes)).toEqual(expected);
    }
    // The control: the same fake, fitting this tree, hides the change (so the refusals above are what found it).
    adoptStatPreload(fake(allJudged));
    expect(lines((await (await b.open()).status()).changes)).toEqual([]);
  }, 30_000);

  for (const seed of [18, 19, 20])
    it(`random rounds of edits, touches, chmods, replacements, deletions and new files, snapshots and refreshing statuses between: a status that takes find's word says what a walk says (seed ${seed})`, async () => {
      const b = await settled();
      const random = seededRandom(seed);
      const pick = () => path(Math.floor(random() * N));
      let made = 0;
      for (let round = 0; round < 10; round++) {
        const did: string[] = [];
        for (let k = 0; k < 6; k++) {
          const p = pick();
          const abs = join(b.root, p);
          if (!existsSync(abs)) continue;
          const op = Math.floor(random() * 6);
          did.push(`${op} ${p}`);
          if (op === 0) put(b.root, p, `edited in round ${round}, longer than before\n`);
          else if (op === 1)
            put(b.root, p, readFileSync(abs, "utf8").replace(/./, "#")); // same size
          else if (op === 2)
            utimesSync(abs, new Date(), new Date()); // touched, same content
          else if (op === 3) chmodSync(abs, 0o755);
          else if (op === 4) {
            writeFileSync(join(b.root, "replacement"), readFileSync(abs));
            renameSync(join(b.root, "replacement"), abs); // same bytes, a new inode
          } else unlinkSync(abs);
        }
        if (random() < 0.3) put(b.root, `d${round % 7}/new${made++}.txt`, `new in round ${round}\n`);
        const then = random();
        if (then < 0.25) await (await b.open()).snapshot(`round ${round}`);
        else if (then < 0.7) await (await b.open()).status(); // may refresh the kept stats
        if (random() < 0.7) await sleep(1100); // kept stats more than the racy second old: find's word decides
        const handle = startStatPreload(b.root, 0);
        if (handle !== undefined) {
          await judgedAll(b, handle);
          adoptStatPreload(handle);
        }
        const got = await (await b.open()).status();
        expect(got, `round ${round}: ${did.join(", ")}`).toEqual(await walkedStatus(b));
      }
    }, 120_000);

  it("reads find's output as it grows: a path is placed in the chunk find was in", () => {
    const dir = tempDir("stat-preload-grow").path;
    const out = join(dir, "out");
    writeFileSync(out, "");
    const fd = openSync(out, "a+");
    const files = Array.from({ length: 2 * CHUNK + 1 }, (_, j) => `f${String(j).padStart(4, "0")}`);
    const p = new StatPreload({ kind: "stat", root: dir, startedAt: Date.now(), treeRoot: "", nFiles: files.length, since: 0, outFd: fd, stop: () => {} });
    const at = (j: number) => files[j] as string;
    writeSync(fd, `${files[3]}\0/\0${files[CHUNK + 2]?.slice(0, 3)}`);
    expect(p.judged(at)).toEqual({ judged: CHUNK, listed: new Set([3]) });
    writeSync(fd, `${files[CHUNK + 2]?.slice(3)}\0/\0`);
    expect(p.judged(at)).toEqual({ judged: 2 * CHUNK, listed: new Set([3, CHUNK + 2]) });
    writeSync(fd, "/\0");
    expect(p.judged(at)?.judged).toBe(files.length);
    p.close();
  });

  it("starts only on a tree cache with stats and enough files, and leaves nothing behind", async () => {
    const b = await settled();
    expect(startStatPreload(b.root), `${N} files are fewer than worth a process`).toBeUndefined();
    const bare = tempDir("stat-preload-bare").path;
    expect(startStatPreload(bare, 0)).toBeUndefined();
    const handle = start(b.root);
    await judgedAll(b, handle);
    handle.stop();
    closeSync(handle.outFd);
    expect(readdirSync(join(b.root, ".forge")).filter((n) => n.startsWith("stat-preload"))).toEqual([]);
  }, 30_000);

  it("through the CLI, a status and a hook on 2,500 files say what they say without it", async () => {
    const b = await workspaceBench();
    for (let i = 0; i < 2500; i++) put(b.root, `p${i % 25}/f${i}.txt`, `file ${i}\n`);
    await sleep(1100);
    await b.ws.snapshot("one");
    put(b.root, "p3/f3.txt", "edited\n");
    unlinkSync(join(b.root, "p4/f4.txt"));
    put(b.root, "p5/new.txt", "new\n");
    const status = (env: Record<string, string>) => forge(b.root, ["--json", "files", "status"], { env });
    const withIt = status({});
    const without = status({ FORGE_NO_PRELOAD: "1" });
    expect(withIt.code, withIt.stderr).toBe(0);
    const changes = (out: string) => (JSON.parse(out) as { changes: FileChange[] }).changes.map((c) => `${c.kind} ${c.path}`);
    expect(changes(withIt.stdout)).toEqual(changes(without.stdout));
    expect(changes(withIt.stdout).sort()).toEqual(["created p5/new.txt", "deleted p4/f4.txt", "modified p3/f3.txt"]);
    // A hook snapshots every change, the agent's and the others: a status by the main thread alone then finds none left.
    put(b.root, "p6/f6.txt", "the agent's edit\n");
    const payload = {
      session_id: "stat-preload",
      cwd: b.root,
      hook_event_name: "PostToolUse",
      tool_name: "Edit",
      tool_input: { file_path: join(b.root, "p6/f6.txt") },
    };
    const hook = forge(b.root, ["hook", "post-edit"], { input: JSON.stringify(payload) });
    expect(hook.code, hook.stderr).toBe(0);
    expect(changes(status({ FORGE_NO_PRELOAD: "1" }).stdout)).toEqual([]);
    expect(readdirSync(join(b.root, ".forge")).filter((n) => n.startsWith("stat-preload"))).toEqual([]);
  }, 60_000);
});
