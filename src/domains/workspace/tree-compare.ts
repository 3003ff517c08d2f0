// Comparing files trees: the changes between two (renames found by content), a tree with
// some paths taken from another, and which paths a "-- PATHS" argument covers.
import { isAbsolute, join, normalize, resolve, sep } from "node:path";
import { ForgeError } from "../../core/errors.js";
import { fileKey, type FileInfo, type Tree } from "../../objects/file-tree.js";

export interface FileChange {
  readonly path: string;
  readonly kind: "created" | "modified" | "deleted" | "renamed";
  /** For renames: where the content was before. */
  readonly from?: string;
  readonly before: FileInfo | null;
  readonly after: FileInfo | null;
}

/** A tree with nothing in it but its root folder. */
export function emptyTree(): Tree {
  return { files: new Map(), dirs: new Map([["", { mode: 0o755 }]]) };
}

/**
 * The changes from tree `a` to tree `b`; a deleted and a created file with the same content
 * are a rename. `only`: every path whose entry may differ, when the trees have the same paths
 * (a quick walk's): only those are compared.
 */
export function compareTrees(a: Tree, b: Tree, only?: readonly string[]): FileChange[] {
  if (only !== undefined && a.files.size === b.files.size) {
    const out: FileChange[] = [];
    for (const path of only) {
      const before = a.files.get(path);
      const after = b.files.get(path);
      if (before === undefined || after === undefined) return compareTrees(a, b);
      if (!sameEntry(before, after)) out.push({ path, kind: "modified", before, after });
    }
    return out.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  }
  const created: FileChange[] = [];
  const deleted: FileChange[] = [];
  const out: FileChange[] = [];
  let kept = 0;
  for (const [path, after] of b.files) {
    const before = a.files.get(path);
    if (!before) created.push({ path, kind: "created", before: null, after });
    else {
      kept++;
      if (!sameEntry(before, after)) out.push({ path, kind: "modified", before, after });
    }
  }
  // Every path of `a` is still in `b` when as many were found there: no pass to look for deletions.
  if (kept !== a.files.size) for (const [path, before] of a.files) if (!b.files.has(path)) deleted.push({ path, kind: "deleted", before, after: null });
  return withRenames(out, created, deleted);
}

/**
 * `changes` (modified files) with `created` and `deleted` added, in path order: a created
 * file with the content of a deleted one (a regular file, not empty) is that one renamed —
 * each created one in turn takes the first deleted one of its content left, in the order
 * given (`b`'s and `a`'s for `compareTrees`).
 */
export function withRenames(changes: FileChange[], created: readonly FileChange[], deleted: readonly FileChange[]): FileChange[] {
  const out = changes;
  const goneByKey = new Map<string, FileChange[]>();
  for (const d of deleted) if (d.before?.type === "f" && d.before.size > 0) goneByKey.set(fileKey(d.before), [...(goneByKey.get(fileKey(d.before)) ?? []), d]);
  const renamedFrom = new Set<string>();
  for (const c of created) {
    const candidates = c.after?.type === "f" && c.after.size > 0 ? goneByKey.get(fileKey(c.after)) : undefined;
    const from = candidates?.shift();
    if (from) {
      renamedFrom.add(from.path);
      out.push({ path: c.path, kind: "renamed", from: from.path, before: from.before, after: c.after });
    } else out.push(c);
  }
  for (const d of deleted) if (!renamedFrom.has(d.path)) out.push(d);
  return out.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

/** Whether two trees have the same folders with the same modes. */
export function sameDirs(a: Tree, b: Tree): boolean {
  if (a.dirs.size !== b.dirs.size) return false;
  for (const [path, d] of b.dirs) if (a.dirs.get(path)?.mode !== d.mode) return false;
  return true;
}

/** Whether two entries are the same file: type, mode, size, content or link target. */
export function sameEntry(a: FileInfo | undefined, b: FileInfo | undefined): boolean {
  return (
    a !== undefined &&
    b !== undefined &&
    a.type === b.type &&
    a.mode === b.mode &&
    a.size === b.size &&
    a.hash === b.hash &&
    (a.target ?? "") === (b.target ?? "")
  );
}

/** `b`'s version of `paths`, `a`'s of everything else. */
export function applyPaths(a: Tree, b: Tree, paths: readonly string[]): Tree {
  const files = new Map(a.files);
  const dirs = new Map(a.dirs);
  for (const p of paths) {
    const f = b.files.get(p);
    if (f) files.set(p, f);
    else files.delete(p);
  }
  for (const p of files.keys()) {
    for (let i = p.indexOf("/"); i >= 0; i = p.indexOf("/", i + 1)) {
      const d = p.slice(0, i);
      if (!dirs.has(d)) dirs.set(d, b.dirs.get(d) ?? { mode: 0o755 });
    }
  }
  return { files, dirs };
}

/**
 * A matcher for "-- PATHS": a path matches a named file or anything under a named folder.
 * `paths` are relative to `root` (or absolute inside it); one outside the root is refused
 * before anything is read or written.
 */
export function pathFilter(root: string, paths: readonly string[] | undefined): (p: string) => boolean {
  if (!paths || paths.length === 0) return () => true;
  const norm = relativePaths(root, paths);
  return (p) => norm.some((n) => n === "" || p === n || p.startsWith(`${n}/`));
}

/** `paths` (relative to `root`, or absolute inside it) relative to the root, "/"-separated ("" for the root); one outside is refused. */
export function relativePaths(root: string, paths: readonly string[]): string[] {
  return paths.map((p) => {
    const abs = resolve(root, p.replace(/\\/g, "/"));
    if (abs !== root && !abs.startsWith(root + sep)) {
      throw new ForgeError("PATH_OUTSIDE_WORKSPACE", `${p} is outside the workspace ${root}`, {
        hint: "name files and folders inside the workspace; nothing was changed",
      });
    }
    return abs === root
      ? ""
      : abs
          .slice(root.length + 1)
          .split(sep)
          .join("/");
  });
}

/** Path `p` (absolute, or relative to `root`) as a path in the workspace ("/"-separated, "" for the root); PATH_OUTSIDE_WORKSPACE outside it. */
export function relativeIn(root: string, p: string): string {
  const abs = isAbsolute(p) ? normalize(p) : normalize(join(root, p));
  if (abs !== root && !abs.startsWith(root + sep)) throw new ForgeError("PATH_OUTSIDE_WORKSPACE", `${p} is outside the workspace ${root}`);
  return abs
    .slice(root.length + 1)
    .split(sep)
    .join("/");
}

/** Whether the files under the paths `filter` covers differ between two trees (content, type, mode, or being there at all). */
export function changedUnder(a: Tree, b: Tree, filter: (path: string) => boolean): boolean {
  for (const [path, f] of b.files) {
    if (!filter(path)) continue;
    const was = a.files.get(path);
    if (was === undefined || fileKey(was) !== fileKey(f) || was.mode !== f.mode) return true;
  }
  for (const path of a.files.keys()) if (filter(path) && !b.files.has(path)) return true;
  return false;
}

/** Whether two trees hold the same files (content, type, mode) and folders (and their modes): a snapshot of one would be the other's. */
export function sameTree(a: Tree, b: Tree): boolean {
  if (a.files.size !== b.files.size || a.dirs.size !== b.dirs.size) return false;
  for (const [dir, d] of b.dirs) if (a.dirs.get(dir)?.mode !== d.mode) return false;
  return !changedUnder(a, b, () => true);
}
