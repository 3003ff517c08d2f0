// Walking a workspace's files for its snapshots: the walk itself (all of it, or only the
// folders said to have changed since the last one), the stat cache that spares reading
// unchanged files, and making sure the objects a cached hash names are in the store.
import { join } from "node:path";
import { FORGE_DIR } from "../../core/config.js";
import type { ProgressListener } from "../../core/progress.js";
import type { FileInfo, Tree } from "../../objects/file-tree.js";
import type { Hash } from "../../objects/hash.js";
import type { ObjectStore } from "../../objects/object-store.js";
import { IgnoreRules } from "./ignore-rules.js";
import type { SecretFilesOption } from "./secret-files.js";
import { StatCacheFile } from "./stat-cache.js";
import { takeWalkPreload } from "./walk-preload.js";
import { type PriorWalk, fileNow, hashPending, scanTree, scanTreeFrom, walkOrder } from "./walk.js";

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
  async scan(objects: ObjectStore | undefined, onProgress?: ProgressListener, changed?: Iterable<string>): Promise<Scanned> {
    const walkNo = ++this.#walks;
    const cache = this.#stats.get();
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
    const hinted = prior === null || changed === undefined ? undefined : scanTreeFrom(first, prior, changed);
    // A limited walk that gave up has entered folders of its rules: a full walk starts with fresh ones.
    const used = hinted !== undefined || prior === null ? first : options();
    let scan: ReturnType<typeof scanTree>;
    try {
      scan = hinted ?? scanTree(preload === undefined ? used : { ...used, preload });
    } finally {
      preload?.close();
    }
    const { newBytes } = await hashPending(
      scan,
      this.#root,
      cache,
      objects,
      onProgress && ((done, total) => onProgress({ phase: "hashing files", done, total })),
    );
    // A limited walk saw only part of the tree: entries of files deleted elsewhere wait for the next full one.
    if (!hinted) cache.retain(scan.tree.files);
    this.#stats.save(cache);
    if (walkNo > this.#lastWalkNo) {
      this.#lastWalk = { tree: scan.tree, unreadable: scan.unreadable, gitKey: used.ignore.gitKey, secretFiles: used.ignore.secretFiles };
      this.#lastWalkNo = walkNo;
    }
    const secretFiles = [...used.ignore.secretFiles].sort(walkOrder);
    return { tree: scan.tree, unreadable: scan.unreadable, newBytes, limited: hinted !== undefined, secretFiles, tooLarge: scan.large.sort(walkOrder) };
  }

  /** The files change under this object now (a restore): no walk limited to a hint until everything was walked again. */
  forgetLastWalk(): void {
    takeWalkPreload(this.#root)?.close(); // it saw the files as they were
    this.#lastWalk = null;
    this.#lastWalkNo = ++this.#walks;
  }

  /**
   * Files whose hash came from the stat cache are assumed stored; make sure they are (a
   * pruned snapshot and a gc may have removed them): re-read and store any that are not.
   * Hashes the last snapshot has are stored for sure (it is live; the gc epoch check at
   * commit covers a gc in between); the others are asked about in batches.
   */
  async ensureStored(objects: ObjectStore, tree: Tree, base: Tree | null): Promise<number> {
    const ask = new Map<Hash, string[]>();
    for (const [path, f] of tree.files) {
      if (f.type !== "f") continue;
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
    const cache = this.#stats.get();
    for (const rel of relPaths) {
      const now = await fileNow(this.#root, rel, cache);
      if (now !== undefined) out.set(rel, now);
    }
    this.#stats.save(cache);
    return out;
  }
}

/** What could not be read, in walk order, with why. */
export function unreadableList(unreadable: ReadonlyMap<string, string>): { path: string; why: string }[] {
  return [...unreadable.keys()].sort(walkOrder).map((path) => ({ path, why: unreadable.get(path) as string }));
}
