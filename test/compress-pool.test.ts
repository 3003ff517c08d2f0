// Big batches are compressed on a worker thread. The worker runs compiled JavaScript, so this
// test drives the built module (the test command builds dist/ first).
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256 } from "../src/objects/hash.js";
import { unpack } from "../src/objects/codec.js";

interface PoolModule {
  packMany(items: readonly Uint8Array[], effort: "best" | "fast"): Promise<Uint8Array[]>;
}

describe("the compression pool", () => {
  it("packs a batch over 1 MB on the worker into objects that unpack to the same bytes", async () => {
    const pool = (await import(new URL("../dist/objects/compress-pool.js", import.meta.url).href)) as PoolModule;
    const items = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0 ? Buffer.from(`text ${i} `.repeat(5_000)) : randomBytes(30_000),
    );
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
