// The stat cache and git's racy-timestamp rule, built deterministically: the cache file is
// written by hand with the exact stat a file has, so only the write time decides whether
// the cached hash is trusted.
import { statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileObjects } from "../../src/objects/file-tree.js";
import { hashPending, scanTree } from "../../src/domains/workspace/walk.js";
import { IgnoreRules } from "../../src/domains/workspace/ignore-rules.js";
import { StatCache, readCacheFile, writeCacheFile } from "../../src/domains/workspace/stat-cache.js";
import { put, tempDir, workspaceBench } from "./support.js";

type Entry = [number, number, number, number, number, string];
interface CacheDoc {
  version: 1;
  writtenAt: number;
  entries: Record<string, Entry>;
}

const cacheFile = (root: string) => join(root, ".forge", "stat-cache.bin");

function readCache(root: string): CacheDoc {
  const doc = readCacheFile(cacheFile(root));
  if (!doc) throw new Error("no stat cache written");
  return { version: 1, writtenAt: doc.writtenAt, entries: Object.fromEntries(doc.entries) };
}

function writeCache(root: string, doc: CacheDoc): void {
  writeCacheFile(cacheFile(root), doc.writtenAt, new Map(Object.entries(doc.entries)));
}

/** The cache entry a file's current stat would have, holding `hash`. */
function entryFor(path: string, hash: string): Entry {
  const st = statSync(path);
  return [st.size, st.mtimeMs, st.ctimeMs, st.ino, st.mode, hash];
}

/** A round mtime an hour ago (whole seconds, so utimes sets it exactly). */
const HOUR_AGO_S = Math.floor(Date.now() / 1000) - 3600;

describe("stat cache", () => {
  it("re-reads a file changed within the second the cache was written, though size and mtime match the cache", async () => {
    const { root, ws } = await workspaceBench();
    const file = join(root, "racy.txt");
    put(root, "racy.txt", "version-1");
    utimesSync(file, HOUR_AGO_S, HOUR_AGO_S);
    const snap = await ws.snapshot("one");
    const oldHash = (await ws.treeOf(snap.snapshot.id)).tree.files.get("racy.txt")?.hash ?? "";
    expect(readCache(root).entries["racy.txt"]?.[5]).toBe(oldHash);

    // Same size, new bytes, mtime put back to the cached value. On a file system whose
    // ctime did not tick either, the stat is the same as the cached one: write the cache
    // entry with the file's stat as it is now, and a write time within the same second.
    put(root, "racy.txt", "version-2");
    utimesSync(file, HOUR_AGO_S, HOUR_AGO_S);
    expect(statSync(file).mtimeMs).toBe(HOUR_AGO_S * 1000);
    const doc = readCache(root);
    writeCache(root, { ...doc, writtenAt: HOUR_AGO_S * 1000 + 400, entries: { ...doc.entries, "racy.txt": entryFor(file, oldHash) } });

    const status = await ws.status();
    expect(status.changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["modified racy.txt"]);
    expect(status.changes[0]?.after?.hash).toBe(fileObjects(Buffer.from("version-2")).hash);
  });

  it("trusts the same entry when the cache was written well after the file's mtime (so the rule above is what catches it)", async () => {
    const { root, ws } = await workspaceBench();
    const file = join(root, "racy.txt");
    put(root, "racy.txt", "version-1");
    utimesSync(file, HOUR_AGO_S, HOUR_AGO_S);
    const snap = await ws.snapshot("one");
    const oldHash = (await ws.treeOf(snap.snapshot.id)).tree.files.get("racy.txt")?.hash ?? "";
    put(root, "racy.txt", "version-2");
    utimesSync(file, HOUR_AGO_S, HOUR_AGO_S);
    const doc = readCache(root);
    writeCache(root, { ...doc, writtenAt: HOUR_AGO_S * 1000 + 5000, entries: { ...doc.entries, "racy.txt": entryFor(file, oldHash) } });
    // The cached (stale) hash is believed: the file was not read.
    expect((await ws.status()).changes).toEqual([]);
  });

  it("detects a same-size edit with the mtime reset to the cached value, with the cache as the snapshot wrote it", async () => {
    const { root, ws } = await workspaceBench();
    const file = join(root, "same-size.txt");
    put(root, "same-size.txt", "AAAA");
    utimesSync(file, HOUR_AGO_S, HOUR_AGO_S);
    await ws.snapshot("one");
    put(root, "same-size.txt", "BBBB");
    utimesSync(file, HOUR_AGO_S, HOUR_AGO_S);
    expect((await ws.status()).changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["modified same-size.txt"]);
  });

  it("does not read a file again whose stat matches an old, non-racy entry; it reads one whose entry is racy", async () => {
    const dir = tempDir("stat-cache");
    const root = dir.path;
    put(root, "old.txt", "old content");
    put(root, "fresh.txt", "fresh content");
    const old = join(root, "old.txt");
    utimesSync(old, HOUR_AGO_S, HOUR_AGO_S);
    const path = join(root, ".forge", "stat-cache.bin");
    const scan = (cache: StatCache) => scanTree({ root, ignore: new IgnoreRules(root), cache, maxFileBytes: 1 << 20 });

    const cache1 = StatCache.load(path);
    const first = scan(cache1);
    expect(first.pending.map((p) => p.path).sort()).toEqual(["fresh.txt", "old.txt"]);
    await hashPending(first, root, cache1, undefined);
    // Written "now": fresh.txt's mtime is within a second of it (racy), old.txt's is an hour before.
    const writtenAt = statSync(join(root, "fresh.txt")).mtimeMs + 200;
    cache1.save(writtenAt);

    const second = scan(StatCache.load(path));
    expect(second.pending.map((p) => p.path)).toEqual(["fresh.txt"]);
    expect(second.tree.files.get("old.txt")?.hash).toBe(fileObjects(Buffer.from("old content")).hash);

    // Proof that old.txt's bytes are not read: a bogus cached hash comes straight back.
    const doc = readCacheFile(path);
    if (!doc) throw new Error("no stat cache written");
    const bogus = "0".repeat(64);
    doc.entries.set("old.txt", entryFor(old, bogus));
    writeCacheFile(path, doc.writtenAt, doc.entries);
    const third = scan(StatCache.load(path));
    expect(third.tree.files.get("old.txt")?.hash).toBe(bogus);
    expect(third.pending.map((p) => p.path)).toEqual(["fresh.txt"]);

    // A later save makes the racy entry trustworthy once its file is old enough relative to the write.
    const cache4 = StatCache.load(path);
    const fourth = scan(cache4);
    await hashPending(fourth, root, cache4, undefined);
    cache4.save(writtenAt + 5000);
    expect(scan(StatCache.load(path)).pending).toEqual([]);
  });

  it("treats a damaged cache file as empty (everything is read again, nothing breaks)", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "a.txt", "a");
    await ws.snapshot("one");
    writeFileSync(cacheFile(root), "FSC1 and then nonsense");
    put(root, "a.txt", "b");
    expect((await ws.status()).changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["modified a.txt"]);
  });
});
