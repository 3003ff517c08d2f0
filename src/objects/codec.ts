// How an object's bytes are stored: one codec byte, then the bytes raw or deflated.
// Reading always re-hashes the decoded bytes, so damage is reported, never returned.
// Bytes from outside (a bundle) are inflated only as far as a limit allows: a small stored
// object must not become a huge allocation.
import { createHash } from "node:crypto";
import { constants as Z, createInflateRaw, deflateRawSync, inflateRawSync } from "node:zlib";
import { CorruptObjectError } from "../core/errors.js";
import { deflateShort } from "./deflater.js";
import { sha256, type Hash } from "./hash.js";
import { formatBytes, maxRawBytes, nodeLimitProblem, ObjectTooLargeError } from "./limits.js";

const RAW = 0;
const DEFLATE = 1;
/** Below this size compression rarely pays for its header. */
const MIN_COMPRESS = 96;
/** Objects up to this size are deflated into Node's buffer pool (Buffer.poolSize / 2). */
const SMALL = 4096;

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
    const opts = options(raw.length, effort);
    // Deflated after its codec byte into a buffer just short enough: an object that does not fit is stored raw.
    const short = deflateShort(raw, opts, raw.length - (raw.length >> 3), 1);
    if (short === null) return withCodec(RAW, raw);
    if (short !== undefined) {
      short[0] = DEFLATE;
      // A small one sits in Node's shared pool as any small buffer does; a big one gets a buffer of its size, not the room's.
      return raw.length <= SMALL ? short : Buffer.from(short);
    }
    const z = deflateRawSync(raw, opts);
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

/**
 * The raw bytes of a stored object, checked against the hash it is stored under. With a
 * `limit`, an object of more raw bytes is an ObjectTooLargeError, found without inflating
 * past the limit; without one (the user's own store) any size is read.
 */
export function unpack(hash: Hash, stored: Uint8Array, limit?: number): Buffer {
  if (stored.length === 0) throw new CorruptObjectError(hash, "it is empty");
  const body = Buffer.from(stored.buffer, stored.byteOffset + 1, stored.length - 1);
  let raw: Buffer;
  switch (stored[0]) {
    case RAW:
      raw = body;
      if (limit !== undefined && raw.length > limit) throw tooLarge(hash, limit);
      break;
    case DEFLATE:
      try {
        raw = inflateRawSync(body, limit === undefined ? {} : { maxOutputLength: limit });
      } catch (e) {
        if (limit !== undefined && (e as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(hash, limit);
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

/**
 * `unpack` for bytes from outside the store: the limit is the one for the object's kind
 * (learnt from its first inflated bytes), and every limit of `nodeLimitProblem` holds.
 */
export function unpackUntrusted(hash: Hash, stored: Uint8Array): Buffer {
  const raw = unpack(hash, stored, maxRawBytes(storedKind(stored)));
  const problem = nodeLimitProblem(raw);
  if (problem !== null) throw new ObjectTooLargeError(hash, problem, maxRawBytes(raw[0]));
  return raw;
}

/** The kind byte of a stored object without inflating it whole (undefined if it cannot be told). */
export function storedKind(stored: Uint8Array): number | undefined {
  if (stored[0] === RAW) return stored[1];
  if (stored[0] !== DEFLATE) return undefined;
  // The first KiB of a deflate stream inflates to at most ~1 MiB. A prefix that does not
  // inflate leaves the kind unknown: the general limit applies, and the whole inflate
  // reports the damage.
  try {
    return inflateRawSync(stored.subarray(1, 1025), { finishFlush: Z.Z_SYNC_FLUSH })[0];
  } catch {
    return undefined;
  }
}

function tooLarge(hash: Hash, limit: number): ObjectTooLargeError {
  return new ObjectTooLargeError(
    hash,
    `it holds more than ${formatBytes(limit)}, the most ${limit === maxRawBytes(0x62) ? "a file's bytes or chunk" : "any object"} may hold`,
    limit,
  );
}

/** What streaming an object's verification found: its raw size and its first line (or first `keep` bytes). */
export interface StreamedObject {
  readonly size: number;
  readonly head: Buffer;
}

/**
 * Verifies a stored object too large to inflate in memory: its inflated bytes go through
 * SHA-256 as they come and are dropped, except its start up to the first newline (at most
 * `keep` bytes), where a node lists its children.
 */
export async function verifyStreaming(hash: Hash, stored: Uint8Array, keep: number): Promise<StreamedObject> {
  if (stored.length === 0) throw new CorruptObjectError(hash, "it is empty");
  const body = Buffer.from(stored.buffer, stored.byteOffset + 1, stored.length - 1);
  if (stored[0] === RAW) {
    const actual = sha256(body);
    if (actual !== hash) throw new CorruptObjectError(hash, `its content hashes to ${actual}`);
    const nl = body.indexOf(0x0a);
    return { size: body.length, head: body.subarray(0, nl >= 0 && nl < keep ? nl + 1 : Math.min(keep, body.length)) };
  }
  if (stored[0] !== DEFLATE) throw new CorruptObjectError(hash, `unknown codec byte ${stored[0]}`);
  const digest = createHash("sha256");
  const head: Buffer[] = [];
  let headBytes = 0;
  let headDone = false;
  let size = 0;
  await new Promise<void>((resolve, reject) => {
    const z = createInflateRaw();
    z.on("data", (chunk: Buffer) => {
      size += chunk.length;
      digest.update(chunk);
      if (headDone) return;
      const nl = chunk.indexOf(0x0a);
      const take = Math.min(nl >= 0 ? nl + 1 : chunk.length, keep - headBytes);
      head.push(Buffer.from(chunk.subarray(0, take)));
      headBytes += take;
      headDone = nl >= 0 || headBytes >= keep;
    });
    z.on("end", resolve);
    z.on("error", (e) => reject(new CorruptObjectError(hash, "its compressed bytes do not inflate", e)));
    z.end(body);
  });
  const actual = digest.digest("hex");
  if (actual !== hash) throw new CorruptObjectError(hash, `its content hashes to ${actual}`);
  return { size, head: Buffer.concat(head) };
}
