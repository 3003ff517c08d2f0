// The walk preload (src/domains/workspace/walk-preload.ts) lists folders on another core
// before the walk asks: it may only ever make a walk earlier, never different. Each test
// compares a walk that took folders from the real worker script (the built
// dist/cli-bundle/walk-preload-worker.cjs) with a walk that listed everything itself.
import { mkdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Scanner } from "../../src/domains/workspace/scanner.js";
import { startWalkPreload, walksWorkTree } from "../../src/domains/workspace/walk-preload-start.js";
import { adoptWalkPreload, takeWalkPreload, type PreloadHandle } from "../../src/domains/workspace/walk-preload.js";
import { forge, json } from "../support/cli.js";
import { put, tempDir } from "./support.js";

const WORKER = fileURLToPath(new URL("../../dist/cli-bundle/walk-preload-worker.cjs", import.meta.url));
const MAX = 100 * 1024 * 1024;

afterEach(() => adoptWalkPreload(undefined));

/** A tree with nested, empty and ignored folders, a symlink and a .gitignore; .forge/ made. */
function tree(): string {
  const root = tempDir("walk-preload").path;
  mkdirSync(join(root, ".forge"));
  for (let d = 0; d < 12; d++) for (let f = 0; f < 15; f++) put(root, `pkg${d}/sub${f % 3}/f${f}.ts`, `// ${d}/${f}\n`);
  put(root, "top.txt", "top\n");
  put(root, "a-b/x.txt", "x\n");
  put(root, "a/b.txt", "b\n");
  mkdirSync(join(root, "empty"));
  put(root, ".gitignore", "build/\n");
  put(root, "build/out.js", "ignored\n");
  symlinkSync("top.txt", join(root, "link"));
  return root;
}

async function walk(root: string) {
  const r = await new Scanner(root, [], MAX).scan(undefined);
  return { files: [...r.tree.files].sort(), dirs: [...r.tree.dirs].sort(), unreadable: [...r.unreadable] };
}

function start(root: string): PreloadHandle {
  const handle = startWalkPreload(root, WORKER, 0);
  expect(handle, "a preload starts where a stat cache is").toBeDefined();
  return handle as PreloadHandle;
}

const finished = (h: PreloadHandle) => new Promise((resolve) => h.worker.once("exit", resolve));

describe("the walk preload", () => {
  it("gives the walk what it would have listed itself: same files, folders and stats", async () => {
    const root = tree();
    await walk(root); // writes the stat cache the worker plans from
    // Changes since that walk: an edit, a new folder, a deleted one, a new file in a listed folder.
    put(root, "pkg3/sub1/f1.ts", "// edited\n");
    put(root, "fresh/new.txt", "new\n");
    rmSync(join(root, "pkg7"), { recursive: true });
    put(root, "pkg5/added.ts", "added\n");
    const alone = await walk(root);
    const h = start(root);
    await finished(h);
    adoptWalkPreload(h);
    expect(await walk(root)).toEqual(alone);
  });

  it("is what the walk used: a folder shows as the worker listed it when the command started", async () => {
    const root = tree();
    await walk(root);
    const h = start(root);
    await finished(h);
    put(root, "pkg2/sub0/late.txt", "written after the worker listed pkg2/sub0\n");
    adoptWalkPreload(h);
    const preloaded = await walk(root);
    expect(preloaded.files.map(([p]) => p)).not.toContain("pkg2/sub0/late.txt");
    expect((await walk(root)).files.map(([p]) => p)).toContain("pkg2/sub0/late.txt");
  });

  it("gives the same walk however far the worker got when the walk began", async () => {
    const root = tree();
    await walk(root);
    const alone = await walk(root);
    for (let i = 0; i < 6; i++) {
      adoptWalkPreload(start(root)); // the walk starts at once, meeting the worker wherever it is
      expect(await walk(root)).toEqual(alone);
    }
  });

  it("is taken by the first walk of its root only, and never by a stale or foreign one", async () => {
    const root = tree();
    await walk(root);
    const other = tempDir("walk-preload-other").path;
    const handle = (startedAt: number): PreloadHandle => ({ ...start(root), startedAt });
    adoptWalkPreload(handle(Date.now()));
    expect(takeWalkPreload(root)).toBeDefined();
    expect(takeWalkPreload(root)).toBeUndefined();
    adoptWalkPreload(handle(Date.now()));
    expect(takeWalkPreload(other)).toBeUndefined();
    expect(takeWalkPreload(root)).toBeUndefined();
    adoptWalkPreload(handle(Date.now() - 5000)); // the command waited (a lock): the walk lists for itself
    expect(takeWalkPreload(root)).toBeUndefined();
  });

  it("starts only for commands that walk the work tree, and only where a stat cache of a big enough tree exists", async () => {
    expect(walksWorkTree(["files", "status"])).toBe(true);
    expect(walksWorkTree(["--json", "files", "snapshot", "x"])).toBe(true);
    expect(walksWorkTree(["hook", "post-tool"])).toBe(true);
    expect(walksWorkTree(["files", "list"])).toBe(false);
    expect(walksWorkTree(["checkpoint", "list"])).toBe(false);
    const bare = tempDir("walk-preload-bare").path;
    mkdirSync(join(bare, ".forge"));
    expect(startWalkPreload(bare, WORKER, 0)).toBeUndefined();
    // A small tree (its stat cache under the threshold) walks faster than a worker starts.
    const small = tree();
    await walk(small);
    expect(startWalkPreload(small, WORKER)).toBeUndefined();
    // Where the last snapshot's tree was kept with its walk's stats, a quick status needs no listing.
    const quick = tree();
    await walk(quick);
    writeFileSync(join(quick, ".forge", "tree-cache.bin"), "FTC2 and the rest");
    expect(startWalkPreload(quick, WORKER, 0)).toBeUndefined();
    writeFileSync(join(quick, ".forge", "tree-cache.bin"), "FTC1 and the rest");
    const handle = start(quick);
    await handle.worker.terminate();
    // A big tree's walk, when the comparison by stats finds a folder changed, is worth the worker anyway.
    writeFileSync(join(quick, ".forge", "tree-cache.bin"), "FTC2 and the rest");
    writeFileSync(join(quick, ".forge", "stat-cache.bin"), Buffer.alloc(2 * 1024 * 1024 + 1));
    const big = start(quick);
    await big.worker.terminate();
  });

  it("does not change what `forge files status` says", () => {
    const root = tempDir("walk-preload-cli").path;
    // Big enough for bin/forge.js to start the preload (a stat cache over 200 KB).
    // Written an hour ago, so that the first snapshot trusts their stats and keeps its stat cache.
    const hourAgo = Date.now() / 1000 - 3600;
    for (let d = 0; d < 25; d++)
      for (let f = 0; f < 110; f++) {
        put(root, `d${d}/f${f}.txt`, `${d}/${f}\n`);
        utimesSync(join(root, `d${d}/f${f}.txt`), hourAgo, hourAgo);
      }
    expect(forge(root, ["init"]).code).toBe(0);
    expect(forge(root, ["files", "snapshot", "base"]).code).toBe(0);
    // Without the walk's stats kept beside the tree (a cache from before them), bin/forge.js starts the preload.
    rmSync(join(root, ".forge", "tree-cache.bin"));
    put(root, "d3/f3.txt", "changed\n");
    writeFileSync(join(root, "d9/new.txt"), "new\n");
    rmSync(join(root, "d12"), { recursive: true });
    const status = (env: Record<string, string>) =>
      json<{ changes: { kind: string; path: string }[] }>(forge(root, ["--json", "files", "status"], { env }), { allowStderr: true })
        .changes.map((c) => `${c.kind} ${c.path}`)
        .sort();
    const alone = status({ FORGE_NO_PRELOAD: "1" });
    expect(alone).toContain("modified d3/f3.txt");
    expect(alone).toContain("created d9/new.txt");
    expect(alone.filter((c) => c.startsWith("deleted d12/"))).toHaveLength(110);
    expect(statSync(join(root, ".forge", "stat-cache.bin")).size).toBeGreaterThan(200 * 1024);
    for (let i = 0; i < 3; i++) expect(status({})).toEqual(alone);
  });
});
