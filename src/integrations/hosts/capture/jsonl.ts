// Incremental reading of a JSONL file a host appends to while Forge reads it: complete lines
// only (a last line without its newline is still being written and is read next time), from
// the byte offset a cursor kept, with the file's identity checked so a replaced or shortened
// file is read again from its start instead of from the middle of something else.
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { ForgeError } from "../../../core/errors.js";
import { fileErrorReason } from "../../../core/files.js";

/** One complete line and where it starts (bytes). */
export interface JsonlLine {
  readonly offset: number;
  readonly text: string;
}

/** Where a JSONL read got to: the cursor fields this module owns. */
export interface JsonlMark {
  /** Bytes read: just after the last complete line. */
  readonly offset: number;
  /** The file's inode when it was read (a new file at the path has another). */
  readonly ino: number;
  /** A hash of the file's first bytes (up to `offset`, at most HEAD_BYTES): a rewrite in place changes it. */
  readonly head: string;
}

/** What one read gives: the new complete lines and the mark to read from next. */
export interface JsonlChunk extends JsonlMark {
  /** The complete, non-blank lines after the mark, in order. */
  readonly lines: readonly JsonlLine[];
  /** True when the mark did not fit the file (replaced, shortened, rewritten) and it was read from its start. */
  readonly reset: boolean;
}

const HEAD_BYTES = 4096;
const LF = 0x0a;

/** The JSONL fields of a transcript cursor, or null when it has none (read from the start). */
export function jsonlMark(cursor: Readonly<Record<string, unknown>> | null): JsonlMark | null {
  if (cursor === null) return null;
  const { offset, ino, head } = cursor as { offset?: unknown; ino?: unknown; head?: unknown };
  if (typeof offset !== "number" || typeof ino !== "number" || typeof head !== "string" || offset < 0 || !Number.isInteger(offset)) return null;
  return { offset, ino, head };
}

/** The complete lines of `path` after `mark` (all of them when `mark` is null or no longer fits the file). */
export function readJsonl(path: string, mark: JsonlMark | null, label: string): JsonlChunk {
  const fd = openTranscript(path, label);
  try {
    const stat = fstatSync(fd);
    const size = stat.size;
    const ino = Number(stat.ino);
    let start = 0;
    let reset = false;
    if (mark !== null) {
      const fits = mark.ino === ino && mark.offset <= size && headHash(fd, mark.offset) === mark.head;
      if (fits) start = mark.offset;
      else reset = true;
    }
    const buf = readRange(fd, start, size);
    const lastLf = buf.lastIndexOf(LF);
    const end = lastLf < 0 ? start : start + lastLf + 1;
    const lines = splitLines(buf.subarray(0, lastLf < 0 ? 0 : lastLf + 1), start);
    return { lines, offset: end, ino, head: headHash(fd, end), reset };
  } finally {
    closeSync(fd);
  }
}

/**
 * The same read over bytes already in memory (a compressed transcript, decompressed whole):
 * the complete lines after `mark`, all of them when the mark does not fit `data` (`ino` is the
 * file's, to tell a replaced file).
 */
export function readJsonlBytes(data: Buffer, ino: number, mark: JsonlMark | null): JsonlChunk {
  const hash = (upTo: number) =>
    createHash("sha256")
      .update(data.subarray(0, Math.min(upTo, HEAD_BYTES)))
      .digest("hex")
      .slice(0, 16);
  let start = 0;
  let reset = false;
  if (mark !== null) {
    if (mark.ino === ino && mark.offset <= data.length && hash(mark.offset) === mark.head) start = mark.offset;
    else reset = true;
  }
  const rest = data.subarray(start);
  const lastLf = rest.lastIndexOf(LF);
  const end = lastLf < 0 ? start : start + lastLf + 1;
  return { lines: splitLines(rest.subarray(0, lastLf < 0 ? 0 : lastLf + 1), start), offset: end, ino, head: hash(end), reset };
}

/** All complete lines of `path` (a half-written last line left out). */
export function readAllJsonl(path: string, label: string): readonly JsonlLine[] {
  return readJsonl(path, null, label).lines;
}

/** The complete line that starts at `offset` in `path`, or undefined when there is none there. */
export function readLineAt(path: string, offset: number, label: string): string | undefined {
  const fd = openTranscript(path, label);
  try {
    const size = fstatSync(fd).size;
    if (offset >= size) return undefined;
    const buf = readRange(fd, offset, size);
    const lf = buf.indexOf(LF);
    return lf < 0 ? undefined : buf.subarray(0, lf).toString("utf8").replace(/\r$/, "");
  } finally {
    closeSync(fd);
  }
}

/** A key for an entry the host gave no id: its place in the file and a hash of its text. */
export function lineKey(offset: number, line: string): string {
  return `@${offset}:${createHash("sha256").update(line).digest("hex").slice(0, 12)}`;
}

/** Parses one line: the value, or `undefined` with `ok: false` when it is not JSON. */
export function parseLine(line: string): { ok: true; value: unknown } | { ok: false } {
  try {
    // JSON.parse defines every key, "__proto__" included, as an own data property.
    return { ok: true, value: JSON.parse(line) as unknown };
  } catch {
    return { ok: false }; // the caller keeps the line's text as a host record
  }
}

/** Opens a transcript for reading, with errors that name it. */
export function openTranscript(path: string, label: string): number {
  try {
    return openSync(path, "r");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new ForgeError("NOT_FOUND", `the ${label} transcript ${path} does not exist`, {
        hint: "check the transcript path the host gave; the session may have been deleted or moved",
        data: { path },
        cause: e,
      });
    }
    throw new ForgeError("INVALID_ARGUMENT", `cannot read the ${label} transcript ${path}: ${fileErrorReason(e, false)}`, {
      hint: "check that the file exists and can be read",
      data: { path },
      cause: e,
    });
  }
}

function readRange(fd: number, start: number, end: number): Buffer {
  const buf = Buffer.alloc(Math.max(0, end - start));
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, start + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

function headHash(fd: number, upTo: number): string {
  const head = readRange(fd, 0, Math.min(upTo, HEAD_BYTES));
  return createHash("sha256").update(head).digest("hex").slice(0, 16);
}

function splitLines(buf: Buffer, base: number): JsonlLine[] {
  const lines: JsonlLine[] = [];
  let from = 0;
  while (from < buf.length) {
    const lf = buf.indexOf(LF, from);
    const to = lf < 0 ? buf.length : lf;
    const text = buf.subarray(from, to).toString("utf8").replace(/\r$/, "");
    if (text.trim() !== "") lines.push({ offset: base + from, text });
    from = to + 1;
  }
  return lines;
}
