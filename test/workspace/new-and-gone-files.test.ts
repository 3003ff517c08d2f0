// New files and folders in folders the last snapshot had (a host's Write tool, a command
// that writes files), or files and folders gone from them (`rm`, `mv`): the comparison by stats lists those
// folders again and takes the new regular files and folders in, or the gone files out
// (quick-status.ts `statCompare` with `allowNames`), the status says "created", "deleted" or "renamed"
// and the snapshot is made from the kept columns, the tree cache reshaped by them
// (tree-cache-write.ts) — each the same as a walk from scratch gives, renames paired as it
// pairs them, folders gone taken out whole, symlinks as files. Anything else (an ignore file
// or a secret file come or gone, a file too large) leaves it to a walk.
import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildTree } from "../../src/objects/file-tree.js";
import { ignoredOnDisk } from "../../src/domains/workspace/ignore-rules.js";
import { statCompare, type WalkSettings } from "../../src/domains/workspace/quick-status.js";
import { readTreeColumns, treeFromColumns } from "../../src/domains/workspace/tree-cache.js";
import { DEFAULT_MAX_FILE_BYTES } from "../../src/domains/workspace/workspace.js";
import { type Bench, age, cachePath, headColumns, put, walkedStatus, workspaceBench } from "./support.js";

const SETTINGS: WalkSettings = { ignore: [], secretFiles: undefined, maxFileBytes: DEFAULT_MAX_FILE_BYTES };
const lines = (changes: readonly { kind: string; path: string }[]) => changes.map((c) => `${c.kind} ${c.path}`);

async function bench(): Promise<Bench> {
  const b = await workspaceBench();
  put(b.root, ".gitignore", "*.log\n");
  for (const p of ["top.txt", "src/a.ts", "src/b.ts", "src/lib/c.ts", "src/lib/deep/d.ts", "docs/readme.md"]) put(b.root, p, `${p}\n`);
  symlinkSync("a.ts", join(b.root, "src/link")); // a symlink's target is kept after the paths: the grown cache must keep it
  age(b.root);
  await b.ws.snapshot("one");
  return b;
}

/** The comparison against HEAD's kept columns, new files allowed. */
async function compared(b: Bench, settings = SETTINGS) {
  return statCompare(b.root, await headColumns(b), settings, undefined, () => ignoredOnDisk(b.root), true);
}

/** The tree a walk from scratch finds (no caches); the caches are put back after. */
async function fromScratch(b: Bench) {
  const kept = [cachePath(b.root), join(b.root, ".forge", "stat-cache.bin")].map((p) => [p, readFileSync(p)] as const);
  for (const [p] of kept) rmSync(p);
  const ws = await b.open();
  const tree = (await ws.treeOf("working")).tree;
  for (const [p, bytes] of kept) writeFileSync(p, bytes);
  return tree;
}

const sorted = <T>(m: ReadonlyMap<string, T>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));

describe("new files in folders the last snapshot had", () => {
  const cases: [string, (root: string) => void, string[]][] = [
    ["one new file", (r) => writeFileSync(join(r, "src/new.ts"), "new\n"), ["created src/new.ts"]],
    [
      "new files in two folders, one at the root, beside an edit",
      (r) => {
        writeFileSync(join(r, "src/lib/z.ts"), "z\n");
        writeFileSync(join(r, "NEWS"), "news\n");
        writeFileSync(join(r, "src/a.ts"), "a, edited\n");
      },
      ["created NEWS", "modified src/a.ts", "created src/lib/z.ts"],
    ],
    [
      "a new file beside names the walk leaves out (an ignored file, a .git folder) and an empty one",
      (r) => {
        writeFileSync(join(r, "docs/build.log"), "ignored\n");
        mkdirSync(join(r, "docs/.git"));
        writeFileSync(join(r, "docs/empty"), "");
        writeFileSync(join(r, "docs/guide.md"), "guide\n");
      },
      ["created docs/empty", "created docs/guide.md"],
    ],
    ["a file deleted", (r) => unlinkSync(join(r, "src/b.ts")), ["deleted src/b.ts"]],
    ["a new folder holding a file", (r) => put(r, "src/feature/x.ts", "x\n"), ["created src/feature/x.ts"]],
    ["a folder of folders deleted", (r) => rmSync(join(r, "src/lib"), { recursive: true }), ["deleted src/lib/c.ts", "deleted src/lib/deep/d.ts"]],
    ["a folder renamed", (r) => renameSync(join(r, "docs"), join(r, "guide")), ["renamed guide/readme.md"]],
    ["a new symlink", (r) => symlinkSync("b.ts", join(r, "src/link2")), ["created src/link2"]],
    ["a symlink deleted", (r) => unlinkSync(join(r, "src/link")), ["deleted src/link"]],
    [
      "a new folder holding a symlink, beside a symlink replaced",
      (r) => {
        put(r, "src/more/m.ts", "m\n");
        symlinkSync("m.ts", join(r, "src/more/link"));
        unlinkSync(join(r, "src/link"));
        symlinkSync("b.ts", join(r, "src/link3"));
      },
      ["deleted src/link", "created src/link3", "created src/more/link", "created src/more/m.ts"],
    ],
    [
      "a folder holding a symlink deleted",
      (r) => rmSync(join(r, "src"), { recursive: true }),
      ["deleted src/a.ts", "deleted src/b.ts", "deleted src/lib/c.ts", "deleted src/lib/deep/d.ts", "deleted src/link"],
    ],
    [
      "a folder moved into a new one, beside an edit",
      (r) => {
        mkdirSync(join(r, "src/old"));
        renameSync(join(r, "src/lib/deep"), join(r, "src/old/deep"));
        writeFileSync(join(r, "src/a.ts"), "a, edited\n");
      },
      ["modified src/a.ts", "renamed src/old/deep/d.ts"],
    ],
    [
      "a file renamed in its folder, one moved into a new folder, and one deleted beside a new one of other content",
      (r) => {
        renameSync(join(r, "src/b.ts"), join(r, "src/b2.ts"));
        mkdirSync(join(r, "src/moved"));
        renameSync(join(r, "src/lib/c.ts"), join(r, "src/moved/c.ts"));
        unlinkSync(join(r, "top.txt"));
        writeFileSync(join(r, "top2.txt"), "not top's content\n");
      },
      ["renamed src/b2.ts", "renamed src/moved/c.ts", "deleted top.txt", "created top2.txt"],
    ],
    [
      "new folders in a new folder, one of them empty, beside a new file",
      (r) => {
        put(r, "docs/a/b/c.md", "c\n");
        put(r, "docs/a/top.md", "top\n");
        mkdirSync(join(r, "docs/a/empty"));
        writeFileSync(join(r, "NEWS"), "news\n");
      },
      ["created NEWS", "created docs/a/b/c.md", "created docs/a/top.md"],
    ],
    [
      "a new folder the walk leaves out, and an ignored file in a new one",
      (r) => {
        put(r, "src/node_modules/x.js", "x\n");
        put(r, "src/gen/a.log", "ignored\n");
        put(r, "src/gen/b.ts", "b\n");
      },
      ["created src/gen/b.ts"],
    ],
    [
      "files deleted in two folders, one the last in its folder, beside an edit",
      (r) => {
        unlinkSync(join(r, "docs/readme.md"));
        unlinkSync(join(r, "top.txt"));
        writeFileSync(join(r, "src/lib/c.ts"), "c, edited\n");
      },
      ["deleted docs/readme.md", "modified src/lib/c.ts", "deleted top.txt"],
    ],
  ];
  for (const [what, change, expected] of cases) {
    it(`takes in ${what} without a walk, as a walk does`, async () => {
      const b = await bench();
      change(b.root);
      const found = await compared(b);
      const newPaths = expected.filter((l) => l.startsWith("created") || l.startsWith("renamed")).map((l) => l.slice(8));
      expect([...(found?.added ?? []), ...(found?.addedLinks ?? [])].map((a) => a.path).sort()).toEqual(newPaths.sort());
      expect(found?.removed?.length ?? 0).toBe(expected.filter((l) => l.startsWith("deleted") || l.startsWith("renamed")).length);
      // The status says what a walk says.
      const status = await (await b.open()).status();
      expect(lines(status.changes)).toEqual(expected);
      expect(status).toEqual(await walkedStatus(b));
      // The snapshot records the tree a walk from scratch finds, and the cache it leaves holds that tree with every file's stats.
      const two = await (await b.open()).snapshot("two");
      expect(lines(two.changes)).toEqual(expected);
      const count = (kind: string) => expected.filter((l) => l.startsWith(kind)).length;
      expect(two.snapshot.metadata["changed"]).toMatchObject({ created: count("created"), deleted: count("deleted"), renamed: count("renamed") });
      const cols = readTreeColumns(cachePath(b.root), two.snapshot.filesRoot as string);
      expect(cols?.stats?.files.length).toBe(4 * (cols?.nFiles ?? 0));
      const kept = treeFromColumns(cols as NonNullable<typeof cols>);
      const walked = await fromScratch(b);
      expect(sorted(kept?.files ?? new Map())).toEqual(sorted(walked.files));
      expect(buildTree(walked, null).root).toBe(two.snapshot.filesRoot);
      // The next comparison goes by the grown cache: nothing left to take in, and a status with no changes.
      age(b.root);
      const next = await compared(b);
      expect(next?.added).toBeUndefined();
      expect(next?.removed).toBeUndefined();
      expect(next?.addedDirs).toBeUndefined();
      expect((await (await b.open()).status()).changes).toEqual([]);
    });
  }

  it("records a new file with snapshotIfChanged, and its state summary counts it", async () => {
    const b = await bench();
    writeFileSync(join(b.root, "src/new.ts"), "new, ten bytes\n");
    const ws = await b.open();
    const r = await ws.snapshotIfChanged("after a write");
    expect(r).not.toBeNull();
    expect(lines(r?.changes ?? [])).toEqual(["created src/new.ts"]);
    const one = await b.state("HEAD~1");
    const two = await b.state("HEAD");
    expect(two.files).toBe(one.files + 1);
    expect(two.bytes).toBe(one.bytes + 15);
    expect(await (await b.open()).snapshotIfChanged("again")).toBeNull();
  });

  it("vouches for a new file the agent recorded as its own", async () => {
    const b = await bench();
    writeFileSync(join(b.root, "src/mine.ts"), "mine\n");
    writeFileSync(join(b.root, "src/theirs.ts"), "theirs\n");
    const ws = await b.open();
    await ws.recordEdit([join(b.root, "src/mine.ts")]);
    expect((await ws.status()).unknown).toEqual(["src/theirs.ts"]);
    const r = await ws.snapshot("two");
    expect(r.unknown).toEqual(["src/theirs.ts"]);
  });

  const walks: [string, (root: string) => void][] = [
    ["a new folder holding an ignore file", (r) => put(r, "src/more/.gitignore", "*.tmp\n")],
    ["a new folder holding a secret file", (r) => put(r, "src/more/.env", "TOKEN=x\n")],
    ["an ignore file deleted", (r) => unlinkSync(join(r, ".gitignore"))],
    ["a new ignore file", (r) => writeFileSync(join(r, "src/.gitignore"), "*.tmp\n")],
    ["a new secret file", (r) => writeFileSync(join(r, "src/.env"), "TOKEN=x\n")],
  ];
  for (const [what, change] of walks) {
    it(`leaves ${what} to a walk, which says the same`, async () => {
      const b = await bench();
      writeFileSync(join(b.root, "src/new.ts"), "new\n");
      change(b.root);
      expect(await compared(b)).toBeUndefined();
      const status = await (await b.open()).status();
      expect(status).toEqual(await walkedStatus(b));
      const two = await (await b.open()).snapshot("two");
      expect(two.changes.map((c) => c.path)).toContain("src/new.ts");
    });
  }

  it("leaves a new file too large to store to a walk", async () => {
    const b = await bench();
    writeFileSync(join(b.root, "src/big.bin"), Buffer.alloc(4096, 1));
    expect(await compared(b, { ...SETTINGS, maxFileBytes: 1024 })).toBeUndefined();
    expect((await compared(b))?.added?.map((a) => a.path)).toEqual(["src/big.bin"]);
  });

  it("takes a new file in beside a secret file the walk already names, whose folder's times moved", async () => {
    const b = await bench();
    writeFileSync(join(b.root, "src/.env"), "TOKEN=x\n");
    age(b.root);
    expect((await (await b.open()).snapshot("with the secret")).secretFiles).toEqual(["src/.env"]);
    writeFileSync(join(b.root, "src/new.ts"), "new\n");
    expect((await compared(b))?.added?.map((a) => a.path)).toEqual(["src/new.ts"]);
    const status = await (await b.open()).status();
    expect(status).toEqual(await walkedStatus(b));
    expect(status.secretFiles).toEqual(["src/.env"]);
    expect(lines((await (await b.open()).snapshot("two")).changes)).toEqual(["created src/new.ts"]);
  });

  it("records deleted files with snapshotIfChanged, and its state summary counts them", async () => {
    const b = await bench();
    unlinkSync(join(b.root, "src/a.ts"));
    const r = await (await b.open()).snapshotIfChanged("after rm");
    expect(lines(r?.changes ?? [])).toEqual(["deleted src/a.ts"]);
    const one = await b.state("HEAD~1");
    const two = await b.state("HEAD");
    expect(two.files).toBe(one.files - 1);
    expect(two.bytes).toBe(one.bytes - "src/a.ts\n".length);
    expect(await (await b.open()).snapshotIfChanged("again")).toBeNull();
  });

  it("is not taken by a restore, which brings a deleted file back as a whole restore does", async () => {
    const b = await bench();
    const one = (await b.ws.session.head()).checkpoint?.id as string;
    unlinkSync(join(b.root, "src/b.ts"));
    const r = await (await b.open()).restore(one);
    expect(r.written).toContain("src/b.ts");
    expect(readFileSync(join(b.root, "src/b.ts"), "utf8")).toBe("src/b.ts\n");
    expect((await (await b.open()).status()).changes).toEqual([]);
  });

  it("is not taken by a restore, which removes the new file as a whole restore does", async () => {
    const b = await bench();
    const one = (await b.ws.session.head()).checkpoint?.id as string;
    writeFileSync(join(b.root, "src/new.ts"), "new\n");
    writeFileSync(join(b.root, "src/a.ts"), "a, edited\n");
    const r = await (await b.open()).restore(one);
    expect(r.deleted).toEqual(["src/new.ts"]);
    expect(readFileSync(join(b.root, "src/a.ts"), "utf8")).toBe("src/a.ts\n");
    expect((await (await b.open()).status()).changes).toEqual([]);
  });
});
