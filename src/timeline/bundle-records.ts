// The records of a bundle, read from their source without ever holding it whole.
//
//   "FORGE-BUNDLE 1\n", then records: kind (1 byte) · length (u32 BE) · payload
//     M  the manifest (JSON)
//     O  an object: 32-byte hash, then its stored bytes (codec byte + body)
//     E  the end: SHA-256 of every byte before this record
//
// Pass 1 (`scanBundle`) reads every record once: it checks the structure and the end
// checksum, and verifies each object — its hash through a bounded inflate, its kind's size
// limits, its format — keeping only its offset and a few facts. Pass 2 (`storedObjects`)
// reads the objects back in batches to write them.
import { createHash, hash as oneShot } from "node:crypto";
import { InvalidBundleError, isForgeError } from "../core/errors.js";
import type { StoredObject } from "../backends/backend.js";
import { unpackUntrusted } from "../objects/codec.js";
import type { Hash } from "../objects/hash.js";
import { formatBytes, MAX_MANIFEST_BYTES, MAX_OBJECT_BYTES } from "../objects/limits.js";
import { checkJsonNode, parseNode, type TreeNode } from "../objects/node.js";
import { SequentialReader, type ByteSource } from "./bundle-source.js";
import { factsOf, forEachEdge, type NodeFacts, type Role, type TreeGraph } from "./bundle-trees.js";

export const MAGIC = Buffer.from("FORGE-BUNDLE 1\n");

const M = 0x4d;
const O = 0x4f;
const E = 0x45;
/** An object record: its 32-byte hash, a codec byte, and a body at most as long as the object (stored bodies never outgrow their raw bytes). */
const MIN_OBJECT_RECORD = 33;
const MAX_OBJECT_RECORD = 33 + MAX_OBJECT_BYTES;

/** What pass 1 keeps of a bundle. */
export interface ScannedBundle {
  readonly manifest: Buffer;
  /** Byte offset of the manifest's record, for messages. */
  readonly manifestAt: number;
  readonly objects: ObjectTable;
}

/** Pass 1: reads and checks every record; throws InvalidBundleError on the first thing wrong. */
export async function scanBundle(source: ByteSource): Promise<ScannedBundle> {
  const { size } = source;
  const reader = new SequentialReader(source);
  if (size < MAGIC.length || !(await reader.bytes(0, MAGIC.length)).equals(MAGIC)) {
    throw new InvalidBundleError("it does not start with the Forge bundle header");
  }
  const checksum = createHash("sha256").update(MAGIC);
  const objects = new ObjectTable();
  let manifest: { bytes: Buffer; at: number } | undefined;
  // An object found bad is reported once the checksum is known: a file damaged in transit
  // is named as such, not as whichever object the damage happened to hit.
  let objectError: InvalidBundleError | undefined;
  let pos = MAGIC.length;
  for (;;) {
    if (pos === size) throw new InvalidBundleError("it is truncated: the end record is missing");
    if (pos + 5 > size) throw new InvalidBundleError(`it is truncated at byte ${pos}: a record header needs 5 bytes, ${size - pos} remain`);
    const head = await reader.bytes(pos, 5);
    const kind = head[0] as number;
    const len = head.readUInt32BE(1);
    const start = pos + 5;
    if (kind !== M && kind !== O && kind !== E) throw new InvalidBundleError(`unknown record kind ${showByte(kind)} at byte ${pos}`);
    if (start + len > size) {
      throw new InvalidBundleError(`it is truncated: the record at byte ${pos} says it holds ${len} bytes, but only ${size - start} remain`);
    }
    if (kind === E) {
      if (len !== 32) throw new InvalidBundleError(`its end record at byte ${pos} holds ${len} bytes, not a 32-byte checksum`);
      if (!(await reader.bytes(start, 32)).equals(checksum.digest())) {
        throw new InvalidBundleError("its checksum does not match its content (the file was changed or damaged)");
      }
      if (start + 32 !== size) throw new InvalidBundleError(`it has ${size - start - 32} bytes after its end record`);
      break;
    }
    if (kind === M) {
      if (manifest) throw new InvalidBundleError(`it has a second manifest, at byte ${pos} (the first is at byte ${manifest.at})`);
      if (len > MAX_MANIFEST_BYTES) {
        throw new InvalidBundleError(
          `its manifest at byte ${pos} is ${formatBytes(len)}, more than the ${formatBytes(MAX_MANIFEST_BYTES)} a manifest may have`,
        );
      }
    } else {
      if (len < MIN_OBJECT_RECORD) {
        throw new InvalidBundleError(`the object record at byte ${pos} holds ${len} bytes, fewer than the ${MIN_OBJECT_RECORD} of a hash and a codec byte`);
      }
      if (len > MAX_OBJECT_RECORD) {
        throw new InvalidBundleError(
          `the object record at byte ${pos} holds ${formatBytes(len)}, more than any object may take (${formatBytes(MAX_OBJECT_BYTES)} and its hash)`,
        );
      }
    }
    const payload = await reader.bytes(start, len);
    checksum.update(head).update(payload);
    if (kind === M) manifest = { bytes: payload, at: pos };
    else if (!objectError) {
      try {
        objects.verify(payload, start + 32);
      } catch (e) {
        if (!isForgeError(e)) throw e;
        objectError = new InvalidBundleError(`the object record at byte ${pos}: ${e.message}`, e);
      }
    }
    pos = start + len;
  }
  if (objectError) throw objectError;
  if (!manifest) throw new InvalidBundleError("it has no manifest");
  return { manifest: manifest.bytes, manifestAt: manifest.at, objects };
}

const BATCH_OBJECTS = 500;
const BATCH_BYTES = 16 * 1024 * 1024;

/**
 * Pass 2: the bundle's objects (each once) in batches of stored bytes, read back from the
 * source. Each must be byte for byte what pass 1 verified: a file changed in between is
 * refused, not half-trusted.
 */
export async function* storedObjects(source: ByteSource, table: ObjectTable): AsyncGenerator<StoredObject[]> {
  const reader = new SequentialReader(source);
  let batch: StoredObject[] = [];
  let bytes = 0;
  for (let n = 0; n < table.records.length; n++) {
    const i = table.records[n] as number;
    const hash = table.hashes[i] as Hash;
    const data = await reader.bytes(table.offset[i] as number, table.length[i] as number);
    if (!oneShot("sha256", data, "buffer").equals(table.digest(n))) {
      throw new InvalidBundleError(`the file changed while it was being imported: object ${hash} is not what was checked`);
    }
    batch.push({ hash, data });
    bytes += data.length;
    if (batch.length >= BATCH_OBJECTS || bytes >= BATCH_BYTES) {
      yield batch;
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * What pass 1 keeps of each object: where its stored bytes are, a digest of them, its kind,
 * one number of facts and its references with what they expect — in flat arrays indexed by
 * the order hashes were met (as a record or as a reference).
 */
export class ObjectTable implements TreeGraph {
  readonly #index = new Map<Hash, number>();
  readonly hashes: Hash[] = [];
  /** Byte offset of the stored bytes (after the hash); -1 for a hash only referred to. */
  readonly offset: number[] = [];
  readonly length: number[] = [];
  /** The kind's character code; 0 for a hash only referred to. */
  readonly kind: number[] = [];
  readonly fact: number[] = [];
  readonly edgeStart: number[] = [];
  readonly edgeEnd: number[] = [];
  readonly edgeTo: number[] = [];
  readonly edgeRole: Role[] = [];
  readonly edgeSize: number[] = [];
  /** Objects in the bundle, first occurrence each, in file order. */
  readonly records: number[] = [];
  #digests = Buffer.alloc(32 * 256);

  /** Verifies an object record's payload (hash · stored bytes) and keeps its facts; a repeated object is skipped. */
  verify(payload: Buffer, storedAt: number): void {
    const hash = payload.toString("hex", 0, 32);
    const i = this.#indexOf(hash);
    if (this.kind[i] !== 0) return;
    const stored = payload.subarray(32);
    const node = verifyObject(hash, stored);
    const facts = factsOf(node);
    this.offset[i] = storedAt;
    this.length[i] = stored.length;
    this.kind[i] = facts.kind;
    this.fact[i] = facts.fact;
    this.edgeStart[i] = this.edgeTo.length;
    forEachEdge(node, (to, role, size) => {
      this.edgeTo.push(this.#indexOf(to));
      this.edgeRole.push(role);
      this.edgeSize.push(size);
    });
    this.edgeEnd[i] = this.edgeTo.length;
    const n = this.records.length;
    if ((n + 1) * 32 > this.#digests.length) {
      const bigger = Buffer.alloc(this.#digests.length * 2);
      this.#digests.copy(bigger);
      this.#digests = bigger;
    }
    oneShot("sha256", stored, "buffer").copy(this.#digests, n * 32);
    this.records.push(i);
  }

  /** How many distinct objects the bundle holds. */
  get size(): number {
    return this.records.length;
  }

  /** The digest of the stored bytes of the `n`th object of `records`. */
  digest(n: number): Buffer {
    return this.#digests.subarray(n * 32, n * 32 + 32);
  }

  facts(hash: Hash): NodeFacts | undefined {
    const i = this.#index.get(hash);
    if (i === undefined || this.kind[i] === 0) return undefined;
    return { kind: this.kind[i] as number, fact: this.fact[i] as number };
  }

  edges(hash: Hash, edge: (to: Hash, role: Role, size: number) => void): void {
    const i = this.#index.get(hash);
    if (i === undefined || this.kind[i] === 0) return;
    for (let e = this.edgeStart[i] as number; e < (this.edgeEnd[i] as number); e++) {
      edge(this.hashes[this.edgeTo[e] as number] as Hash, this.edgeRole[e] as Role, this.edgeSize[e] as number);
    }
  }

  #indexOf(hash: Hash): number {
    let i = this.#index.get(hash);
    if (i === undefined) {
      i = this.hashes.length;
      this.#index.set(hash, i);
      this.hashes.push(hash);
      this.offset.push(-1);
      this.length.push(0);
      this.kind.push(0);
      this.fact.push(0);
      this.edgeStart.push(0);
      this.edgeEnd.push(0);
    }
    return i;
  }
}

/** A byte as a printable character in quotes, or in hex. */
function showByte(b: number): string {
  return b >= 0x21 && b < 0x7f ? JSON.stringify(String.fromCharCode(b)) : `0x${b.toString(16).padStart(2, "0")}`;
}

/** Verifies an object from outside: bounded inflate and hash, size limits, format, and a `j` node's references. */
function verifyObject(hash: Hash, stored: Buffer): TreeNode {
  const node = parseNode(hash, unpackUntrusted(hash, stored));
  if (node.kind === "j") checkJsonNode(hash, node);
  return node;
}
