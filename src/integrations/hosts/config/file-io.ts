// The project files `forge enable` edits, as bytes: read as they are (a missing file is
// null), written whole or not at all (a temporary file renamed over it) with the file's
// mode kept and a symbolic link followed to the file it names, and the folders it had to
// create remembered so that `forge disable` removes them again when they are empty.
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { ForgeError } from "../../../core/errors.js";
import { fileErrorReason } from "../../../core/files.js";

/** sha256 of a file's text, "" for a file that does not exist. */
export function textHash(text: string | null): string {
  return text === null ? "" : createHash("sha256").update(text, "utf8").digest("hex");
}

/** The file's text, or null when there is no such file. */
export function readTextFile(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new ForgeError("INVALID_ARGUMENT", `cannot read ${path}: ${fileErrorReason(e, false)}`, {
      hint: "make it a readable file, then run the command again",
      data: { path },
      cause: e,
    });
  }
}

/** The file a path names, through a symbolic link (the path itself when it does not exist yet). */
function target(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Writes `text` to `path` atomically. An existing file keeps its mode (and stays the file a
 * symbolic link points to) unless `force`; a new one gets `mode`.
 */
export function writeTextFile(path: string, text: string, mode = 0o644, force = false): void {
  const file = target(path);
  const existing = statSync(file, { throwIfNoEntry: false });
  const keep = existing && !force ? existing.mode & 0o7777 : mode;
  const tmp = `${file}.${process.pid}.forge-tmp`;
  try {
    writeFileSync(tmp, text, { mode: keep });
    chmodSync(tmp, keep);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new ForgeError("INVALID_ARGUMENT", `cannot write ${path}: ${fileErrorReason(e, true)}`, {
      hint: "make the file and its folder writable, then run the command again",
      data: { path },
      cause: e,
    });
  }
}

/** A file's permission bits, null when there is no such file. */
export function fileMode(path: string): number | null {
  const st = statSync(path, { throwIfNoEntry: false });
  return st ? st.mode & 0o7777 : null;
}

/** The names of the files (not folders) in a folder, sorted; [] when it does not exist. */
export function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return [];
    throw e;
  }
}

/** Deletes a file (a missing one is fine). */
export function deleteFile(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch (e) {
    throw new ForgeError("INVALID_ARGUMENT", `cannot delete ${path}: ${fileErrorReason(e, true)}`, { data: { path }, cause: e });
  }
}

/** The folders between `root` and `dir` (relative to root, outermost first) that do not exist. */
export function missingFolders(root: string, dir: string): string[] {
  const rel = relative(root, resolve(root, dir));
  if (rel === "" || rel.startsWith("..")) return [];
  const missing: string[] = [];
  const parts = rel.split(sep);
  for (let i = 1; i <= parts.length; i++) {
    const p = parts.slice(0, i).join(sep);
    if (!statSync(join(root, p), { throwIfNoEntry: false })) missing.push(p);
  }
  return missing;
}

/** Creates the folder `dir` (relative to root) and its parents. */
export function makeFolder(root: string, dir: string): void {
  try {
    mkdirSync(join(root, dir), { recursive: true });
  } catch (e) {
    throw new ForgeError("INVALID_ARGUMENT", `cannot create ${join(root, dir)}: ${fileErrorReason(e, true)}`, { cause: e });
  }
}

/** Removes the folders (relative to root) that are empty, innermost first; says which it removed. */
export function removeEmptyFolders(root: string, dirs: readonly string[]): string[] {
  const removed: string[] = [];
  for (const d of [...dirs].sort((a, b) => b.length - a.length)) {
    const abs = join(root, d);
    const st = statSync(abs, { throwIfNoEntry: false });
    if (!st?.isDirectory() || readdirSync(abs).length > 0) continue;
    rmdirSync(abs);
    removed.push(d);
  }
  return removed;
}
