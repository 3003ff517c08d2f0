// The workspace's stat cache and tree cache (its "index", as git calls its own) are only
// ever a way to skip work: whatever happens to them — a write cut short, two processes
// writing them at once, a file changed in the same second, a cache left unwritten because
// writing it cost more than it saved — status and snapshots must say what is on disk.
// Speed is the benchmark's business (bench/cold.ts), not these tests'.
import { spawn } from "node:child_process";
import { lstatSync, readFileSync, readdirSync, statSync, symlinkSync, truncateSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ST_CTIME, ST_INO, ST_MODE, ST_MTIME, ST_SIZE, statBuffer, walkLstat } from "../../src/domains/workspace/fast-stat.js";
import { readCacheFile } from "../../src/domains/workspace/stat-cache.js";
import { forge, json, ok } from "../support/cli.js";
import { noise, put, tempDir, workspaceBench } from "./support.js";

const FORGE_BIN = fileURLToPath(new URL("../../bin/forge.js", import.meta.url));
const HOUR_AGO_S = Math.floor(Date.now() / 1000) - 3600;

/** `forge files status --json` in `root`: the changed paths as "kind path". */
function cliStatus(root: string): string[] {
  const r = json<{ changes: { kind: string; path: string }[] }>(forge(root, ["--json", "files", "status"]), { allowStderr: true });
  return r.changes.map((c) => `${c.kind} ${c.path}`).sort();
}

describe("the stat used by the walk", () => {
  it("says exactly what lstatSync says for files, folders, symlinks, and nothing for a missing path", () => {
    const dir = tempDir("fast-stat");
    put(dir.path, "a/file.txt", "some bytes");
    symlinkSync("a/file.txt", join(dir.path, "link"));
    const lstat = walkLstat(dir.path);
    const out = statBuffer();
    for (const p of ["a", "a/file.txt", "link", "."]) {
      const abs = join(dir.path, p);
      expect(lstat(abs, out)).toBe(true);
      const st = lstatSync(abs);
      expect([out[ST_MODE], out[ST_SIZE], out[ST_INO], out[ST_MTIME], out[ST_CTIME]], p).toEqual([st.mode, st.size, st.ino, st.mtimeMs, st.ctimeMs]);
    }
    expect(lstat(join(dir.path, "missing"), out)).toBe(false);
    expect(() => lstat(join(dir.path, "a/file.txt/below"), out)).toThrow(/ENOTDIR/);
  });
});

describe("the workspace index", () => {
  it("sees a file changed within the same second as the snapshot, however its size and mtime are kept", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "racy.txt", "AAAA");
    await ws.snapshot("one");
    // Same size, same mtime as the snapshot saw, rewritten at once: only its bytes differ.
    const before = statSync(join(root, "racy.txt"));
    put(root, "racy.txt", "BBBB");
    utimesSync(join(root, "racy.txt"), before.atime, before.mtime);
    expect((await ws.status()).changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["modified racy.txt"]);
  });

  it("sees a file replaced by another of the same size and mtime (a new inode)", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "swap.txt", "first version");
    utimesSync(join(root, "swap.txt"), HOUR_AGO_S, HOUR_AGO_S);
    await ws.snapshot("one");
    unlinkSync(join(root, "swap.txt"));
    put(root, "swap.txt", "other version");
    utimesSync(join(root, "swap.txt"), HOUR_AGO_S, HOUR_AGO_S);
    expect((await ws.status()).changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["modified swap.txt"]);
  });

  it("survives a write of either cache cut short: a torn file, a leftover temporary file", async () => {
    const { root, ws, open } = await workspaceBench();
    for (let i = 0; i < 30; i++) put(root, `d${i % 3}/f${i}.txt`, `file ${i}\n`);
    await ws.snapshot("one");
    const forgeDir = join(root, ".forge");
    for (const name of ["stat-cache.bin", "tree-cache.bin"]) {
      const file = join(forgeDir, name);
      const size = statSync(file).size;
      // What a crash in the middle of writing leaves, had it written in place: the front of the file.
      truncateSync(file, Math.floor(size / 2));
      writeFileSync(`${file}.99999.tmp`, readFileSync(file).subarray(0, 10));
    }
    put(root, "d1/f1.txt", "changed\n");
    unlinkSync(join(root, "d2/f2.txt"));
    const fresh = await open();
    expect((await fresh.status()).changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["modified d1/f1.txt", "deleted d2/f2.txt"]);
    const snap = await fresh.snapshot("two");
    expect(snap.changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["modified d1/f1.txt", "deleted d2/f2.txt"]);
    expect((await (await open()).status()).changes).toEqual([]);
  });

  it("is not rewritten for a few edits in a big tree, and status stays right by hashing those files again", async () => {
    const { root, ws, open } = await workspaceBench();
    for (let i = 0; i < 2500; i++) put(root, `p${i % 25}/f${i}.txt`, `file ${i}\n`);
    for (let i = 0; i < 2500; i++) utimesSync(join(root, `p${i % 25}/f${i}.txt`), HOUR_AGO_S, HOUR_AGO_S);
    await ws.snapshot("one");
    const cache = join(root, ".forge", "stat-cache.bin");
    const written = statSync(cache);
    expect(readCacheFile(cache)?.entries.size).toBe(2500);
    for (const i of [3, 700, 1400]) {
      put(root, `p${i % 25}/f${i}.txt`, `edited ${i}\n`);
      utimesSync(join(root, `p${i % 25}/f${i}.txt`), HOUR_AGO_S + 60, HOUR_AGO_S + 60);
    }
    const changed = ["modified p0/f1400.txt", "modified p0/f700.txt", "modified p3/f3.txt"];
    expect((await (await open()).status()).changes.map((c) => `${c.kind} ${c.path}`).sort()).toEqual(changed);
    expect((await (await open()).snapshot("two")).changes.map((c) => `${c.kind} ${c.path}`).sort()).toEqual(changed);
    // Three re-hashed files do not pay for a rewrite of 2,500 entries...
    expect(statSync(cache).ino).toBe(written.ino);
    expect((await (await open()).status()).changes).toEqual([]);
    // ...a thousand do.
    for (let i = 0; i < 1000; i++) {
      put(root, `p${i % 25}/f${i}.txt`, `edited again ${i}\n`);
      utimesSync(join(root, `p${i % 25}/f${i}.txt`), HOUR_AGO_S + 120, HOUR_AGO_S + 120);
    }
    put(root, "p0/new.txt", "new\n"); // a name added: a walk, which reads through the stat cache
    expect((await (await open()).snapshot("three")).changes).toHaveLength(1001);
    expect(statSync(cache).ino).not.toBe(written.ino);
    expect((await (await open()).status()).changes).toEqual([]);
  });

  it("holds with two processes snapshotting and checking the same tree at once", async () => {
    const dir = tempDir("two-writers");
    const root = dir.path;
    for (let i = 0; i < 400; i++) put(root, `p${i % 20}/f${i}.txt`, noise(200 + (i % 7) * 50, i + 1));
    ok(forge(root, ["init"]));
    ok(forge(root, ["files", "snapshot", "base"]));
    // Each writer edits its own files and snapshots, 6 rounds, while the other does the same.
    const writer = (side: number) =>
      new Promise<number>((resolve, reject) => {
        const script = `
          const { writeFileSync } = require("node:fs");
          const { spawnSync } = require("node:child_process");
          for (let round = 0; round < 6; round++) {
            for (let k = 0; k < 5; k++) writeFileSync(${JSON.stringify(root)} + "/p${side}/side${side}-" + k + ".txt", "round " + round + " file " + k + "\\n");
            const r = spawnSync(process.execPath, [${JSON.stringify(FORGE_BIN)}, "files", "snapshot", "side${side} round " + round], { cwd: ${JSON.stringify(root)}, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
            if (r.status !== 0) { process.stderr.write(r.stderr); process.exit(1); }
          }`;
        const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "ignore", "pipe"] });
        let err = "";
        child.stderr.on("data", (d) => (err += d));
        child.on("error", reject);
        child.on("exit", (code) => (code === 0 ? resolve(code) : reject(new Error(`writer ${side} failed: ${err}`))));
      });
    await Promise.all([writer(0), writer(1)]);
    // Whatever order their caches were written in, the next status sees the tree as it is:
    // both writers' last round of files, each recorded by one of the snapshots.
    expect(cliStatus(root)).toEqual([]);
    ok(forge(root, ["files", "snapshot", "after"]));
    expect(cliStatus(root)).toEqual([]);
    const tree = readdirSync(join(root, "p1"))
      .filter((n) => n.startsWith("side1-"))
      .sort();
    expect(tree).toEqual(["side1-0.txt", "side1-1.txt", "side1-2.txt", "side1-3.txt", "side1-4.txt"]);
    expect(ok(forge(root, ["fsck"]))).toMatch(/the store is whole/);
  });

  it("records the same tree when a big change is read on two threads as when it is read on one", async () => {
    const dir = tempDir("shared-hashing");
    const root = join(dir.path, "cli");
    // Over both thresholds (1,000 files, 8 MB): the CLI reads, hashes and packs on the worker too.
    for (let i = 0; i < 1200; i++) put(root, `p${i % 40}/f${i}.bin`, noise(6000 + (i % 13) * 500, i + 7));
    put(root, "big/one.bin", noise(3 * 1024 * 1024, 99)); // cut into chunks
    ok(forge(root, ["init"]));
    const cliRoot = json<{ snapshot: { filesRoot: string } }>(forge(root, ["--json", "files", "snapshot", "first"])).snapshot.filesRoot;
    // The library from the TypeScript sources has no worker script: everything on one thread.
    const { ws } = await workspaceBench();
    for (let i = 0; i < 1200; i++) put(ws.root, `p${i % 40}/f${i}.bin`, noise(6000 + (i % 13) * 500, i + 7));
    put(ws.root, "big/one.bin", noise(3 * 1024 * 1024, 99));
    const libRoot = (await ws.snapshot("first")).snapshot.filesRoot;
    expect(cliRoot).toBe(libRoot);
    expect(cliStatus(root)).toEqual([]);
    expect(ok(forge(root, ["fsck"]))).toMatch(/the store is whole/);
    // And every byte comes back.
    unlinkSync(join(root, "p3/f3.bin"));
    ok(forge(root, ["files", "restore", "HEAD"]));
    expect(readFileSync(join(root, "p3/f3.bin"))).toEqual(noise(6000 + (3 % 13) * 500, 3 + 7));
  });
});

describe("reading a snapshot's tree next to the last one", () => {
  it("gives the tree a full read gives, reading only the folders that differ", async () => {
    const { readTree } = await import("../../src/objects/file-tree.js");
    const { root, ws, store } = await workspaceBench();
    for (let i = 0; i < 60; i++) put(root, `a${i % 4}/b${i % 3}/f${i}.txt`, `file ${i}\n`);
    put(root, "top.txt", "top\n");
    const one = (await ws.snapshot("one")).snapshot;
    const first = one.filesRoot as string;
    // A changed file deep down, a folder gone, a folder new, a file where a folder was, and a new top-level file.
    put(root, "a1/b2/f10.txt", "changed\n");
    for (const n of readdirSync(join(root, "a2/b0"))) unlinkSync(join(root, "a2/b0", n));
    put(root, "new/deep/x.txt", "new\n");
    for (const n of readdirSync(join(root, "a3/b1"))) unlinkSync(join(root, "a3/b1", n));
    put(root, "top2.txt", "another\n");
    const second = (await ws.snapshot("two")).snapshot.filesRoot as string;
    const full1 = await readTree(store.objects, first);
    const full2 = await readTree(store.objects, second);
    const sorted = (t: { files: Map<string, unknown>; dirs: Map<string, unknown> }) => ({
      files: [...t.files].sort(([a], [b]) => (a < b ? -1 : 1)),
      dirs: [...t.dirs].sort(([a], [b]) => (a < b ? -1 : 1)),
    });
    expect(sorted(await readTree(store.objects, second, full1))).toEqual(sorted(full2));
    expect(sorted(await readTree(store.objects, first, full2))).toEqual(sorted(full1));
    expect(sorted(await readTree(store.objects, second, full2))).toEqual(sorted(full2));
    // Restoring the first snapshot (its tree read next to the second's) brings every file back.
    await ws.restore(one.id);
    expect((await ws.diff(one.id, "working")).changes).toEqual([]);
  });
});
