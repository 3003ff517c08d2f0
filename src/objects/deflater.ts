// Deflating many small objects one after another with one zlib stream per setting, reset
// between objects, instead of a new stream per object as `deflateRawSync` makes: its
// constructor (a Transform, zlib's allocation and zeroing of the window and hash tables,
// the buffers, a finalizer) costs as much as deflating a 1 KB node, and a checkpoint packs
// a few such nodes. The stream is driven as zlib's own sync functions drive it
// (`_handle.writeSync`, `_writeState`, as batch-read.ts's inflater does), found by feature
// test and tried on a known input first; where that is missing or fails, the caller falls
// back to `deflateRawSync`.
import { constants as zlibConstants, createDeflateRaw, inflateRawSync } from "node:zlib";
import type { ZlibHandle, ZlibInternals } from "./zlib-handle.js";

export interface DeflateOptions {
  readonly level: number;
  readonly windowBits: number;
  readonly memLevel: number;
}

const PROBE = Buffer.from("forge: one deflater for many objects, one deflater for many objects");

class Deflater {
  readonly #stream: ZlibInternals;
  readonly #handle: ZlibHandle;
  readonly #state: Uint32Array;

  private constructor(stream: ZlibInternals, handle: ZlibHandle, state: Uint32Array) {
    this.#stream = stream;
    this.#handle = handle;
    this.#state = state;
  }

  static create(options: DeflateOptions): Deflater | undefined {
    try {
      const stream = createDeflateRaw(options) as unknown as ZlibInternals;
      const handle = stream._handle;
      const state = stream._writeState;
      if (!handle || typeof handle.writeSync !== "function" || typeof handle.reset !== "function") return undefined;
      if (!(state instanceof Uint32Array) || state.length < 2) return undefined;
      // A failed write destroys the stream, which then emits "error": nobody else listens.
      stream.on("error", () => {});
      const d = new Deflater(stream, handle, state);
      const probe = d.deflate(PROBE, PROBE.length);
      if (probe === null || !d.usable || !inflateRawSync(probe).equals(PROBE)) return undefined;
      return d;
    } catch {
      return undefined;
    }
  }

  get usable(): boolean {
    return !this.#stream.destroyed && this.#stream._handle === this.#handle;
  }

  /**
   * `raw` deflated whole after `head` bytes left for the caller, when that takes fewer than
   * `room` bytes; else null (the stream is left ready for the next object either way).
   * Throws if zlib fails (the deflater is then unusable).
   */
  deflate(raw: Uint8Array, room: number, head = 0): Buffer | null {
    const out = Buffer.allocUnsafe(head + room);
    try {
      // zlib's constants read here, not when the module loads: a command that writes nothing never loads zlib.
      this.#handle.writeSync(zlibConstants.Z_FINISH, raw, 0, raw.length, out, head, room);
      if (!this.usable) throw new Error("zlib failed to deflate");
      const availOut = this.#state[0] as number;
      const availIn = this.#state[1] as number;
      // Room left over means the stream ended inside it: every byte of input went in.
      return availOut > 0 && availIn === 0 ? out.subarray(0, head + room - availOut) : null;
    } finally {
      if (this.usable) this.#handle.reset();
    }
  }
}

/** One deflater per setting, made on first use; null where one cannot work. */
const deflaters = new Map<string, Deflater | null>();

/**
 * `raw` as `deflateRawSync(raw, options)` would give it, if that is shorter than `room`
 * bytes, after `head` bytes the caller fills (a codec byte); null if it is not. Undefined
 * when no reusable deflater works here: the caller deflates the ordinary way.
 */
export function deflateShort(raw: Uint8Array, options: DeflateOptions, room: number, head = 0): Buffer | null | undefined {
  const key = `${options.level}/${options.windowBits}/${options.memLevel}`;
  let d = deflaters.get(key);
  if (d === undefined || (d !== null && !d.usable)) deflaters.set(key, (d = Deflater.create(options) ?? null));
  if (d === null || room <= 0) return undefined;
  try {
    return d.deflate(raw, room, head);
  } catch {
    deflaters.delete(key);
    return undefined;
  }
}

/** For tests: forget the deflaters (the next call makes them again). */
export function resetDeflaters(): void {
  deflaters.clear();
}
