// A quick snapshot writes into the tree cache only the pages that changed (tree-cache.ts
// patchInPlace): the file must then hold exactly the tree and stats a whole write would, and a
// file that changed under the patch (another process, a crash between the writes) must never be
// trusted — a status then says what a walk says.
import { lstatSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readTree, type Tree } from "../../src/objects/file-tree.js";
import { readTreeColumns, treeFromColumns } from "../../src/domains/workspace/tree-cache.js";
import { type Edit, patchInPlace } from "../../src/domains/workspace/tree-cache-write.js";
import { type Bench, put, workspaceBench, age, walkedStatus, cachePath } from "./support.js";

const sorted = (t: Tree) => ({ files: [...t.files].sort(([x], [y]) => (x < y ? -1 : 1)), dirs: [...t.dirs].sort(([x], [y]) => (x < y ? -1 : 1)) });

/** The edits that make `was` into `next` (same length): one per run of differing bytes. */
function editsBetween(was: Buffer, next: Buffer): Edit[] {
  const edits: Edit[] = [];
  for (let k = 0; k < next.length; k++) {
    if (was[k] === next[k]) continue;
    let end = k + 1;
    while (end < next.length && was[end] !== next[end]) end++;
    edits.push([k, next.subarray(k, end)]);
    k = end;
  }
  return edits;
}

/** 3,000 files in 30 folders (a cache of many pages), aged, snapshot "one" taken. */
async function bigBench(): Promise<Bench> {
  const b = await workspaceBench();
  for (let i = 0; i < 3000; i++) put(b.root, `d${i % 30}/f${i}.txt`, `file ${i}\n`);
  age(b.root);
  await b.ws.snapshot("one");
  return b;
}

describe("tree cache written in place", () => {
  it("after a quick snapshot holds the new tree in the same file, and a status by it is right", async () => {
    const b = await bigBench();
    const ino = lstatSync(cachePath(b.root)).ino;
    put(b.root, "d3/f3.txt", "changed 3\n");
    put(b.root, "d29/f2999.txt", "changed 2999\n");
    const two = await (await b.open()).snapshot("two");
    expect(two.changes.map((c) => c.path)).toEqual(["d29/f2999.txt", "d3/f3.txt"]);
    expect(lstatSync(cachePath(b.root)).ino).toBe(ino); // patched, not replaced
    const root = two.snapshot.filesRoot as string;
    const cols = readTreeColumns(cachePath(b.root), root);
    expect(cols?.stats).toBeDefined();
    expect(sorted(treeFromColumns(cols as NonNullable<typeof cols>) as Tree)).toEqual(sorted(await readTree(b.store.objects, root)));
    put(b.root, "d7/f7.txt", "changed 7\n");
    const status = await (await b.open()).status();
    expect(status.changes.map((c) => c.path)).toEqual(["d7/f7.txt"]);
    expect(status).toEqual(await walkedStatus(b));
  });

  it("never trusts a file that changed under the patch: the pages mix two trees and the checksum says so", async () => {
    const b = await bigBench();
    const a = readFileSync(cachePath(b.root)); // the tree of "one"
    put(b.root, "d0/f0.txt", "changed 0\n");
    await (await b.open()).snapshot("two");
    const two = readFileSync(cachePath(b.root));
    put(b.root, "d29/f2999.txt", "changed 2999\n");
    const three = await (await b.open()).snapshot("three");
    const next = readFileSync(cachePath(b.root));
    expect(two.length).toBe(a.length);
    expect(next.length).toBe(a.length);
    // Another process put "one"'s cache back after this one read "two"'s: the patch from two to three lands on it.
    writeFileSync(cachePath(b.root), a);
    expect(patchInPlace(cachePath(b.root), two, editsBetween(two, next))).toBe(true);
    const mixed = readFileSync(cachePath(b.root));
    expect(mixed.equals(next)).toBe(false); // d0/f0.txt's entries are still one's
    expect(readTreeColumns(cachePath(b.root), undefined)).toBeUndefined();
    expect(readTreeColumns(cachePath(b.root), three.snapshot.filesRoot as string)).toBeUndefined();
    // The store says, the cache being of no use: nothing changed since "three".
    const status = await (await b.open()).status();
    expect(status.changes).toEqual([]);
    expect(status).toEqual(await walkedStatus(b));
  });

  it("writes nothing into a file of another size, and the next snapshot writes it whole", async () => {
    const b = await bigBench();
    const was = readFileSync(cachePath(b.root));
    const next = Buffer.from(was);
    next[was.length - 1] = (next[was.length - 1] as number) ^ 1;
    writeFileSync(cachePath(b.root), was.subarray(0, was.length - 100)); // torn
    expect(patchInPlace(cachePath(b.root), was, editsBetween(was, next))).toBe(false);
    expect(readFileSync(cachePath(b.root)).length).toBe(was.length - 100);
    put(b.root, "d5/f5.txt", "changed 5\n");
    const two = await (await b.open()).snapshot("two");
    expect(two.changes.map((c) => c.path)).toEqual(["d5/f5.txt"]);
    const cols = readTreeColumns(cachePath(b.root), two.snapshot.filesRoot as string);
    expect(cols).toBeDefined();
    expect(sorted(treeFromColumns(cols as NonNullable<typeof cols>) as Tree)).toEqual(
      sorted(await readTree(b.store.objects, two.snapshot.filesRoot as string)),
    );
  });

  it("reshaped by files that came and went, is written over the same file, longer or shorter, and holds the tree a walk gives", async () => {
    const b = await bigBench();
    const ino = lstatSync(cachePath(b.root)).ino;
    const check = async (label: string, names: string[]) => {
      const before = readFileSync(cachePath(b.root)).length;
      const r = await (await b.open()).snapshot(label);
      expect(r.changes.map((c) => c.path).sort()).toEqual(names.sort());
      const root = r.snapshot.filesRoot as string;
      const cols = readTreeColumns(cachePath(b.root), root);
      expect(cols?.stats).toBeDefined(); // its checksum holds, and it is this snapshot's
      expect(sorted(treeFromColumns(cols as NonNullable<typeof cols>) as Tree)).toEqual(sorted(await readTree(b.store.objects, root)));
      expect(lstatSync(cachePath(b.root)).ino).toBe(ino); // written over, not replaced
      return readFileSync(cachePath(b.root)).length - before;
    };
    // Paths all ASCII (their places taken from the columns' strings), then one that is not (found NUL by NUL).
    put(b.root, "d1/new-a.txt", "a\n");
    put(b.root, "d2/new-b.txt", "b\n");
    expect(await check("grown", ["d1/new-a.txt", "d2/new-b.txt"])).toBeGreaterThan(0);
    put(b.root, "d4/café-ü.txt", "c\n");
    expect(await check("grown again", ["d4/café-ü.txt"])).toBeGreaterThan(0);
    for (const p of ["d1/new-a.txt", "d2/new-b.txt", "d5/f5.txt", "d6/f6.txt"]) rmSync(`${b.root}/${p}`);
    expect(await check("shrunk", ["d1/new-a.txt", "d2/new-b.txt", "d5/f5.txt", "d6/f6.txt"])).toBeLessThan(0);
    put(b.root, "d8/f8.txt", "changed 8\n");
    const status = await (await b.open()).status();
    expect(status.changes.map((c) => c.path)).toEqual(["d8/f8.txt"]);
    expect(status).toEqual(await walkedStatus(b));
  });

  it("a patch with no other writer gives the file exactly the new bytes", async () => {
    const b = await bigBench();
    const was = readFileSync(cachePath(b.root));
    const next = Buffer.from(was);
    for (const at of [20, 5000, 5001, 9000, was.length - 1]) next[at] = (next[at] as number) ^ 0xff;
    expect(patchInPlace(cachePath(b.root), was, editsBetween(was, next))).toBe(true);
    expect(readFileSync(cachePath(b.root)).equals(next)).toBe(true);
  });
});
