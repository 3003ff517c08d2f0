// Reading and writing files a user named: whole or not at all, with an error that names the
// path and says why in words (never a bare ENOENT), keeping the system's error as `cause`.
import { closeSync, fstatSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { ForgeError } from "./errors.js";

const WRITE_HINT = "name a file in a folder that exists and you can write to";

/** Why a file-system call failed, in words, for a message that already names the path. */
export function fileErrorReason(e: unknown, writing: boolean): string {
  const code = (e as NodeJS.ErrnoException).code;
  switch (code) {
    case "ENOENT":
      return writing ? "its folder does not exist" : "no such file";
    case "ENOTDIR":
      return "a part of the path is not a folder";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "it is a folder";
    case "ENOSPC":
      return "no space left on the device";
    case "EROFS":
      return "the file system is read-only";
    default:
      return (e as Error).message;
  }
}

function cannotWrite(path: string, why: string, cause?: unknown): ForgeError {
  return new ForgeError("INVALID_ARGUMENT", `cannot write ${path}: ${why}`, { hint: WRITE_HINT, data: { path }, ...(cause !== undefined && { cause }) });
}

/** Writes `path` so that a crash leaves the old file or the new one, never a torn one. */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw cannotWrite(path, fileErrorReason(e, true), e);
  }
}

/**
 * Checks that `path` could be written (its folder exists, it is not a folder) before a
 * command changes anything, so a bad --output fails first, not after a restore.
 */
export function checkWritable(path: string): void {
  let folder: ReturnType<typeof statSync>;
  try {
    folder = statSync(dirname(path));
  } catch (e) {
    throw cannotWrite(path, fileErrorReason(e, true), e);
  }
  if (!folder.isDirectory()) throw cannotWrite(path, "a part of the path is not a folder");
  const existing = statSync(path, { throwIfNoEntry: false });
  if (existing?.isDirectory()) throw cannotWrite(path, "it is a folder");
}

/** Where to read from: a file, or "-" for standard input. */
function label(source: string): string {
  return source === "-" ? "standard input" : source;
}

function cannotRead(source: string, why: string, hint: string | undefined, cause?: unknown): ForgeError {
  return new ForgeError("INVALID_ARGUMENT", `cannot read ${label(source)}: ${why}`, {
    data: { path: source },
    ...(hint !== undefined && { hint }),
    ...(cause !== undefined && { cause }),
  });
}

/** A text file a user named, or standard input for "-"; an error names the path and why. */
export function readInputFile(source: string, hint?: string): string {
  try {
    return readFileSync(source === "-" ? 0 : source, "utf8");
  } catch (e) {
    throw cannotRead(source, fileErrorReason(e, false), hint, e);
  }
}

/** Checks that `path` is a file that can be opened, for a reader that streams it later. */
export function checkReadable(path: string, hint?: string): void {
  let st: ReturnType<typeof fstatSync>;
  try {
    const fd = openSync(path, "r");
    try {
      st = fstatSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    throw cannotRead(path, fileErrorReason(e, false), hint, e);
  }
  if (st.isDirectory()) throw cannotRead(path, "it is a folder", hint);
  if (!st.isFile()) throw cannotRead(path, "it is not a file", hint);
}
