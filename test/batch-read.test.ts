// Reading a batch of objects at once (objects/batch-read.ts: one inflater, shared buffers, one
// string per buffer) must give exactly the nodes, and the errors, that reading each object on
// its own gives (`parseNode(hash, unpack(hash, stored))`).
import { randomBytes } from "node:crypto";
import { deflateRawSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { CorruptObjectError } from "../src/index.js";
import { readNodes, sharedTextOf, useSharedInflater } from "../src/objects/batch-read.js";
import { pack, unpack } from "../src/objects/codec.js";
import { sha256, type Hash } from "../src/objects/hash.js";
import { arrayNodeText, blobRaw, dirNodeText, fileChunksText, jsonNodeText, parseNode, type TreeNode } from "../src/objects/node.js";

interface Obj {
  readonly hash: Hash;
  readonly stored: Uint8Array;
}

const stored = (raw: Buffer, how: "pack" | "raw" = "pack"): Obj => ({
  hash: sha256(raw),
  stored: how === "raw" ? Buffer.concat([Buffer.from([0]), raw]) : pack(raw),
});
const text = (s: string): Buffer => Buffer.from(s, "utf8");
const h = (n: number): Hash => sha256(`child ${n}`);

/** Objects of every kind and shape a batch meets. */
function sampleObjects(): Obj[] {
  const leaf = (i: number) => JSON.stringify({ id: `h${i}`, statement: `hypothesis ${i} `.repeat(40), confidence: i / 10, tags: ["a", "b"] });
  const out: Obj[] = [];
  for (let i = 0; i < 30; i++) out.push(stored(text(jsonNodeText([], leaf(i)))));
  // With children, with keys that need escaping, with non-ASCII text (one per buffer or mixed).
  out.push(
    stored(
      text(
        jsonNodeText(
          [
            [h(1), "a", 0],
            [h(2), "b"],
          ],
          JSON.stringify({ a: [0, 1], b: 0, 'q"uote': "x".repeat(200) }),
        ),
      ),
    ),
  );
  out.push(stored(text(jsonNodeText([], JSON.stringify({ note: "naïve café – 日本語 🙂 ".repeat(20) })))));
  out.push(stored(text(jsonNodeText([[h(3), "ключ"]], JSON.stringify({ ключ: 0, pad: "é".repeat(300) })))));
  out.push(
    stored(text(jsonNodeText([], JSON.stringify({ __proto__: 1, constructor: "x".repeat(150) }).replace('"constructor"', '"__proto__":{},"constructor"')))),
  );
  // Small enough to be stored raw, and stored raw on purpose though compressible.
  out.push(stored(text(jsonNodeText([], "1"))));
  out.push(stored(text(jsonNodeText([], JSON.stringify("y".repeat(500)))), "raw"));
  // List nodes.
  out.push(stored(text(arrayNodeText(Array.from({ length: 40 }, (_, i) => [h(i), i + 1] as [Hash, number])))));
  out.push(
    stored(
      text(
        fileChunksText([
          [h(7), 100],
          [h(8), 200],
        ]),
      ),
    ),
  );
  out.push(
    stored(
      text(
        dirNodeText([
          [h(9), "a.txt", "f", 0o644, 12],
          ["", "big", "x", 0o644, 1e9],
        ]),
      ),
    ),
  );
  // Files' bytes: text, incompressible, empty.
  out.push(stored(blobRaw(text("file text\n".repeat(300)))));
  out.push(stored(blobRaw(randomBytes(5000))));
  out.push(stored(blobRaw(Buffer.alloc(0))));
  // Stored bigger than a batch shares (unpacked on its own), and inflating far past one buffer.
  out.push(stored(blobRaw(randomBytes(100_000))));
  out.push(stored(text(jsonNodeText([], JSON.stringify("z".repeat(3_000_000))))));
  out.push(stored(text(jsonNodeText([], JSON.stringify(Array.from({ length: 40_000 }, (_, i) => `item ${i}`))))));
  // Bytes after the end of a deflate stream are ignored, by inflateRawSync as here.
  const trailing = text(jsonNodeText([], JSON.stringify("trailing ".repeat(30))));
  out.push({ hash: sha256(trailing), stored: Buffer.concat([pack(trailing), Buffer.from("junk after the stream")]) });
  for (let i = 30; i < 60; i++) out.push(stored(text(jsonNodeText([], leaf(i)))));
  return out;
}

const oneByOne = (objs: readonly Obj[]): TreeNode[] => objs.map((o) => parseNode(o.hash, unpack(o.hash, o.stored)));
const batched = (objs: readonly Obj[]): TreeNode[] =>
  readNodes(
    objs.map((o) => o.hash),
    objs.map((o) => o.stored),
  );

/** A node as plain data, its bytes as hex: toEqual then compares what it holds. */
function plain(node: TreeNode): unknown {
  return node.kind === "b" ? { kind: "b", data: node.data.toString("hex") } : { ...node };
}

/** The error a call throws, or undefined. */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

afterEach(() => useSharedInflater(true));

describe("reading objects in a batch", () => {
  it("gives the nodes reading each object on its own gives, for every kind and shape", () => {
    const objs = sampleObjects();
    expect(batched(objs).map(plain)).toEqual(oneByOne(objs).map(plain));
  });

  it("gives the same nodes whatever the batch is cut into, and without the shared inflater", () => {
    const objs = sampleObjects();
    const want = oneByOne(objs).map(plain);
    for (const size of [1, 2, 7, 64]) {
      const got: TreeNode[] = [];
      for (let i = 0; i < objs.length; i += size) got.push(...batched(objs.slice(i, i + size)));
      expect(got.map(plain)).toEqual(want);
    }
    useSharedInflater(false);
    expect(batched(objs).map(plain)).toEqual(want);
  });

  it("gives the same strings as decoding each node: bodies parse to the same values", () => {
    const objs = sampleObjects();
    const a = batched(objs);
    const b = oneByOne(objs);
    for (let i = 0; i < a.length; i++) {
      const x = a[i] as TreeNode;
      const y = b[i] as TreeNode;
      if (x.kind === "j" && y.kind === "j") expect(JSON.parse(x.body)).toEqual(JSON.parse(y.body));
    }
  });

  it("shares one text among the ASCII JSON nodes of a buffer, and none with files or lists", () => {
    const objs = sampleObjects();
    const nodes = batched(objs);
    const shared = nodes.map(sharedTextOf);
    // The 60 small leaves are ASCII JSON nodes inflated side by side.
    const leaves = [...shared.slice(0, 30), ...shared.slice(-30)];
    expect(leaves.every((s) => s !== undefined)).toBe(true);
    expect(new Set(leaves).size).toBeLessThan(10);
    nodes.forEach((n, i) => {
      if (n.kind !== "j") expect(shared[i]).toBeUndefined();
    });
    // A file's bytes are its own: not a view of a buffer other objects were inflated into.
    for (const n of nodes) if (n.kind === "b" && n.data.length > 0) expect(n.data.buffer.byteLength).toBeLessThan(n.data.length + 16 * 1024);
  });

  it("reports damage as unpack does, naming the object, and reads the next batch as before", () => {
    const good = sampleObjects().slice(0, 10);
    const raw = text(jsonNodeText([], JSON.stringify({ x: "damage ".repeat(100) })));
    const hash = sha256(raw);
    const z = deflateRawSync(raw);
    const flipped = Uint8Array.from(pack(raw));
    flipped[5] = (flipped[5] ?? 0) ^ 0xff;
    const cases: Uint8Array[] = [
      flipped,
      Buffer.concat([Buffer.from([1]), z.subarray(0, z.length >> 1)]), // cut short
      Buffer.concat([Buffer.from([1]), deflateRawSync(text(jsonNodeText([], '"other"')))]), // another object's bytes
      Buffer.concat([Buffer.from([7]), z]), // unknown codec
      new Uint8Array(0),
      Buffer.from([1]), // a codec byte and nothing to inflate
    ];
    for (const bad of cases) {
      const expected = thrown(() => unpack(hash, bad));
      expect(expected).toBeInstanceOf(CorruptObjectError);
      const objs = [...good.slice(0, 5), { hash, stored: bad }, ...good.slice(5)];
      const got = thrown(() => batched(objs));
      expect(got).toBeInstanceOf(CorruptObjectError);
      expect((got as Error).message).toBe((expected as Error).message);
      // A new shared inflater takes over from the one the damage broke.
      const after = batched(good);
      expect(after.map(plain)).toEqual(oneByOne(good).map(plain));
      expect(sharedTextOf(after[0] as TreeNode)).toBeDefined();
    }
  });

  it("reports the first damaged object of a batch, whatever is wrong with the ones after it", () => {
    const good = sampleObjects().slice(0, 6);
    // Stored intact (its hash is right) but not a node: found only when parsed.
    const unparsable = stored(text("j[not a list\n{}"));
    const wrongHash = { hash: sha256("something else"), stored: pack(text(jsonNodeText([], '"x"'))) };
    // Big enough to fill the buffer the batch is inflated into, so that the objects before it are parsed mid-stream.
    const huge = stored(text(jsonNodeText([], JSON.stringify("h".repeat(3_000_000)))));
    const cases: [Obj[], Obj][] = [
      [[...good.slice(0, 3), unparsable, wrongHash, ...good.slice(3)], unparsable],
      [[...good.slice(0, 3), wrongHash, unparsable, ...good.slice(3)], wrongHash],
      [[...good.slice(0, 3), unparsable, huge, ...good.slice(3)], unparsable],
    ];
    for (const [objs, first] of cases) {
      const expected = thrown(() => oneByOne(objs));
      expect((expected as Error).message).toContain(first.hash);
      const got = thrown(() => batched(objs));
      expect(got).toBeInstanceOf(CorruptObjectError);
      expect((got as Error).message).toBe((expected as Error).message);
      // The shared inflater is ready for the next batch, even after giving up mid-stream.
      const after = batched([...good, huge]);
      expect(after.map(plain)).toEqual(oneByOne([...good, huge]).map(plain));
      expect(sharedTextOf(after[0] as TreeNode)).toBeDefined();
    }
  });

  it("stops at the first damaged object of a batch", () => {
    const objs = sampleObjects().slice(0, 4);
    const raw = text(jsonNodeText([], '"second"'));
    const bad = { hash: sha256(raw), stored: Buffer.concat([Buffer.from([1]), deflateRawSync(text('j[]\n"third"'))]) };
    const e = thrown(() => batched([objs[0] as Obj, bad, ...objs.slice(1)]));
    expect(e).toBeInstanceOf(CorruptObjectError);
    expect((e as CorruptObjectError).message).toContain(bad.hash);
  });
});
