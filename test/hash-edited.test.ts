// sha256Edited: the hash of bytes with edits put over them, without making the edited copy
// (the tree cache's checksum after a patch in place, tree-cache.ts).
import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Edited } from "../src/objects/hash.js";

const plain = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

describe("sha256Edited", () => {
  it("is the hash of the edited copy from the given offset on, for random edits", () => {
    for (let round = 0; round < 50; round++) {
      const data = randomBytes(1 + ((round * 7919) % 20000));
      const from = round % 3 === 0 ? 0 : Math.min(data.length, 48);
      const copy = Buffer.from(data);
      const edits: [number, Buffer][] = [];
      for (let at = from + (round % 5); at < data.length; at += 1 + ((at * 31 + round) % 997)) {
        const len = Math.min(data.length - at, 1 + (at % 40));
        const bytes = randomBytes(len);
        edits.push([at, bytes]);
        copy.set(bytes, at);
        at += len;
      }
      expect(sha256Edited(data, from, edits)).toBe(plain(copy.subarray(from)));
    }
  });

  it("refuses edits out of order or overlapping", () => {
    const data = Buffer.alloc(100);
    expect(() =>
      sha256Edited(data, 0, [
        [50, Buffer.alloc(4)],
        [52, Buffer.alloc(4)],
      ]),
    ).toThrow(RangeError);
    expect(() => sha256Edited(data, 10, [[5, Buffer.alloc(1)]])).toThrow(RangeError);
  });
});
