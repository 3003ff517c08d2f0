// The byte formats of tree objects. Every object starts with a kind character; kinds that
// point at other objects put their child list as one JSON line right after it, so gc and
// fsck find children without reading bodies.
//
//   j<refs>\n<json>   a JSON value; each ref [hash, ...path] names a child object whose
//                     value goes at `path` inside <json> (which holds a 0 there)
//   a<entries>\n      a long array: entries [hash, itemCount] of chunks, in order; each
//                     chunk is a `j` node holding an array or another `a` node
import { CorruptObjectError } from "../core/errors.js";
import type { Hash } from "./hash.js";

export type PathKey = string | number;
/** A child of a `j` node: its hash, then the path from the node's value to where it goes. */
export type JsonRef = [Hash, ...PathKey[]];
export type ChunkEntry = [Hash, number];

export type TreeNode =
  | { readonly kind: "j"; readonly refs: readonly JsonRef[]; readonly body: string }
  | { readonly kind: "a"; readonly entries: readonly ChunkEntry[] };

const J = 0x6a; // j
const A = 0x61; // a
const NL = 0x0a;

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
      return node.entries.map((e) => e[0]);
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
