// A status after names were added, removed or renamed: the comparison by stats finds the
// folders whose entries changed, and a walk lists only those again (quick-status.ts
// changedSince, walk.ts scanTreeFrom with `relisted`). Every answer must be a whole walk's.
import { mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ignoredOnDisk } from "../../src/domains/workspace/ignore-rules.js";
import { changedSince, statCompare, type WalkSettings } from "../../src/domains/workspace/quick-status.js";
import { readTreeColumns, treeFromColumns } from "../../src/domains/workspace/tree-cache.js";
import { DEFAULT_MAX_FILE_BYTES, type FileChange } from "../../src/domains/workspace/workspace.js";
import { type Bench, put, workspaceBench, age, walkedStatus, cachePath, HOUR_AGO_S } from "./support.js";

const SETTINGS: WalkSettings = { ignore: [], secretFiles: undefined, maxFileBytes: DEFAULT_MAX_FILE_BYTES };
const lines = (changes: readonly FileChange[]) => changes.map((c) => `${c.kind} ${c.path}${c.from === undefined ? "" : ` <- ${c.from}`}`);

const tree: Record<string, string> = {
  "top.txt": "top\n",
  "src/a.ts": "a\n",
  "src/b.ts": "b\n",
  "src/lib/c.ts": "c\n",
  "src/lib/deep/d.ts": "d\n",
  "docs/readme.md": "readme\n",
  "docs/guide/one.md": "one\n",
};

async function bench(): Promise<Bench> {
  const b = await workspaceBench();
  for (const [p, data] of Object.entries(tree)) put(b.root, p, data);
  age(b.root);
  await b.ws.snapshot("one");
  return b;
}

/** The folders changed (no quick status), the limited walk applies, and the status is a whole walk's. */
async function limitedStatusIsTrue(b: Bench, expected: string[]) {
  const head = (await b.ws.session.head()).checkpoint?.filesRoot as string;
  const cols = readTreeColumns(cachePath(b.root), head);
  expect(cols?.stats).toBeDefined();
  const c = cols as NonNullable<typeof cols>;
  expect(statCompare(b.root, c, SETTINGS)).toBeUndefined();
  expect(statCompare(b.root, c, SETTINGS, undefined, () => ignoredOnDisk(b.root))).toBeUndefined(); // names changed: listing again cannot say
  expect(changedSince(b.root, c, SETTINGS)?.folders.length).toBeGreaterThan(0);
  const got = await (await b.open()).status();
  expect(got).toEqual(await walkedStatus(b));
  expect(lines(got.changes)).toEqual(expected);
}

describe("status after names changed", () => {
  const cases: [string, (root: string) => void, string[]][] = [
    ["a file created in a subfolder", (r) => writeFileSync(join(r, "src/lib/new.ts"), "new\n"), ["created src/lib/new.ts"]],
    ["a file deleted", (r) => unlinkSync(join(r, "src/lib/deep/d.ts")), ["deleted src/lib/deep/d.ts"]],
    ["a file renamed across folders", (r) => renameSync(join(r, "src/b.ts"), join(r, "docs/b.ts")), ["renamed docs/b.ts <- src/b.ts"]],
    ["a file created at the root", (r) => writeFileSync(join(r, "new-top.txt"), "new top\n"), ["created new-top.txt"]],
    [
      "a new folder with files, one of them ignored by its own .gitignore",
      (r) => {
        mkdirSync(join(r, "src/gen/sub"), { recursive: true });
        writeFileSync(join(r, "src/gen/.gitignore"), "*.log\n");
        writeFileSync(join(r, "src/gen/x.ts"), "x\n");
        writeFileSync(join(r, "src/gen/x.log"), "log\n");
        writeFileSync(join(r, "src/gen/sub/y.ts"), "y\n");
      },
      ["created src/gen/.gitignore", "created src/gen/sub/y.ts", "created src/gen/x.ts"],
    ],
    ["a folder removed with its subfolders", (r) => rmSync(join(r, "src/lib"), { recursive: true }), ["deleted src/lib/c.ts", "deleted src/lib/deep/d.ts"]],
    [
      "a file replaced by a folder of the same name",
      (r) => {
        unlinkSync(join(r, "src/a.ts"));
        mkdirSync(join(r, "src/a.ts"));
        writeFileSync(join(r, "src/a.ts/inside.ts"), "inside\n");
      },
      ["deleted src/a.ts", "created src/a.ts/inside.ts"],
    ],
    [
      "a folder replaced by a file of the same name",
      (r) => {
        rmSync(join(r, "docs/guide"), { recursive: true });
        writeFileSync(join(r, "docs/guide"), "now a file\n");
      },
      ["created docs/guide", "deleted docs/guide/one.md"],
    ],
    ["a new symlink", (r) => symlinkSync("../top.txt", join(r, "docs/link")), ["created docs/link"]],
    [
      "names changed in one folder and a content changed in another",
      (r) => {
        writeFileSync(join(r, "docs/new.md"), "new\n");
        writeFileSync(join(r, "src/lib/deep/d.ts"), "d changed\n");
      },
      ["created docs/new.md", "modified src/lib/deep/d.ts"],
    ],
    [
      "a file changed inside a folder whose names changed",
      (r) => {
        writeFileSync(join(r, "src/new.ts"), "new\n");
        writeFileSync(join(r, "src/a.ts"), "a changed\n");
      },
      ["modified src/a.ts", "created src/new.ts"],
    ],
  ];
  for (const [what, change, expected] of cases) {
    it(`is a whole walk's after ${what}`, async () => {
      const b = await bench();
      change(b.root);
      await limitedStatusIsTrue(b, expected);
    });
  }

  it("gives way to a whole walk when an ignore file changes, and still says what a walk says", async () => {
    const b = await bench();
    writeFileSync(join(b.root, ".gitignore"), "*.md\n");
    writeFileSync(join(b.root, "src/new.ts"), "new\n");
    const head = (await b.ws.session.head()).checkpoint?.filesRoot as string;
    const cols = readTreeColumns(cachePath(b.root), head);
    expect(changedSince(b.root, cols as NonNullable<typeof cols>, SETTINGS)).toBeUndefined();
    const got = await (await b.open()).status();
    expect(got).toEqual(await walkedStatus(b));
  });
});

describe("snapshot after names changed", () => {
  /** The root a fresh Workspace's snapshot gives with no caches at all (a whole walk from scratch); the caches are gone after. */
  async function fromScratch(b: Bench): Promise<string> {
    rmSync(cachePath(b.root), { force: true });
    rmSync(join(b.root, ".forge", "stat-cache.bin"), { force: true });
    return (await (await b.open()).snapshot("scratch")).snapshot.filesRoot as string;
  }

  it("records what a walk from scratch records, keeps the stats with the tree, and the next status is quick", async () => {
    const b = await bench();
    writeFileSync(join(b.root, "src/lib/new.ts"), "new\n");
    rmSync(join(b.root, "docs/guide"), { recursive: true });
    writeFileSync(join(b.root, "src/a.ts"), "a changed\n");
    writeFileSync(join(b.root, "src/.env"), "TOKEN=x\n"); // a new secret file: a walk (the rest alone is taken in by a quick snapshot)
    const two = await (await b.open()).snapshot("two");
    expect(two.walk).toBe("limited");
    expect(two.secretFiles).toEqual(["src/.env"]);
    expect(lines(two.changes)).toEqual(["deleted docs/guide/one.md", "modified src/a.ts", "created src/lib/new.ts"]);
    const root = two.snapshot.filesRoot as string;
    // The cache holds the new tree with stats: after aging (nothing racy), a status compares stats alone.
    age(b.root);
    const cols = readTreeColumns(cachePath(b.root), root);
    expect(cols?.stats).toBeDefined();
    const c = cols as NonNullable<typeof cols>;
    // Aging moved every time: the files are read again and found as recorded, the folders' times differ.
    expect(changedSince(b.root, c, SETTINGS)).toBeDefined();
    expect(await fromScratch(b)).toBe(root);
  });

  it("keeps the stats of what it did not look at, so a status after it needs no walk", async () => {
    const b = await bench();
    // A new secret file: the folder is listed by a walk (new or gone files, folders and symlinks are taken in by a quick snapshot).
    writeFileSync(join(b.root, "docs/.env"), "TOKEN=x\n");
    // Aged before the snapshot: the folder's new times are not racy, so the kept stats hold after it.
    age(b.root);
    const two = await (await b.open()).snapshot("two");
    expect(two.walk).toBe("limited");
    const cols = readTreeColumns(cachePath(b.root), two.snapshot.filesRoot as string);
    const found = statCompare(b.root, cols as NonNullable<typeof cols>, SETTINGS);
    expect(found).toBeDefined(); // every folder as the cache keeps it
    expect(found?.reads).toEqual([]);
    const status = await (await b.open()).status();
    expect(status.changes).toEqual([]);
    expect(status).toEqual(await walkedStatus(b));
    expect(await fromScratch(b)).toBe(two.snapshot.filesRoot);
  });

  it("copies the kept stats of every file it did not look at again, so the next comparison reads nothing", async () => {
    const b = await bench(); // aged, then snapshot "one": every file's stats kept
    writeFileSync(join(b.root, "docs/.env"), "TOKEN=x\n");
    // Only what changed is aged (no longer racy): the other files are found as kept, and their kept stats go with the new tree.
    for (const p of ["docs/.env", "docs"]) utimesSync(join(b.root, p), HOUR_AGO_S, HOUR_AGO_S);
    const two = await (await b.open()).snapshot("two");
    expect(two.walk).toBe("limited");
    const cols = readTreeColumns(cachePath(b.root), two.snapshot.filesRoot as string);
    const found = statCompare(b.root, cols as NonNullable<typeof cols>, SETTINGS);
    expect(found?.reads).toEqual([]);
    expect(await fromScratch(b)).toBe(two.snapshot.filesRoot);
  });

  it("gives way to a whole walk after a change to an ignore file in a folder it did not list", async () => {
    const b = await bench();
    writeFileSync(join(b.root, "docs/new.md"), "new\n");
    age(b.root);
    await (await b.open()).snapshot("two"); // a limited walk: its key must still name src/'s ignore file
    writeFileSync(join(b.root, "src/.gitignore"), "*.ts\n");
    const got = await (await b.open()).status();
    expect(got).toEqual(await walkedStatus(b));
    expect(lines(got.changes)).toEqual(
      ["deleted src/a.ts", "deleted src/b.ts", "created src/.gitignore", "deleted src/lib/c.ts", "deleted src/lib/deep/d.ts"].sort((x, y) =>
        (x.split(" ")[1] as string) < (y.split(" ")[1] as string) ? -1 : 1,
      ),
    );
  });
});

describe("status just after a snapshot", () => {
  it("lists the racy folders again, finds the same names there, and says what a walk says by stats", async () => {
    const b = await workspaceBench();
    for (const [p, data] of Object.entries(tree)) put(b.root, p, data);
    const one = await b.ws.snapshot("one"); // folders written just now: racy for this walk
    const root = one.snapshot.filesRoot as string;
    const first = readTreeColumns(cachePath(b.root), root);
    const before = first?.stats?.takenAt as number;
    writeFileSync(join(b.root, "src/a.ts"), "a changed\n");
    const got = await (await b.open()).status();
    expect(lines(got.changes)).toEqual(["modified src/a.ts"]);
    expect(got).toEqual(await walkedStatus(b));
    // No walk, but the stats it took written afresh: the same tree, racy against this status's time, not the snapshot's.
    const kept = readTreeColumns(cachePath(b.root), root);
    expect(kept?.stats?.takenAt).toBeGreaterThan(before);
    expect(kept && treeFromColumns(kept)).toEqual(first && treeFromColumns(first));
    expect(await (await b.open()).status()).toEqual(got);
  });

  it("walks when a racy folder holds a name the snapshot lacks, or lacks one it has", async () => {
    const b = await workspaceBench();
    for (const [p, data] of Object.entries(tree)) put(b.root, p, data);
    await b.ws.snapshot("one");
    writeFileSync(join(b.root, "src/new.ts"), "new\n");
    rmSync(join(b.root, "src/lib/deep/d.ts"));
    writeFileSync(join(b.root, "src/node_modules-not"), "taken\n");
    mkdirSync(join(b.root, "src/node_modules"));
    writeFileSync(join(b.root, "src/node_modules/x.js"), "ignored\n");
    const got = await (await b.open()).status();
    expect(lines(got.changes)).toEqual(["deleted src/lib/deep/d.ts", "created src/new.ts", "created src/node_modules-not"]);
    expect(got).toEqual(await walkedStatus(b));
  });

  it("walks when more folders are racy than are worth listing again, and writes the stats again", async () => {
    const b = await workspaceBench();
    for (let d = 0; d < 80; d++) put(b.root, `d${d}/f.txt`, `file ${d}\n`);
    const one = await b.ws.snapshot("one"); // 81 folders written just now: racy, more than 64 to list again
    const root = one.snapshot.filesRoot as string;
    const before = readTreeColumns(cachePath(b.root), root)?.stats?.takenAt as number;
    writeFileSync(join(b.root, "d3/f.txt"), "changed\n");
    const got = await (await b.open()).status();
    expect(lines(got.changes)).toEqual(["modified d3/f.txt"]);
    expect(got).toEqual(await walkedStatus(b));
    // The snapshot's tree written again with the stats this status took (quick once the folders are no longer racy).
    expect(readTreeColumns(cachePath(b.root), root)?.stats?.takenAt).toBeGreaterThan(before);
  });
});
