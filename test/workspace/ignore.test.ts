// Which files a snapshot leaves out (git's .gitignore semantics, .forgeignore, configured
// patterns, the defaults), and that a restore never touches an ignored file.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fingerprint, put, read, workspaceBench } from "./support.js";

/** A tree exercising every kind of rule; returns the paths a snapshot must hold. */
function buildIgnoreTree(root: string): string[] {
  put(root, ".gitignore", ["*.log", "!keep.log", "build/", "!build/important.txt", "/top-only.txt", "cache", ""].join("\n"));
  put(root, ".forgeignore", "*.tmp\n");
  put(root, "app.log", "ignored\n");
  put(root, "keep.log", "re-included by !keep.log\n");
  // An excluded folder is not entered: its own .gitignore cannot re-include anything, and
  // neither can a root negation of a file inside it (as in git).
  put(root, "build/out.js", "ignored\n");
  put(root, "build/important.txt", "stays ignored: its folder is excluded\n");
  put(root, "build/.gitignore", "!important.txt\n!out.js\n");
  put(root, "top-only.txt", "ignored: anchored pattern at the root\n");
  put(root, "cache", "ignored file named cache\n");
  put(root, "scratch.tmp", "ignored by .forgeignore\n");
  put(root, "old.bak", "ignored by a configured pattern\n");
  put(root, "secrets/key.pem", "ignored folder from a configured pattern\n");
  put(root, "notes.draft", "kept: the .draft rule lives in sub/.forgeignore\n");
  // Deeper files override shallower ones.
  put(root, "sub/.gitignore", "!*.log\n/local.txt\n");
  put(root, "sub/.forgeignore", "*.draft\n");
  put(root, "sub/debug.log", "re-included by sub/.gitignore\n");
  put(root, "sub/local.txt", "ignored: /local.txt is anchored to sub/\n");
  put(root, "sub/top-only.txt", "kept: /top-only.txt is anchored to the root\n");
  put(root, "sub/notes.draft", "ignored by sub/.forgeignore\n");
  put(root, "sub/scratch.tmp", "ignored by the root .forgeignore at any depth\n");
  put(root, "sub/old.bak", "ignored by a configured pattern at any depth\n");
  put(root, "sub/cache/data.bin", "ignored: cache matches folders at any depth\n");
  put(root, "sub/deeper/.gitignore", "*.log\n");
  put(root, "sub/deeper/trace.log", "ignored again by the deepest file\n");
  put(root, "sub/deeper/local.txt", "kept: /local.txt only applies directly in sub/\n");
  put(root, "sub/deeper/keep.log", "ignored: the deepest *.log wins over the root's !keep.log\n");
  // The defaults, at any depth.
  put(root, "node_modules/pkg/index.js", "ignored\n");
  put(root, "sub/node_modules/x/index.js", "ignored\n");
  put(root, ".git/HEAD", "ref: refs/heads/main\n");
  put(root, "sub/deeper/.git/config", "[core]\n");
  put(root, "sub/deeper/.forge/thing", "ignored\n");
  put(root, "src/index.ts", "kept\n");
  return [
    ".forgeignore",
    ".gitignore",
    "keep.log",
    "notes.draft",
    "src/index.ts",
    "sub/.forgeignore",
    "sub/.gitignore",
    "sub/debug.log",
    "sub/deeper/.gitignore",
    "sub/deeper/local.txt",
    "sub/top-only.txt",
  ];
}

describe("ignore rules", () => {
  it("follows nested .gitignore files, negations, excluded folders, .forgeignore, configured patterns and the defaults", async () => {
    const { root, ws } = await workspaceBench({ ignore: ["*.bak", "secrets/"] });
    const expected = buildIgnoreTree(root);
    const snap = await ws.snapshot("ignore rules");
    const tree = (await ws.treeOf(snap.snapshot.id)).tree;
    expect([...tree.files.keys()].sort()).toEqual(expected);
    // Ignored folders are not in the tree at all; their parents are.
    for (const d of ["build", "secrets", "node_modules", ".git", "sub/cache", "sub/node_modules", "sub/deeper/.git", "sub/deeper/.forge", ".forge"]) {
      expect(tree.dirs.has(d), d).toBe(false);
    }
    expect(tree.dirs.has("sub/deeper")).toBe(true);
    // Status before any snapshot would list the same files, and nothing changes after it.
    expect((await ws.status()).changes).toEqual([]);
  });

  it("matches status and snapshot: a change to an ignored file is not a change", async () => {
    const { root, ws } = await workspaceBench({ ignore: ["*.bak", "secrets/"] });
    buildIgnoreTree(root);
    await ws.snapshot("one");
    put(root, "app.log", "changed\n");
    put(root, "build/out.js", "changed\n");
    put(root, "sub/deeper/trace.log", "changed\n");
    put(root, "node_modules/pkg/new.js", "new\n");
    put(root, "old.bak", "changed\n");
    put(root, "sub/notes.draft", "changed\n");
    put(root, "sub/debug.log", "changed: this one is tracked\n");
    const status = await ws.status();
    expect(status.changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["modified sub/debug.log"]);
  });

  it("never deletes or rewrites ignored files on restore, even ones the snapshot does not have", async () => {
    const { root, ws } = await workspaceBench({ ignore: ["*.bak", "secrets/"] });
    buildIgnoreTree(root);
    const snap = await ws.snapshot("one");
    // Ignored things appear and change after the snapshot; tracked files change too.
    put(root, "app.log", "changed after the snapshot\n");
    put(root, "fresh.log", "created after the snapshot\n");
    put(root, "node_modules/later/index.js", "installed later\n");
    put(root, "build/out.js", "rebuilt\n");
    put(root, "old.bak", "changed\n");
    put(root, "secrets/new.pem", "new secret\n");
    put(root, "src/index.ts", "edited\n");
    const ignoredBefore = Object.fromEntries(
      ["node_modules", "build", "secrets", ".git", "sub/deeper/.git", "sub/deeper/.forge"].map((d) => [d, fingerprint(join(root, d))]),
    );

    const r = await ws.restore(snap.snapshot.id);
    expect(r.written).toEqual(["src/index.ts"]);
    expect(r.deleted).toEqual([]);
    expect(read(root, "src/index.ts")).toBe("kept\n");
    expect(read(root, "app.log")).toBe("changed after the snapshot\n");
    expect(read(root, "fresh.log")).toBe("created after the snapshot\n");
    expect(read(root, "old.bak")).toBe("changed\n");
    for (const [d, fp] of Object.entries(ignoredBefore)) expect(fingerprint(join(root, d)), d).toEqual(fp);
  });

  it("leaves a file alone on restore when it is ignored now, though the snapshot (taken before the rule) holds an older version", async () => {
    // The snapshot was taken without the patterns; they are configured afterwards. The files
    // are ignored now, so a restore must neither rewrite them nor count them as written.
    const { root, ws, open } = await workspaceBench();
    put(root, "app.log", "log v1\n");
    put(root, "dist/bundle.js", "bundle v1\n");
    put(root, "src/a.ts", "a v1\n");
    const snap = await ws.snapshot("before the ignore rules");
    const later = await open({ ignore: ["*.log", "dist/"] });
    put(root, "app.log", "log v2\n");
    put(root, "dist/bundle.js", "bundle v2\n");
    put(root, "src/a.ts", "a v2\n");

    const r = await later.restore(snap.snapshot.id);
    expect(read(root, "src/a.ts")).toBe("a v1\n");
    expect(read(root, "app.log")).toBe("log v2\n");
    expect(read(root, "dist/bundle.js")).toBe("bundle v2\n");
    expect(r.written).toEqual(["src/a.ts"]);
  });

  it("does not wipe a folder holding ignored files (a git repository) to put back the file the snapshot has at its path", async () => {
    // The snapshot has a plain file `vendor`; later a repository is cloned there. The
    // repository's .git is ignored, so restore must not touch it: refusing is acceptable,
    // deleting it is not.
    const { root, ws } = await workspaceBench();
    put(root, "vendor", "a placeholder file\n");
    const snap = await ws.snapshot("placeholder");
    rmSync(join(root, "vendor"));
    put(root, "vendor/lib.c", "int x;\n");
    put(root, "vendor/.git/HEAD", "ref: refs/heads/main\n");
    put(root, "vendor/.git/objects/ab/cdef", "precious history\n");
    const gitBefore = fingerprint(join(root, "vendor/.git"));

    const outcome = await ws.restore(snap.snapshot.id).then(
      () => "restored",
      (e: unknown) => `refused: ${(e as Error).message}`,
    );
    expect(existsSync(join(root, "vendor/.git")), outcome).toBe(true);
    expect(fingerprint(join(root, "vendor/.git")), outcome).toEqual(gitBefore);
  });

  it("keeps the nested .forge folder of the store out of snapshots and untouched by restore", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "a.txt", "a\n");
    const snap = await ws.snapshot("one");
    expect((await ws.treeOf(snap.snapshot.id)).tree.files.has(".forge/forge.db")).toBe(false);
    put(root, "a.txt", "b\n");
    await ws.restore(snap.snapshot.id);
    expect(existsSync(join(root, ".forge", "forge.db"))).toBe(true);
    expect(read(root, "a.txt")).toBe("a\n");
  });
});
