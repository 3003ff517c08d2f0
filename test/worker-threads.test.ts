// Batches over 1 MB leave the main thread: objects are compressed on a worker pool, and
// written to SQLite by a writer thread with its own connection. The workers run compiled
// JavaScript, so these tests drive the built modules (the test command builds dist/ first).
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Backend, StoredObject } from "../src/backends/backend.js";
import { unpack } from "../src/objects/codec.js";
import { sha256 } from "../src/objects/hash.js";
import { makeTempDir, type TempDir } from "./support/temp.js";

/** A module of the built library, by its path under dist/. */
async function built<T>(path: string): Promise<T> {
  return (await import(new URL(`../dist/${path}`, import.meta.url).href)) as T;
}

interface PoolModule {
  packMany(items: readonly Uint8Array[], effort: "best" | "fast"): Promise<Uint8Array[]>;
}

describe("the compression pool", () => {
  it("packs a batch over 1 MB on the worker into objects that unpack to the same bytes", async () => {
    const pool = await built<PoolModule>("objects/compress-pool.js");
    const items = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? Buffer.from(`text ${i} `.repeat(5_000)) : randomBytes(30_000)));
    const packed = await pool.packMany(items, "fast");
    expect(packed).toHaveLength(items.length);
    packed.forEach((stored, i) => {
      const raw = items[i] as Buffer;
      expect(unpack(sha256(raw), stored).equals(raw)).toBe(true);
    });
    // Compressible items got smaller; random ones were stored raw (codec byte 0).
    expect((packed[0] as Uint8Array).length).toBeLessThan((items[0] as Buffer).length / 10);
    expect((packed[1] as Uint8Array)[0]).toBe(0);
  });
});

interface SqliteModule {
  SqliteBackend: { open(path: string): Backend };
}

async function openSqlite(path: string): Promise<Backend> {
  const mod = await built<SqliteModule>("backends/sqlite/sqlite-backend.js");
  return mod.SqliteBackend.open(path);
}

function objects(n: number, size: number): StoredObject[] {
  return Array.from({ length: n }, () => {
    const data = randomBytes(size);
    return { hash: sha256(data), data };
  });
}

describe("the SQLite writer thread", () => {
  const dirs: TempDir[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) d.remove();
  });

  it("stores a batch over 1 MB so that the main connection reads it back, counts only new bytes, and keeps it after reopening", async () => {
    const dir = makeTempDir("sqlite-writer");
    dirs.push(dir);
    const path = join(dir.path, "forge.db");
    const backend = await openSqlite(path);
    const big = objects(40, 40_000);
    const total = big.reduce((n, o) => n + o.data.length, 0);
    expect(await backend.putObjects(big)).toBe(total);
    // Already there: nothing new, on the thread or off it.
    expect(await backend.putObjects(big)).toBe(0);
    const small = objects(3, 100);
    expect(await backend.putObjects([...small, big[0] as StoredObject])).toBe(300);
    const got = await backend.getObjects([...big, ...small].map((o) => o.hash));
    for (const o of [...big, ...small]) expect(Buffer.from(got.get(o.hash) ?? []).equals(Buffer.from(o.data))).toBe(true);
    // The main connection still takes write transactions after the thread's.
    await backend.transaction(async (tx) => tx.bumpGcEpoch());
    await backend.close();

    const again = await openSqlite(path);
    expect((await again.hasObjects(big.map((o) => o.hash))).size).toBe(big.length);
    expect(await again.countObjects()).toBe(big.length + small.length);
    await again.close();
  });
});
