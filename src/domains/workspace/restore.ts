// Restoring a files tree into the work tree: what to write, delete and leave alone (the
// plan), and writing it through ContainedFs. A tree read from a store or a bundle is
// untrusted: a plan refuses, before anything is written, a symbolic link that would resolve
// outside the root — resolved against the work tree as the restore will leave it, following
// the links the restored tree itself creates and those already on disk — and names that
// this file system would fold into one.
import { lstatSync, readdirSync, readlinkSync, rmSync, writeFileSync, type Stats } from "node:fs";
import { isAbsolute, join, sep } from "node:path";
import { FORGE_DIR } from "../../core/config.js";
import { ForgeError } from "../../core/errors.js";
import type { Hash } from "../../objects/hash.js";
import { ContainedFs } from "./contained-fs.js";
import { fileKey, type FileInfo, type Tree } from "../../objects/file-tree.js";
import { ignoredOnDisk } from "./ignore-rules.js";
import type { SecretFilesOption } from "./secret-files.js";

export interface RestorePlan {
  readonly writes: readonly (readonly [string, FileInfo])[];
  readonly deletes: readonly string[];
  /** Paths left alone, and why (too large, unreadable, ignored now). */
  readonly skipped: readonly { readonly path: string; readonly why: string }[];
}

export interface PlanInput {
  readonly root: string;
  readonly target: Tree;
  /** The work tree as the restore's walk found it. */
  readonly current: Tree;
  /** Which paths the restore covers ("-- PATHS"). */
  readonly filter: (path: string) => boolean;
  readonly extraIgnores: readonly string[];
  /** Which secret files snapshots keep (the workspace's `secretFiles`); the others are ignored, as the walk ignores them. */
  readonly secretFiles?: SecretFilesOption | undefined;
  /** Whether the file system folds names; probed when it matters and not given. */
  readonly foldsNames?: boolean;
}

/** Whether `tree` holds path `p`: a file or a folder ("" is the root). */
export function holds(tree: Tree, p: string): boolean {
  return p === "" || tree.files.has(p) || tree.dirs.has(p);
}

/** NOT_FOUND, naming them, when snapshot `checkpoint` (its tree `tree`) holds none of some of `paths`: nothing is changed. */
export function refuseMissing(root: string, checkpoint: { readonly id: string; readonly seq: number }, tree: Tree, paths: readonly string[]): void {
  const missing = paths.filter((p) => !holds(tree, p));
  if (missing.length === 0) return;
  const id = checkpoint.id.slice(0, 10);
  throw new ForgeError("NOT_FOUND", `snapshot #${checkpoint.seq} ${id} holds no ${missing.map((p) => `"${p}"`).join(", ")}`, {
    hint: `paths are relative to the workspace ${root}; \`forge files diff ${id} --stat\` shows how the files differ from it; nothing was changed`,
    data: { paths: missing, snapshot: checkpoint.id },
  });
}

/** Why a restore leaves alone a file the snapshot holds without its content. */
export const TOO_LARGE_THEN = "too large to have been stored";

/** How many links one resolution may pass through, as the kernel's ELOOP limit. */
const MAX_HOPS = 40;

/** What to change so that the covered paths are as in `target`; refuses unsafe links and folding names. */
export function planRestore(input: PlanInput): RestorePlan {
  const { target, current, filter } = input;
  const skipped: { path: string; why: string }[] = [];
  const writes: [string, FileInfo][] = [];
  const deletes: string[] = [];
  // Paths the snapshot could not read (files or whole folders): everything at or under them stays.
  const unreadableThen = [...target.files].filter(([, f]) => f.type === "u").map(([p]) => p);
  const underUnreadable = (p: string) => unreadableThen.some((u) => p === u || p.startsWith(`${u}/`));
  const ignoredNow = ignoredOnDisk(input.root, input.extraIgnores, input.secretFiles);
  for (const [path, f] of target.files) {
    if (!filter(path)) continue;
    if (f.type === "x" || f.type === "u") {
      skipped.push({ path, why: f.type === "x" ? TOO_LARGE_THEN : "could not be read when the snapshot was taken" });
      continue;
    }
    const now = current.files.get(path);
    if (now && fileKey(now) === fileKey(f) && now.mode === f.mode) continue;
    // What the walk cannot see or could not store must not be overwritten: its content is nowhere else.
    if (now?.type === "x" || now?.type === "u") {
      skipped.push({ path, why: now.type === "x" ? "too large now: left alone" : "unreadable now: left alone" });
      continue;
    }
    if (!now && ignoredNow(path)) {
      skipped.push({ path, why: "ignored now: left alone" });
      continue;
    }
    writes.push([path, f]);
  }
  for (const [path, f] of current.files) {
    if (!filter(path) || target.files.has(path)) continue;
    if (f.type === "x" || f.type === "u" || underUnreadable(path)) {
      skipped.push({ path, why: f.type === "x" ? "too large: left alone" : "unreadable: left alone" });
      continue;
    }
    deletes.push(path);
  }
  const plan = { writes, deletes, skipped };
  checkLinks(input, plan);
  checkFolding(input, target);
  return plan;
}

type Entry = { readonly type: "dir" | "file" | "missing" } | { readonly type: "link"; readonly target: string };

/**
 * Every link the plan writes must resolve inside the root in the work tree as the restore
 * leaves it: each step of its target is looked up there — the plan's own links and folders
 * for the paths it covers, the disk for the others — and a link met on the way is followed.
 * A step that climbs above the root, an absolute target outside it, or a loop refuses the
 * whole restore, naming the link. A step into something missing (or a file) goes on by the
 * text: nothing there can lead anywhere yet, and the text must stay inside. A loop resolves
 * nowhere, as in the kernel.
 */
function checkLinks(input: PlanInput, plan: RestorePlan): void {
  const links = plan.writes.filter(([, f]) => f.type === "l");
  if (links.length === 0) return;
  const written = new Map(plan.writes);
  const deleted = new Set(plan.deletes);
  const lookup = (path: string): Entry => {
    const w = written.get(path);
    if (w) return w.type === "l" ? { type: "link", target: w.target ?? "" } : { type: "file" };
    if (input.filter(path)) {
      if (input.target.dirs.has(path)) return { type: "dir" };
      if (deleted.has(path)) return { type: "missing" };
    }
    let st: Stats | undefined;
    try {
      st = lstatSync(join(input.root, path), { throwIfNoEntry: false });
    } catch {
      return { type: "missing" }; // ENOTDIR, EACCES: nothing reachable through it
    }
    if (st === undefined) return { type: "missing" };
    if (st.isSymbolicLink()) return { type: "link", target: readlinkSync(join(input.root, path)) };
    return { type: st.isDirectory() ? "dir" : "file" };
  };
  for (const [path, f] of links) {
    const why = escapes(input.root, path, f.target ?? "", lookup);
    if (why !== null) {
      throw new ForgeError("PATH_OUTSIDE_WORKSPACE", `the snapshot's symlink ${path} -> ${f.target ?? ""} ${why}`, {
        hint: "nothing was written; restore other paths with -- PATHS",
        data: { path, target: f.target ?? "" },
      });
    }
  }
}

/** Why link `path` (whose text is `text`) leads outside the root, or null when it stays inside. */
function escapes(root: string, path: string, text: string, lookup: (path: string) => Entry): string | null {
  if (text === "") return "has an empty target";
  const at = path.split("/").slice(0, -1); // the folder holding the link
  let pending: string[] = [];
  let hops = 0;
  const enter = (linkText: string, from: string[]): string | null => {
    if (isAbsolute(linkText)) {
      const inside = underRoot(root, linkText);
      if (inside === null) return `points outside the workspace (${linkText})`;
      at.length = 0;
      pending = [...inside, ...pending];
    } else {
      at.splice(0, at.length, ...from);
      pending = [...linkText.split("/"), ...pending];
    }
    return null;
  };
  const first = enter(text, at.slice());
  if (first !== null) return first;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (at.length === 0) return "resolves outside the workspace";
      at.pop();
      continue;
    }
    const entry = lookup([...at, part].join("/"));
    if (entry.type === "link") {
      // As many hops as the kernel follows before it gives up (ELOOP): a loop leads nowhere.
      if (++hops > MAX_HOPS) return null;
      const why = enter(entry.target, at.slice());
      if (why !== null) return `resolves outside the workspace through ${[...at, part].join("/")} -> ${entry.target}`;
      continue;
    }
    at.push(part);
  }
  return null;
}

/** The components of absolute path `p` below `root`, or null if it is not under it. */
function underRoot(root: string, p: string): string[] | null {
  const norm = join(p);
  if (norm === root) return [];
  if (!norm.startsWith(root + sep)) return null;
  return norm.slice(root.length + 1).split(sep);
}

/**
 * On a file system that folds names (case, Unicode normalisation: macOS, Windows), two
 * entries of one folder that fold to one name would be written as one, the second
 * replacing the first (a folder by a link, say): refused. Only probed when the tree holds
 * such a pair, so a restore on Linux never pays for it.
 */
function checkFolding(input: PlanInput, target: Tree): void {
  // Asked first: where names are not folded (most Linux file systems) no two can clash, and
  // the pass over every path (a normalized, lower-cased copy of each) is not made.
  if (!(input.foldsNames ?? foldsNames(input.root))) return;
  const seen = new Map<string, string>();
  const clashes: [string, string][] = [];
  const add = (path: string) => {
    const key = path.normalize("NFC").toLowerCase();
    const other = seen.get(key);
    if (other !== undefined && other !== path) clashes.push([other, path]);
    else seen.set(key, path);
  };
  for (const d of target.dirs.keys()) if (d !== "") add(d);
  for (const p of target.files.keys()) add(p);
  const clash = clashes[0];
  if (clash === undefined) return;
  throw new ForgeError("PATH_OUTSIDE_WORKSPACE", `the snapshot holds both ${clash[0]} and ${clash[1]}, which this file system treats as one name`, {
    hint: "nothing was written; restore it on a case-sensitive file system, or restore other paths with -- PATHS",
    data: { paths: clash },
  });
}

/**
 * Whether the file system under `root` folds letter case: a probe file is looked up by its
 * upper-case name. It is made in the root's .forge/ when that is a folder there (the same
 * file system; nothing appears in the work tree), else in the root.
 */
function foldsNames(root: string): boolean {
  const name = `.forge-case-${Date.now().toString(36)}-${process.pid}-probe`;
  const forgeDir = join(root, FORGE_DIR);
  const probe = join(lstatSync(forgeDir, { throwIfNoEntry: false })?.isDirectory() ? forgeDir : root, name);
  writeFileSync(probe, "", { flag: "wx" });
  try {
    return lstatSync(join(probe, "..", name.toUpperCase()), { throwIfNoEntry: false }) !== undefined;
  } finally {
    rmSync(probe, { force: true });
  }
}

export interface ApplyInput extends PlanInput {
  readonly plan: RestorePlan;
  /** The bytes of a stored file. */
  readonly read: (hash: Hash) => Promise<Buffer>;
}

/**
 * Carries out a plan: deletions, then folders, files and links, then folders the target
 * lacks (if left empty), then folder modes, deepest first. Returns what was written and
 * what had to be left alone.
 */
export async function applyRestore(input: ApplyInput): Promise<{ written: string[]; skipped: { path: string; why: string }[]; touched: string[] }> {
  const { target, current, filter, plan } = input;
  const fs = new ContainedFs(input.root);
  const skipped: { path: string; why: string }[] = [];
  // Every path this changes on disk (files written or removed, folders made, removed or
  // given another mode): the hint of the walk that records the result (Scanner.scan).
  const touched: string[] = [...plan.deletes];
  const unreadableThen = [...target.files].filter(([, f]) => f.type === "u").map(([p]) => p);
  const underUnreadable = (p: string) => unreadableThen.some((u) => p === u || p.startsWith(`${u}/`));
  for (const path of plan.deletes) fs.unlink(path);
  // Judged after the deletions, which may have removed an ignore file.
  const ignoredAfter = ignoredOnDisk(input.root, input.extraIgnores, input.secretFiles);
  const dirs = [...target.dirs.keys()].filter((d) => d !== "" && filter(d) && !underUnreadable(d) && !ignoredAfter(d, true));
  for (const dir of dirs) {
    if (current.dirs.has(dir)) continue; // the walk found a real folder there (deletions remove files only)
    const st = fs.lstat(dir);
    if (st !== undefined && !st.isDirectory()) fs.unlink(dir); // a file or link where the snapshot has a folder
    fs.mkdirs(dir);
    touched.push(dir);
  }
  const written: string[] = [];
  for (const [path, f] of plan.writes) {
    const why = await writeOne(fs, path, f, current.dirs, input.read);
    if (why === null) written.push(path);
    else skipped.push({ path, why });
    touched.push(path);
  }
  // Folders the target does not have, left empty by the deletions, go too — except those
  // under a path where the target has a file or symlink: that folder was either removed
  // whole above, or is left alone.
  const underTargetFile = (d: string) => {
    for (let i = d.indexOf("/"); i >= 0; i = d.indexOf("/", i + 1)) if (target.files.has(d.slice(0, i))) return true;
    return false;
  };
  const gone = [...current.dirs.keys()].filter((d) => d !== "" && filter(d) && !target.dirs.has(d) && !target.files.has(d) && !underTargetFile(d));
  for (const dir of gone.sort((a, b) => b.length - a.length)) if (fs.rmdir(dir)) touched.push(dir);
  // Folder modes last, deepest first: a folder made read-only must not stop writes below it.
  // A folder the walk saw with the snapshot's mode already keeps it.
  for (const dir of dirs.sort((a, b) => b.length - a.length)) {
    const mode = target.dirs.get(dir)?.mode;
    if (mode === undefined || current.dirs.get(dir)?.mode === mode) continue;
    if (!fs.chmodDir(dir, mode)) skipped.push({ path: dir, why: "no longer a folder when its mode was set: left alone" });
    touched.push(dir);
  }
  return { written, skipped, touched };
}

/**
 * Writes one file or symlink; returns why it was left alone, or null when written.
 * `walked`: the folders the restore's walk found (none of them ignored).
 */
async function writeOne(
  fs: ContainedFs,
  path: string,
  f: FileInfo,
  walked: ReadonlyMap<string, unknown>,
  read: (hash: Hash) => Promise<Buffer>,
): Promise<string | null> {
  const slash = path.lastIndexOf("/");
  if (slash > 0) fs.mkdirs(path.slice(0, slash));
  const existing = fs.lstat(path);
  // A folder where the snapshot has a file: removed only if nothing but empty folders the
  // walk saw is left in it (the deletions above took its files); anything else in it is
  // ignored (or new since the walk) and is not ours to remove.
  if (existing?.isDirectory() && !removeEmptyFolders(fs, path, walked)) return "a folder with ignored content is in the way: left alone";
  if (f.type === "l") fs.symlink(path, f.target ?? "");
  else fs.writeFile(path, await read(f.hash), f.mode);
  return null;
}

/**
 * Removes folder `path` if it holds nothing but folders, at any depth, each of them one the
 * walk saw (so none ignored); returns whether it is gone. Checked whole before anything is
 * removed, so a folder that must stay is left exactly as it is; a symlink or any other entry
 * in it makes it stay. Removal is by rmdir only, which never removes content.
 */
function removeEmptyFolders(fs: ContainedFs, path: string, walked: ReadonlyMap<string, unknown>): boolean {
  const order: string[] = [];
  const check = (dir: string): boolean => {
    if (!walked.has(dir)) return false; // ignored, or made since the walk
    let names: string[];
    try {
      names = readdirSync(fs.abs(dir));
    } catch {
      return false;
    }
    for (const name of names) {
      let st: Stats | undefined;
      try {
        st = lstatSync(fs.abs(`${dir}/${name}`), { throwIfNoEntry: false });
      } catch {
        return false;
      }
      if (st !== undefined && (!st.isDirectory() || !check(`${dir}/${name}`))) return false;
    }
    order.push(dir); // after everything under it: removed deepest first
    return true;
  };
  if (!check(path)) return false;
  for (const dir of order) if (!fs.rmdir(dir) && fs.lstat(dir) !== undefined) return false; // something appeared meanwhile
  return true;
}
