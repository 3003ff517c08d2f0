// Taking bundles apart and putting them back together, for tests (and bench/bundle-bomb.ts)
// that craft hostile ones: records, manifests, objects, the end checksum, and a deflate bomb
// built cheaply from full-flushed segments. No test framework here.
import { createHash } from "node:crypto";
import { constants as Z, deflateRawSync, inflateRawSync } from "node:zlib";

export const MAGIC = Buffer.from("FORGE-BUNDLE 1\n");

export interface BundleRecord {
  readonly kind: string;
  /** Byte offset of the record's header. */
  readonly at: number;
  readonly payload: Buffer;
}

const sha = (b: Uint8Array): string => createHash("sha256").update(b).digest("hex");

export function record(kind: string, payload: Uint8Array): Buffer {
  const head = Buffer.alloc(5);
  head[0] = kind.charCodeAt(0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/** The records of a well-formed bundle, the end record included. */
export function records(bundle: Buffer): BundleRecord[] {
  if (!bundle.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error("not a bundle");
  const out: BundleRecord[] = [];
  for (let pos = MAGIC.length; pos + 5 <= bundle.length; ) {
    const len = bundle.readUInt32BE(pos + 1);
    out.push({ kind: String.fromCharCode(bundle[pos] as number), at: pos, payload: bundle.subarray(pos + 5, pos + 5 + len) });
    pos += 5 + len;
  }
  return out;
}

/** A manifest as JSON, loosely typed: tests change it at will. */
export interface LooseCheckpoint {
  id: string;
  seq: number;
  parentId: string | null;
  stateRoot: string;
  filesRoot: string | null;
  [key: string]: unknown;
}
export interface LooseSession {
  id: string;
  name: string;
  checkpoints: LooseCheckpoint[];
  branches: { name: string; checkpointId: string }[];
  [key: string]: unknown;
}
export interface LooseManifest {
  sessions: LooseSession[];
  [key: string]: unknown;
}

export interface Decoded {
  manifest: LooseManifest;
  /** hash → stored bytes (codec byte + body) */
  objects: Map<string, Buffer>;
}

export function decode(bundle: Buffer): Decoded {
  let manifest: LooseManifest | undefined;
  const objects = new Map<string, Buffer>();
  for (const r of records(bundle)) {
    if (r.kind === "M") manifest = JSON.parse(r.payload.toString("utf8")) as LooseManifest;
    else if (r.kind === "O") objects.set(r.payload.toString("hex", 0, 32), Buffer.from(r.payload.subarray(32)));
  }
  if (!manifest) throw new Error("no manifest");
  return { manifest, objects };
}

/** Manifest (object or JSON text) and objects → bundle bytes with a correct end checksum. */
export function encode(manifest: LooseManifest | string, objects: Iterable<readonly [string, Uint8Array]>): Buffer {
  const parts = [MAGIC, record("M", Buffer.from(typeof manifest === "string" ? manifest : JSON.stringify(manifest)))];
  for (const [h, stored] of objects) parts.push(record("O", Buffer.concat([Buffer.from(h, "hex"), stored])));
  return withEnd(Buffer.concat(parts));
}

/** `body` followed by an end record holding its checksum. */
export function withEnd(body: Buffer): Buffer {
  return Buffer.concat([body, record("E", createHash("sha256").update(body).digest())]);
}

/** The bundle with its end checksum made right again, if it ends in an end record. */
export function fixChecksum(bundle: Buffer): Buffer {
  const at = bundle.length - 37;
  if (at < 0 || bundle[at] !== 0x45 || bundle.readUInt32BE(at + 1) !== 32) return bundle;
  return withEnd(bundle.subarray(0, at));
}

/** Raw object bytes → [hash, stored bytes (codec 0)]. */
export function stored(raw: Uint8Array): [string, Buffer] {
  return [sha(raw), Buffer.concat([Buffer.from([0]), raw])];
}

/** The raw bytes of stored bytes. */
export function rawOf(storedBytes: Buffer): Buffer {
  return storedBytes[0] === 1 ? inflateRawSync(storedBytes.subarray(1)) : storedBytes.subarray(1);
}

export const dirText = (entries: unknown[]): Buffer => Buffer.from("d" + JSON.stringify(entries) + "\n");

/** The entries of a folder object. */
export function dirEntries(storedBytes: Buffer): unknown[][] {
  const raw = rawOf(storedBytes);
  return JSON.parse(raw.toString("utf8", 1, raw.indexOf(10))) as unknown[][];
}

export interface Bomb {
  readonly hash: string;
  /** Stored bytes: codec 1 (raw deflate) and the stream. */
  readonly stored: Buffer;
  /** Raw bytes it inflates to ("b" and the data). */
  readonly rawBytes: number;
}

/**
 * A `b` object of "b" and `mib` MiB of "~", deflated as the store does (codec 1), with its
 * true hash. Made of full-flushed 8 MiB segments, each a byte-identical deflate run, so it
 * costs two small deflates and one SHA-256 pass, not a deflate of the whole.
 */
export function bomb(mib: number): Bomb {
  const SEG = 8 << 20;
  if (mib % 8 !== 0 || mib <= 0) throw new Error("a bomb is a whole number of 8 MiB segments");
  const n = mib / 8;
  const seg = Buffer.alloc(SEG, 0x7e);
  const head = deflateRawSync(Buffer.concat([Buffer.from("b"), seg.subarray(0, SEG - 1)]), { level: 9, finishFlush: Z.Z_FULL_FLUSH });
  const mid = deflateRawSync(seg, { level: 9, finishFlush: Z.Z_FULL_FLUSH });
  const tail = deflateRawSync(Buffer.from("~"), { level: 9 });
  const h = createHash("sha256");
  h.update("b");
  h.update(seg.subarray(0, SEG - 1));
  for (let i = 1; i < n; i++) h.update(seg);
  h.update("~");
  return { hash: h.digest("hex"), stored: Buffer.concat([Buffer.from([1]), head, ...Array<Buffer>(n - 1).fill(mid), tail]), rawBytes: 1 + SEG * n };
}

/**
 * A workspace bundle with `bombed` added as one chunk of a big file "zz-large.log" in the
 * newest snapshot's root folder (the file's size as the bomb claims it).
 */
export function withBigFile(workspaceBundle: Buffer, b: Bomb): Buffer {
  const { manifest, objects } = decode(workspaceBundle);
  const all = new Map(objects);
  all.set(b.hash, b.stored);
  const add = (raw: Buffer): string => {
    const [h, s] = stored(raw);
    all.set(h, s);
    return h;
  };
  const tailChunk = add(Buffer.from("bEND\n"));
  const bigFile = add(
    Buffer.from(
      `f${JSON.stringify([
        [b.hash, b.rawBytes - 1],
        [tailChunk, 4],
      ])}\n`,
    ),
  );
  const cp = manifest.sessions[0]?.checkpoints.at(-1) as LooseCheckpoint;
  const entries = dirEntries(objects.get(cp.filesRoot as string) as Buffer);
  cp.filesRoot = add(dirText([...entries, [bigFile, "zz-large.log", "f", 0o644, b.rawBytes + 3]]));
  return encode(manifest, all);
}
