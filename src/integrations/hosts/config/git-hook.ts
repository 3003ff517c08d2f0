// The git hook `forge enable` installs: prepare-commit-msg runs `forge hook commit-msg` (which
// adds a Forge-Checkpoint trailer while a captured session is active) and never blocks or
// fails a commit. The hooks folder is found as git finds it (core.hooksPath included); under
// husky (core.hooksPath = .husky/_, husky's own scripts) the line goes in husky's user script
// .husky/prepare-commit-msg. A hook that exists keeps running: Forge's block goes in after a
// shell script's first line, or a script in another language is moved aside and called.
// Disable takes exactly Forge's text out again.
import { spawnSync } from "node:child_process";
import { existsSync, renameSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { ForgeError } from "../../../core/errors.js";
import { deleteFile, makeFolder, missingFolders, readTextFile, removeEmptyFolders, textHash, writeTextFile } from "./file-io.js";
import type { GitHookRecord } from "./manifest.js";

const HOOK = "prepare-commit-msg";
const BEGIN = "# >>> forge enable: Forge-Checkpoint commit trailer (forge disable takes this block out)";
const END = "# <<< forge enable";
const CHAINED = `${HOOK}.forge-chained`;

/** What a command did to the git hook. */
export interface GitHookChange {
  /** The hook script (relative to the project root when inside it). */
  readonly path: string;
  /** created: Forge wrote it; inserted: Forge's block went into the user's script; wrapped: the user's script was moved aside and is called; updated: an older version's block replaced; unchanged; removed: disable took Forge's part out (or deleted its script); kept: disable left a script that changed; skipped: not a git work tree. */
  readonly action: "created" | "inserted" | "wrapped" | "updated" | "unchanged" | "removed" | "kept" | "skipped";
  readonly note?: string;
}

/** The git work tree's top folder holding `dir`, or null (not in one, or git is not installed). */
export function gitTopLevel(dir: string): string | null {
  const r = spawnSync("git", ["rev-parse", "--show-toplevel"], { cwd: dir, encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Where the hook script goes for the repository at `root`, or null when `root` is not in a git work tree. */
export function gitHookPath(root: string): { readonly path: string; readonly husky: boolean } | null {
  const r = spawnSync("git", ["rev-parse", "--git-path", "hooks"], { cwd: root, encoding: "utf8" });
  if (r.status !== 0) return null;
  const dir = resolve(root, r.stdout.trim());
  // husky 9: core.hooksPath is .husky/_, whose scripts (husky's, regenerated) run .husky/<hook>.
  if (basename(dir) === "_" && basename(dirname(dir)) === ".husky" && existsSync(join(dir, "h"))) return { path: join(dirname(dir), HOOK), husky: true };
  return { path: join(dir, HOOK), husky: false };
}

/** Forge's block for Forge run as `forge`: a missing forge or a failing hook is ignored, so the commit goes on. */
function block(forge: string): string {
  const program = forge.split(/\s+/)[0] ?? forge;
  // An `if` whose test fails exits 0: a hook made of this block alone must not stop the commit where forge is not on the PATH.
  return `${BEGIN}\nif command -v ${program} >/dev/null 2>&1; then ${forge} hook commit-msg "$1" "$2" "$3" </dev/null || true; fi\n${END}\n`;
}

/** Whether a script's first line runs it with a POSIX shell (or it has no `#!` line, which git and husky run with sh). */
function isShellScript(text: string): boolean {
  if (!text.startsWith("#!")) return true;
  const first = text.slice(0, text.indexOf("\n") < 0 ? text.length : text.indexOf("\n"));
  return /^#!\s*(\S*\/)?(env\s+(-\S+\s+)*)?(sh|bash|dash|zsh|ksh|ash)\b/.test(first);
}

const display = (root: string, path: string): string => {
  const rel = relative(root, path);
  return rel.startsWith("..") || isAbsolute(rel) ? path : rel;
};

/** Installs the hook for the repository at `root` (null: not a git work tree). `prev` is what an earlier enable recorded. */
export function installGitHook(root: string, forge: string, prev: GitHookRecord | undefined): { change: GitHookChange; record: GitHookRecord | undefined } {
  const where = gitHookPath(root);
  if (where === null) return { change: { path: root, action: "skipped", note: "not a git work tree" }, record: undefined };
  const { path } = where;
  const shown = display(root, path);
  const text = readTextFile(path);
  const wanted = block(forge);
  if (text?.includes(BEGIN)) {
    // Installed already (by an earlier enable, or committed in a husky folder by a teammate).
    if (text.includes(wanted) || prev === undefined || !text.includes(prev.block)) return { change: { path: shown, action: "unchanged" }, record: prev };
    // An older version's block (or another command): replaced in place.
    const next = prev.block.startsWith("\n") ? `\n${wanted}` : wanted;
    const updated = text.replace(prev.block, next);
    writeTextFile(path, updated);
    return {
      change: { path: shown, action: "updated", note: "Forge's block, from an older version" },
      record: { ...prev, block: next, writtenHash: textHash(updated) },
    };
  }
  const createdDirs = missingFolders(root, dirname(path));
  for (const d of createdDirs) makeFolder(root, d);
  const base = { path: shown, block: wanted, createdDirs };
  if (text === null) {
    const script = `#!/bin/sh\n${wanted}`;
    writeTextFile(path, script, 0o755);
    return { change: { path: shown, action: "created" }, record: { ...base, how: "created", writtenHash: textHash(script) } };
  }
  if (isShellScript(text)) {
    // After the `#!` line: the user's script runs after Forge's line, and its status is the hook's.
    const nl = text.indexOf("\n");
    const at = text.startsWith("#!") ? (nl < 0 ? text.length : nl + 1) : 0;
    const insert = text.startsWith("#!") && nl < 0 ? `\n${wanted}` : wanted;
    const script = text.slice(0, at) + insert + text.slice(at);
    writeTextFile(path, script);
    return { change: { path: shown, action: "inserted" }, record: { ...base, block: insert, how: "inserted", writtenHash: textHash(script) } };
  }
  const chained = join(dirname(path), CHAINED);
  if (existsSync(chained))
    throw new ForgeError("INVALID_ARGUMENT", `${chained} is in the way`, { hint: "move it away, then run forge enable again", data: { path: chained } });
  renameSync(path, chained);
  const script = `#!/bin/sh\n${wanted}exec "$(dirname "$0")/${CHAINED}" "$@"\n`;
  writeTextFile(path, script, statSync(chained).mode & 0o7777);
  return {
    change: { path: shown, action: "wrapped", note: `your hook runs as ${CHAINED}` },
    record: { ...base, how: "wrapped", chained: display(root, chained), writtenHash: textHash(script) },
  };
}

/** Takes Forge's part of the hook out again, as `record` says enable put it in. */
export function removeGitHook(root: string, record: GitHookRecord): GitHookChange {
  const path = resolve(root, record.path);
  const text = readTextFile(path);
  const done = (action: GitHookChange["action"], note?: string): GitHookChange => {
    removeEmptyFolders(root, record.createdDirs);
    return { path: record.path, action, ...(note !== undefined && { note }) };
  };
  if (text === null) return done("removed", "the hook script was gone");
  const unchanged = textHash(text) === record.writtenHash;
  if (record.how === "wrapped" && record.chained !== undefined) {
    if (!unchanged) return done("kept", `it changed since forge enable; your hook is ${record.chained}`);
    renameSync(resolve(root, record.chained), path);
    return done("removed");
  }
  if (record.how === "created" && unchanged) {
    deleteFile(path);
    return done("removed");
  }
  if (!text.includes(record.block)) return done("kept", "Forge's block in it changed since forge enable; take it out by hand");
  writeTextFile(path, text.replace(record.block, ""));
  return done("removed");
}

/** Whether the hook runs Forge's line, and where it is. */
export function gitHookState(root: string): { readonly path: string | null; readonly installed: boolean } {
  const where = gitHookPath(root);
  if (where === null) return { path: null, installed: false };
  return { path: display(root, where.path), installed: readTextFile(where.path)?.includes(BEGIN) === true };
}
