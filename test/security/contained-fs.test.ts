// The calls a restore writes through: none follows a symbolic link, and a folder on the way
// that is not a real folder stops the write before anything happens.
import { chmodSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ContainedFs } from "../../src/domains/workspace/contained-fs.js";
import { planRestore } from "../../src/domains/workspace/restore.js";
import type { FileInfo, Tree } from "../../src/objects/file-tree.js";
import { rejectsWith } from "../support/errors.js";
import { tempDir } from "../workspace/support.js";

/** A work tree <tmp>/ws and a folder <tmp>/outside beside it holding one file. */
function setup(): { root: string; outside: string; fs: ContainedFs } {
  const base = realpathSync(tempDir("contained").path);
  const root = join(base, "ws");
  const outside = join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "SECRET\n");
  chmodSync(outside, 0o751);
  return { root, outside, fs: new ContainedFs(root) };
}

const mode = (p: string) => (lstatSync(p).mode & 0o7777).toString(8);

describe("ContainedFs", () => {
  it("sets a folder's mode only on a real folder: a link at that name is left alone and its target's mode unchanged", () => {
    const { root, outside, fs } = setup();
    symlinkSync(outside, join(root, "hinge"));
    expect(fs.chmodDir("hinge", 0o777)).toBe(false);
    expect(mode(outside)).toBe("751");
    mkdirSync(join(root, "real"));
    expect(fs.chmodDir("real", 0o700)).toBe(true);
    expect(mode(join(root, "real"))).toBe("700");
  });

  it("writes a file over a link planted at its name by replacing the link, never writing through it", () => {
    const { root, outside, fs } = setup();
    symlinkSync(join(outside, "secret.txt"), join(root, "note.txt"));
    fs.writeFile("note.txt", Buffer.from("mine\n"), 0o4755);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("SECRET\n");
    expect(lstatSync(join(root, "note.txt")).isFile()).toBe(true);
    expect(readFileSync(join(root, "note.txt"), "utf8")).toBe("mine\n");
    expect(mode(join(root, "note.txt"))).toBe("755"); // permission bits only
  });

  it("refuses to write below a folder that is a link, naming it, and writes nothing", async () => {
    const { root, outside, fs } = setup();
    symlinkSync(outside, join(root, "sub"));
    await rejectsWith(
      Promise.resolve().then(() => fs.writeFile("sub/x.txt", Buffer.from("x"), 0o644)),
      "PATH_OUTSIDE_WORKSPACE",
      /sub is a symbolic link/,
    );
    await rejectsWith(
      Promise.resolve().then(() => fs.symlink("sub/l", "..")),
      "PATH_OUTSIDE_WORKSPACE",
    );
    await rejectsWith(
      Promise.resolve().then(() => fs.mkdirs("sub/deeper")),
      "PATH_OUTSIDE_WORKSPACE",
    );
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
  });

  it("removes a link, not what it points to", () => {
    const { root, outside, fs } = setup();
    symlinkSync(join(outside, "secret.txt"), join(root, "l"));
    fs.unlink("l");
    expect(readdirSync(root)).toEqual([]);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("SECRET\n");
  });

  it("creates a link by renaming over the name, replacing a link that was there", () => {
    const { root, outside, fs } = setup();
    symlinkSync(outside, join(root, "l"));
    fs.symlink("l", "inside.txt");
    expect(readlinkSync(join(root, "l"))).toBe("inside.txt");
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
  });
});

/** A tree of files and links at the given paths (folders on the way added). */
function tree(entries: Record<string, FileInfo>): Tree {
  const dirs = new Map<string, { mode: number }>([["", { mode: 0o755 }]]);
  for (const p of Object.keys(entries)) for (let i = p.indexOf("/"); i >= 0; i = p.indexOf("/", i + 1)) dirs.set(p.slice(0, i), { mode: 0o755 });
  return { files: new Map(Object.entries(entries)), dirs };
}
const file: FileInfo = { type: "f", mode: 0o644, size: 1, hash: "0".repeat(64) };
const link = (target: string): FileInfo => ({ type: "l", mode: 0o777, size: target.length, hash: "", target });

describe("planRestore", () => {
  const plan = (root: string, target: Tree, foldsNames: boolean) =>
    planRestore({ root, target, current: tree({}), filter: () => true, extraIgnores: [], foldsNames });

  it("refuses, on a file system that folds names, a snapshot holding both README and readme", async () => {
    const { root } = setup();
    await rejectsWith(
      Promise.resolve().then(() => plan(root, tree({ README: file, readme: link("x") }), true)),
      "PATH_OUTSIDE_WORKSPACE",
      /README and readme/,
    );
  });

  it("plans README and readme side by side on a case-sensitive file system", () => {
    const { root } = setup();
    expect(
      plan(root, tree({ README: file, readme: file }), false)
        .writes.map(([p]) => p)
        .sort(),
    ).toEqual(["README", "readme"]);
  });

  it("accepts a link whose text climbs with .. and comes back down inside the root", () => {
    const { root } = setup();
    expect(
      plan(root, tree({ "a/b": file, "a/l": link("../a/b") }), false)
        .writes.map(([p]) => p)
        .sort(),
    ).toEqual(["a/b", "a/l"]);
  });

  it("refuses a link whose path passes through a link of the same tree that climbs out", async () => {
    const { root } = setup();
    await rejectsWith(
      Promise.resolve().then(() => plan(root, tree({ "s/up": link(".."), "s/gate": link("up/../outside") }), false)),
      "PATH_OUTSIDE_WORKSPACE",
      /s\/gate -> up\/\.\.\/outside/,
    );
  });

  it("accepts a loop of links, which resolves nowhere", () => {
    const { root } = setup();
    expect(plan(root, tree({ a: link("b"), b: link("a") }), false).writes).toHaveLength(2);
  });
});
