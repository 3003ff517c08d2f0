// Walking a workspace's files for its snapshots: the walk itself (all of it, or only the
// folders said to have changed since the last one), the stat cache that spares reading
// unchanged files, and making sure the objects a cached hash names are in the store.
import { join } from "node:path";
import { FORGE_DIR } from "../../core/config.js";
import type { ProgressListener } from "../../core/progress.js";
import type { FileInfo, Tree } from "../../objects/file-tree.js";
import type { Hash } from "../../objects/hash.js";
import type { ObjectStore } from "../../objects/object-store.js";
import { gitView } from "./git-view.js";
import { IgnoreRules, ignoredOnDisk } from "./ignore-rules.js";
import type { SecretFilesOption } from "./secret-files.js";
import {
  changedSince,
  keySources,
  mergedKey,
  quickStatus,
  statCompare,
  walkKey,
  type QuickStatus,
  type StatCompared,
  type WalkSettings,
} from "./quick-status.js";
import { StatCache, StatCacheFile } from "./stat-cache.js";
import { changedStats, quickStats, trustable, walkedStats, type Walked } from "./walk-stats.js";
import type { TreeColumns } from "./tree-cache.js";
import { refreshCache, writeTreeCache } from "./tree-cache-write.js";
import { sameDirs, sameEntry, type FileChange } from "./tree-compare.js";
import { mark } from "../../core/trace.js";
import { takeWalkPreload } from "./walk-preload.js";
import { askWatcher } from "./watch-hint.js";
import { type PriorWalk, type Scan, fileNow, hashPending, hashingProgress, scanTree, scanTreeFrom, walkOrder } from "./walk.js";

/** A walk of the files: the tree, what could not be read, and the bytes it stored. */
export interface Scanned {
  readonly tree: Tree;
  readonly unreadable: Map<string, string>;
  readonly newBytes: number;
  /** Whether only the folders of the paths said to have changed were listed again. */
  readonly limited: boolean;
  /** Secret files left out of the tree (secret-files.ts), in walk order. */
  readonly secretFiles: readonly string[];
  /** Files too large to store, in walk order. */
  readonly tooLarge: readonly string[];
  /** For a quick walk (only file contents changed): the files read again, all that can differ from the base tree. */
  readonly reread?: readonly string[];
}

export class Scanner {
  readonly #root: string;
  readonly #extraIgnores: readonly string[];
  readonly #maxFileBytes: number;
  readonly #secretFiles: SecretFilesOption | undefined;
  readonly #stats: StatCacheFile;
  /**
   * This object's last walk of the files, the base of a walk limited to the paths said to
   * have changed since. Unset while a restore writes.
   */
  #lastWalk: PriorWalk | null = null;
  /** Walks begun, and which of them `#lastWalk` is (a walk that began earlier never replaces a later one's). */
  #walks = 0;
  #lastWalkNo = 0;
  /** What the last walk saw beside its tree, if it was a full one that could read everything: `walkStats`. */
  #lastFull: { tree: Tree; stats: Walked } | null = null;

  constructor(root: string, extraIgnores: readonly string[], maxFileBytes: number, secretFiles?: SecretFilesOption) {
    this.#root = root;
    this.#extraIgnores = extraIgnores;
    this.#maxFileBytes = maxFileBytes;
    this.#secretFiles = secretFiles;
    this.#stats = new StatCacheFile(join(root, FORGE_DIR, "stat-cache.bin"));
  }

  /**
   * The current tree, hashed (the objects of files read anew written to `objects` when
   * given; `ensureStored` vouches for the others). With `changed` (every path that may have
   * changed since this object's last walk), only the folders holding those paths are listed
   * again and the rest is taken from that walk — when there is one and the hint can be
   * used; otherwise everything is walked.
   */
  async scan(objects: ObjectStore | undefined, onProgress?: ProgressListener, changed?: Iterable<string>, quick?: QuickBase): Promise<Scanned> {
    const walkNo = ++this.#walks;
    if (changed === undefined && quick !== undefined) {
      const found = quick.foldersChanged ? undefined : (quick.found ?? statCompare(this.#root, quick.cols, this.settings, this.#noWalk, this.#ignoredNow));
      // A folder changed: a walk of what changed since the kept stats, when it can say (else the whole walk below).
      const limited = found === undefined ? await this.#changedWalk(quick, objects, onProgress, walkNo) : undefined;
      if (limited !== undefined) return limited;
      mark("walk: stats compared");
      // The stats of the files read go with the tree (tree-cache.ts); the stat cache, which
      // full walks use, is not loaded: a file changed since then costs one read there.
      const read = StatCache.empty();
      const done = found && (await this.#quickScan(found, quick, read, objects, onProgress));
      if (found !== undefined && done !== undefined) {
        if (walkNo > this.#lastWalkNo) {
          // What a full walk would have made (the same names judged the same way): the base of a limited one.
          this.#lastWalk = { tree: done.tree, unreadable: done.unreadable, gitKey: gitView(this.#root)?.key ?? "", secretFiles: new Set(found.secretFiles) };
          this.#lastWalkNo = walkNo;
          this.#lastFull = { tree: done.tree, stats: quickStats(quick.cols, found, read) };
        }
        return done;
      }
    }
    const takenAt = Date.now();
    const cache = this.#stats.get();
    mark("walk: stat cache read");
    const options = () => ({
      root: this.#root,
      ignore: new IgnoreRules(this.#root, this.#extraIgnores, this.#secretFiles),
      cache,
      maxFileBytes: this.#maxFileBytes,
    });
    const prior = changed === undefined ? null : this.#lastWalk;
    // What the other core listed since the process started: for this walk only, and a full one.
    const preload = takeWalkPreload(this.#root);
    const first = options();
    mark("walk: ignore rules read");
    const hinted = prior === null || changed === undefined ? undefined : scanTreeFrom(first, prior, changed);
    // A limited walk that gave up has entered folders of its rules: a full walk starts with fresh ones.
    const used = hinted !== undefined || prior === null ? first : options();
    let scan: ReturnType<typeof scanTree>;
    try {
      scan = hinted ?? scanTree(preload === undefined ? used : { ...used, preload });
    } finally {
      preload?.close();
    }
    mark("walk: files listed");
    const { newBytes } = await this.#read(scan, cache, objects, onProgress);
    // A limited walk saw only part of the tree: entries of files deleted elsewhere wait for the next full one.
    if (!hinted) cache.retain(scan.tree.files);
    mark("walk: changed files read");
    this.#stats.save(cache);
    mark("walk: stat cache saved");
    const secretFiles = [...used.ignore.secretFiles].sort(walkOrder);
    if (walkNo > this.#lastWalkNo) {
      this.#lastWalk = { tree: scan.tree, unreadable: scan.unreadable, gitKey: used.ignore.gitKey, secretFiles: used.ignore.secretFiles };
      this.#lastWalkNo = walkNo;
      const seen = scan.seen;
      this.#lastFull =
        !hinted && scan.unreadable.size === 0 && seen !== undefined
          ? {
              tree: scan.tree,
              stats: walkedStats(
                walkKey(this.settings, used.ignore.gitDepends, used.ignore.sources),
                takenAt,
                secretFiles,
                seen,
                cache,
                trustable(scan.pending, takenAt),
              ),
            }
          : null;
    }
    return { tree: scan.tree, unreadable: scan.unreadable, newBytes, limited: hinted !== undefined, secretFiles, tooLarge: scan.large.sort(walkOrder) };
  }

  /**
   * The tree by a walk limited to what changed since the walk that kept `quick`'s stats
   * (`changedSince`): the folders whose stats moved listed again, the entries whose stats
   * moved looked at again, everything else the kept tree — as git's untracked cache spares
   * listing folders that did not change. Its stats (the kept ones where nothing was looked at
   * again) and its key (both walks' ignore files) go with the tree, so the next status is a
   * quick one. Undefined when it cannot say: the caller walks everything.
   */
  async #changedWalk(
    quick: QuickBase,
    objects: ObjectStore | undefined,
    onProgress: ProgressListener | undefined,
    walkNo: number,
  ): Promise<Scanned | undefined> {
    const { cols, tree: kept } = quick;
    const takenAt = Date.now();
    const changed = changedSince(this.#root, cols, this.settings);
    // Unreadable entries keep no reason in the cache: a walk gives it again.
    if (changed === undefined || cols.stats === undefined || cols.types.includes(0x75 /* u */)) return undefined;
    mark("walk: stats compared, folders changed");
    takeWalkPreload(this.#root)?.close();
    const cache = this.#stats.get();
    const ignore = new IgnoreRules(this.#root, this.#extraIgnores, this.#secretFiles);
    const options = { root: this.#root, ignore, cache, maxFileBytes: this.#maxFileBytes };
    // The kept tree is a whole walk's, of the same names judged the same way (the key held), git's state included.
    const prior = { tree: kept, unreadable: new Map<string, string>(), gitKey: ignore.gitKey, secretFiles: new Set(cols.stats.secretFiles) };
    const scan = scanTreeFrom(options, prior, changed.paths, changed.folders);
    if (scan === undefined) return undefined;
    // An ignore file new or changed in a folder the kept tree has may leave out names in folders not listed again: a whole walk says.
    const before = keySources(cols.stats.key);
    for (const [path, key] of ignore.sources) {
      if (key === "-" || before.get(path) === key) continue;
      const dir = path.slice(this.#root.length + 1, Math.max(this.#root.length, path.lastIndexOf("/")));
      if (kept.dirs.has(dir)) return undefined;
    }
    mark("walk: changed folders listed");
    const { newBytes } = await this.#read(scan, cache, objects, onProgress);
    this.#stats.save(cache);
    const secretFiles = [...ignore.secretFiles].sort(walkOrder);
    const key = mergedKey(cols.stats.key, this.settings, ignore.gitDepends, ignore.sources);
    if (walkNo > this.#lastWalkNo) {
      this.#lastWalk = { tree: scan.tree, unreadable: scan.unreadable, gitKey: ignore.gitKey, secretFiles: ignore.secretFiles };
      this.#lastWalkNo = walkNo;
      const seen = scan.seen;
      this.#lastFull =
        key !== undefined && scan.unreadable.size === 0 && seen !== undefined
          ? { tree: scan.tree, stats: changedStats(key, takenAt, secretFiles, seen, cache, cols, changed, trustable(scan.pending, takenAt)) }
          : null;
    }
    return { tree: scan.tree, unreadable: scan.unreadable, newBytes, limited: true, secretFiles, tooLarge: scan.large.sort(walkOrder) };
  }

  /** A comparison by stats that found every folder as it was needs no walk: the preload listing them on the other core stops (walk-preload.ts). */
  readonly #noWalk = (): void => takeWalkPreload(this.#root)?.close();

  /** The settings that decide which files a walk takes. */
  get settings(): WalkSettings {
    return { ignore: this.#extraIgnores, secretFiles: this.#secretFiles, maxFileBytes: this.#maxFileBytes };
  }

  /**
   * After a status that walked (the quick one could not say): writes the snapshot's tree `base`
   * (root `root`) again with the stats that walk just took, where they describe it — every
   * folder, when the walk found the same names in each; every file found as the snapshot has
   * it (a modified one is left unknown, and read by each status until the next snapshot). So
   * a cache written by a walk of racy files, by an older Forge, or before many files were
   * `touch`ed, is made quick once. Nothing when `tree` is not this object's last walk (whole, or of what changed).
   */
  keepStats(path: string, root: Hash, base: Tree, tree: Tree, changes: readonly FileChange[]): void {
    const stats = this.walkStats(tree);
    if (stats === undefined || !sameDirs(base, tree) || !changes.every((c) => c.kind === "modified")) return;
    const file = (p: string, f: FileInfo, j: number) => (sameEntry(tree.files.get(p), f) ? stats.file(p, f, j) : undefined);
    writeTreeCache(path, root, base, { ...stats, bulk: undefined, from: undefined, file });
  }

  /**
   * The files against the tree in `cols` by their stats (quick-status.ts): no read means they
   * are that tree. `allowNames`: new files in folders listed again come back as `added` (and
   * files gone as `removed`), for a caller that records them; else such a folder is left to a walk.
   */
  compare(cols: TreeColumns, allowNames = false): StatCompared | undefined {
    return statCompare(this.#root, cols, this.settings, this.#noWalk, this.#ignoredNow, allowNames, allowNames ? this.#hintFor(cols) : undefined);
  }

  /** What a running watcher said changed since `cols`' walk (`askWatcher`): for the next status or snapshot against them. */
  #hint: { readonly cols: TreeColumns; readonly paths: ReadonlySet<string> } | undefined;

  /**
   * Asks a running `forge watch` of this folder which paths changed since `cols`' walk began
   * (watch-hint.ts): the next status or snapshot against `cols` lstat's only those files and
   * the racy ones (never a restore: what it overwrites is compared whole). Nothing is kept
   * when no watcher answers.
   */
  async askWatcher(cols: TreeColumns): Promise<void> {
    const takenAt = cols.stats?.takenAt;
    const paths =
      takenAt === undefined ? undefined : await askWatcher(this.#root, takenAt - HINT_SLACK_MS, this.#extraIgnores, cols.strings.slice(0, cols.nDirs));
    this.#hint = paths && { cols, paths: new Set(paths) };
    if (paths) mark("watch: changed paths from the watcher");
  }

  /** The watcher's paths for a comparison against `cols`, taken once. */
  #hintFor(cols: TreeColumns): ReadonlySet<string> | undefined {
    const hint = this.#hint?.cols === cols ? this.#hint.paths : undefined;
    this.#hint = undefined;
    return hint;
  }

  /** What judges the names a folder listed again by a comparison of stats holds beyond the kept tree's: the walk's rules, read when first needed. */
  readonly #ignoredNow = () => ignoredOnDisk(this.#root, this.#extraIgnores, this.#secretFiles);

  /**
   * A status by stats against the tree in `cols` (quick-status.ts); undefined when a walk
   * must say. The stats it found out of date are brought up to date in `cols`' file, `path`.
   */
  quickStatus(cols: TreeColumns, path: string): QuickStatus | undefined {
    const found = quickStatus(this.#root, cols, this.settings, this.#noWalk, this.#ignoredNow, this.#hintFor(cols));
    if (found?.refresh) refreshCache(path, cols, found.refresh);
    return found;
  }

  /**
   * What the last walk saw beside `tree`, to be written with it: only for the tree of a full
   * walk that read everything, else undefined. `read`: how many files that walk read (their
   * stats were not in the cache).
   */
  walkStats(tree: Tree): Walked | undefined {
    return this.#lastFull?.tree === tree ? this.#lastFull.stats : undefined;
  }

  /**
   * The tree when only file contents changed (quick-status.ts): the kept tree with the files
   * whose stats differ read again. Undefined when one of them is gone meanwhile: a walk says.
   */
  async #quickScan(
    found: StatCompared,
    quick: QuickBase,
    cache: StatCache,
    objects: ObjectStore | undefined,
    onProgress?: ProgressListener,
  ): Promise<Scanned | undefined> {
    // Copies: the base tree stays as it was; the Maps keep its order, which the stats written with the tree follow.
    const tree: Tree = { files: new Map(quick.tree.files), dirs: new Map(quick.tree.dirs) };
    const scan = {
      tree,
      pending: found.reads.map((r) => ({ path: r.path, st: r.st, mode: r.st.mode & 0o777 })),
      unreadable: new Map<string, string>(),
      large: found.tooLarge,
    };
    const { newBytes } = await this.#read(scan, cache, objects, onProgress);
    if (found.reads.some((r) => tree.files.get(r.path) === quick.tree.files.get(r.path))) return undefined;
    const reread = found.reads.map((r) => r.path);
    return { tree, unreadable: scan.unreadable, newBytes, limited: false, secretFiles: found.secretFiles, tooLarge: [...found.tooLarge], reread };
  }

  /** Reads and hashes the walk's pending files (see `hashPending`), telling `onProgress` as "hashing files". */
  #read(scan: Scan, cache: StatCache, objects: ObjectStore | undefined, onProgress?: ProgressListener): Promise<{ newBytes: number }> {
    return hashPending(scan, this.#root, cache, objects, hashingProgress(onProgress));
  }

  /** The files change under this object now (a restore): no walk limited to a hint until everything was walked again. */
  forgetLastWalk(): void {
    takeWalkPreload(this.#root)?.close(); // it saw the files as they were
    this.#lastWalk = null;
    this.#lastFull = null;
    this.#lastWalkNo = ++this.#walks;
  }

  /**
   * Files whose hash came from the stat cache are assumed stored; make sure they are (a
   * pruned snapshot and a gc may have removed them): re-read and store any that are not.
   * Hashes the last snapshot has are stored for sure (it is live; the gc epoch check at
   * commit covers a gc in between); the others are asked about in batches.
   */
  async ensureStored(objects: ObjectStore, tree: Tree, base: Tree | null, only?: readonly string[]): Promise<number> {
    const ask = new Map<Hash, string[]>();
    // A quick walk names the files that can differ from the base; every other one is the base's.
    const entries = only === undefined || base === null ? tree.files : only.map((p) => [p, tree.files.get(p)] as const);
    for (const [path, f] of entries) {
      if (f?.type !== "f") continue;
      const b = base?.files.get(path);
      if (b !== undefined && b.hash === f.hash && b.type === "f") continue;
      const paths = ask.get(f.hash);
      if (paths) paths.push(path);
      else ask.set(f.hash, [path]);
    }
    if (ask.size === 0) return 0;
    const stored = await objects.hasMany([...ask.keys()]);
    const missing = [...ask].filter(([h]) => !stored.has(h)).flatMap(([, paths]) => paths);
    if (missing.length === 0) return 0;
    const cache = this.#stats.get();
    const scan = {
      tree,
      pending: missing.map((path) => ({ path, st: { size: -1, mtimeMs: 0, ctimeMs: 0, ino: 0, mode: 0 }, mode: (tree.files.get(path) as FileInfo).mode })),
      unreadable: new Map<string, string>(),
      large: [],
    };
    return (await hashPending(scan, this.#root, cache, objects)).newBytes;
  }

  /** The content keys of files now (null: deleted; a path that cannot be looked at is left out), for the edit journal. */
  async filesNow(relPaths: readonly string[]): Promise<Map<string, FileInfo | null>> {
    const out = new Map<string, FileInfo | null>();
    // A hook's few files are read, not looked up: loading the stat cache (10,000 entries: ~3 ms) costs more than hashing them.
    const few = relPaths.length <= FEW_FILES;
    const cache = few ? StatCache.empty() : this.#stats.get();
    for (const rel of relPaths) {
      const now = await fileNow(this.#root, rel, cache);
      if (now !== undefined) out.set(rel, now);
    }
    if (!few) this.#stats.save(cache);
    return out;
  }
}

/** Up to this many files, `filesNow` reads them rather than loading the stat cache. */
const FEW_FILES = 16;
/**
 * A watcher is asked for what changed from this long before the kept stats' walk began: a
 * change before it is in the stats the walk took, and the margin covers clocks of processes
 * that read the time a little apart.
 */
const HINT_SLACK_MS = 2000;

/** What could not be read, in walk order, with why. */
export function unreadableList(unreadable: ReadonlyMap<string, string>): { path: string; why: string }[] {
  return [...unreadable.keys()].sort(walkOrder).map((path) => ({ path, why: unreadable.get(path) as string }));
}

/** The last snapshot's tree as kept with its stats (tree-cache.ts): what a quick walk starts from. */
export interface QuickBase {
  readonly cols: TreeColumns;
  /** The tree the columns hold, in their order. */
  readonly tree: Tree;
  /** The comparison already made against `cols` (by `compare`, just before), not to be made twice. */
  readonly found?: StatCompared;
  /** That comparison found a folder changed: the walk goes by what changed (`#changedWalk`) without making it again. */
  readonly foldersChanged?: boolean;
}
