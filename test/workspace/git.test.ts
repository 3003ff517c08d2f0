// Inside a git work tree: every file git tracks is snapshotted and restored whatever Forge's
// default ignores and the .gitignore files say; untracked files follow git's own ignore
// files (info/exclude, core.excludesFile, .gitignore above the workspace); .forgeignore and
// configured patterns still exclude tracked files; the index is read as git lists it.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gitView } from "../../src/domains/workspace/git-view.js";
import { ignoredOnDisk } from "../../src/domains/workspace/ignore-rules.js";
import { Workspace } from "../../src/domains/workspace/workspace.js";
import { git, put, read, workspaceBench } from "./support.js";

/** A git work tree at the workspace root: `tracked` committed, then `untracked` written beside them. */
function repo(root: string, tracked: Record<string, string>, untracked: Record<string, string> = {}): void {
  git(root, "init", "-q");
  for (const [p, text] of Object.entries(tracked)) put(root, p, text);
  // -f: some of them are ignored, as fixtures committed under node_modules/ or build/ are.
  git(root, "add", "-f", "--", ...Object.keys(tracked));
  git(root, "commit", "-q", "-m", "one commit");
  for (const [p, text] of Object.entries(untracked)) put(root, p, text);
}

const filesOf = async (ws: Workspace, id: string) => [...(await ws.treeOf(id)).tree.files.keys()].sort();

describe("files git tracks", () => {
  it("are snapshotted and restored under a folder the defaults skip; untracked files beside them are not", async () => {
    const { root, ws } = await workspaceBench();
    repo(
      root,
      { "vendor/node_modules/pkg/index.js": "fixture\n", "vendor/node_modules/pkg/deep/more.js": "deeper\n", "src/a.js": "a\n" },
      { "vendor/node_modules/pkg/untracked.js": "x\n", "vendor/node_modules/other/index.js": "x\n", "node_modules/dep/index.js": "x\n" },
    );
    const snap = await ws.snapshot("with fixtures");
    expect(await filesOf(ws, snap.snapshot.id)).toEqual(["src/a.js", "vendor/node_modules/pkg/deep/more.js", "vendor/node_modules/pkg/index.js"]);
    expect((await ws.status()).changes).toEqual([]);

    rmSync(join(root, "vendor/node_modules/pkg/index.js"));
    rmSync(join(root, "vendor/node_modules/pkg/deep"), { recursive: true });
    put(root, "src/a.js", "changed\n");
    const r = await ws.restore(snap.snapshot.id);
    expect([...r.written].sort()).toEqual(["src/a.js", "vendor/node_modules/pkg/deep/more.js", "vendor/node_modules/pkg/index.js"]);
    expect(read(root, "vendor/node_modules/pkg/index.js")).toBe("fixture\n");
    expect(read(root, "vendor/node_modules/pkg/deep/more.js")).toBe("deeper\n");
    // Untracked files under the ignored folders were neither stored nor touched.
    expect(read(root, "vendor/node_modules/pkg/untracked.js")).toBe("x\n");
    expect(read(root, "node_modules/dep/index.js")).toBe("x\n");
    expect((await ws.status()).changes).toEqual([]);
  });

  it("are snapshotted though a .gitignore excludes them (added with -f), as git keeps them", async () => {
    const { root, ws } = await workspaceBench();
    repo(
      root,
      { ".gitignore": "build/\n*.log\n", "build/keep.txt": "kept\n", "notes.log": "kept\n", "src/b.js": "b\n" },
      { "build/out.js": "x\n", "other.log": "x\n" },
    );
    const snap = await ws.snapshot();
    expect(await filesOf(ws, snap.snapshot.id)).toEqual([".gitignore", "build/keep.txt", "notes.log", "src/b.js"]);
  });

  it("are still left out by .forgeignore and configured patterns: whoever writes those means it", async () => {
    const { root, ws } = await workspaceBench({ ignore: ["*.secret"] });
    repo(root, {
      ".forgeignore": "fixtures/\n",
      "fixtures/big.bin": "x\n",
      "key.secret": "x\n",
      "sub/.forgeignore": "draft.md\n",
      "sub/draft.md": "x\n",
      "sub/kept.md": "y\n",
    });
    const snap = await ws.snapshot();
    expect(await filesOf(ws, snap.snapshot.id)).toEqual([".forgeignore", "sub/.forgeignore", "sub/kept.md"]);
  });

  it("never include .git/ or .forge/, tracked or not", async () => {
    const { root, ws } = await workspaceBench();
    repo(root, { "a.txt": "a\n" });
    mkdirSync(join(root, "sub"));
    put(root, "sub/.forge/config.json", "{}");
    git(root, "add", "-f", "sub/.forge/config.json");
    const snap = await ws.snapshot();
    expect(await filesOf(ws, snap.snapshot.id)).toEqual(["a.txt"]);
  });

  it("untracked files follow .git/info/exclude and core.excludesFile; tracked ones do not", async () => {
    const { parent, root, ws } = await workspaceBench();
    repo(root, { "tracked.tmp": "t\n", "a.txt": "a\n" }, { "scratch.tmp": "x\n", "local.cache": "x\n", "b.txt": "b\n" });
    writeFileSync(join(root, ".git/info/exclude"), "*.cache\n");
    writeFileSync(join(parent, "global-ignore"), "*.tmp\n");
    git(root, "config", "core.excludesFile", join(parent, "global-ignore"));
    const snap = await ws.snapshot();
    expect(await filesOf(ws, snap.snapshot.id)).toEqual(["a.txt", "b.txt", "tracked.tmp"]);
    // Read again when the excludes file changes.
    writeFileSync(join(parent, "global-ignore"), "b.txt\n");
    expect((await ws.status()).changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["deleted b.txt", "created scratch.tmp"]);
  });

  it("in a workspace below the work tree's root: paths are the workspace's, and the .gitignore files above it apply", async () => {
    const { parent, store } = await workspaceBench();
    const top = join(parent, "top");
    mkdirSync(top);
    repo(
      top,
      { ".gitignore": "*.gen\n/app/out/\n", "app/node_modules/m/index.js": "m\n", "app/src/x.js": "x\n", "lib/y.js": "y\n" },
      { "app/z.gen": "z\n", "app/out/o.js": "o\n", "app/src/w.js": "w\n" },
    );
    const ws = await Workspace.open(store, { root: join(top, "app"), session: "app", retention: false });
    const snap = await ws.snapshot();
    expect(await filesOf(ws, snap.snapshot.id)).toEqual(["node_modules/m/index.js", "src/w.js", "src/x.js"]);
    expect(gitView(join(top, "app"))).toMatchObject({ top, prefix: "app/" });
  });

  it("restore judges a missing tracked file under an ignored folder as not ignored, an untracked one beside it as ignored", async () => {
    const { root } = await workspaceBench();
    repo(root, { "x/node_modules/p/index.js": "p\n" });
    rmSync(join(root, "x"), { recursive: true });
    const ignored = ignoredOnDisk(root);
    expect(ignored("x/node_modules/p/index.js")).toBe(false);
    expect(ignored("x/node_modules", true)).toBe(false);
    expect(ignored("x/node_modules/p/other.js")).toBe(true);
    expect(ignored("x/node_modules/q", true)).toBe(true);
    expect(ignored("node_modules/p/index.js")).toBe(true);
  });

  it("restore judges paths as the walk does: .forgeignore leaves out tracked files too, .gitignore only untracked ones", async () => {
    const { root, ws } = await workspaceBench();
    repo(
      root,
      { ".gitignore": "*.log\n", "keep.log": "tracked, ignored by git\n", "build/out.js": "tracked, left out by forge\n", "src/a.js": "a\n" },
      { "new.log": "untracked, ignored by git\n", "src/b.js": "b\n", "build/new.js": "untracked\n" },
    );
    put(root, "sub/.forgeignore", "*.tmp\n");
    put(root, "sub/x.tmp", "x\n");
    git(root, "add", "-f", "sub/x.tmp");
    put(root, ".forgeignore", "build/\n");
    const walked = await filesOf(ws, (await ws.snapshot("walked")).snapshot.id);
    const ignored = ignoredOnDisk(root);
    for (const path of ["keep.log", "build/out.js", "src/a.js", "new.log", "src/b.js", "build/new.js", "sub/x.tmp", ".forgeignore"])
      expect(ignored(path), path).toBe(!walked.includes(path));
    expect(walked).toEqual([".forgeignore", ".gitignore", "keep.log", "src/a.js", "src/b.js", "sub/.forgeignore"]);
  });

  it("a walk limited to a watcher's hint is not used after git's index changed: `git add -f` of an ignored file needs no file event", async () => {
    const { root, ws } = await workspaceBench();
    repo(root, { "a.txt": "a\n" }, { "node_modules/dep/index.js": "dep\n" });
    await ws.snapshot("first");
    put(root, "a.txt", "changed\n");
    const limited = await ws.snapshotIfChanged("a changed", { changed: ["a.txt"] });
    expect(limited?.walk).toBe("limited");
    git(root, "add", "-f", "node_modules/dep/index.js");
    const full = await ws.snapshotIfChanged("nothing said", { changed: [] });
    expect(full?.walk).toBe("full");
    expect(full?.changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["created node_modules/dep/index.js"]);
  });

  it("outside a work tree nothing changes: a folder named .git that is not a repository does not count", async () => {
    const { root, ws } = await workspaceBench();
    put(root, ".git/HEAD", "ref: refs/heads/main\n");
    put(root, "node_modules/dep/index.js", "x\n");
    put(root, "a.txt", "a\n");
    expect(gitView(root)).toBeNull();
    expect(await filesOf(ws, (await ws.snapshot()).snapshot.id)).toEqual(["a.txt"]);
  });
});

describe("git's index, read directly", () => {
  const NAMES = [
    "plain.txt",
    "dir/sub/deep.txt",
    "naïve name with spaces.txt",
    "日本/語.md",
    `${"d".repeat(200)}/${"e".repeat(200)}/${"f".repeat(200)}`,
    "a/b",
    "a-b",
    "a.b",
    "zz/last",
  ];

  /** The set `git ls-files` gives, with submodules (mode 160000) left out as the reader does. */
  const lsFiles = (root: string) =>
    execFileSync("git", ["ls-files", "--stage", "-z"], { cwd: root, encoding: "utf8" })
      .split("\0")
      .filter((l) => l !== "" && !l.startsWith("160000 "))
      .map((l) => l.slice(l.indexOf("\t") + 1));

  /** What git lists that the reader does not say is tracked (nothing, if it reads the index right). */
  const missed = (root: string) => {
    const view = gitView(root);
    if (view === null) throw new Error("not a work tree");
    return lsFiles(root).filter((p) => !view.tracks(p));
  };

  for (const version of ["2", "3", "4"]) {
    it(`lists what git ls-files lists, index version ${version} (intent-to-add included)`, async () => {
      const { root } = await workspaceBench();
      repo(root, Object.fromEntries(NAMES.map((n) => [n, `${n}\n`])));
      put(root, "intent.txt", "later\n");
      git(root, "add", "-N", "intent.txt"); // extended flags: version 3
      git(root, "update-index", "--index-version", version);
      expect(lsFiles(root).length).toBe(NAMES.length + 1);
      expect(missed(root)).toEqual([]);
      const view = gitView(root);
      expect(view?.tracks("intent.txt")).toBe(true);
      expect(view?.tracksUnder("dir")).toBe(true);
      expect(view?.tracksUnder("dir/sub")).toBe(true);
      expect(view?.tracksUnder("dir/sub/deep.txt")).toBe(false);
      expect(view?.tracks("dir")).toBe(false);
    });
  }

  it("asks git for an index it does not read (a split index), and gets the same", async () => {
    const { root } = await workspaceBench();
    repo(root, Object.fromEntries(NAMES.map((n) => [n, `${n}\n`])));
    git(root, "update-index", "--split-index");
    put(root, "after-split.txt", "x\n");
    git(root, "add", "after-split.txt");
    // The main index holds only what changed since the shared one, and says so in a "link" extension.
    expect(readFileSync(join(root, ".git/index")).includes("link")).toBe(true);
    expect(lsFiles(root).length).toBe(NAMES.length + 1);
    expect(missed(root)).toEqual([]);
    expect(gitView(root)?.tracks("after-split.txt")).toBe(true);
  });

  it("lists a conflicted path once, and leaves submodules (gitlinks) out", async () => {
    const { root } = await workspaceBench();
    repo(root, { "c.txt": "base\n" });
    git(root, "checkout", "-q", "-b", "other");
    put(root, "c.txt", "other\n");
    git(root, "commit", "-q", "-am", "other");
    git(root, "checkout", "-q", "-");
    put(root, "c.txt", "mine\n");
    git(root, "commit", "-q", "-am", "mine");
    expect(() => git(root, "merge", "-q", "other")).toThrow();
    expect(lsFiles(root)).toEqual(["c.txt", "c.txt", "c.txt"]);
    git(root, "update-index", "--add", "--cacheinfo", `160000,${git(root, "rev-parse", "HEAD").trim()},vendored`);
    const view = gitView(root);
    expect(view?.tracks("c.txt")).toBe(true);
    expect(view?.tracks("vendored")).toBe(false);
  });

  it("reads it again when it changes, and an index damaged past repair is an error naming it", async () => {
    const { root } = await workspaceBench();
    repo(root, { "a.txt": "a\n" });
    expect(gitView(root)?.tracks("b.txt")).toBe(false);
    put(root, "b.txt", "b\n");
    git(root, "add", "b.txt");
    expect(gitView(root)?.tracks("b.txt")).toBe(true);
    writeFileSync(join(root, ".git/index"), "DIRC\0\0\0\x02\0\0\0\x05not enough bytes for five entries");
    // Read when first asked about (a walk that ignores nothing never asks).
    const damaged = gitView(root);
    expect(() => damaged?.tracks("a.txt")).toThrow(/cannot read git's index .*index: it ends inside an entry/);
  });
});
