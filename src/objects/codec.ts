// How an object's bytes are stored: one codec byte, then the bytes raw or deflated.
// Reading always re-hashes the decoded bytes, so damage is reported, never returned.
import { promisify } from "node:util";
import { deflateRaw, deflateRawSync, inflateRawSync } from "node:zlib";
import { CorruptObjectError } from "../core/errors.js";
import { sha256, type Hash } from "./hash.js";

const RAW = 0;
const DEFLATE = 1;
/** Below this size compression rarely pays for its header. */
const MIN_COMPRESS = 96;

/** The stored form of `raw`: deflated when that is at least 1/8 smaller. */
export function pack(raw: Uint8Array): Uint8Array {
  if (raw.length >= MIN_COMPRESS) {
    const z = deflateRawSync(raw);
    if (z.length + (raw.length >> 3) < raw.length) return withCodec(DEFLATE, z);
  }
  return withCodec(RAW, raw);
}

const deflateRawAsync = promisify(deflateRaw);
/** Above this size compression goes to libuv's thread pool, off the main thread. */
const ASYNC_COMPRESS = 32 * 1024;

/** `pack`, with big objects compressed on the thread pool so several compress at once. */
export async function packAsync(raw: Uint8Array): Promise<Uint8Array> {
  if (raw.length < ASYNC_COMPRESS) return pack(raw);
  const z = await deflateRawAsync(raw);
  return z.length + (raw.length >> 3) < raw.length ? withCodec(DEFLATE, z) : withCodec(RAW, raw);
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
