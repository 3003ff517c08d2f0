// Snapshot → heavy changes → restore gives back the very tree, checked by an independent
// walk (path, type, permission bits, bytes, symlink targets, empty folders). Also partial
// restores of named paths, undoing a restore through its safety snapshot, and big files:
// over BIG_FILE (1 MB) they are cut into content-defined chunks, so a small edit in the
// middle of a 5 MB file costs a few chunks, not the file, and either version restores exactly.
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_CHUNK } from "../../src/objects/cdc.js";
import { BIG_FILE } from "../../src/objects/file-tree.js";
import { fingerprint, git, noise, put, read, walkTree, workspaceBench } from "./support.js";

/** A tree with a bit of everything a project folder holds, including a nested git repository. */
function buildOriginal(root: string): void {
  put(root, "README.md", "# project\n\nsome words\n");
  put(root, "src/main.ts", "export const x = 1;\n");
  put(root, "src/util/helper.ts", "export function helper() { return 42; }\n".repeat(20));
  put(root, "src/util/renamed-me.ts", "content that moves elsewhere\n".repeat(10));
  put(root, "docs/my notes.md", "notes in a file whose name has a space\n");
  put(root, "docs/sub dir/a b c.txt", "abc\n");
  put(root, "données/é✓ 日本語.txt", "unicode ✓ 日本語\n");
  put(root, "emoji 🚀.txt", "rocket");
  put(root, "empty.txt", "");
  put(root, "becomes-empty.txt", "soon nothing\n");
  const binary = noise(4096, 7);
  binary.fill(0, 100, 200);
  put(root, "assets/logo.bin", binary);
  put(root, "assets/zeros.bin", Buffer.alloc(1000));
  put(root, "scripts/run.sh", "#!/bin/sh\necho hi\n", 0o755);
  put(root, "scripts/plain.sh", "#!/bin/sh\necho plain\n", 0o644);
  put(root, "secret.key", "k3y", 0o600);
  symlinkSync("src/main.ts", join(root, "link-to-file"));
  symlinkSync("src", join(root, "link-to-dir"));
  symlinkSync("../README.md", join(root, "docs/up-link"));
  symlinkSync("not-there-yet", join(root, "dangling"));
  mkdirSync(join(root, "empty-dir"));
  mkdirSync(join(root, "deep/empty/chain"), { recursive: true });
  put(root, "will-become-file/inner.txt", "inner\n");
  // A nested git repository with history; its .git is ignored by default, its files are not.
  const lib = join(root, "vendor/lib");
  put(lib, "README", "lib readme\n");
  put(lib, "src/lib.c", "int f(void) { return 1; }\n");
  put(lib, ".gitignore", "*.o\n");
  git(lib, "init", "-q", "-b", "main");
  git(lib, "add", ".");
  git(lib, "commit", "-q", "-m", "one");
  put(lib, "src/lib.c", "int f(void) { return 2; }\n");
  git(lib, "commit", "-q", "-am", "two");
  put(lib, "build.o", "object v1");
}

/** Edits, deletes, new files, renames, mode changes, symlink changes, and a commit in the nested repository. */
function mutateHeavily(root: string, options: { folderBecomesFile?: boolean } = {}): void {
  put(root, "src/main.ts", "export const x = 2; // edited\n");
  rmSync(join(root, "docs/my notes.md"));
  put(root, "new/dir/brand new.txt", "fresh\n");
  renameSync(join(root, "src/util/renamed-me.ts"), join(root, "src/util/renamed-you.ts"));
  chmodSync(join(root, "scripts/plain.sh"), 0o755);
  chmodSync(join(root, "scripts/run.sh"), 0o644);
  chmodSync(join(root, "secret.key"), 0o644);
  rmSync(join(root, "link-to-file"));
  symlinkSync("README.md", join(root, "link-to-file"));
  rmSync(join(root, "dangling"));
  symlinkSync("src/util", join(root, "new-link"));
  put(root, "empty.txt", "no longer empty\n");
  writeFileSync(join(root, "becomes-empty.txt"), "");
  const logo = noise(4096, 8);
  put(root, "assets/logo.bin", logo);
  renameSync(join(root, "données/é✓ 日本語.txt"), join(root, "données/renamed ✓.txt"));
  rmSync(join(root, "empty-dir"), { recursive: true });
  put(root, "deep/empty/chain/now-full.txt", "not empty any more\n");
  if (options.folderBecomesFile !== false) {
    rmSync(join(root, "will-become-file"), { recursive: true });
    put(root, "will-become-file", "a file now\n");
  } else put(root, "will-become-file/inner.txt", "inner, edited\n");
  rmSync(join(root, "docs/sub dir"), { recursive: true });
  mkdirSync(join(root, "another-empty-dir"));
  const lib = join(root, "vendor/lib");
  put(lib, "src/lib.c", "int f(void) { return 3; }\n");
  rmSync(join(lib, "README"));
  git(lib, "commit", "-q", "-am", "three");
  put(lib, "new.c", "int g(void);\n");
  put(lib, "build.o", "object v2");
}

const NESTED_GIT = "vendor/lib/.git";
const IGNORED_OBJECT = "vendor/lib/build.o";
const skipForgeAndNestedGit = (p: string) => p === ".forge" || p === NESTED_GIT || p === IGNORED_OBJECT;

describe("round trip", () => {
  it("restores a heavily changed tree to be byte-identical to the snapshot, leaving the nested repository's .git alone", async () => {
    const { root, ws } = await workspaceBench();
    buildOriginal(root);
    const original = walkTree(root, skipForgeAndNestedGit);
    const snap = await ws.snapshot("original");

    mutateHeavily(root);
    const mutated = walkTree(root, skipForgeAndNestedGit);
    expect(mutated).not.toEqual(original);
    const gitBefore = fingerprint(join(root, NESTED_GIT));

    const report = await ws.restore(snap.snapshot.id);

    expect(walkTree(root, skipForgeAndNestedGit)).toEqual(original);
    // Empty folders came back and the ones the snapshot did not have are gone.
    expect(lstatSync(join(root, "empty-dir")).isDirectory()).toBe(true);
    expect(lstatSync(join(root, "deep/empty/chain")).isDirectory()).toBe(true);
    expect(existsSync(join(root, "another-empty-dir"))).toBe(false);
    // The nested repository's history is byte-identical and in place (same inodes: never moved).
    expect(fingerprint(join(root, NESTED_GIT))).toEqual(gitBefore);
    expect(git(join(root, "vendor/lib"), "log", "--format=%s")).toBe("three\ntwo\none\n");
    // Its ignored build output keeps the content it had, though the snapshot's differs.
    expect(read(root, IGNORED_OBJECT)).toBe("object v2");
    expect(report.written).toEqual(
      expect.arrayContaining(["src/main.ts", "docs/my notes.md", "scripts/plain.sh", "link-to-file", "dangling", "vendor/lib/src/lib.c"]),
    );
    expect(report.deleted).toEqual(expect.arrayContaining(["new/dir/brand new.txt", "new-link", "vendor/lib/new.c", "données/renamed ✓.txt"]));
  });

  it("restores a file or symlink the snapshot has where a folder stands now", async () => {
    // Original: a plain file and a symlink to a folder; later both are replaced by real folders.
    const { root, ws } = await workspaceBench();
    put(root, "src/main.ts", "main\n");
    put(root, "was-a-file", "I was a file\n");
    symlinkSync("src", join(root, "was-a-link"));
    const original = walkTree(root);
    const snap = await ws.snapshot("original");

    rmSync(join(root, "was-a-file"));
    put(root, "was-a-file/inside.txt", "now a folder\n");
    rmSync(join(root, "was-a-link"));
    put(root, "was-a-link/inside.txt", "now a folder too\n");

    await ws.restore(snap.snapshot.id);
    expect(walkTree(root)).toEqual(original);
  });

  it("removes a folder holding nothing but empty folders to put back the file or symlink the snapshot has at its path", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "was-a-file", "I was a file\n");
    symlinkSync("was-a-file", join(root, "was-a-link"));
    put(root, "deep-file", "deep\n");
    const original = walkTree(root);
    const snap = await ws.snapshot("original");

    // Folders at those paths, holding only an empty folder (or a chain of them, one with an edited file removed first).
    rmSync(join(root, "was-a-file"));
    mkdirSync(join(root, "was-a-file/empty"), { recursive: true });
    rmSync(join(root, "was-a-link"));
    mkdirSync(join(root, "was-a-link/empty"), { recursive: true });
    rmSync(join(root, "deep-file"));
    mkdirSync(join(root, "deep-file/a/b/c"), { recursive: true });
    mkdirSync(join(root, "deep-file/d"));
    put(root, "deep-file/a/note.txt", "a file the restore deletes first\n");
    await ws.snapshot("folders now");

    const r = await ws.restore(snap.snapshot.id);
    expect(r.skipped).toEqual([]);
    expect([...r.written].sort()).toEqual(["deep-file", "was-a-file", "was-a-link"]);
    expect(walkTree(root)).toEqual(original);
    expect((await ws.status()).changes).toEqual([]);
  });

  it("still leaves alone a folder in the way that holds ignored content beside empty folders, and says so", async () => {
    const { root, ws } = await workspaceBench();
    put(root, ".gitignore", "*.o\n");
    put(root, "obj", "a placeholder file\n");
    put(root, "mods", "another placeholder\n");
    const snap = await ws.snapshot("placeholders");

    rmSync(join(root, "obj"));
    mkdirSync(join(root, "obj/empty/deeper"), { recursive: true });
    put(root, "obj/empty/build.o", "ignored build output\n");
    // An empty ignored folder is ignored content too.
    rmSync(join(root, "mods"));
    mkdirSync(join(root, "mods/empty"), { recursive: true });
    mkdirSync(join(root, "mods/node_modules"));
    const before = fingerprint(root);

    const r = await ws.restore(snap.snapshot.id);
    expect([...r.skipped].sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: "mods", why: "a folder with ignored content is in the way: left alone" },
      { path: "obj", why: "a folder with ignored content is in the way: left alone" },
    ]);
    expect(read(root, "obj/empty/build.o")).toBe("ignored build output\n");
    expect(lstatSync(join(root, "mods/node_modules")).isDirectory()).toBe(true);
    expect(read(root, ".gitignore")).toBe("*.o\n");
    // Left alone whole: not even its empty folders were removed.
    const after = fingerprint(root);
    for (const [p, v] of Object.entries(before)) if (p.startsWith("obj") || p.startsWith("mods")) expect(after[p], p).toBe(v);
  });

  it("brings back a deleted folder with the permission bits the snapshot recorded", async () => {
    // Directory nodes store each folder's mode; a restore that recreates the folder should use it.
    const { root, ws } = await workspaceBench();
    put(root, "private/notes.txt", "mine\n", 0o600);
    chmodSync(join(root, "private"), 0o700);
    const original = walkTree(root);
    expect(original["private"]).toEqual({ type: "dir", mode: "700" });
    const snap = await ws.snapshot("original");
    rmSync(join(root, "private"), { recursive: true });
    await ws.restore(snap.snapshot.id);
    expect(walkTree(root)).toEqual(original);
  });

  it("restores a file whose name is as long as the file system allows (255 bytes)", async () => {
    // The restore's temporary file must fit in NAME_MAX too.
    const { root, ws } = await workspaceBench();
    const long = "n".repeat(250) + ".txt";
    put(root, long, "v1\n");
    put(root, "é".repeat(127) + "x", "two-byte characters\n");
    const original = walkTree(root);
    const snap = await ws.snapshot("long names");
    put(root, long, "v2\n");
    put(root, "é".repeat(127) + "x", "changed\n");
    await ws.restore(snap.snapshot.id);
    expect(walkTree(root)).toEqual(original);
  });

  it("round-trips trees made of random operations (property)", async () => {
    // Random files, folders and symlinks, a random set of changes, a restore: the walk must match.
    // Changes may put a folder (holding files, symlinks or only empty folders) where the
    // snapshot has a file or symlink: the restore removes it to put the file back.
    const name = fc.constantFrom("a", "é b");
    const rel = fc.array(name, { minLength: 1, maxLength: 2 }).map((parts) => parts.join("/"));
    const op = fc.oneof(
      fc.record({ kind: fc.constant("write" as const), path: rel, data: fc.uint8Array({ maxLength: 64 }), exec: fc.boolean() }),
      fc.record({ kind: fc.constant("mkdir" as const), path: rel }),
      fc.record({ kind: fc.constant("link" as const), path: rel, target: rel }),
      fc.record({ kind: fc.constant("delete" as const), path: rel }),
      fc.record({ kind: fc.constant("chmod" as const), path: rel, exec: fc.boolean() }),
    );
    type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;
    /** Applies `o` if it makes sense. */
    const apply = (root: string, o: Op) => {
      const abs = join(root, o.path);
      const parent = o.path.includes("/") ? join(root, o.path.slice(0, o.path.lastIndexOf("/"))) : root;
      const st = existsOrLink(abs);
      // Parents must be real folders (not files or symlinks) for the operation to make sense.
      for (let at = parent; at !== root; at = join(at, "..")) {
        const s = existsOrLink(at);
        if (s && !s.isDirectory()) return;
      }
      switch (o.kind) {
        case "write":
          if (st?.isDirectory()) return;
          if (st?.isSymbolicLink()) rmSync(abs);
          put(root, o.path, o.data, o.exec ? 0o755 : 0o644);
          return;
        case "mkdir":
          if (st) return;
          mkdirSync(abs, { recursive: true });
          return;
        case "link":
          if (st) return;
          mkdirSync(parent, { recursive: true });
          symlinkSync(o.target, abs);
          return;
        case "delete":
          if (st) rmSync(abs, { recursive: true });
          return;
        case "chmod":
          if (st?.isFile()) chmodSync(abs, o.exec ? 0o755 : 0o644);
          return;
      }
    };
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 16 }), fc.array(op, { minLength: 1, maxLength: 16 }), async (before, changes) => {
        const { root, ws, store, open } = await workspaceBench();
        try {
          for (const o of before) apply(root, o);
          const original = walkTree(root);
          const snap = await ws.snapshot("original");
          for (const o of changes) apply(root, o);
          const report = await ws.restore(snap.snapshot.id);
          expect(walkTree(root)).toEqual(original);
          // What the restore recorded (walking again only what it changed) is what a full walk finds.
          expect(report.restored?.filesRoot).toBe(snap.snapshot.filesRoot);
          expect((await (await open()).status()).changes).toEqual([]);
        } finally {
          await store.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});

function existsOrLink(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

describe("partial restore", () => {
  async function changedBench() {
    const b = await workspaceBench();
    put(b.root, "a.txt", "a v1\n");
    put(b.root, "dir/x.txt", "x v1\n");
    put(b.root, "dir/y.txt", "y v1\n");
    put(b.root, "dir/nested/z.txt", "z v1\n");
    put(b.root, "dir2/w.txt", "w v1\n");
    put(b.root, "other/o.txt", "o v1\n");
    const snap = await b.ws.snapshot("one");
    put(b.root, "a.txt", "a v2\n");
    put(b.root, "dir/x.txt", "x v2\n");
    rmSync(join(b.root, "dir/y.txt"));
    put(b.root, "dir/new.txt", "new in dir\n");
    put(b.root, "dir/nested/z.txt", "z v2\n");
    put(b.root, "dir2/w.txt", "w v2\n");
    put(b.root, "other/o.txt", "o v2\n");
    put(b.root, "top-new.txt", "new at the top\n");
    return { ...b, snap: snap.snapshot };
  }

  it("restores one named file and leaves everything else as it is", async () => {
    const { root, ws, snap } = await changedBench();
    const before = walkTree(root);
    const r = await ws.restore(snap.id, { paths: ["a.txt"] });
    expect(r.written).toEqual(["a.txt"]);
    expect(r.deleted).toEqual([]);
    const after = walkTree(root);
    expect(read(root, "a.txt")).toBe("a v1\n");
    const { ["a.txt"]: _a, ...restBefore } = before;
    const { ["a.txt"]: _b, ...restAfter } = after;
    expect(restAfter).toEqual(restBefore);
  });

  it("restores a named folder whole (edits undone, deleted files back, new files gone) and leaves the rest, even a folder sharing its prefix", async () => {
    const { root, ws, snap } = await changedBench();
    const before = walkTree(root);
    const r = await ws.restore(snap.id, { paths: ["dir/"] });
    expect([...r.written].sort()).toEqual(["dir/nested/z.txt", "dir/x.txt", "dir/y.txt"]);
    expect(r.deleted).toEqual(["dir/new.txt"]);
    expect(read(root, "dir/x.txt")).toBe("x v1\n");
    expect(read(root, "dir/y.txt")).toBe("y v1\n");
    expect(read(root, "dir/nested/z.txt")).toBe("z v1\n");
    expect(existsSync(join(root, "dir/new.txt"))).toBe(false);
    const outsideDir = (t: Record<string, unknown>) => Object.fromEntries(Object.entries(t).filter(([p]) => p !== "dir" && !p.startsWith("dir/")));
    expect(outsideDir(walkTree(root))).toEqual(outsideDir(before));
    expect(read(root, "dir2/w.txt")).toBe("w v2\n");
    expect(read(root, "top-new.txt")).toBe("new at the top\n");
  });

  it("lists on a dry run exactly what a restore of the paths would do, and changes nothing", async () => {
    const { root, ws, snap } = await changedBench();
    const before = walkTree(root);
    const count = (await ws.log()).length;
    const r = await ws.restore(snap.id, { paths: ["dir", "a.txt"], dryRun: true });
    expect(r.dryRun).toBe(true);
    expect(r.safety).toBeNull();
    expect([...r.written].sort()).toEqual(["a.txt", "dir/nested/z.txt", "dir/x.txt", "dir/y.txt"]);
    expect(r.deleted).toEqual(["dir/new.txt"]);
    expect(walkTree(root)).toEqual(before);
    expect((await ws.log()).length).toBe(count);
  });
});

describe("undoing a restore", () => {
  it("returns a safety snapshot, and restoring it brings back the pre-restore tree byte-identically", async () => {
    const { root, ws, state } = await workspaceBench();
    buildOriginal(root);
    const snap = await ws.snapshot("original");
    // Restoring the safety snapshot goes the other way; a folder that must turn back into a
    // file is the separate case above, so it is left out here.
    mutateHeavily(root, { folderBecomesFile: false });
    const beforeRestore = walkTree(root, skipForgeAndNestedGit);

    const r = await ws.restore(snap.snapshot.id);
    expect(r.safety).not.toBeNull();
    const safety = r.safety;
    if (safety === null) return;
    expect(safety.tags).toContain("safety");
    expect(safety.trigger).toBe("pre-restore");
    expect((await state(safety.id)).safety).toBe(true);
    expect(walkTree(root, skipForgeAndNestedGit)).not.toEqual(beforeRestore);

    const undo = await ws.restore(safety.id);
    // The files were as the restore left them (HEAD): no second safety snapshot, HEAD undoes the undo.
    expect(undo.safety).toBeNull();
    expect(undo.undo?.snapshot.id).toBe(r.restored?.id);
    expect(walkTree(root, skipForgeAndNestedGit)).toEqual(beforeRestore);
  });

  it("undoes a restore whose changes were only edits and deletions (no folder type changes)", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "a.txt", "one\n");
    put(root, "b/c.txt", "c\n", 0o600);
    symlinkSync("a.txt", join(root, "l"));
    const snap = await ws.snapshot("one");
    put(root, "a.txt", "two\n");
    rmSync(join(root, "b/c.txt"));
    put(root, "d.bin", noise(300, 3), 0o755);
    rmSync(join(root, "l"));
    symlinkSync("d.bin", join(root, "l"));
    const changed = walkTree(root);
    const r = await ws.restore(snap.snapshot.id);
    expect(read(root, "a.txt")).toBe("one\n");
    if (r.safety === null) throw new Error("a real restore returns its safety snapshot");
    await ws.restore(r.safety.id);
    expect(walkTree(root)).toEqual(changed);
  });
});

const MB = 1024 * 1024;

describe("big files", () => {
  it("stores a small edit in the middle of a 5 MB file as a few new chunks, and restores both versions byte for byte", async () => {
    const { root, ws, store } = await workspaceBench();
    const v1 = noise(5 * MB, 12345);
    put(root, "data/big.bin", v1);
    put(root, "small.txt", "small\n");
    const first = await ws.snapshot("v1");
    // Random bytes do not compress: the first snapshot stores about the whole file.
    expect(first.newBytes).toBeGreaterThan(5 * MB);

    // Insert 37 bytes and overwrite 100 more in the middle: everything after shifts, which
    // fixed-size blocks could not absorb but content-defined boundaries do.
    const mid = 2.5 * MB;
    const v2 = Buffer.concat([v1.subarray(0, mid), Buffer.from("x".repeat(37)), Buffer.alloc(100, 0xab), v1.subarray(mid + 100)]);
    expect(v2.length).toBe(v1.length + 37);
    put(root, "data/big.bin", v2);
    const second = await ws.snapshot("v2");
    expect(second.changes.map((c) => [c.path, c.kind])).toEqual([["data/big.bin", "modified"]]);
    // A couple of chunks around the edit (each at most MAX_CHUNK) plus the chunk list and directories.
    expect(second.newBytes).toBeLessThan(3 * MAX_CHUNK + 64 * 1024);
    expect(second.newBytes).toBeLessThan(v2.length / 8);

    // The file is stored as an `f` node listing several chunks.
    const tree = (await ws.treeOf(second.snapshot.id)).tree;
    const info = tree.files.get("data/big.bin");
    expect(info?.size).toBe(v2.length);
    const node = await store.objects.getNode(info?.hash ?? "");
    expect(node.kind).toBe("f");
    if (node.kind === "f") {
      expect(node.entries.length).toBeGreaterThan((5 * MB) / MAX_CHUNK - 1);
      expect(node.entries.reduce((n, [, size]) => n + size, 0)).toBe(v2.length);
    }

    await ws.restore(first.snapshot.id);
    expect(readFileSync(join(root, "data/big.bin")).equals(v1)).toBe(true);
    await ws.restore(second.snapshot.id);
    expect(readFileSync(join(root, "data/big.bin")).equals(v2)).toBe(true);
  });

  it("keeps a file of exactly BIG_FILE bytes as one blob and one byte more as chunks, both restoring exactly", async () => {
    const { root, ws, store } = await workspaceBench();
    const exact = noise(BIG_FILE, 1);
    const over = noise(BIG_FILE + 1, 2);
    put(root, "exact.bin", exact);
    put(root, "over.bin", over);
    const snap = await ws.snapshot("edges");
    const tree = (await ws.treeOf(snap.snapshot.id)).tree;
    expect((await store.objects.getNode(tree.files.get("exact.bin")?.hash ?? "")).kind).toBe("b");
    expect((await store.objects.getNode(tree.files.get("over.bin")?.hash ?? "")).kind).toBe("f");
    put(root, "exact.bin", "gone");
    put(root, "over.bin", "gone too");
    await ws.restore(snap.snapshot.id);
    expect(readFileSync(join(root, "exact.bin")).equals(exact)).toBe(true);
    expect(readFileSync(join(root, "over.bin")).equals(over)).toBe(true);
  });
});
