// pack() deflates with one reused zlib stream per setting (objects/deflater.ts): what it
// stores must read back as the same bytes, and it must decide raw or deflated exactly as
// deflating with a fresh stream does (deflated only when at least an eighth smaller) — for
// inputs of every size, interleaved across settings, and after the deflaters are made anew.
import { randomBytes } from "node:crypto";
import { deflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { pack, unpack } from "../src/objects/codec.js";
import { deflateShort, resetDeflaters } from "../src/objects/deflater.js";
import { sha256 } from "../src/objects/hash.js";

/** The decision pack() made before it reused streams. */
function freshDecision(raw: Buffer, level: number): "raw" | "deflated" {
  if (raw.length < 96) return "raw";
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(raw.length + 1))));
  const z = deflateRawSync(raw, { level, windowBits, memLevel: Math.min(8, Math.max(2, windowBits - 6)) });
  return z.length + (raw.length >> 3) < raw.length ? "deflated" : "raw";
}

function inputs(): Buffer[] {
  const text = (n: number) => Buffer.from(`{"type":"ai","content":"${"the quick brown fox jumps over the lazy dog ".repeat(Math.ceil(n / 44)).slice(0, n)}"}`);
  const out: Buffer[] = [];
  for (const n of [0, 1, 95, 96, 97, 200, 1_000, 4_000, 70_000, 300_000]) {
    out.push(text(n), randomBytes(n));
    // Half random, half repeated: near the eighth's threshold.
    out.push(Buffer.concat([randomBytes(Math.floor(n * 0.8)), Buffer.alloc(n - Math.floor(n * 0.8), 0x61)]));
  }
  // Hex hashes, as an `a` node holds them.
  out.push(Buffer.from(Array.from({ length: 60 }, () => `${randomBytes(32).toString("hex")} 4\n`).join("")));
  return out;
}

describe("pack with reused deflaters", () => {
  for (const effort of ["best", "fast"] as const) {
    it(`stores what reads back, deciding as a fresh stream does (${effort})`, () => {
      for (let round = 0; round < 3; round++) {
        if (round === 2) resetDeflaters();
        for (const raw of inputs()) {
          const stored = pack(raw, effort);
          expect(stored[0] === 1 ? "deflated" : "raw", `${raw.length} bytes`).toBe(freshDecision(raw, effort === "best" ? 6 : 1));
          expect(unpack(sha256(raw), stored).equals(raw)).toBe(true);
        }
      }
    });
  }

  it("says when the deflated bytes do not fit the room given, and leaves the stream ready", () => {
    const options = { level: 6, windowBits: 12, memLevel: 6 };
    const raw = randomBytes(2_000);
    expect(deflateShort(raw, options, 100)).toBeNull();
    const text = Buffer.from("abc ".repeat(500));
    const z = deflateShort(text, options, text.length);
    expect(z).toBeInstanceOf(Buffer);
    expect(deflateRawSync(text, options).equals(z as Buffer)).toBe(true);
  });
});
