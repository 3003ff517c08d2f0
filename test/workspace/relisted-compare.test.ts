// A comparison by stats that lists a moved folder again (quick-status.ts `statCompare` with
// `ignoredNow`): a folder whose times moved but whose names are the same — a file replaced by
// a new one of that name, as `git checkout` and an editor's save do, or a name the walk
// leaves out — keeps the status and the snapshot quick, and says what a walk says. Any name
// added, removed or of another kind, or a folder's mode changed, leaves it to a walk.
import { chmodSync, mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ignoredOnDisk } from "../../src/domains/workspace/ignore-rules.js";
import { statCompare, type WalkSettings } from "../../src/domains/workspace/quick-status.js";
import { readTreeColumns } from "../../src/domains/workspace/tree-cache.js";
import { DEFAULT_MAX_FILE_BYTES } from "../../src/domains/workspace/workspace.js";
import { type Bench, age, cachePath, put, walkedStatus, workspaceBench, headColumns } from "./support.js";

const SETTINGS: WalkSettings = { ignore: [], secretFiles: undefined, maxFileBytes: DEFAULT_MAX_FILE_BYTES };

async function bench(): Promise<Bench> {
  const b = await workspaceBench();
  put(b.root, ".gitignore", "*.log\n");
  for (const p of ["top.txt", "src/a.ts", "src/b.ts", "src/lib/c.ts", "docs/readme.md"]) put(b.root, p, `${p}\n`);
  symlinkSync("a.ts", join(b.root, "src/link"));
  age(b.root);
  await b.ws.snapshot("one");
  return b;
}

/** The comparison against HEAD's kept columns, with folders listed again and without. */
async function compared(b: Bench) {
  const c = await headColumns(b);
  return { relisted: statCompare(b.root, c, SETTINGS, undefined, () => ignoredOnDisk(b.root)), plain: statCompare(b.root, c, SETTINGS) };
}

const lines = (changes: readonly { kind: string; path: string }[]) => changes.map((c) => `${c.kind} ${c.path}`);

describe("a comparison by stats with moved folders listed again", () => {
  const same: [string, (root: string) => void, string[]][] = [
    [
      "files replaced by new ones of the same names (as git checkout)",
      (r) => {
        unlinkSync(join(r, "src/a.ts"));
        writeFileSync(join(r, "src/a.ts"), "a, checked out\n");
        unlinkSync(join(r, "top.txt"));
        writeFileSync(join(r, "top.txt"), "top.txt\n"); // the same content: read, found unchanged
      },
      ["modified src/a.ts"],
    ],
    [
      "an editor's save (a temporary file renamed over the old one)",
      (r) => {
        writeFileSync(join(r, "src/lib/.c.ts.swp"), "c, saved\n");
        renameSync(join(r, "src/lib/.c.ts.swp"), join(r, "src/lib/c.ts"));
      },
      ["modified src/lib/c.ts"],
    ],
    [
      "names the walk leaves out (ignored files, a node_modules folder, a temporary file come and gone)",
      (r) => {
        writeFileSync(join(r, "src/build.log"), "log\n");
        mkdirSync(join(r, "docs/node_modules"));
        writeFileSync(join(r, "docs/node_modules/x.js"), "x\n");
        writeFileSync(join(r, "docs/tmp"), "tmp\n");
        unlinkSync(join(r, "docs/tmp"));
      },
      [],
    ],
  ];
  for (const [what, change, expected] of same) {
    it(`stays quick after ${what}, and says what a walk says`, async () => {
      const b = await bench();
      change(b.root);
      const { relisted, plain } = await compared(b);
      expect(plain).toBeUndefined(); // a folder moved: without listing it again, a walk
      expect(relisted).toBeDefined();
      expect(relisted?.dirStats).toBeDefined();
      const status = await (await b.open()).status();
      expect(lines(status.changes)).toEqual(expected);
      expect(status).toEqual(await walkedStatus(b));
      // The snapshot keeps the folders' new stats: the next comparison needs no listing (once they are not racy).
      const two = await (await b.open()).snapshot("two");
      expect(lines(two.changes)).toEqual(expected);
      const kept = readTreeColumns(cachePath(b.root), two.snapshot.filesRoot as string);
      expect(kept?.stats?.dirs).toEqual(relisted?.dirStats);
      // The same tree as a snapshot from scratch.
      rmSync(cachePath(b.root));
      rmSync(join(b.root, ".forge", "stat-cache.bin"), { force: true });
      expect((await (await b.open()).snapshot("scratch")).snapshot.filesRoot).toBe(two.snapshot.filesRoot);
    });
  }

  it("lists a racy root holding .git and .forge again without reading the ignore rules", async () => {
    // As just after `forge init` in a repository: the root's times moved within a second of the snapshot.
    const b = await bench();
    mkdirSync(join(b.root, ".git"));
    writeFileSync(join(b.root, "src/a.ts"), "a, edited\n");
    const cols = await headColumns(b);
    let rulesRead = 0;
    const found = statCompare(b.root, cols, SETTINGS, undefined, () => {
      rulesRead++;
      return ignoredOnDisk(b.root);
    });
    expect(found?.dirStats).toBeDefined();
    expect(found?.reads.map((r) => r.path)).toEqual(["src/a.ts"]);
    expect(rulesRead).toBe(0);
    // A name the kept tree lacks beside them still has the rules read, and judged.
    writeFileSync(join(b.root, "debug.log"), "ignored\n");
    expect(statCompare(b.root, cols, SETTINGS, undefined, () => (rulesRead++, ignoredOnDisk(b.root)))).toBeDefined();
    expect(rulesRead).toBe(1);
  });

  it("leaves it to a walk when a secret file the walk left out is gone (the walk no longer names it)", async () => {
    const b = await workspaceBench();
    for (const p of ["top.txt", "src/a.ts"]) put(b.root, p, `${p}\n`);
    writeFileSync(join(b.root, "src/.env"), "TOKEN=x\n");
    age(b.root);
    expect((await b.ws.snapshot("one")).secretFiles).toEqual(["src/.env"]);
    unlinkSync(join(b.root, "src/.env"));
    expect((await compared(b)).relisted).toBeUndefined();
    const status = await (await b.open()).status();
    expect(status.secretFiles).toEqual([]);
    expect(status).toEqual(await walkedStatus(b));
    expect((await (await b.open()).snapshot("two")).secretFiles).toEqual([]);
  });

  const changed: [string, (root: string) => void][] = [
    ["a file created", (r) => writeFileSync(join(r, "src/new.ts"), "new\n")],
    ["a file deleted", (r) => unlinkSync(join(r, "src/b.ts"))],
    ["a file renamed in its folder", (r) => renameSync(join(r, "src/b.ts"), join(r, "src/b2.ts"))],
    [
      "a file replaced by a symlink of the same name",
      (r) => {
        unlinkSync(join(r, "src/b.ts"));
        symlinkSync("a.ts", join(r, "src/b.ts"));
      },
    ],
    [
      "a symlink replaced by a file of the same name",
      (r) => {
        unlinkSync(join(r, "src/link"));
        writeFileSync(join(r, "src/link"), "now a file\n");
      },
    ],
    [
      "a file replaced by a folder of the same name",
      (r) => {
        unlinkSync(join(r, "src/b.ts"));
        mkdirSync(join(r, "src/b.ts"));
      },
    ],
    ["a folder's mode changed", (r) => chmodSync(join(r, "src/lib"), 0o700)],
    ["an ignored name no longer ignored", (r) => writeFileSync(join(r, "src/build.lognot"), "taken\n")],
    ["a secret file created (left out, but named among the secret files)", (r) => writeFileSync(join(r, "src/.env"), "TOKEN=x\n")],
  ];
  for (const [what, change] of changed) {
    it(`leaves it to a walk after ${what}`, async () => {
      const b = await bench();
      change(b.root);
      expect((await compared(b)).relisted).toBeUndefined();
      expect(await (await b.open()).status()).toEqual(await walkedStatus(b));
    });
  }
});
