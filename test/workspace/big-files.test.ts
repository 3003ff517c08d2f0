// Files over BIG_FILE (1 MB) are cut into content-defined chunks: a small edit in the middle
// of a 5 MB file costs a few chunks, not the file, and either version restores exactly.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIG_FILE } from "../../src/domains/workspace/file-tree.js";
import { MAX_CHUNK } from "../../src/domains/workspace/cdc.js";
import { noise, put, workspaceBench } from "./support.js";

const MB = 1024 * 1024;

describe("big files", () => {
  it("stores a small edit in the middle of a 5 MB file as a few new chunks, and restores both versions byte for byte", async () => {
    const { root, ws, store } = await workspaceBench();
    const v1 = noise(5 * MB, 12345);
    put(root, "data/big.bin", v1);
    put(root, "small.txt", "small\n");
    const first = await ws.snapshot("v1");
    // Random bytes do not compress: the first snapshot stores about the whole file.
    expect(first.newBytes).toBeGreaterThan(5 * MB);

    // Insert 37 bytes and overwrite 100 more in the middle: everything after shifts, which
    // fixed-size blocks could not absorb but content-defined boundaries do.
    const mid = 2.5 * MB;
    const v2 = Buffer.concat([v1.subarray(0, mid), Buffer.from("x".repeat(37)), Buffer.alloc(100, 0xab), v1.subarray(mid + 100)]);
    expect(v2.length).toBe(v1.length + 37);
    put(root, "data/big.bin", v2);
    const second = await ws.snapshot("v2");
    expect(second.changes.map((c) => [c.path, c.kind])).toEqual([["data/big.bin", "modified"]]);
    // A couple of chunks around the edit (each at most MAX_CHUNK) plus the chunk list and directories.
    expect(second.newBytes).toBeLessThan(3 * MAX_CHUNK + 64 * 1024);
    expect(second.newBytes).toBeLessThan(v2.length / 8);

    // The file is stored as an `f` node listing several chunks.
    const tree = (await ws.treeOf(second.snapshot.id)).tree;
    const info = tree.files.get("data/big.bin");
    expect(info?.size).toBe(v2.length);
    const node = await store.objects.getNode(info?.hash ?? "");
    expect(node.kind).toBe("f");
    if (node.kind === "f") {
      expect(node.entries.length).toBeGreaterThan(5 * MB / MAX_CHUNK - 1);
      expect(node.entries.reduce((n, [, size]) => n + size, 0)).toBe(v2.length);
    }

    await ws.restore(first.snapshot.id);
    expect(readFileSync(join(root, "data/big.bin")).equals(v1)).toBe(true);
    await ws.restore(second.snapshot.id);
    expect(readFileSync(join(root, "data/big.bin")).equals(v2)).toBe(true);
  });

  it("keeps a file of exactly BIG_FILE bytes as one blob and one byte more as chunks, both restoring exactly", async () => {
    const { root, ws, store } = await workspaceBench();
    const exact = noise(BIG_FILE, 1);
    const over = noise(BIG_FILE + 1, 2);
    put(root, "exact.bin", exact);
    put(root, "over.bin", over);
    const snap = await ws.snapshot("edges");
    const tree = (await ws.treeOf(snap.snapshot.id)).tree;
    expect((await store.objects.getNode(tree.files.get("exact.bin")?.hash ?? "")).kind).toBe("b");
    expect((await store.objects.getNode(tree.files.get("over.bin")?.hash ?? "")).kind).toBe("f");
    put(root, "exact.bin", "gone");
    put(root, "over.bin", "gone too");
    await ws.restore(snap.snapshot.id);
    expect(readFileSync(join(root, "exact.bin")).equals(exact)).toBe(true);
    expect(readFileSync(join(root, "over.bin")).equals(over)).toBe(true);
  });
});
