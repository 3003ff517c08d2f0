// A restore never writes outside the workspace: crafted snapshots (names with "/" or "..",
// symlinks pointing out) are refused before anything is written, whether they were put in
// the store directly or arrived in an import bundle; and a symlinked folder in the current
// tree is never written through.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/index.js";
import { sha256 } from "../../src/objects/hash.js";
import { blobRaw, dirNodeText, type DirEntry } from "../../src/objects/node.js";
import { rejectsWith } from "../support/errors.js";
import { fingerprint, put, read, walkTree, workspaceBench, type Bench } from "./support.js";

/** Stores raw objects; returns the hash of the last one given (the root). */
async function putObjects(store: Store, raws: readonly Buffer[]): Promise<string> {
  const map = new Map(raws.map((r) => [sha256(r), r] as const));
  await store.objects.putRaw(map);
  return sha256(raws[raws.length - 1] as Buffer);
}

const PAYLOAD = blobRaw(Buffer.from("pwned\n"));
const PAYLOAD_HASH = sha256(PAYLOAD);
const fileEntry = (name: string): DirEntry => [PAYLOAD_HASH, name, "f", 0o644, 6];
const dirNode = (entries: DirEntry[]) => Buffer.from(dirNodeText(entries));

/**
 * A crafted files tree: the workspace session gets a checkpoint pointing at it, as if a
 * snapshot. `build` returns the raw directory objects, the root last.
 */
async function craftedSnapshot(b: Bench, build: (outside: string) => Buffer[]): Promise<string> {
  const raws = build(join(b.parent, "outside"));
  const root = await putObjects(b.store, [PAYLOAD, ...raws]);
  const cp = await b.ws.session.checkpoint({ kind: "forge.files", crafted: true }, { filesRoot: root, trigger: "files", message: "crafted" });
  return cp.id;
}

/** A workspace with some files and an empty "outside" folder next to it. */
async function victim(): Promise<Bench & { before: ReturnType<typeof walkTree>; outside: string }> {
  const b = await workspaceBench();
  put(b.root, "a.txt", "a\n");
  put(b.root, "sub/b.txt", "b\n");
  await b.ws.snapshot("honest");
  const outside = join(b.parent, "outside");
  mkdirSync(outside);
  return { ...b, before: walkTree(b.root), outside };
}

/** Names no folder entry may have: refused where the tree is read (CORRUPT_OBJECT naming the entry), also by a restore. */
const NAME_CASES: readonly (readonly [string, string, () => Buffer[]])[] = [
  ["a file named ../escape", "../escape", () => [dirNode([fileEntry("../escape")])]],
  ["a file named with an absolute path", "/", () => [dirNode([fileEntry("/tmp/x")])]],
  ["a file named a/b (a slash inside a name)", "sub/../../escape", () => [dirNode([fileEntry("sub/../../escape")])]],
  [
    "a folder named ..",
    "..",
    () => {
      const inner = dirNode([fileEntry("escape")]);
      return [inner, dirNode([[sha256(inner), "..", "d", 0o755, 0]])];
    },
  ],
  ["a file named ..", "..", () => [dirNode([fileEntry("..")])]],
  ["a file named .", ".", () => [dirNode([fileEntry(".")])]],
  ["an empty name", '""', () => [dirNode([fileEntry("")])]],
  ["a name with a NUL byte", "a\\u0000b", () => [dirNode([fileEntry("a\0b")])]],
  [
    "a deep ../../ name in a subfolder",
    "../../escape",
    () => {
      const inner = dirNode([fileEntry("../../escape")]);
      return [inner, dirNode([[sha256(inner), "sub", "d", 0o755, 0]])];
    },
  ],
  [
    "two entries of one name (a folder and a symlink)",
    '"hinge" twice',
    () => {
      const inner = dirNode([]);
      return [
        inner,
        dirNode([
          [sha256(inner), "hinge", "d", 0o700, 0],
          ["", "hinge", "l", 0o777, 11, "up/../guard"],
        ]),
      ];
    },
  ],
  ["entries out of order", "out of order", () => [dirNode([fileEntry("b"), fileEntry("a")])]],
];

/** Symlinks that resolve outside the root: refused by the restore's plan (PATH_OUTSIDE_WORKSPACE). */
const LINK_CASES: readonly (readonly [string, (outside: string) => Buffer[]])[] = [
  ["a symlink to an absolute path outside", (outside) => [dirNode([["", "evil", "l", 0o777, 0, outside]])]],
  ["a symlink to ../ outside", () => [dirNode([["", "evil", "l", 0o777, 0, "../outside"]])]],
  [
    "a symlink in a subfolder climbing out",
    () => {
      const inner = dirNode([["", "evil", "l", 0o777, 0, "../../outside/x"]]);
      return [inner, dirNode([[sha256(inner), "sub", "d", 0o755, 0]])];
    },
  ],
  ["a symlink to / itself", () => [dirNode([["", "evil", "l", 0o777, 0, "/"]])]],
  [
    "a symlink that climbs out through another link of the tree (sub/gate -> up/../outside, sub/up -> ..)",
    () => {
      const inner = dirNode([
        ["", "gate", "l", 0o777, 0, "up/../outside"],
        ["", "up", "l", 0o777, 0, ".."],
      ]);
      return [inner, dirNode([[sha256(inner), "sub", "d", 0o755, 0]])];
    },
  ],
  [
    "a two-hop chain (p/far -> hop/../outside, p/hop -> q/top, p/q/top -> ../..)",
    () => {
      const q = dirNode([["", "top", "l", 0o777, 0, "../.."]]);
      const p = dirNode([
        ["", "far", "l", 0o777, 0, "hop/../outside"],
        ["", "hop", "l", 0o777, 0, "q/top"],
        [sha256(q), "q", "d", 0o755, 0],
      ]);
      return [q, p, dirNode([[sha256(p), "p", "d", 0o755, 0]])];
    },
  ],
];

function expectNothingWritten(b: Bench & { before: ReturnType<typeof walkTree>; outside: string }): void {
  expect(walkTree(b.root)).toEqual(b.before);
  expect(readdirSync(b.outside)).toEqual([]);
  expect(readdirSync(b.parent).sort()).toEqual(["outside", "ws"]);
  expect(existsSync("/escape")).toBe(false);
}

describe("crafted snapshots", () => {
  it.each(NAME_CASES)("refuses a snapshot with %s (CORRUPT_OBJECT naming %s) and writes nothing", async (_label, named, build) => {
    const b = await victim();
    const id = await craftedSnapshot(b, build);
    const snapshots = (await b.ws.log()).length;
    const err = await rejectsWith(b.ws.restore(id), "CORRUPT_OBJECT");
    expect(err.message).toContain(named);
    expectNothingWritten(b);
    // Refused before the safety snapshot: the timeline is as it was.
    expect((await b.ws.log()).length).toBe(snapshots);
    await rejectsWith(b.ws.restore(id, { dryRun: true }), "CORRUPT_OBJECT");
    expectNothingWritten(b);
  });

  it.each(LINK_CASES)("refuses a snapshot with %s (PATH_OUTSIDE_WORKSPACE) and writes nothing", async (_label, build) => {
    const b = await victim();
    const id = await craftedSnapshot(b, build);
    const snapshots = (await b.ws.log()).length;
    const err = await rejectsWith(b.ws.restore(id), "PATH_OUTSIDE_WORKSPACE");
    expect(err.hint ?? "").toMatch(/nothing was written/);
    expectNothingWritten(b);
    expect((await b.ws.log()).length).toBe(snapshots);
    await rejectsWith(b.ws.restore(id, { dryRun: true }), "PATH_OUTSIDE_WORKSPACE");
    expectNothingWritten(b);
  });

  it("refuses a crafted tree carried by a checkpoint of another session (checkpoint restore --files)", async () => {
    const b = await victim();
    const raws = [PAYLOAD, dirNode([fileEntry("../escape")])];
    const root = await putObjects(b.store, raws);
    const other = await b.store.session("agent");
    const cp = await other.checkpoint({ step: 1 }, { filesRoot: root });
    await rejectsWith(b.ws.restoreCheckpoint(cp), "CORRUPT_OBJECT", /"\.\.\/escape" is not a safe name/);
    expectNothingWritten(b);
  });

  it("refuses at restore a symlink that escapes through a link already on disk, outside the paths restored", async () => {
    // When the snapshot was taken d/mid was a real folder, so d/out -> mid/../outside-ish
    // stayed inside; since, d/mid became a link to the root's parent's child, and only d/out is restored.
    const b = await victim();
    mkdirSync(join(b.root, "d", "mid"), { recursive: true });
    symlinkSync("mid/../../outside", join(b.root, "d", "out"));
    put(b.root, "d/mid/m.txt", "m\n");
    const snap = await b.ws.snapshot("with d/out");
    rmSync(join(b.root, "d", "out"));
    rmSync(join(b.root, "d", "mid"), { recursive: true });
    symlinkSync("..", join(b.root, "d", "mid"));
    const before = walkTree(b.root);
    await rejectsWith(b.ws.restore(snap.snapshot.id, { paths: ["d/out"] }), "PATH_OUTSIDE_WORKSPACE", /d\/out -> mid\/\.\.\/\.\.\/outside/);
    expect(walkTree(b.root)).toEqual(before);
    expect(readdirSync(b.outside)).toEqual([]);
  });

  it("refuses a partial restore naming the outward symlink, and lets one of other paths through without creating it", async () => {
    const b = await victim();
    const id = await craftedSnapshot(b, (outside) => [dirNode([["", "evil", "l", 0o777, 0, outside], fileEntry("ok.txt")])]);
    await rejectsWith(b.ws.restore(id, { paths: ["evil"] }), "PATH_OUTSIDE_WORKSPACE");
    expectNothingWritten(b);
    const r = await b.ws.restore(id, { paths: ["ok.txt"] });
    expect(r.written).toEqual(["ok.txt"]);
    expect(existsSync(join(b.root, "evil"))).toBe(false);
    expect(readdirSync(b.outside)).toEqual([]);
  });

  it("applies only permission bits from a snapshot: a crafted setuid/setgid mode is not set on the restored file", async () => {
    // Snapshots record mode & 0o777; a crafted (or imported) one could carry 0o4755 and, when
    // restored by root, leave a setuid-root executable behind.
    const b = await victim();
    const id = await craftedSnapshot(b, () => [dirNode([[PAYLOAD_HASH, "tool", "f", 0o6755, 6]])]);
    const r = await b.ws.restore(id, { paths: ["tool"] });
    expect(r.written).toEqual(["tool"]);
    expect((lstatSync(join(b.root, "tool")).mode & 0o7777).toString(8)).toBe("755");
  });

  it("refuses a symlink whose target leaves the root only after climbing through it", async () => {
    // "sub/../../outside" normalizes to outside the root, though it starts inside.
    const b = await victim();
    const id = await craftedSnapshot(b, () => [dirNode([["", "evil", "l", 0o777, 0, "sub/../../outside"]])]);
    await rejectsWith(b.ws.restore(id), "PATH_OUTSIDE_WORKSPACE");
    expectNothingWritten(b);
  });

  it("restores symlinks that stay inside the root, including ones with .. that come back in", async () => {
    const b = await victim();
    const id = await craftedSnapshot(b, () => {
      const inner = dirNode([fileEntry("f.txt"), ["", "up", "l", 0o777, 0, "../a.txt"]]);
      return [
        inner,
        dirNode([
          ["", "in", "l", 0o777, 0, "sub/../a.txt"],
          ["", "self", "l", 0o777, 0, "."],
          [sha256(inner), "sub", "d", 0o755, 0],
        ]),
      ];
    });
    await b.ws.restore(id);
    expect(walkTree(b.root)).toEqual({
      in: { type: "symlink", target: "sub/../a.txt" },
      self: { type: "symlink", target: "." },
      sub: { type: "dir", mode: "755" },
      "sub/f.txt": { type: "file", mode: "644", size: 6, sha256: sha256(Buffer.from("pwned\n")) },
      "sub/up": { type: "symlink", target: "../a.txt" },
    });
    expect(readdirSync(b.outside)).toEqual([]);
  });
});

describe("symlinked folders in the current tree", () => {
  it("replaces a folder that became a symlink to outside with the real folder, writing nothing outside", async () => {
    const b = await victim();
    const snap = (await b.ws.log())[0];
    if (!snap) throw new Error("the victim has a snapshot");
    put(b.outside, "b.txt", "outside's own file\n");
    const outsideBefore = fingerprint(b.outside);
    rmSync(join(b.root, "sub"), { recursive: true });
    symlinkSync(b.outside, join(b.root, "sub"));

    await b.ws.restore(snap.id);
    // What happens: the symlink is removed (not followed) and sub/ is created for real.
    expect(fingerprint(b.outside)).toEqual(outsideBefore);
    expect(lstatSync(join(b.root, "sub")).isDirectory()).toBe(true);
    expect(walkTree(b.root)).toEqual(b.before);
  });

  it("refuses a partial restore into a folder that is now a symlink to outside, writing nothing outside", async () => {
    const b = await victim();
    const snap = (await b.ws.log())[0];
    if (!snap) throw new Error("the victim has a snapshot");
    put(b.outside, "b.txt", "outside's own file\n");
    const outsideBefore = fingerprint(b.outside);
    rmSync(join(b.root, "sub"), { recursive: true });
    symlinkSync(b.outside, join(b.root, "sub"));

    await rejectsWith(b.ws.restore(snap.id, { paths: ["sub/b.txt"] }), "PATH_OUTSIDE_WORKSPACE");
    expect(fingerprint(b.outside)).toEqual(outsideBefore);
    expect(lstatSync(join(b.root, "sub")).isSymbolicLink()).toBe(true);
  });

  it("leaves alone an ignored symlink that stands where the snapshot has a folder, writing nothing through it", async () => {
    // The symlink is ignored, so restore may neither delete it nor write sub/b.txt through it
    // (that would land outside): what lies under an ignored path now is left alone.
    const b = await victim();
    const snap = (await b.ws.log())[0];
    if (!snap) throw new Error("the victim has a snapshot");
    const outsideBefore = fingerprint(b.outside);
    rmSync(join(b.root, "sub"), { recursive: true });
    symlinkSync(b.outside, join(b.root, "sub"));
    const ws = await b.open({ ignore: ["sub"] });
    const r = await ws.restore(snap.id);
    expect(r.skipped).toContainEqual({ path: "sub/b.txt", why: "ignored now: left alone" });
    expect(lstatSync(join(b.root, "sub")).isSymbolicLink()).toBe(true);
    expect(fingerprint(b.outside)).toEqual(outsideBefore);
    expect(readdirSync(b.outside)).toEqual([]);
  });

  it("never follows a symlink planted at the name of its temporary file", async () => {
    // Restore writes `<file>.forge-<pid>.tmp` and renames it over the file. An ignored symlink
    // planted at that name must not be followed (the write would land outside the root).
    const b = await victim();
    const snap = (await b.ws.log())[0];
    if (!snap) throw new Error("the victim has a snapshot");
    put(b.root, ".gitignore", "*.tmp\n");
    put(b.root, "a.txt", "changed\n");
    symlinkSync(join(b.outside, "pwned"), join(b.root, `a.txt.forge-${process.pid}.tmp`));

    await b.ws.restore(snap.id).catch((e: unknown) => e);
    expect(readdirSync(b.outside)).toEqual([]);
    expect(lstatSync(join(b.root, "a.txt")).isFile()).toBe(true);
    expect(read(b.root, "a.txt")).toBe("a\n");
  });

  it("still restores a snapshot holding an unchanged symlink that points outside (a virtualenv's python → /usr/bin/python3)", async () => {
    // Such links are common and honest; the restore does not need to write them (they are
    // already there, identical), so refusing the whole restore over them is wrong.
    const b = await victim();
    mkdirSync(join(b.root, "venv/bin"), { recursive: true });
    symlinkSync(process.execPath, join(b.root, "venv/bin/python"));
    const snap = await b.ws.snapshot("with a virtualenv");
    put(b.root, "a.txt", "edited\n");
    await b.ws.restore(snap.snapshot.id);
    expect(read(b.root, "a.txt")).toBe("a\n");
    expect(lstatSync(join(b.root, "venv/bin/python")).isSymbolicLink()).toBe(true);
  });

  it("stores a symlink to a folder as a symlink (never walks or snapshots through it)", async () => {
    const b = await victim();
    put(b.outside, "private.txt", "not the workspace's\n");
    symlinkSync(b.outside, join(b.root, "out-link"));
    const snap = await b.ws.snapshot("with a link");
    const tree = (await b.ws.treeOf(snap.snapshot.id)).tree;
    expect(tree.files.get("out-link")).toMatchObject({ type: "l", target: b.outside });
    expect([...tree.files.keys()].some((p) => p.startsWith("out-link/"))).toBe(false);
    expect(readFileSync(join(b.outside, "private.txt"), "utf8")).toBe("not the workspace's\n");
  });
});
