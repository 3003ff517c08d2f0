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
import { setOwn } from "../core/own.js";
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
      if (!trusted) checkRefs(hash, header);
      return { kind: "j", refs: header as JsonRef[], body: raw.toString("utf8", nl + 1) };
    case A:
      if (!trusted) for (const e of header) if (!isEntry(e)) throw new CorruptObjectError(hash, "it has a malformed chunk entry");
      return { kind: "a", entries: header as ChunkEntry[] };
    case F:
      if (!trusted) for (const e of header) if (!isEntry(e)) throw new CorruptObjectError(hash, "it has a malformed chunk entry");
      return { kind: "f", entries: header as ChunkEntry[] };
    case D:
      if (!trusted) checkDirEntries(hash, header);
      return { kind: "d", entries: header as DirEntry[] };
    default:
      throw new CorruptObjectError(hash, `unknown object kind ${JSON.stringify(String.fromCharCode(kind ?? 0))}`);
  }
}

/** A `j` node's child list from its header line's text (without the kind byte), checked. */
export function checkedRefs(hash: Hash, header: string): JsonRef[] {
  let refs: unknown;
  try {
    refs = JSON.parse(header);
  } catch (e) {
    throw new CorruptObjectError(hash, "its header is not JSON", e);
  }
  if (!Array.isArray(refs)) throw new CorruptObjectError(hash, "its header is not a list");
  checkRefs(hash, refs);
  return refs as JsonRef[];
}

function checkRefs(hash: Hash, refs: readonly unknown[]): void {
  for (const r of refs) if (!isRef(r)) throw new CorruptObjectError(hash, "it has a malformed child reference");
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
  return Array.isArray(e) && e.length === 2 && typeof e[0] === "string" && HASH.test(e[0]) && typeof e[1] === "number" && Number.isInteger(e[1]) && e[1] >= 0;
}

/**
 * A name a folder entry may have: one path component that cannot climb (`.`, `..`), be empty,
 * or hold a separator or NUL. Every file system Forge restores onto accepts such a name as one
 * entry of the folder it is written in.
 */
export function isEntryName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !name.includes("/") && !name.includes("\0");
}

/**
 * A directory's entries must be well formed and name distinct, safe entries in the order the
 * encoder writes them (by name, in code-unit order): two entries of one name — a folder and
 * a symlink, say — would make a restore replace one by the other. The error names the entry.
 */
function checkDirEntries(hash: Hash, entries: readonly unknown[]): void {
  let previous: string | undefined;
  for (const e of entries) {
    const why = dirEntryProblem(e);
    if (why !== null) throw new CorruptObjectError(hash, why);
    const name = (e as DirEntry)[1];
    if (previous !== undefined && !(previous < name)) {
      throw new CorruptObjectError(
        hash,
        previous === name ? `its folder lists ${JSON.stringify(name)} twice` : `its folder lists ${JSON.stringify(name)} out of order`,
      );
    }
    previous = name;
  }
}

function dirEntryProblem(e: unknown): string | null {
  if (!Array.isArray(e) || e.length < 5 || e.length > 6) return "it has a malformed directory entry";
  const [hash, name, type, mode, size, target] = e as unknown[];
  if (typeof name !== "string") return "it has a directory entry without a name";
  // The entry's name is put in the message only when there is one (a folder of 1,000 files is checked at every read).
  const why = entryFieldProblem(hash, name, type, mode, size, target);
  return why === null ? null : `its directory entry ${JSON.stringify(name)} ${why}`;
}

function entryFieldProblem(hash: unknown, name: string, type: unknown, mode: unknown, size: unknown, target: unknown): string | null {
  if (!isEntryName(name)) return 'is not a safe name (empty, "." or "..", or holding "/" or NUL)';
  if (typeof hash !== "string" || (hash !== "" && !HASH.test(hash))) return "has a malformed hash";
  if (typeof type !== "string" || type.length !== 1 || !"fldxu".includes(type)) return "has an unknown type";
  if (typeof mode !== "number" || !Number.isInteger(mode) || mode < 0 || mode > 0o7777) return "has a malformed mode";
  if (typeof size !== "number" || !Number.isInteger(size) || size < 0) return "has a malformed size";
  if ((type === "f" || type === "d") && hash === "") return "has no hash";
  if (type === "l" ? typeof target !== "string" || target.includes("\0") : target !== undefined) return "has a malformed symlink target";
  return null;
}

/**
 * Puts the children of a `j` node into `value`, its parsed body: `child(hash)` goes where
 * each reference's path leads. Paths are followed through own properties only — an object's
 * own key, an array's index within its length — and must end at the placeholder 0 the
 * encoder left there. A path that leads anywhere else (through an inherited "__proto__" or
 * "constructor", past an array's end, onto a value already placed) is damage or a crafted
 * tree, never a way to reach a prototype: CorruptObjectError, naming the path.
 */
export function placeChildren(hash: Hash, value: unknown, refs: readonly JsonRef[], child: (hash: Hash) => unknown): void {
  for (const ref of refs) {
    let target = value;
    const last = ref.length - 1;
    for (let i = 1; ; i++) {
      const key = ref[i] as PathKey;
      const ok =
        typeof target === "object" &&
        target !== null &&
        (Array.isArray(target) ? typeof key === "number" && key < target.length : typeof key === "string" && Object.hasOwn(target, key));
      if (!ok) throw new CorruptObjectError(hash, `its child reference ${JSON.stringify(ref.slice(1))} leads to nothing in its body`);
      const at = target as Record<PathKey, unknown>;
      if (i === last) {
        if (at[key] !== 0) throw new CorruptObjectError(hash, `its child reference ${JSON.stringify(ref.slice(1))} does not end at a placeholder`);
        setOwn(at, key, child(ref[0]));
        break;
      }
      target = at[key];
    }
  }
}

const PLACED = Symbol("placed");

/**
 * Checks a `j` node read from an untrusted source (a bundle, fsck) without assembling it:
 * its body is JSON and every child reference leads, through own properties, to a distinct
 * placeholder in it.
 */
export function checkJsonNode(hash: Hash, node: TreeNode & { kind: "j" }): void {
  let body: unknown;
  try {
    body = JSON.parse(node.body);
  } catch (e) {
    throw new CorruptObjectError(hash, "its body is not JSON", e);
  }
  placeChildren(hash, body, node.refs, () => PLACED);
}
