// readAndPack reads every file into one reused buffer (blob-read.ts ReadScratch): what it
// returns must never be a view of that buffer, or the next file's bytes would change an
// object already handed out. Files of every kind of size, in an order where each read
// overwrites the last, must give the objects a fresh read of each file gives.
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readBlob, type ReadScratch } from "../src/objects/blob-read.js";
import { unpack } from "../src/objects/codec.js";
import { blobObjects } from "../src/objects/file-tree.js";
import { readAndPack } from "../src/objects/read-pack.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folder(): string {
  const d = mkdtempSync(join(tmpdir(), "forge-read-pack-"));
  dirs.push(d);
  return d;
}

const text = (n: number, seed: string) => `${seed}: the quick brown fox jumps over the lazy dog\n`.repeat(Math.ceil(n / 40)).slice(0, n);

describe("readAndPack with one read buffer", () => {
  it("gives each file's own objects, whatever was read after it", () => {
    const dir = folder();
    // Incompressible ones are stored raw, compressible ones deflated; big ones are chunked
    // (over 1 MiB), and one is bigger than the read buffer may grow (4 MiB).
    const contents = [
      randomBytes(70_000),
      Buffer.from(text(50, "tiny")),
      randomBytes(3000),
      Buffer.from(""),
      Buffer.from(text(5000, "small")),
      Buffer.concat([randomBytes(1_500_000), Buffer.from(text(600_000, "big"))]),
      randomBytes(40),
      Buffer.from(text(5 * 1024 * 1024, "huge")),
      randomBytes(200),
      Buffer.from(text(70_000, "medium")),
    ];
    const paths = contents.map((c, i) => {
      const p = join(dir, `f${i}`);
      writeFileSync(p, c);
      return p;
    });
    const got = readAndPack(
      paths,
      contents.map((c) => c.length),
    );
    const stored = new Map(got.objects.map((o) => [o.hash, o.data]));
    for (const [i, c] of contents.entries()) {
      const fresh = blobObjects(Buffer.concat([Buffer.from("b"), c]));
      expect(got.files[i]).toEqual({ hash: fresh.hash, size: c.length });
      for (const [h, raw] of fresh.objects) {
        const data = stored.get(h);
        expect(data, `object ${h} of f${i}`).toBeDefined();
        expect(unpack(h, data as Uint8Array).equals(raw)).toBe(true);
      }
    }
    // Nothing more than those objects, each once.
    expect(got.objects.length).toBe(new Set(got.objects.map((o) => o.hash)).size);
  });

  it("reads a file to its end when it grew or shrank since the walk", () => {
    const dir = folder();
    const p = join(dir, "f");
    writeFileSync(p, text(10_000, "grown"));
    const scratch: ReadScratch = { buf: undefined };
    appendFileSync(p, text(200_000, "more")); // past the buffer's first size: it grows
    expect(readBlob(p, 10_000, scratch).subarray(1).equals(readFileSync(p))).toBe(true);
    truncateSync(p, 123);
    expect(readBlob(p, 10_000, scratch).subarray(1).equals(readFileSync(p))).toBe(true);
    writeFileSync(p, "");
    expect(readBlob(p, 0, scratch).toString()).toBe("b");
  });
});
