// A whole restore when only file contents differ, made from the kept columns (tree-cache.ts)
// like a quick snapshot (quick-snapshot.ts): the target's folders are read only where their
// hashes differ from the work tree's, and when the target holds the same names, of the same
// kinds, in folders of the same modes, the restore is the regular files whose content or mode
// differs — written, and patched into the kept columns with their new stats. Undoing an
// agent's edits is this case. No tree of the whole work tree or of the target is built, and
// no walk is made after the writes: a restore of 10 files in 10,000 read ~11 folders, wrote
// 10 files and changed a few hundred bytes of the cache.
//
// Anything else (a name added or removed, a symlink or a folder's mode to change, a file too
// large or unreadable on either side, an ignore file or a secret file by content to write)
// answers undefined before anything is written, and the restore plans the whole trees.
import { ForgeError } from "../../core/errors.js";
import { mark } from "../../core/trace.js";
import { readFileObject, type FileInfo } from "../../objects/file-tree.js";
import type { Hash } from "../../objects/hash.js";
import type { ObjectStore } from "../../objects/object-store.js";
import type { Checkpoint } from "../../timeline/types.js";
import { ContainedFs } from "./contained-fs.js";
import { ST_CTIME, ST_INO, ST_MODE, ST_MTIME, ST_SIZE, S_IFMT, S_IFREG, statBuffer, walkLstat } from "./fast-stat.js";
import { quickTree, type QuickTree } from "./quick-snapshot.js";
import { keySources, type StatCompared } from "./quick-status.js";
import { walkOrder } from "./names.js";
import { TOO_LARGE_THEN } from "./restore.js";
import { secretByContent } from "./secret-files.js";
import { DIR_STAT, FILE_STAT, NO_HASH, entriesIn, fileEntry, linkTargets, type TreeColumns } from "./tree-cache.js";
import type { FileChange } from "./tree-compare.js";
import type { QuickExtra, RestoreReport } from "./types.js";

/** The files a quick restore writes: each one's place in the columns, path, and the target's entry. */
export interface QuickRestorePlan {
  readonly writes: readonly { readonly j: number; readonly path: string; readonly before: FileInfo; readonly info: FileInfo }[];
  /** Every folder's hash in the target, in the columns' order. */
  readonly dirHashes: readonly Hash[];
}

const FOLDER = 0x64; // "d"

/**
 * What restoring the work tree `now` (the columns `cols` with the quick snapshot `now` of it)
 * to the tree of root `target` writes, when that is only regular files' contents and modes;
 * undefined otherwise. Reads the target's folders whose hashes differ, level by level.
 */
export async function planQuickRestore(
  root: string,
  cols: TreeColumns,
  now: QuickTree,
  target: Hash,
  objects: ObjectStore,
): Promise<QuickRestorePlan | undefined> {
  const { nDirs, strings, nums, types } = cols;
  const hex = cols.hex; // every hash, decoded at once: sliced below
  const current = now.patch.dirHashes;
  const dirHashes = [...current];
  const nowFiles = new Map(now.patch.files.map((f) => [f.j, f.info]));
  const writes: { j: number; path: string; before: FileInfo; info: FileInfo }[] = [];
  if (target === now.root) return { writes, dirHashes };
  const ignoreFiles = new Set(keySources(cols.stats?.key ?? "").keys());
  const rootAt = strings.indexOf("");
  if (rootAt < 0 || rootAt >= nDirs) return undefined;
  // Folders by place, with the hash the target has for them.
  let level: [number, Hash][] = [[rootAt, target]];
  while (level.length > 0) {
    const nodes = await objects.getNodes(level.map(([, h]) => h));
    const entries = entriesIn(
      cols,
      level.map(([i]) => i),
    );
    const next: [number, Hash][] = [];
    for (const [i, hash] of level) {
      const node = nodes.get(hash);
      if (node?.kind !== "d") throw new ForgeError("CORRUPT_OBJECT", `object ${hash} should be a directory of the snapshot but is not`);
      dirHashes[i] = hash;
      const dir = strings[i] as string;
      const names = entries.get(i) ?? new Map<string, number>();
      if (node.entries.length !== names.size) return undefined; // a name added or removed (names in a folder object are unique)
      for (const [h, name, type, mode, size, linkTo] of node.entries) {
        const at = names.get(name);
        if (at === undefined) return undefined;
        const kind = at < 0 ? FOLDER : (types[at] as number);
        const k = at < 0 ? -1 - at : at;
        if (type === "d") {
          if (kind !== FOLDER || nums[k] !== mode) return undefined;
          if (current[k] !== h) next.push([k, h]);
          continue;
        }
        if (kind !== type.charCodeAt(0)) return undefined;
        // The entry now, compared without making one (a changed folder of 1,000 files made 1,000 of them: ~6 ms).
        const read = nowFiles.get(k);
        const modeNow = read ? read.mode : nums[nDirs + 2 * k];
        if (type === "l") {
          if ((linkTargets(cols).get(k) ?? "") !== (linkTo ?? "") || modeNow !== mode) return undefined;
          continue;
        }
        const at64 = 64 * (nDirs + k);
        const kept = hex.slice(at64, at64 + 64);
        const hashNow = read ? read.hash : kept === NO_HASH ? "" : kept; // none: a file too large or unreadable
        if (hashNow === h && modeNow === mode && (read ? read.size : nums[nDirs + 2 * k + 1]) === size) continue;
        const path = dir === "" ? name : `${dir}/${name}`;
        // Not stored (too large, unreadable), or a file that decides what is ignored or left out: the whole restore says.
        if (type !== "f" || h === "" || hashNow === "" || ignoreFiles.has(`${root}/${path}`) || secretByContent(path)) return undefined;
        writes.push({ j: k, path, before: read ?? fileEntry(cols, k), info: { type: "f", mode, size, hash: h } });
      }
    }
    level = next;
  }
  return { writes, dirHashes };
}

/**
 * The restored snapshot's tree: `now`'s with the plan's files written — their entries the
 * target's, their stats (and their folders') as just taken. Undefined when a written file is
 * not there as written (another process changed it meanwhile): a walk records what is there.
 */
export function restoredTree(root: string, cols: TreeColumns, now: QuickTree, plan: QuickRestorePlan, target: Hash): QuickTree | undefined {
  const fileStats = now.patch.fileStats.slice();
  const dirStats = now.patch.dirStats.slice();
  const files = new Map(now.patch.files.map((f) => [f.j, f.info]));
  const lstat = walkLstat(root);
  const st = statBuffer();
  const read = new Map<string, FileInfo>();
  const changes: FileChange[] = [];
  let bytes = now.bytes;
  const folders = new Set<string>();
  for (const w of plan.writes) {
    try {
      if (!lstat(`${root}/${w.path}`, st)) return undefined;
    } catch {
      return undefined;
    }
    const mode = st[ST_MODE] as number;
    if ((mode & S_IFMT) !== S_IFREG || (mode & 0o777) !== w.info.mode || st[ST_SIZE] !== w.info.size) return undefined;
    fileStats.set([st[ST_MTIME] as number, st[ST_CTIME] as number, st[ST_INO] as number, mode], w.j * FILE_STAT);
    files.set(w.j, w.info);
    read.set(w.path, w.info);
    changes.push({ path: w.path, kind: "modified", before: w.before, after: w.info });
    bytes += w.info.size - w.before.size;
    const slash = w.path.lastIndexOf("/");
    folders.add(slash < 0 ? "" : w.path.slice(0, slash));
  }
  // A file written is a new one renamed over the old: its folder's times moved (to be racy against the stats' time).
  for (let i = 0; i < cols.nDirs; i++) {
    const dir = cols.strings[i] as string;
    if (!folders.has(dir)) continue;
    try {
      if (!lstat(dir === "" ? root : `${root}/${dir}`, st)) return undefined;
    } catch {
      return undefined;
    }
    dirStats.set([st[ST_MTIME] as number, st[ST_CTIME] as number, st[ST_INO] as number], i * DIR_STAT);
  }
  changes.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  return {
    root: target,
    objects: new Map(), // the target's folders are stored: it is a snapshot
    read,
    changes,
    newBytes: 0,
    files: now.files,
    bytes,
    tooLarge: now.tooLarge,
    secretFiles: now.secretFiles,
    patch: { ...now.patch, root: target, dirHashes: plan.dirHashes, files: [...files].map(([j, info]) => ({ j, info })), dirStats, fileStats },
  };
}

/** What a quick restore needs of the workspace. */
export interface RestoreHost {
  readonly objects: ObjectStore;
  /** HEAD: the snapshot whose tree the kept columns hold. */
  readonly head: Checkpoint;
  /** Runs `write` with the store's gc epoch, from the start again if a gc ran meanwhile (Store.withGcEpoch). */
  withGcEpoch<T>(write: (epoch: number) => Promise<T>): Promise<T>;
  /** Commits and records the quick snapshot `q` of the kept columns (workspace.ts `#commitQuick`). */
  commit(q: QuickTree, message: string, tags: readonly string[], extra: QuickExtra): Promise<Checkpoint>;
  /** Records by a walk what is on disk: the restore's result, when its files changed meanwhile. */
  walked(message: string): Promise<Checkpoint>;
}

/**
 * Restores the whole work tree to `checkpoint`'s files when only file contents differ
 * (`found`: the comparison by stats against the kept columns `cols`, HEAD's tree): the state
 * before is recorded as the safety snapshot (unless it is HEAD's: HEAD then undoes the
 * restore, as after a partial one), the files written, the result recorded as HEAD.
 * Undefined, with nothing written or recorded, when the trees must be planned whole.
 */
export async function quickRestore(
  root: string,
  cols: TreeColumns,
  found: StatCompared,
  checkpoint: Checkpoint,
  host: RestoreHost,
): Promise<RestoreReport | undefined> {
  const label = checkpoint.id.slice(0, 10);
  const target = checkpoint.filesRoot as Hash;
  // The files read again inside the epoch: a gc that makes the commit start again may have taken their objects.
  const taken = await host.withGcEpoch(async (epoch) => {
    const now = await quickTree(root, cols, found, host.objects);
    const plan = now && (await planQuickRestore(root, cols, now, target, host.objects));
    mark("restore: planned against the kept columns");
    if (!now || !plan) return undefined;
    // Nothing changed since HEAD (the usual case when a hook snapshots every edit): HEAD is the state before.
    if (now.root === host.head.filesRoot) return { now, plan, safety: null };
    return { now, plan, safety: await host.commit(now, `before restoring ${label}`, [], { safety: true, followed: true, epoch }) };
  });
  if (taken === undefined) return undefined;
  const { now, plan, safety } = taken;
  await writePlanned(root, plan, host.objects);
  mark("restore: files written");
  const q = restoredTree(root, cols, now, plan, target);
  const message = `restored ${label}`;
  const restored = q ? await host.withGcEpoch((epoch) => host.commit(q, message, ["restore"], { epoch })) : await host.walked(message);
  const written = plan.writes.map((w) => w.path).sort(walkOrder); // as the whole restore lists them: the walk's order
  // The files the target holds without their content, as the whole restore lists them (the plan found them as the work tree has them).
  const skipped = now.tooLarge.map((path) => ({ path, why: TOO_LARGE_THEN }));
  return { safety, restored, written, deleted: [], skipped, dryRun: false, undo: { snapshot: safety ?? host.head, paths: [], created: [] } };
}

/** Writes the plan's files (each a new file renamed over the old, through ContainedFs: nothing outside the root). */
export async function writePlanned(root: string, plan: QuickRestorePlan, objects: ObjectStore): Promise<void> {
  const fs = new ContainedFs(root);
  // The files' objects in one read; a file cut into chunks reads them after.
  const nodes = await objects.getNodes(plan.writes.map((w) => w.info.hash));
  for (const w of plan.writes) {
    const node = nodes.get(w.info.hash);
    fs.writeFile(w.path, node?.kind === "b" ? node.data : await readFileObject(objects, w.info.hash), w.info.mode);
  }
}
