// Reading many stored objects at once (a level of a tree). Besides JSON.parse, a cold read
// spends its time on costs that come per object rather than per byte; here each is paid
// once per batch:
// - inflating: `inflateRawSync` builds a stream object (a Transform, its buffers and state)
//   for every call, ~15 µs, more than inflating a 3 KB node takes. One inflater is kept and
//   reset between objects, which are inflated side by side into one buffer;
// - decoding text: a string per node is a young object the scavenger copies again and again
//   while the state is being parsed (measured: parsing the bodies took twice as long). Each
//   time the buffer is full, its text becomes one string instead, large enough to be
//   allocated where the GC never moves it, and every node's body is a slice of it;
// - a node's child list: most nodes are leaves, whose list `[]` needs no JSON.parse.
// Every object is still checked against its hash, and damage is reported as `unpack` reports it.
import { isAscii } from "node:buffer";
import { constants as zlibConstants, createInflateRaw } from "node:zlib";
import { CorruptObjectError } from "../core/errors.js";
import { unpack } from "./codec.js";
import { sha256, type Hash } from "./hash.js";
import { checkedRefs, parseNode, type TreeNode } from "./node.js";
import type { ZlibHandle, ZlibInternals } from "./zlib-handle.js";

const DEFLATE = 1;
const NL = 0x0a;
const J = 0x6a;
const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
/** The buffer objects are inflated into, side by side; its text is one string above V8's large-object size. */
const SLAB_BYTES = 1024 * 1024;
/** An object starts in the buffer only with at least this much room left. */
const MIN_ROOM = 4096;
/** Objects stored bigger than this are unpacked on their own: the setup cost is nothing next to their bytes. */
const OWN_BUFFER_ABOVE = 64 * 1024;

/**
 * The text shared by the nodes decoded from one buffer. A cache that keeps any of those
 * nodes keeps the whole text alive, so it counts the text once while it keeps one of them.
 */
export interface SharedText {
  readonly size: number;
  /** How many cached nodes use it (the cache's count). */
  users: number;
}
const sharedTexts = new WeakMap<TreeNode, SharedText>();

/** The text `node`'s body is a slice of, if it is one. */
export function sharedTextOf(node: TreeNode): SharedText | undefined {
  return sharedTexts.get(node);
}

// ---------------------------------------------------------------------------------------
// One inflater for many objects. Node has no public way to run a zlib stream synchronously
// more than once; this drives the handle inside an InflateRaw as zlib's own `inflateRawSync`
// does (`_handle.writeSync`, `_writeState`), found by feature test and tried on a known
// stream before first use. Where it is missing or misbehaves, objects go to `unpack`.

/** "forge: one inflater for many objects", deflated raw: the self-test. */
const PROBE_IN = Buffer.from("4bcb2f4a4fb552c8cf4b55c8cc4bcb492c492d5248cb2f52c84dccab54c84fca4a4d2e290600", "hex");
const PROBE_OUT = "forge: one inflater for many objects";

/**
 * The buffer a batch inflates into. When it is full, the objects in it are parsed (`flush`)
 * and it is used again: a level of any size is read through one buffer of a fixed size, and
 * nothing returned refers to it (texts are copied out of it, files' bytes too).
 */
class Slab {
  buf: Buffer;
  /** Where the next object goes: the objects before it are waiting to be parsed. */
  at = 0;
  readonly #flush: () => void;

  constructor(buf: Buffer, flush: () => void) {
    this.buf = buf;
    this.#flush = flush;
  }

  /** The buffer, emptied first (its objects parsed) when little is left in it. */
  room(): Buffer {
    if (this.buf.length - this.at < MIN_ROOM) {
      this.#flush();
      this.at = 0;
    }
    return this.buf;
  }

  /**
   * The object being inflated at `start` filled the buffer: the objects before it are parsed,
   * and its `done` bytes so far move to the front, or to a buffer twice their size when they
   * would fill half of this one. Returns the buffer to go on in.
   */
  grow(start: number, done: number): Buffer {
    this.#flush();
    this.at = 0;
    if (start >= done) {
      this.buf.copyWithin(0, start, start + done);
      return this.buf;
    }
    const next = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, 2 * done + MIN_ROOM));
    this.buf.copy(next, 0, start, start + done);
    this.buf = next;
    return next;
  }
}

class Inflater {
  readonly #stream: ZlibInternals;
  readonly #handle: ZlibHandle;
  readonly #state: Uint32Array;

  private constructor(stream: ZlibInternals, handle: ZlibHandle, state: Uint32Array) {
    this.#stream = stream;
    this.#handle = handle;
    this.#state = state;
  }

  static create(): Inflater | undefined {
    try {
      const stream = createInflateRaw() as unknown as ZlibInternals;
      const handle = stream._handle;
      const state = stream._writeState;
      if (!handle || typeof handle.writeSync !== "function" || typeof handle.reset !== "function") return undefined;
      if (!(state instanceof Uint32Array) || state.length < 2) return undefined;
      // A failed write destroys the stream, which then emits "error": nobody else listens.
      stream.on("error", () => {});
      const inflater = new Inflater(stream, handle, state);
      const probe = inflater.inflate(PROBE_IN, 0, new Slab(Buffer.allocUnsafe(MIN_ROOM), () => {}));
      if (probe === undefined || probe.toString("latin1") !== PROBE_OUT || !inflater.usable) return undefined;
      return inflater;
    } catch {
      return undefined;
    }
  }

  get usable(): boolean {
    return !this.#stream.destroyed && this.#stream._handle === this.#handle;
  }

  /**
   * Inflates `input` from `from` on into `out`, after the objects already there: the bytes,
   * or undefined when zlib reported an error (this inflater is then unusable). Input past the
   * end of the stream is ignored, as `inflateRawSync` ignores it.
   */
  inflate(input: Uint8Array, from: number, out: Slab): Buffer | undefined {
    const handle = this.#handle;
    const state = this.#state;
    let inOff = from;
    let inLen = input.length - from;
    let buf = out.room();
    let start = out.at;
    let at = start;
    for (;;) {
      // The constant read here, not at load: loading zlib (and the streams under it) costs a status that reads no object ~3 ms.
      handle.writeSync(zlibConstants.Z_FINISH, input, inOff, inLen, buf, at, buf.length - at);
      if (!this.usable) return undefined;
      const availOut = state[0] as number;
      const availIn = state[1] as number;
      inOff += inLen - availIn;
      inLen = availIn;
      at = buf.length - availOut;
      if (availOut !== 0) break;
      // The buffer is full and the stream goes on. (Parsing the objects before this one may
      // find one damaged: the stream is then abandoned, and the inflater made ready again.)
      try {
        buf = out.grow(start, at - start);
      } catch (e) {
        handle.reset();
        throw e;
      }
      at -= start;
      start = 0;
    }
    handle.reset();
    out.at = at;
    return buf.subarray(start, at);
  }
}

/** The shared inflater: null before first use, undefined where it cannot work. */
let shared: Inflater | undefined | null = null;
let sharedAllowed = true;

function inflaterNow(): Inflater | undefined {
  if (!sharedAllowed) return undefined;
  if (shared === null || (shared !== undefined && !shared.usable)) shared = Inflater.create();
  return shared;
}

/** For tests: read every object through `unpack` (false), or with the shared inflater again (true). */
export function useSharedInflater(on: boolean): void {
  sharedAllowed = on;
  shared = null;
}

// ---------------------------------------------------------------------------------------

/** The buffer batches inflate into, kept for the next batch (nothing read refers to it). */
let spare: Buffer | undefined;

/**
 * Verifies and parses stored objects: `stored[i]` is what is stored under `hashes[i]`. Gives
 * the nodes `parseNode(h, unpack(h, stored))` gives one by one, and the error the first
 * damaged object among them gives.
 */
export function readNodes(hashes: readonly Hash[], stored: readonly Uint8Array[]): TreeNode[] {
  const n = hashes.length;
  const out = new Array<TreeNode>(n);
  /** Objects read but not parsed yet, in order: in the buffer (`inSlab`) or in buffers of their own. */
  const pending: number[] = [];
  const raws = new Array<Buffer | undefined>(n);
  const inSlab = new Uint8Array(n);
  const slab = new Slab(spare ?? Buffer.allocUnsafeSlow(SLAB_BYTES), () => flush());
  spare = undefined;

  /** Parses the pending objects, in order; those in the buffer get one text for all. */
  function flush(): void {
    let text: string | undefined;
    let shared: SharedText | undefined;
    for (const i of pending) {
      const h = hashes[i] as Hash;
      const raw = raws[i] as Buffer;
      raws[i] = undefined;
      if (inSlab[i] === 0) out[i] = parseNode(h, raw);
      // A file's bytes, a list, or text that is not ASCII: parsed from a copy, as nothing kept may point into the buffer.
      else if (raw[0] !== J || !isAscii(raw)) out[i] = parseNode(h, Buffer.from(raw));
      else {
        if (text === undefined) {
          text = slab.buf.toString("latin1", 0, slab.at);
          shared = { size: text.length, users: 0 };
        }
        const node = asciiJsonNode(h, raw, text, raw.byteOffset - slab.buf.byteOffset);
        sharedTexts.set(node, shared as SharedText);
        out[i] = node;
      }
    }
    pending.length = 0;
  }

  /** Damage found: the objects before it are parsed first, so that the first damaged object is the one reported. */
  function fail(e: unknown): never {
    flush();
    throw e;
  }

  let z = inflaterNow();
  for (let i = 0; i < n; i++) {
    const h = hashes[i] as Hash;
    const s = stored[i] as Uint8Array;
    let raw: Buffer | undefined;
    if (z !== undefined && s.length <= OWN_BUFFER_ABOVE && s[0] === DEFLATE) {
      raw = z.inflate(s, 1, slab);
      if (raw === undefined) z = inflaterNow();
      else {
        const actual = sha256(raw);
        if (actual !== h) fail(new CorruptObjectError(h, `its content hashes to ${actual}`));
        inSlab[i] = 1;
      }
    }
    if (raw === undefined) {
      // unpack says what is wrong (or, should plain zlib read it after all, gives its bytes).
      try {
        raw = unpack(h, s);
      } catch (e) {
        fail(e);
      }
    }
    raws[i] = raw;
    pending.push(i);
  }
  flush();
  if (slab.buf.length === SLAB_BYTES) spare = slab.buf;
  return out;
}

/** The `j` node whose ASCII bytes `raw` are `text[at, at + raw.length)`: its body is a slice of `text`. */
function asciiJsonNode(hash: Hash, raw: Buffer, text: string, at: number): TreeNode & { kind: "j" } {
  // A leaf's child list is `[]`: nothing to parse or check.
  if (raw[1] === OPEN && raw[2] === CLOSE && raw[3] === NL) return { kind: "j", refs: [], body: text.slice(at + 4, at + raw.length) };
  const nl = raw.indexOf(NL);
  if (nl < 0) throw new CorruptObjectError(hash, "it has no header line");
  return { kind: "j", refs: checkedRefs(hash, text.slice(at + 1, at + nl)), body: text.slice(at + nl + 1, at + raw.length) };
}
