// How an object's bytes are stored: one codec byte, then the bytes raw or deflated.
// Reading always re-hashes the decoded bytes, so damage is reported, never returned.
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { CorruptObjectError } from "../core/errors.js";
import { sha256, type Hash } from "./hash.js";

const RAW = 0;
const DEFLATE = 1;
/** Below this size compression rarely pays for its header. */
const MIN_COMPRESS = 96;

/**
 * How hard to compress: "best" (zlib's default level 6) for the small JSON nodes of states,
 * "fast" (level 1, as git does for loose objects) for file contents, where level 6 costs
 * 2–3× the time for ~7 % fewer bytes and a first snapshot of a big tree waits on it.
 */
export type Effort = "best" | "fast";
const LEVEL: Record<Effort, number> = { best: 6, fast: 1 };

/**
 * zlib options for an input of `size` bytes: a window no bigger than the input. Setting up
 * a full 32 KB window and hash table (~256 KB) costs more than compressing a small object;
 * the stream stays readable by an ordinary inflate, whose window is as big as any.
 */
function options(size: number, effort: Effort): { level: number; windowBits: number; memLevel: number } {
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(size + 1))));
  return { level: LEVEL[effort], windowBits, memLevel: Math.min(8, Math.max(2, windowBits - 6)) };
}

/** The stored form of `raw`: deflated when that is at least 1/8 smaller. */
export function pack(raw: Uint8Array, effort: Effort = "best"): Uint8Array {
  if (raw.length >= MIN_COMPRESS) {
    const z = deflateRawSync(raw, options(raw.length, effort));
    if (z.length + (raw.length >> 3) < raw.length) return withCodec(DEFLATE, z);
  }
  return withCodec(RAW, raw);
}

function withCodec(codec: number, body: Uint8Array): Uint8Array {
  const out = Buffer.allocUnsafe(body.length + 1);
  out[0] = codec;
  out.set(body, 1);
  return out;
}

/** The raw bytes of a stored object, checked against the hash it is stored under. */
export function unpack(hash: Hash, stored: Uint8Array): Buffer {
  if (stored.length === 0) throw new CorruptObjectError(hash, "it is empty");
  const body = Buffer.from(stored.buffer, stored.byteOffset + 1, stored.length - 1);
  let raw: Buffer;
  switch (stored[0]) {
    case RAW:
      raw = body;
      break;
    case DEFLATE:
      try {
        raw = inflateRawSync(body);
      } catch (e) {
        throw new CorruptObjectError(hash, "its compressed bytes do not inflate", e);
      }
      break;
    default:
      throw new CorruptObjectError(hash, `unknown codec byte ${stored[0]}`);
  }
  const actual = sha256(raw);
  if (actual !== hash) throw new CorruptObjectError(hash, `its content hashes to ${actual}`);
  return raw;
}
