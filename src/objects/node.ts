// The byte formats of tree objects. Every object starts with a kind character; kinds that
// point at other objects put their child list as one JSON line right after it, so gc and
// fsck find children without reading bodies.
//
//   j<refs>\n<json>   a JSON value; each ref [hash, ...path] names a child object whose
//                     value goes at `path` inside <json> (which holds a 0 there)
//   a<entries>\n      a long array: entries [hash, itemCount] of chunks, in order; each
//                     chunk is a `j` node holding an array or another `a` node
//   b<bytes>          a file's bytes (or one chunk of a big file)
//   f<entries>\n      a big file: entries [hash, byteCount] of its `b` chunks, in order
//   d<entries>\n      a directory: entries [hash, name, type, mode, size, target?] sorted by
//                     name; type f (file: hash of its b or f node), l (symlink: target),
//                     d (directory), x (too large, not stored), u (unreadable, not stored)
import { CorruptObjectError } from "../core/errors.js";
import type { Hash } from "./hash.js";

export type PathKey = string | number;
/** A child of a `j` node: its hash, then the path from the node's value to where it goes. */
export type JsonRef = [Hash, ...PathKey[]];
export type ChunkEntry = [Hash, number];

export type DirEntryType = "f" | "l" | "d" | "x" | "u";
/** [hash ("" when nothing is stored), name, type, mode, size, symlink target?] */
export type DirEntry = [Hash, string, DirEntryType, number, number] | [Hash, string, DirEntryType, number, number, string];

export type TreeNode =
  | { readonly kind: "j"; readonly refs: readonly JsonRef[]; readonly body: string }
  | { readonly kind: "a"; readonly entries: readonly ChunkEntry[] }
  | { readonly kind: "b"; readonly data: Buffer }
  | { readonly kind: "f"; readonly entries: readonly ChunkEntry[] }
  | { readonly kind: "d"; readonly entries: readonly DirEntry[] };

const J = 0x6a; // j
const A = 0x61; // a
const B = 0x62; // b
const F = 0x66; // f
const D = 0x64; // d
const NL = 0x0a;

export function fileChunksText(entries: readonly ChunkEntry[]): string {
  return "f" + JSON.stringify(entries) + "\n";
}

export function dirNodeText(entries: readonly DirEntry[]): string {
  return "d" + JSON.stringify(entries) + "\n";
}

/** The raw bytes of a blob node holding `data`. */
export function blobRaw(data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(data.length + 1);
  out[0] = B;
  out.set(data, 1);
  return out;
}

export function jsonNodeText(refs: readonly JsonRef[], body: string): string {
  return "j" + (refs.length === 0 ? "[]" : JSON.stringify(refs)) + "\n" + body;
}

export function arrayNodeText(entries: readonly ChunkEntry[]): string {
  return "a" + JSON.stringify(entries) + "\n";
}

/**
 * Parses raw (already verified) object bytes. `trusted` skips checking the child list's
 * shape, for nodes this process has just encoded itself.
 */
export function parseNode(hash: Hash, raw: Buffer, trusted = false): TreeNode {
  const kind = raw[0];
  if (kind === B) return { kind: "b", data: raw.subarray(1) };
  const nl = raw.indexOf(NL);
  if (nl < 0) throw new CorruptObjectError(hash, "it has no header line");
  let header: unknown;
  try {
    header = JSON.parse(raw.toString("utf8", 1, nl));
  } catch (e) {
    throw new CorruptObjectError(hash, "its header is not JSON", e);
  }
  if (!Array.isArray(header)) throw new CorruptObjectError(hash, "its header is not a list");
  switch (kind) {
    case J:
      if (!trusted) for (const r of header) if (!isRef(r)) throw new CorruptObjectError(hash, "it has a malformed child reference");
      return { kind: "j", refs: header as JsonRef[], body: raw.toString("utf8", nl + 1) };
    case A:
      if (!trusted) for (const e of header) if (!isEntry(e)) throw new CorruptObjectError(hash, "it has a malformed chunk entry");
      return { kind: "a", entries: header as ChunkEntry[] };
    case F:
      if (!trusted) for (const e of header) if (!isEntry(e)) throw new CorruptObjectError(hash, "it has a malformed chunk entry");
      return { kind: "f", entries: header as ChunkEntry[] };
    case D:
      if (!trusted) for (const e of header) if (!isDirEntry(e)) throw new CorruptObjectError(hash, "it has a malformed directory entry");
      return { kind: "d", entries: header as DirEntry[] };
    default:
      throw new CorruptObjectError(hash, `unknown object kind ${JSON.stringify(String.fromCharCode(kind ?? 0))}`);
  }
}

/** The hashes a node points at. */
export function childHashes(node: TreeNode): Hash[] {
  switch (node.kind) {
    case "j":
      return node.refs.map((r) => r[0]);
    case "a":
    case "f":
      return node.entries.map((e) => e[0]);
    case "b":
      return [];
    case "d":
      return node.entries.filter((e) => e[0] !== "").map((e) => e[0]);
  }
}

const HASH = /^[0-9a-f]{64}$/;

function isRef(r: unknown): boolean {
  if (!Array.isArray(r) || r.length < 2 || typeof r[0] !== "string" || !HASH.test(r[0])) return false;
  for (let i = 1; i < r.length; i++) {
    const k: unknown = r[i];
    if (typeof k !== "string" && !(typeof k === "number" && Number.isInteger(k) && k >= 0)) return false;
  }
  return true;
}

function isEntry(e: unknown): boolean {
  return (
    Array.isArray(e) && e.length === 2 && typeof e[0] === "string" && HASH.test(e[0]) &&
    typeof e[1] === "number" && Number.isInteger(e[1]) && e[1] >= 0
  );
}

function isDirEntry(e: unknown): boolean {
  if (!Array.isArray(e) || e.length < 5 || e.length > 6) return false;
  const [hash, name, type, mode, size, target] = e as unknown[];
  if (typeof hash !== "string" || (hash !== "" && !HASH.test(hash))) return false;
  if (typeof name !== "string" || typeof type !== "string" || !"fldxu".includes(type) || type.length !== 1) return false;
  if (typeof mode !== "number" || typeof size !== "number" || !Number.isInteger(size) || size < 0) return false;
  if ((type === "f" || type === "d") && hash === "") return false;
  return target === undefined || typeof target === "string";
}
