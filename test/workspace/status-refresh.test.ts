// A status by stats brings the kept stats up to date where it found them out of date (quick-status.ts
// `refreshedStats`), as `git status` refreshes git's index: what was racy against the snapshot (a
// folder changed just before it, `.forge` made just before the first) is listed or read once, not by
// every status until the next snapshot. Never at the price of a change: each case here has a status
// that would go wrong if the refresh kept what it must not.
import { lstatSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ignoredOnDisk } from "../../src/domains/workspace/ignore-rules.js";
import { statCompare, type WalkSettings } from "../../src/domains/workspace/quick-status.js";
import { DIR_STAT, FILE_STAT, fileEntry, readTreeColumns, treeFromColumns, type TreeColumns } from "../../src/domains/workspace/tree-cache.js";
import { writePatchedTreeCache } from "../../src/domains/workspace/tree-cache-write.js";
import { DEFAULT_MAX_FILE_BYTES, type FileChange } from "../../src/domains/workspace/workspace.js";
import { type Bench, HOUR_AGO_S, age, cachePath, headColumns, put, walkedStatus, workspaceBench } from "./support.js";

const SETTINGS: WalkSettings = { ignore: [], secretFiles: undefined, maxFileBytes: DEFAULT_MAX_FILE_BYTES };
const lines = (changes: readonly FileChange[]) => changes.map((c) => `${c.kind} ${c.path}`);

/** Files in three folders, every time an hour ago, and snapshot "one". */
async function bench(): Promise<Bench> {
  const b = await workspaceBench();
  for (let i = 0; i < 9; i++) put(b.root, `d${i % 3}/f${i}.txt`, `file ${i}\n`);
  put(b.root, "top.txt", "top\n");
  age(b.root);
  await b.ws.snapshot("one");
  return b;
}

/**
 * The kept columns written again as if their walk had begun at `takenAt` (ms): what a snapshot
 * leaves when it ran just after a change. `now`: paths ("" for the root) whose kept stats become
 * their stats now, as a walk that saw them as they are would have kept them.
 */
async function keptAsIfTakenAt(b: Bench, takenAt: number, now: readonly string[] = []): Promise<void> {
  const cols = await headColumns(b);
  const stats = cols.stats as NonNullable<TreeColumns["stats"]>;
  const dirStats = stats.dirs.slice();
  const fileStats = stats.files.slice();
  const files: { j: number; info: ReturnType<typeof fileEntry> }[] = [];
  for (const path of now) {
    const k = cols.strings.indexOf(path);
    expect(k).toBeGreaterThanOrEqual(0);
    const st = lstatSync(join(b.root, path));
    if (k < cols.nDirs) dirStats.set([st.mtimeMs, st.ctimeMs, st.ino], k * DIR_STAT);
    else {
      fileStats.set([st.mtimeMs, st.ctimeMs, st.ino, st.mode], (k - cols.nDirs) * FILE_STAT);
      files.push({ j: k - cols.nDirs, info: fileEntry(cols, k - cols.nDirs) });
    }
  }
  const dirHashes = Array.from({ length: cols.nDirs }, (_, i) => cols.hashOf(i));
  expect(writePatchedTreeCache(cachePath(b.root), cols, { root: cols.root, dirHashes, files, takenAt, dirStats, fileStats })).toBe(true);
  expect((await headColumns(b)).stats?.takenAt).toBe(takenAt);
}

/** The comparison by stats against HEAD's kept columns, folders listed again where they moved. */
async function compared(b: Bench) {
  return statCompare(b.root, await headColumns(b), SETTINGS, undefined, () => ignoredOnDisk(b.root), true);
}

/** A fresh Workspace's status, checked against a whole walk's. */
async function status(b: Bench) {
  const got = await (await b.open()).status();
  expect(got).toEqual(await walkedStatus(b));
  return got;
}

describe("a status that finds the kept stats out of date", () => {
  it("writes a racy root's stats afresh: the next comparison lists no folder and reads no file", async () => {
    const b = await bench();
    // As after `forge init`: the root changed (.forge made) half a second before the snapshot began.
    mkdirSync(join(b.root, ".git"));
    const rootMs = (HOUR_AGO_S + 3000) * 1000;
    utimesSync(b.root, rootMs / 1000, rootMs / 1000);
    await keptAsIfTakenAt(b, rootMs + 500, [""]);
    const before = await compared(b);
    expect(before?.dirStats).toBeDefined(); // racy: listed again
    expect(before?.reads).toEqual([]);
    const tree = treeFromColumns(await headColumns(b));
    expect((await status(b)).changes).toEqual([]);
    const after = await compared(b);
    expect(after?.dirStats).toBeUndefined();
    expect(after?.reads).toEqual([]);
    const kept = await headColumns(b);
    expect(kept.stats?.takenAt).toBeGreaterThan(rootMs + 500);
    expect(treeFromColumns(kept)).toEqual(tree);
    // Still right: an edit after it is seen, by stats.
    writeFileSync(join(b.root, "d1/f4.txt"), "edited\n");
    expect(lines((await status(b)).changes)).toEqual(["modified d1/f4.txt"]);
  });

  it("keeps no stats for a file read because its stats were racy and found changed: it is reported again", async () => {
    const b = await bench();
    // The snapshot read "AAAA" and kept the stats the file has now, within a second of its walk:
    // the file was written again right after it was read, in the same tick of the clock.
    put(b.root, "racy.txt", "AAAA");
    age(b.root);
    await (await b.open()).snapshot("two");
    put(b.root, "racy.txt", "BBBB");
    utimesSync(join(b.root, "racy.txt"), HOUR_AGO_S, HOUR_AGO_S);
    await keptAsIfTakenAt(b, HOUR_AGO_S * 1000 + 500, ["racy.txt"]);
    expect(lines((await status(b)).changes)).toEqual(["modified racy.txt"]);
    // Against this status's time the kept stats are not racy any more; had they been kept, the change would pass unseen.
    expect((await headColumns(b)).stats?.takenAt).toBeGreaterThan(HOUR_AGO_S * 1000 + 500);
    expect((await compared(b))?.reads.map((r) => r.path)).toEqual(["racy.txt"]);
    expect(lines((await status(b)).changes)).toEqual(["modified racy.txt"]);
  });

  it("writes nothing when names came or went in a folder listed again: the next status still reports them", async () => {
    const b = await bench();
    const taken = (await headColumns(b)).stats?.takenAt;
    put(b.root, "d2/new.txt", "new\n");
    // The folder's times moved, long enough ago that they would not be racy against the status.
    utimesSync(join(b.root, "d2"), HOUR_AGO_S + 60, HOUR_AGO_S + 60);
    expect(lines((await status(b)).changes)).toEqual(["created d2/new.txt"]);
    expect((await headColumns(b)).stats?.takenAt).toBe(taken);
    expect(lines((await status(b)).changes)).toEqual(["created d2/new.txt"]);
  });

  it("keeps no stats for a file that changed, not racy: none kept is older than the refresh's time", async () => {
    // The snapshot's stats of a changed file, kept past a refresh that moved the time on, would
    // be older than the time they claim (the stat preload trusts a kept stat whose inode did not
    // change since a second before it): NaN, so the file is read by every status until the next snapshot, as it was.
    const b = await bench();
    put(b.root, "top.txt", "top, edited\n");
    utimesSync(join(b.root, "d0/f0.txt"), HOUR_AGO_S + 60, HOUR_AGO_S + 60); // touched, not changed: read once
    const kept = (await headColumns(b)).stats;
    expect(lines((await status(b)).changes)).toEqual(["modified top.txt"]);
    const now = await headColumns(b);
    expect(now.stats?.takenAt).toBeGreaterThan(kept?.takenAt ?? Number.POSITIVE_INFINITY);
    const at = (path: string) => (now.strings.indexOf(path) - now.nDirs) * FILE_STAT;
    expect(Array.from(now.stats?.files.subarray(at("top.txt"), at("top.txt") + FILE_STAT) ?? [])).toEqual([NaN, NaN, NaN, NaN]);
    expect((await compared(b))?.reads.map((r) => r.path)).toEqual(["top.txt"]);
    expect(lines((await status(b)).changes)).toEqual(["modified top.txt"]);
    expect(readTreeColumns(cachePath(b.root), now.root)).toBeDefined();
  });
});
