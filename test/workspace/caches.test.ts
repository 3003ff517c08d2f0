// What makes a snapshot after a small change cheap, held to giving the same snapshots as
// doing everything from scratch: directory objects reused where nothing under a folder
// changed, the last snapshot's tree kept in .forge/tree-cache.bin, and a stat cache that
// is not rewritten when nothing changed.
import { chmodSync, copyFileSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildTree, readTree, type Tree } from "../../src/objects/file-tree.js";
import { readTreeCache } from "../../src/domains/workspace/tree-cache.js";
import { writeTreeCache } from "../../src/domains/workspace/tree-cache-write.js";
import type { Store } from "../../src/index.js";
import { put, walkTree, workspaceBench } from "./support.js";

const treeCache = (root: string) => join(root, ".forge", "tree-cache.bin");

/** The root hash of `tree` encoded from scratch: no directory hash taken from anywhere. */
function rootFromScratch(tree: Tree): string {
  return buildTree({ files: new Map(tree.files), dirs: new Map([...tree.dirs].map(([p, d]) => [p, { mode: d.mode }])) }).root;
}

/** The tree a snapshot holds, read from the store itself (never from the tree cache). */
async function stored(store: Store, root: string | null): Promise<Tree> {
  if (root === null) throw new Error("the checkpoint carries no files");
  return readTree(store.objects, root);
}

/** A few folders deep, with siblings at every level and an empty folder. */
function buildDeep(root: string): void {
  for (const top of ["a", "b"]) {
    for (const mid of ["x", "y"]) {
      for (const leaf of ["p", "q"]) {
        put(root, `${top}/${mid}/${leaf}/deep/file.txt`, `${top}${mid}${leaf}\n`);
        put(root, `${top}/${mid}/${leaf}/other.txt`, `other ${top}${mid}${leaf}\n`);
      }
      put(root, `${top}/${mid}/mid.txt`, `mid ${top}${mid}\n`);
    }
  }
  mkdirSync(join(root, "a/empty"));
  symlinkSync("a/x/mid.txt", join(root, "link"));
}

describe("reused directory objects", () => {
  it("encodes only the folders on the path to an edit deep in the tree, and restores both snapshots byte for byte", async () => {
    const { root, ws, store } = await workspaceBench();
    buildDeep(root);
    const before = walkTree(root);
    const one = await ws.snapshot("one");
    const treeOne = await stored(store, one.snapshot.filesRoot);

    put(root, "a/x/p/deep/file.txt", "edited deep down\n");
    const after = walkTree(root);
    const two = await ws.snapshot("two");
    const treeTwo = await stored(store, two.snapshot.filesRoot);

    // The same snapshot as encoding every folder anew.
    expect(two.snapshot.filesRoot).toBe(rootFromScratch(treeTwo));
    // Only the folders above the edit have new objects; every other one is the old object.
    const changed = [...treeTwo.dirs].filter(([p, d]) => treeOne.dirs.get(p)?.hash !== d.hash).map(([p]) => p);
    expect(changed.sort()).toEqual(["", "a", "a/x", "a/x/p", "a/x/p/deep"]);

    await ws.restore(one.snapshot.id);
    expect(walkTree(root)).toEqual(before);
    await ws.restore(two.snapshot.id);
    expect(walkTree(root)).toEqual(after);
  });

  it("records a folder's new mode, an empty folder added deep down and one removed, though no file changed", async () => {
    const { root, ws, store } = await workspaceBench();
    buildDeep(root);
    await ws.snapshot("one");
    chmodSync(join(root, "b/y/q"), 0o700);
    mkdirSync(join(root, "b/x/p/deep/new-empty"));
    rmSync(join(root, "a/empty"), { recursive: true });
    const after = walkTree(root);
    const two = await ws.snapshot("two");
    const treeTwo = await stored(store, two.snapshot.filesRoot);
    expect(two.snapshot.filesRoot).toBe(rootFromScratch(treeTwo));
    expect(treeTwo.dirs.get("b/y/q")?.mode).toBe(0o700);
    expect(treeTwo.dirs.has("b/x/p/deep/new-empty")).toBe(true);
    expect(treeTwo.dirs.has("a/empty")).toBe(false);
    await ws.restore(two.snapshot.id);
    expect(walkTree(root)).toEqual(after);
  });

  it("gives the snapshots a from-scratch encoding gives, over rounds of random changes, and each restores exactly (property)", async () => {
    const segment = fc.constantFrom("a", "b", "c d");
    const rel = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));
    const op = fc.oneof(
      fc.record({ kind: fc.constant("write" as const), path: rel, data: fc.string({ maxLength: 12 }), exec: fc.boolean() }),
      fc.record({ kind: fc.constant("mkdir" as const), path: rel }),
      fc.record({ kind: fc.constant("delete" as const), path: rel }),
      fc.record({ kind: fc.constant("chmod" as const), path: rel, open: fc.boolean() }),
      fc.record({ kind: fc.constant("link" as const), path: rel, target: rel }),
    );
    type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;
    const at = (root: string, path: string) => {
      try {
        return lstatSync(join(root, path));
      } catch {
        return undefined;
      }
    };
    /**
     * Applies `o` if it makes sense (its parents are folders or missing), and never makes a
     * folder where an earlier snapshot has a file or symlink: restoring a file where a folder
     * with content stands is the roundtrip tests' separate case.
     */
    const apply = (root: string, o: Op, nonDirs: ReadonlySet<string>) => {
      const parts = o.path.split("/");
      const folders = o.kind === "mkdir" ? parts.length : parts.length - 1;
      for (let i = 1; i <= folders; i++) if (nonDirs.has(parts.slice(0, i).join("/"))) return;
      for (let i = 1; i < parts.length; i++) {
        const s = at(root, parts.slice(0, i).join("/"));
        if (s && !s.isDirectory()) return;
      }
      const abs = join(root, o.path);
      const st = at(root, o.path);
      switch (o.kind) {
        case "write":
          if (st?.isDirectory()) return;
          if (st) rmSync(abs);
          put(root, o.path, o.data, o.exec ? 0o755 : 0o644);
          return;
        case "mkdir":
          if (!st) mkdirSync(abs, { recursive: true });
          return;
        case "delete":
          if (st) rmSync(abs, { recursive: true });
          return;
        case "chmod":
          if (st?.isDirectory()) chmodSync(abs, o.open ? 0o755 : 0o700);
          else if (st?.isFile()) chmodSync(abs, o.open ? 0o755 : 0o644);
          return;
        case "link":
          if (st) return;
          mkdirSync(join(abs, ".."), { recursive: true });
          symlinkSync(o.target, abs);
          return;
      }
    };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(op, { minLength: 1, maxLength: 8 }), { minLength: 2, maxLength: 5 }), async (rounds) => {
        const { root, ws, store } = await workspaceBench();
        try {
          const taken: { id: string; walk: ReturnType<typeof walkTree> }[] = [];
          const nonDirs = new Set<string>();
          for (const round of rounds) {
            for (const o of round) apply(root, o, nonDirs);
            const snap = await ws.snapshot("round");
            const tree = await stored(store, snap.snapshot.filesRoot);
            expect(snap.snapshot.filesRoot).toBe(rootFromScratch(tree));
            const walk = walkTree(root);
            for (const [p, e] of Object.entries(walk)) if (e.type !== "dir") nonDirs.add(p);
            taken.push({ id: snap.snapshot.id, walk });
          }
          for (const t of [...taken].reverse()) {
            await ws.restore(t.id);
            expect(walkTree(root)).toEqual(t.walk);
          }
        } finally {
          await store.close();
        }
      }),
      { numRuns: 25 },
    );
  });
});

describe("the tree cache (.forge/tree-cache.bin)", () => {
  it("holds exactly the last snapshot's tree, as the store has it", async () => {
    const { root, ws, store } = await workspaceBench();
    buildDeep(root);
    put(root, "a/x/p/deep/file.txt", "x", 0o600);
    const snap = await ws.snapshot("one");
    const filesRoot = snap.snapshot.filesRoot as string;
    expect(readTreeCache(treeCache(root), filesRoot)).toEqual(await stored(store, filesRoot));
  });

  it("is what status compares against when it is of HEAD's tree (a doctored but intact cache is believed)", async () => {
    const { root, ws, open } = await workspaceBench();
    put(root, "kept.txt", "kept\n");
    put(root, "dropped.txt", "dropped\n");
    const snap = await ws.snapshot("one");
    const filesRoot = snap.snapshot.filesRoot as string;
    const tree = readTreeCache(treeCache(root), filesRoot);
    if (!tree) throw new Error("no tree cache written");
    // Proof that the store is not read: a cache of the same root without dropped.txt.
    tree.files.delete("dropped.txt");
    writeTreeCache(treeCache(root), filesRoot, tree);
    // Another Workspace (another process, in effect): the one that took the snapshot keeps its tree in memory.
    expect((await (await open()).status()).changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["created dropped.txt"]);
    expect((await ws.status()).changes).toEqual([]);
  });

  it("is not used when it is damaged or of another tree: the store's tree is read, and the results are the same", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "a.txt", "one\n");
    await ws.snapshot("one");
    const ofOne = readFileSync(treeCache(root));
    put(root, "a.txt", "two\n");
    put(root, "b.txt", "new\n");
    await ws.snapshot("two");
    put(root, "a.txt", "three\n");
    const expected = ["modified a.txt"];

    // Damaged: one byte of a path flipped (the checksum no longer holds).
    const damaged = readFileSync(treeCache(root));
    const at = damaged.length - 3;
    damaged.writeUInt8(damaged.readUInt8(at) ^ 0x20, at);
    writeFileSync(treeCache(root), damaged);
    expect((await ws.status()).changes.map((c) => `${c.kind} ${c.path}`)).toEqual(expected);

    // Intact, but the tree of the first snapshot: HEAD's root is another one.
    writeFileSync(treeCache(root), ofOne);
    expect((await ws.status()).changes.map((c) => `${c.kind} ${c.path}`)).toEqual(expected);

    // A snapshot with the wrong cache in place records the right tree, and writes a right cache.
    const three = await ws.snapshot("three");
    expect(three.changes.map((c) => `${c.kind} ${c.path}`)).toEqual(expected);
    expect(readTreeCache(treeCache(root), three.snapshot.filesRoot as string)).toBeDefined();
  });

  it("is rewritten by a snapshot that changes the tree, and left alone by one that does not", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "a.txt", "one\n");
    await ws.snapshot("one");
    const first = statSync(treeCache(root));
    const again = await ws.snapshot("again");
    expect(again.changes).toEqual([]);
    const second = statSync(treeCache(root));
    expect([second.ino, second.mtimeMs]).toEqual([first.ino, first.mtimeMs]);
    put(root, "a.txt", "two\n");
    const changed = await ws.snapshot("changed");
    expect(readTreeCache(treeCache(root), changed.snapshot.filesRoot as string)).toBeDefined();
  });
});

describe("the stat cache", () => {
  it("is not rewritten by a snapshot or a status that found nothing new", async () => {
    const { root, ws } = await workspaceBench();
    const hourAgo = Math.floor(Date.now() / 1000) - 3600;
    for (let i = 0; i < 20; i++) {
      put(root, `f${i}.txt`, `file ${i}\n`);
      utimesSync(join(root, `f${i}.txt`), hourAgo, hourAgo);
    }
    await ws.snapshot("one");
    const cache = join(root, ".forge", "stat-cache.bin");
    const written = statSync(cache);
    expect((await ws.snapshot("again")).changes).toEqual([]);
    expect((await ws.status()).changes).toEqual([]);
    const now = statSync(cache);
    expect([now.ino, now.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
    // A change is recorded (and the cache rewritten) as before.
    put(root, "f3.txt", "changed\n");
    utimesSync(join(root, "f3.txt"), hourAgo + 10, hourAgo + 10);
    expect((await ws.status()).changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["modified f3.txt"]);
    expect(statSync(cache).ino).not.toBe(written.ino);
  });

  it("survives a copy of an old cache file (entries of files since changed are re-read)", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "a.txt", "one\n");
    await ws.snapshot("one");
    const cache = join(root, ".forge", "stat-cache.bin");
    copyFileSync(cache, `${cache}.old`);
    put(root, "a.txt", "two, longer\n");
    await ws.snapshot("two");
    copyFileSync(`${cache}.old`, cache);
    expect((await ws.status()).changes).toEqual([]);
  });
});
