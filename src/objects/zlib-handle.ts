// The inside of a Node zlib stream that its own sync functions (`inflateRawSync`,
// `deflateRawSync`) drive: `_handle.writeSync` and `_writeState`. Not a public API: the modules
// that use it (batch-read.ts's inflater, deflater.ts) find it by feature test, try it on a
// known input before first use, and fall back to the public functions without it.
export interface ZlibHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  reset(): void;
}

/** A zlib stream as those modules see it. */
export interface ZlibInternals {
  readonly _handle?: ZlibHandle | null;
  readonly _writeState?: unknown;
  readonly destroyed: boolean;
  on(event: "error", listener: () => void): unknown;
}
