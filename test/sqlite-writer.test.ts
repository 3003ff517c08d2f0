// Big object batches go to SQLite through a writer thread with its own connection. The
// worker runs compiled JavaScript, so this test drives the built module (the test command
// builds dist/ first).
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Backend, StoredObject } from "../src/backends/backend.js";
import { sha256 } from "../src/objects/hash.js";
import { makeTempDir, type TempDir } from "./support/temp.js";

interface SqliteModule {
  SqliteBackend: { open(path: string): Backend };
}

const dirs: TempDir[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});

async function open(path: string): Promise<Backend> {
  const mod = (await import(new URL("../dist/backends/sqlite/sqlite-backend.js", import.meta.url).href)) as SqliteModule;
  return mod.SqliteBackend.open(path);
}

function objects(n: number, size: number): StoredObject[] {
  return Array.from({ length: n }, () => {
    const data = randomBytes(size);
    return { hash: sha256(data), data };
  });
}

describe("the SQLite writer thread", () => {
  it("stores a batch over 1 MB so that the main connection reads it back, counts only new bytes, and keeps it after reopening", async () => {
    const dir = makeTempDir("sqlite-writer");
    dirs.push(dir);
    const path = join(dir.path, "forge.db");
    const backend = await open(path);
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

    const again = await open(path);
    expect((await again.hasObjects(big.map((o) => o.hash))).size).toBe(big.length);
    expect(await again.countObjects()).toBe(big.length + small.length);
    await again.close();
  });
});
