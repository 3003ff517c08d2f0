// Where a bundle's bytes come from when it is imported: a file, read in positioned pieces
// (never whole), or bytes a library caller already holds — behind one small interface.
import { open, type FileHandle } from "node:fs/promises";
import { ForgeError, InvalidBundleError } from "../core/errors.js";

export interface ByteSource {
  /** How many bytes there are. */
  readonly size: number;
  /** Exactly `length` bytes from `position` (the caller keeps within `size`). */
  read(position: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

/** Bytes in memory, handed out as views. */
export function bufferSource(bytes: Uint8Array): ByteSource {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  return {
    size: buf.length,
    read: async (position, length) => buf.subarray(position, position + length),
    close: async () => {},
  };
}

/** A file, opened now; INVALID_ARGUMENT if it cannot be read or is not a regular file. */
export async function fileSource(path: string): Promise<ByteSource> {
  let fh: FileHandle;
  let size: number;
  try {
    fh = await open(path, "r");
  } catch (e) {
    throw new ForgeError("INVALID_ARGUMENT", `cannot read ${path}: ${(e as Error).message}`, { cause: e });
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new ForgeError("INVALID_ARGUMENT", `cannot read ${path}: it is not a file`);
    size = st.size;
  } catch (e) {
    await fh.close();
    throw e;
  }
  return {
    size,
    async read(position, length) {
      const out = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await fh.read(out, done, length - done, position + done);
        if (bytesRead === 0) throw new InvalidBundleError(`the file changed while it was being read: it ends before byte ${position + length}`);
        done += bytesRead;
      }
      return out;
    },
    close: () => fh.close(),
  };
}

const WINDOW = 1024 * 1024;

/**
 * Reads a source front to back in 1 MiB windows, so a bundle of many small records costs one
 * read per MiB, not two per record. A returned buffer stays valid after later reads.
 */
export class SequentialReader {
  readonly #source: ByteSource;
  #window: Buffer = Buffer.alloc(0);
  #at = 0;

  constructor(source: ByteSource) {
    this.#source = source;
  }

  async bytes(position: number, length: number): Promise<Buffer> {
    const from = position - this.#at;
    if (from >= 0 && from + length <= this.#window.length) return this.#window.subarray(from, from + length);
    if (length > WINDOW) return this.#source.read(position, length);
    this.#window = await this.#source.read(position, Math.max(length, Math.min(WINDOW, this.#source.size - position)));
    this.#at = position;
    return this.#window.subarray(0, length);
  }
}
