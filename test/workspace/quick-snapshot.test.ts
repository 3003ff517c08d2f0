// A snapshot when only file contents changed is made from the kept columns (quick-snapshot.ts),
// with no tree built: its folder objects must be byte for byte those a walk from scratch makes,
// whatever the tree holds (nested folders, symlinks, files too large, empty folders, names that
// sort next to a folder's), and it must give way to a walk whenever it cannot say.
import { mkdirSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { statCompare, type WalkSettings } from "../../src/domains/workspace/quick-status.js";
import { quickTree } from "../../src/domains/workspace/quick-snapshot.js";
import { readTreeColumns } from "../../src/domains/workspace/tree-cache.js";
import { type Bench, put, workspaceBench, age, cachePath } from "./support.js";

const MAX = 200;
const SETTINGS: WalkSettings = { ignore: [], secretFiles: undefined, maxFileBytes: MAX };

/** A tree with a bit of everything, aged, snapshot "one" taken (a walk). */
async function richBench(): Promise<{ b: Bench; regular: string[] }> {
  const b = await workspaceBench({ maxFileBytes: MAX });
  const regular: string[] = [];
  const file = (p: string, data: string) => {
    put(b.root, p, data);
    regular.push(p);
  };
  file("top.txt", "top\n");
  file("a-b", "a dash b\n");
  file("a.b", "a dot b\n");
  file("a/b", "a slash b\n");
  file("a/é.txt", "accent\n");
  for (let d = 0; d < 4; d++) for (let f = 0; f < 6; f++) file(`src/m${d}/deep/er/f${f}.ts`, `// ${d}/${f}\n`.repeat(1 + f));
  for (let f = 0; f < 8; f++) file(`src/m${f % 4}/g${f}.ts`, `export const g${f} = ${f};\n`);
  put(b.root, "assets/big.bin", "x".repeat(MAX + 50)); // too large: kept in the tree, not stored
  mkdirSync(join(b.root, "empty/inner"), { recursive: true });
  symlinkSync("src/m0", join(b.root, "link-to-m0"));
  symlinkSync("../../g1.ts", join(b.root, "src/m1/deep/link"));
  age(b.root);
  await b.ws.snapshot("one");
  return { b, regular };
}

/** The root a fresh Workspace's snapshot gives with no caches at all (a walk from scratch), after which the caches are gone. */
async function fromScratch(b: Bench): Promise<string> {
  rmSync(cachePath(b.root), { force: true });
  rmSync(join(b.root, ".forge", "stat-cache.bin"), { force: true });
  const r = await (await b.open()).snapshot("scratch");
  return r.snapshot.filesRoot as string;
}

describe("quick snapshot", () => {
  it("makes the folder objects a walk from scratch makes, round after round of content changes", async () => {
    const { b, regular } = await richBench();
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
    for (let round = 0; round < 6; round++) {
      const picked = new Set<string>();
      for (let k = 0; k < 1 + (round % 4); k++) picked.add(regular[next() % regular.length] as string);
      // Some keep their size (the stats' other fields say), some do not.
      for (const p of picked) put(b.root, p, next() % 2 ? `round ${round} ${p}\n` : `${"r".repeat(round + 1)}\n`);
      const head = (await b.ws.session.head()).checkpoint?.filesRoot as string;
      const cols = readTreeColumns(cachePath(b.root), head);
      expect(cols?.stats).toBeDefined();
      const found = statCompare(b.root, cols as NonNullable<typeof cols>, SETTINGS);
      expect(found).toBeDefined(); // every folder as it was: the quick way applies
      const q = await quickTree(b.root, cols as NonNullable<typeof cols>, found as NonNullable<typeof found>, b.store.objects);
      expect(q).toBeDefined();
      const snap = await (await b.open()).snapshot(`round ${round}`);
      expect(snap.snapshot.filesRoot).toBe(q?.root);
      expect(snap.changes.map((c) => c.path).sort()).toEqual([...picked].filter((p) => q?.changes.some((c) => c.path === p)).sort());
      expect(snap.changes.every((c) => c.kind === "modified")).toBe(true);
      // The same files walked from scratch: the same root. Aged first, so that the next round starts from that walk's stats.
      age(b.root);
      expect(await fromScratch(b)).toBe(snap.snapshot.filesRoot);
      expect((await b.ws.session.head()).checkpoint?.filesRoot).toBe(snap.snapshot.filesRoot);
    }
  });

  it("gives way to a walk when a file went away or a folder changed, and still records what a walk records", async () => {
    const { b } = await richBench();
    put(b.root, "src/m2/g2.ts", "changed\n");
    unlinkSync(join(b.root, "a.b")); // the root folder's times change: a walk
    const snap = await (await b.open()).snapshot("two");
    expect(snap.changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["deleted a.b", "modified src/m2/g2.ts"]);
    expect(await fromScratch(b)).toBe(snap.snapshot.filesRoot);
  });

  it("says nothing changed (snapshotIfChanged) when the files read again hold what they held", async () => {
    const { b } = await richBench();
    put(b.root, "top.txt", "top\n"); // rewritten with the same bytes: stats differ, content does not
    expect(await (await b.open()).snapshotIfChanged("same")).toBeNull();
    put(b.root, "top.txt", "top!\n");
    const r = await (await b.open()).snapshotIfChanged("changed");
    expect(r?.changes.map((c) => c.path)).toEqual(["top.txt"]);
    expect(await fromScratch(b)).toBe(r?.snapshot.filesRoot);
  });

  it("refuses under the strict strategy before writing anything, and integrates outside changes by the whole tree", async () => {
    const { b } = await richBench();
    put(b.root, "src/m3/g3.ts", "outside the agent\n");
    const strict = await b.open();
    await expect(strict.snapshot("strict", { strategy: "strict" })).rejects.toMatchObject({ code: "UNKNOWN_CHANGES" });
    expect((await b.ws.session.head()).checkpoint?.message).toBe("one");
    const auto = await (await b.open()).snapshot("auto", { strategy: "auto-integrate" });
    expect(auto.external?.tags).toContain("external");
    expect(auto.snapshot.filesRoot).toBe(auto.external?.filesRoot);
    expect(await fromScratch(b)).toBe(auto.snapshot.filesRoot);
  });
});
