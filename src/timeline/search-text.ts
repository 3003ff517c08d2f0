// What of a checkpoint is searchable text, and how it is cut into documents: every string
// value of a state node (keys are structure, not text), a workspace or run file that is UTF-8
// text of at most FILE_TEXT_LIMIT bytes without NUL, and the checkpoint's message. Strings
// that look like data (long runs without a space: base64, data URLs, minified code) are left out.
import { sha256 } from "../objects/hash.js";
import type { PathKey } from "../objects/node.js";

/** Text files larger than this are not indexed (their names still show in diffs and trees). */
export const FILE_TEXT_LIMIT = 256 * 1024;
/** A string at least this long with no whitespace is data, not text. */
const OPAQUE_LENGTH = 200;

/** A string of a node's value and where it is inside that value. */
export interface FoundString {
  readonly path: PathKey[];
  readonly text: string;
}

/** Every indexable string of a JSON value (a node's body), in document order, with its path. Iterative: states nest deeply. */
export function stringsOf(value: unknown): FoundString[] {
  const out: FoundString[] = [];
  const stack: [unknown, PathKey[]][] = [[value, []]];
  while (stack.length > 0) {
    const [v, path] = stack.pop() as [unknown, PathKey[]];
    if (typeof v === "string") {
      if (isText(v)) out.push({ path, text: v });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], [...path, i]]);
    } else if (typeof v === "object" && v !== null) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i] as string;
        stack.push([(v as Record<string, unknown>)[k], [...path, k]]);
      }
    }
  }
  return out;
}

/** Whether a string is worth indexing: it has a letter or digit, and is not a long run of data. */
function isText(s: string): boolean {
  if (s.length >= OPAQUE_LENGTH && !/\s/.test(s)) return false;
  return /[\p{L}\p{N}]/u.test(s);
}

/** A node body's searchable text: its strings, one per line (as `stringsOf` finds them, without building paths). */
export function nodeText(body: string): string {
  const out: string[] = [];
  const stack: unknown[] = [JSON.parse(body) as unknown];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") {
      if (isText(v)) out.push(v);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    } else if (typeof v === "object" && v !== null) {
      const values = Object.values(v);
      for (let i = values.length - 1; i >= 0; i--) stack.push(values[i]);
    }
  }
  return out.join("\n");
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A file's text, or null when it is binary (a NUL byte, or not UTF-8) or too large. */
export function fileText(bytes: Uint8Array): string | null {
  if (bytes.length > FILE_TEXT_LIMIT || bytes.includes(0)) return null;
  try {
    return utf8.decode(bytes);
  } catch {
    return null; // not UTF-8: a binary file, which is not indexed
  }
}

/** The key of a checkpoint message's document: messages are not objects, so their text is hashed. */
export function messageKey(message: string): string {
  return sha256(`message\n${message}`);
}
