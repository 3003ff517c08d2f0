// How big the things Forge writes may be, in one place. Writers refuse to go past these
// bounds (so an export always re-imports) and every reader of untrusted bytes — a bundle
// above all — checks them before it allocates, so a small file cannot become a big one.
// The user's own store is read as it is: objects written before these limits stay readable.
import { CorruptObjectError, ForgeError } from "../core/errors.js";
import type { Hash } from "./hash.js";
import { jsonShape, JsonShapeError } from "./json-shape.js";
import type { PathKey } from "./node.js";
import { formatPath } from "./value-memo.js";

const MiB = 1024 * 1024;

/** The most raw bytes any object may hold. */
export const MAX_OBJECT_BYTES = 64 * MiB;
/**
 * The most raw bytes of a `b` node: "b" and a file's bytes. Files above 1 MiB are cut into
 * content-defined chunks of at most 256 KiB (run data above 64 KiB), as they have been
 * since the first version.
 */
export const MAX_BLOB_BYTES = MiB + 1;
/**
 * The most bytes of a node's child list (its first line: all of an `a`, `f` or `d` node,
 * the references of a `j` node). Parsing a list costs memory per entry; 16 MiB is a folder
 * of ~170,000 entries or a file of ~14 GB in average chunks.
 */
export const MAX_LIST_BYTES = 16 * MiB;
/**
 * The most JSON values (containers and primitives, not counting keys) in one `j` node's
 * body. Parsing costs up to ~200 bytes of memory per value whatever the text's size, so a
 * body is bounded by this as well as by its bytes. Arrays are chunked and sub-values above
 * 2 KB split off, so only an object with more than a million keys of its own reaches it.
 */
export const MAX_JSON_VALUES = 1_000_000;

/**
 * A bundle's manifest: its bytes, its JSON values and its nesting (metadata is stored as JSON
 * text). A checkpoint costs the manifest ~25 values and ~500 bytes, so one bundle carries
 * some 40,000 checkpoints; parsing a million values costs ~200 MB at most.
 */
export const MAX_MANIFEST_BYTES = 32 * MiB;
export const MAX_MANIFEST_VALUES = 1_000_000;
export const MAX_MANIFEST_DEPTH = 1000;

const NL = 0x0a;
const B = 0x62;
const J = 0x6a;

/** The most raw bytes an object of kind `kind` (its first byte) may hold. */
export function maxRawBytes(kind: number | undefined): number {
  return kind === B ? MAX_BLOB_BYTES : MAX_OBJECT_BYTES;
}

/** Why raw object bytes break a limit, or null: what every writer and every bundle reader asks. */
export function objectLimitProblem(raw: Uint8Array): string | null {
  const kind = raw[0];
  const max = maxRawBytes(kind);
  if (raw.length > max)
    return `it is ${formatBytes(raw.length)}, more than the ${formatBytes(max)} ${kind === B ? "a file's bytes or chunk" : "any object"} may hold`;
  if (kind === B) return null;
  const nl = raw.indexOf(NL);
  const list = nl < 0 ? raw.length : nl;
  if (list > MAX_LIST_BYTES) return `its child list is ${formatBytes(list)}, more than the ${formatBytes(MAX_LIST_BYTES)} a node may list`;
  return null;
}

/**
 * `objectLimitProblem`, and for a `j` node whose body could hold too many values, their
 * count (a body of fewer bytes than the limit cannot). Its JSON is not otherwise checked.
 */
export function nodeLimitProblem(raw: Uint8Array): string | null {
  const problem = objectLimitProblem(raw);
  if (problem !== null || raw[0] !== J) return problem;
  const body = raw.indexOf(NL) + 1;
  if (body === 0 || raw.length - body <= MAX_JSON_VALUES) return null;
  try {
    jsonShape(raw, body, raw.length, { maxValues: MAX_JSON_VALUES, maxDepth: Infinity });
  } catch (e) {
    if (!(e instanceof JsonShapeError)) throw e;
    if (e.kind === "limit") return `its body ${e.why.replace(/^it /, "")}, the most one node may hold`;
  }
  return null;
}

/**
 * The error for a state whose tree would hold a node past a limit, naming where in the state
 * it is: the deepest value whose JSON text is too big, or the object with the most keys of
 * its own (the encoder never splits an object's keys, only its big values).
 */
export function stateTooBig(value: unknown, raw: Uint8Array, problem: string): ForgeError {
  const bytes = raw.length > MAX_OBJECT_BYTES;
  const path = bytes ? deepestOver(value, MAX_OBJECT_BYTES) : mostKeys(value);
  const why = bytes
    ? `its JSON would make one node of ${formatBytes(raw.length)}, more than the ${formatBytes(MAX_OBJECT_BYTES)} any object may hold`
    : `the object's own keys and short values would make one node whose ${problem.replace(/^its /, "")}`;
  return new ForgeError("INVALID_STATE", `state at ${formatPath(path)} is too big to store: ${why}`, {
    hint: "keep big data (file contents, long logs) in files, or split it into several values; arrays are chunked, but one string or one object's own keys are not",
    data: { path },
  });
}

/** The path of the deepest value whose JSON text (as bytes) is longer than `limit`. */
function deepestOver(value: unknown, limit: number): PathKey[] {
  const sizes = new Map<object, number>();
  const size = (v: unknown): number => {
    if (typeof v === "string") return Buffer.byteLength(JSON.stringify(v));
    if (typeof v !== "object" || v === null) return String(v).length;
    let n = 2;
    if (Array.isArray(v)) for (const x of v) n += size(x) + 1;
    else for (const [k, x] of Object.entries(v)) if (x !== undefined) n += Buffer.byteLength(JSON.stringify(k)) + size(x) + 2;
    sizes.set(v, n);
    return n;
  };
  size(value);
  const path: PathKey[] = [];
  let at = value;
  for (;;) {
    if (typeof at !== "object" || at === null) return path;
    let next: [PathKey, unknown] | undefined;
    for (const [k, x] of Array.isArray(at) ? at.entries() : Object.entries(at)) {
      const n = typeof x === "string" ? Buffer.byteLength(JSON.stringify(x)) : typeof x === "object" && x !== null ? (sizes.get(x) ?? 0) : 0;
      if (n > limit) next = [k, x];
    }
    if (!next) return path;
    path.push(next[0]);
    at = next[1];
  }
}

/** The path of the object with the most own keys in `value`. */
function mostKeys(value: unknown): PathKey[] {
  let best: PathKey[] = [];
  let most = -1;
  const walk = (v: unknown, path: PathKey[]): void => {
    if (typeof v !== "object" || v === null) return;
    const entries: [PathKey, unknown][] = Array.isArray(v) ? [...v.entries()] : Object.entries(v);
    if (!Array.isArray(v) && entries.length > most) (most = entries.length), (best = path);
    for (const [k, x] of entries) walk(x, [...path, k]);
  };
  walk(value, []);
  return best;
}

/** An object bigger than a limit: reported as corrupt by readers of untrusted bytes, and named. */
export class ObjectTooLargeError extends CorruptObjectError {
  readonly limit: number;
  constructor(hash: Hash, why: string, limit: number) {
    super(hash, why);
    this.limit = limit;
  }
}

/** 1 MiB + 1 B, 64 MiB, 3.2 KiB: exact for the limits, readable for sizes. */
export function formatBytes(n: number): string {
  if (n === MAX_BLOB_BYTES) return "1 MiB + 1 byte";
  if (n < 1024) return `${n} bytes`;
  if (n < MiB) return `${trim(n / 1024)} KiB`;
  if (n < 1024 * MiB) return `${trim(n / MiB)} MiB`;
  return `${trim(n / (1024 * MiB))} GiB`;
}

function trim(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}
