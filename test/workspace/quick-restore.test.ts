// A whole restore when only file contents differ is made from the kept columns
// (quick-restore.ts): the target's differing folders read, its files written, the kept
// columns patched. Whichever way a restore goes, the files on disk must then be the target's
// byte for byte (a walk from scratch gives its root), HEAD its root, the state before its
// safety snapshot, and the next status what a walk says. The quick way shows in the cache: it
// leaves the kept stats there (the whole way's walk limited to what it wrote leaves none).
import { chmodSync, lstatSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readTreeColumns } from "../../src/domains/workspace/tree-cache.js";
import { type Bench, age, cachePath, put, walkedStatus, workspaceBench } from "./support.js";

const MAX = 200;

/** A tree with nested folders, symlinks, a file too large to store, an ignore file; aged; snapshot "A" taken. */
async function bench(): Promise<{ b: Bench; regular: string[]; a: { id: string; filesRoot: string } }> {
  const b = await workspaceBench({ maxFileBytes: MAX });
  const regular: string[] = [];
  const file = (p: string, data: string) => {
    put(b.root, p, data);
    regular.push(p);
  };
  file(".gitignore", "*.log\n");
  file("top.txt", "top\n");
  for (let d = 0; d < 3; d++) for (let f = 0; f < 5; f++) file(`src/m${d}/deep/f${f}.ts`, `// ${d}/${f}\n`.repeat(1 + f));
  for (let f = 0; f < 6; f++) file(`src/m${f % 3}/g${f}.ts`, `export const g${f} = ${f};\n`);
  put(b.root, "src/m1/big.bin", "x".repeat(MAX + 50)); // beside files that change: compared as the target has it
  symlinkSync("src/m0", join(b.root, "link-to-m0"));
  age(b.root);
  const a = (await b.ws.snapshot("A")).snapshot;
  return { b, regular, a: { id: a.id, filesRoot: a.filesRoot as string } };
}

/** Every regular file's bytes and mode. */
function contents(root: string, paths: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of paths) {
    try {
      out[p] = `${(lstatSync(join(root, p)).mode & 0o777).toString(8)} ${readFileSync(join(root, p), "utf8")}`;
    } catch {
      out[p] = "(none)";
    }
  }
  return out;
}

/** The root a snapshot gives with no caches at all: a walk from scratch of what is on disk. */
async function fromScratch(b: Bench): Promise<string> {
  rmSync(cachePath(b.root), { force: true });
  rmSync(join(b.root, ".forge", "stat-cache.bin"), { force: true });
  return (await (await b.open()).snapshot("scratch")).snapshot.filesRoot as string;
}

/** Whether the cache holds `root`'s tree with a walk's stats (what a quick restore leaves). */
const keptWithStats = (b: Bench, root: string) => readTreeColumns(cachePath(b.root), root)?.stats !== undefined;

type Case = [what: string, change: (root: string) => void, written: string[]];

const contentsOnly: Case[] = [
  ["a file changed in place", (r) => put(r, "src/m1/deep/f2.ts", "changed\n"), ["src/m1/deep/f2.ts"]],
  [
    "files replaced by new ones of the same names, as git checkout does",
    (r) => {
      for (const p of ["top.txt", "src/m0/g0.ts", "src/m2/deep/f4.ts"]) {
        unlinkSync(join(r, p));
        put(r, p, `checked out ${p}\n`);
      }
    },
    ["src/m0/g0.ts", "src/m2/deep/f4.ts", "top.txt"],
  ],
  [
    "an editor's save (a temporary file renamed over the old one)",
    (r) => {
      put(r, "src/m1/.g1.ts.swp", "saved\n");
      renameSync(join(r, "src/m1/.g1.ts.swp"), join(r, "src/m1/g1.ts"));
    },
    ["src/m1/g1.ts"],
  ],
  ["a file's mode changed", (r) => chmodSync(join(r, "src/m2/g5.ts"), 0o755), ["src/m2/g5.ts"]],
];

const namesChanged: Case[] = [
  ["a file created since", (r) => put(r, "src/m0/new.ts", "new\n"), []],
  ["a file deleted since", (r) => unlinkSync(join(r, "src/m0/g3.ts")), ["src/m0/g3.ts"]],
  [
    "a symlink pointed elsewhere",
    (r) => {
      unlinkSync(join(r, "link-to-m0"));
      symlinkSync("src/m1", join(r, "link-to-m0"));
    },
    ["link-to-m0"],
  ],
  ["an ignore file changed (what the walk takes may change with it)", (r) => put(r, ".gitignore", "*.tmp\n"), [".gitignore"]],
];

describe("a whole restore", () => {
  for (const [cases, quick] of [
    [contentsOnly, true],
    [namesChanged, false],
  ] as const) {
    for (const [what, change, written] of cases) {
      it(`after ${what}: ${quick ? "by the kept columns" : "by the whole trees"}, the target's files, HEAD at its root, the state before kept`, async () => {
        const { b, regular, a } = await bench();
        const wanted = contents(b.root, regular);
        change(b.root);
        const before = contents(b.root, regular);
        const r = await (await b.open()).restore(a.id);
        expect([...r.written].sort()).toEqual(written);
        expect(r.skipped).toEqual([{ path: "src/m1/big.bin", why: "too large to have been stored" }]);
        expect(contents(b.root, regular)).toEqual(wanted);
        expect(r.restored?.filesRoot).toBe(a.filesRoot);
        expect((await b.ws.session.head()).checkpoint?.id).toBe(r.restored?.id);
        // The whole way leaves stats only when it walked everything (after an ignore file was written).
        if (quick) expect(keptWithStats(b, a.filesRoot)).toBe(true);
        const status = await (await b.open()).status();
        expect(status.changes).toEqual([]);
        expect(status).toEqual(await walkedStatus(b));
        // The safety snapshot holds the state before: restoring it brings that back (by the kept columns, when contents only differ).
        const back = await (await b.open()).restore(r.safety?.id as string);
        expect(contents(b.root, regular)).toEqual(before);
        expect(back.restored?.filesRoot).toBe(r.safety?.filesRoot);
        if (quick) expect(keptWithStats(b, r.safety?.filesRoot as string)).toBe(true);
        // Both are what a walk from scratch records.
        expect(await fromScratch(b)).toBe(r.safety?.filesRoot);
        await (await b.open()).restore(a.id);
        expect(await fromScratch(b)).toBe(a.filesRoot);
      });
    }
  }

  it("writes nothing and records the same tree when the files are the target's already; HEAD, unchanged, undoes it", async () => {
    const { b, regular, a } = await bench();
    const wanted = contents(b.root, regular);
    const head = await b.ws.session.head();
    const r = await (await b.open()).restore(a.id);
    expect(r.written).toEqual([]);
    // The files held no change since HEAD: no safety snapshot, HEAD is the state before.
    expect(r.safety).toBeNull();
    expect(r.undo?.snapshot.id).toBe(head.checkpoint?.id);
    expect(r.undo?.snapshot.filesRoot).toBe(a.filesRoot);
    expect(r.restored?.filesRoot).toBe(a.filesRoot);
    expect(contents(b.root, regular)).toEqual(wanted);
    expect(keptWithStats(b, a.filesRoot)).toBe(true);
  });

  it("stays quick round after round of checkouts and restores, and the status after each is a walk's", async () => {
    const { b, regular, a } = await bench();
    const wanted = contents(b.root, regular);
    const edited = ["src/m0/g0.ts", "src/m1/deep/f1.ts", "top.txt"];
    for (const p of edited) put(b.root, p, `edited ${p}\n`);
    const bSnap = (await (await b.open()).snapshot("B")).snapshot;
    const atB = contents(b.root, regular);
    for (let round = 0; round < 4; round++) {
      const r = await (await b.open()).restore(a.id);
      expect(r.written).toEqual(["src/m0/g0.ts", "src/m1/deep/f1.ts", "top.txt"]); // the walk's order
      expect(contents(b.root, regular)).toEqual(wanted);
      expect(keptWithStats(b, a.filesRoot)).toBe(true);
      // As `git checkout` would bring B back: new files of the same names.
      for (const p of edited) {
        unlinkSync(join(b.root, p));
        put(b.root, p, `edited ${p}\n`);
      }
      expect(contents(b.root, regular)).toEqual(atB);
      const status = await (await b.open()).status();
      expect(status.changes.map((c) => c.path).sort()).toEqual(edited);
      expect(status).toEqual(await walkedStatus(b));
    }
    expect(await fromScratch(b)).toBe(bSnap.filesRoot);
  });
});
