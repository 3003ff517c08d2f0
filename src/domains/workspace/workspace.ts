// Workspace snapshots: save, compare and restore a directory's files in the object store,
// and tell the changes made through the agent from those made behind its back.
//
// Snapshots are checkpoints of a session of their own ("workspace" by default): the
// checkpoint's files root is the tree, its state a small summary. So prune, gc, export and
// the timeline apply to them as to anything else. The last snapshot is the known state;
// the edit journal (.forge/edits.json) lists what the agent changed since.
import { existsSync, lstatSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { FORGE_DIR } from "../../core/config.js";
import { ForgeError, InvalidArgumentError, unlessCode } from "../../core/errors.js";
import type { ProgressListener } from "../../core/progress.js";
import type { Hash } from "../../objects/hash.js";
import type { ObjectStore } from "../../objects/object-store.js";
import type { Session } from "../../timeline/session.js";
import type { Store } from "../../timeline/store.js";
import type { Checkpoint } from "../../timeline/types.js";
import { buildTree, fileKey, readFileObject, type FileInfo, type Tree } from "../../objects/file-tree.js";
import { Scanner, type QuickBase, type Scanned, unreadableList } from "./scanner.js";
import type { SecretFilesOption } from "./secret-files.js";
import { DELETED, EDITING, EditJournal } from "./edit-journal.js";
import { applyPaths, changedUnder, compareTrees, emptyTree, pathFilter, relativeIn, relativePaths, sameTree, type FileChange } from "./tree-compare.js";
import { KeptTrees } from "./kept-trees.js";
import type { TreeColumns } from "./tree-cache.js";
import { writePatchedTreeCache, writeTreeCache } from "./tree-cache-write.js";
import { quickTree, type QuickTree } from "./quick-snapshot.js";
import { applyRetention, madeOf, madeOfQuick, refuseUnknown, snapshotResult, snapshotState, type Made, type Recorded, recordedQuick } from "./snapshot-made.js";
import { nothingChanged, walkable, type StatCompared } from "./quick-status.js";
import { mark } from "../../core/trace.js";
import { DEFAULT_MAX_FILE_BYTES, STRATEGIES, WORKSPACE_SESSION, countChanges, type Strategy } from "./names.js";
export { DEFAULT_MAX_FILE_BYTES, STRATEGIES, WORKSPACE_SESSION, countChanges, type Strategy } from "./names.js";
export { compareTrees, type FileChange } from "./tree-compare.js";
export type { SnapshotState, StatusReport, SnapshotResult, RestoreReport, WorkspaceOptions } from "./types.js";
import type { CommitExtra, QuickExtra, RestoreOptions, SnapshotOptions, StatusReport, SnapshotResult, RestoreReport, WorkspaceOptions } from "./types.js";

/** A comparison by stats made (`Scanner.compare`) and the columns it was made against. */
type Compared = { readonly cols: TreeColumns; readonly found: StatCompared };

export class Workspace {
  readonly root: string;
  readonly session: Session;
  readonly #store: Store;
  readonly #extraIgnores: readonly string[];
  readonly #secretFiles: SecretFilesOption | undefined;
  readonly #retention: { keepLast: number; keepDays: number } | false;
  readonly #scanner: Scanner;
  /** The tree last committed and the tree cache as last read (kept-trees.ts). */
  readonly #kept: KeptTrees;
  readonly #journal: EditJournal;

  private constructor(store: Store, session: Session, root: string, options: WorkspaceOptions) {
    this.#store = store;
    this.session = session;
    this.root = root;
    this.#extraIgnores = options.ignore ?? [];
    this.#secretFiles = options.secretFiles;
    this.#retention = options.retention === undefined ? { keepLast: 100, keepDays: 30 } : options.retention;
    this.#journal = new EditJournal(join(root, FORGE_DIR));
    this.#scanner = new Scanner(root, this.#extraIgnores, options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, this.#secretFiles);
    this.#kept = new KeptTrees(join(root, FORGE_DIR, "tree-cache.bin"));
  }

  static async open(store: Store, options: WorkspaceOptions): Promise<Workspace> {
    const root = resolve(options.root); // absolute, no trailing separator
    if (!existsSync(root) || !lstatSync(root).isDirectory()) throw new InvalidArgumentError(`workspace root ${root} is not a directory`);
    const session = await store.session(options.session ?? WORKSPACE_SESSION, { kind: "workspace" });
    return new Workspace(store, session, root, options);
  }

  /** The configured ignore patterns, besides the defaults and the ignore files in the tree. */
  get ignorePatterns(): readonly string[] {
    return this.#extraIgnores;
  }

  /** The current tree, hashed (see Scanner.scan); the objects of files read anew written to the store when `store` is true. */
  #scan(store: boolean, onProgress?: ProgressListener, changed?: Iterable<string>, quick?: QuickBase): Promise<Scanned> {
    return this.#scanner.scan(store ? this.#objects : undefined, onProgress, changed, quick);
  }

  get #objects(): ObjectStore {
    return this.#store.objects;
  }

  /** The last snapshot and its tree; null before the first. */
  async #base(): Promise<{ checkpoint: Checkpoint; tree: Tree; cached: boolean; quick?: QuickBase } | null> {
    const head = (await this.session.head()).checkpoint;
    if (!head || head.filesRoot === null) return null;
    // Still the tree this object committed last (never changed since: trees are not mutated once committed).
    if (this.#kept.lastCommit?.root === head.filesRoot) return { checkpoint: head, tree: this.#kept.lastCommit.tree, cached: true };
    return { checkpoint: head, ...(await this.#kept.read(head.filesRoot, this.#objects)) };
  }

  /** Created, modified, deleted (and renamed) files since the last snapshot; which were not the agent's. */
  async status(): Promise<StatusReport> {
    const head = (await this.session.head()).checkpoint;
    // By stats alone (quick-status.ts), which writes the stats it found out of date afresh;
    // else a walk, which writes them afresh if it finds the files as the snapshot has them.
    const tried = head !== null && head.filesRoot !== null && this.#kept.lastCommit?.root !== head.filesRoot;
    // Read once: a walk after it takes its tree from the same columns (kept-trees.ts).
    const quick = tried ? this.#kept.columns(head.filesRoot as Hash) : undefined;
    if (quick) await this.#scanner.askWatcher(quick);
    const found = quick && this.#scanner.quickStatus(quick, this.#kept.path);
    mark("status: stats compared");
    if (head && found) {
      const after = new Map(found.changes.map((c) => [c.path, c.after as FileInfo]));
      const { changes, tooLarge, secretFiles } = found;
      return { base: head, changes, unknown: this.#journal.unknown(changes, after), tooLarge, unreadable: [], secretFiles };
    }
    const base = await this.#base();
    // A folder changed: a walk of what changed since the kept stats (`changedSince`), else a whole one.
    const changedFolders = quick && !found && base?.quick?.cols === quick ? { ...base.quick, foldersChanged: true } : undefined;
    const { tree, unreadable, secretFiles, tooLarge: large } = await this.#scan(false, undefined, undefined, changedFolders);
    const changes = compareTrees(base?.tree ?? emptyTree(), tree);
    if (tried && base !== null) this.#scanner.keepStats(this.#kept.path, base.checkpoint.filesRoot as Hash, base.tree, tree, changes);
    return {
      base: base?.checkpoint ?? null,
      changes,
      unknown: this.#journal.unknown(changes, tree.files),
      tooLarge: [...large],
      unreadable: unreadableList(unreadable),
      secretFiles,
    };
  }

  /**
   * Records the tree as a snapshot. Changes not made through the agent are handled by the
   * strategy: `strict` refuses (UNKNOWN_CHANGES, nothing written to the timeline), `warn`
   * records them in the snapshot, `auto-integrate` first takes a snapshot of the known
   * state plus only those changes, labelled as external.
   */
  async snapshot(
    message = "",
    options: { strategy?: Strategy; tags?: readonly string[]; onProgress?: ProgressListener; safety?: boolean; trusted?: boolean } = {},
  ): Promise<SnapshotResult> {
    return (await this.#snapshotLoop(message, options, false)) as SnapshotResult;
  }

  /**
   * `snapshot`, except that when the files are exactly as in the last snapshot (the same
   * tree) nothing is recorded and the result is null: a watcher's snapshot, never an empty
   * duplicate.
   *
   * `changed`, a hint: every path (relative to the root, "/"-separated; files or folders)
   * that may have changed on disk since this object last walked the files (its last
   * snapshot, status, diff or restore began). Only the folders holding those paths are
   * listed and stat'ed again, a folder named is walked whole, and everything else is taken
   * from that last walk — the same tree a full walk gives, if the hint is complete. A caller
   * that cannot be sure of that (a watcher whose events may have been lost) must leave it
   * out. It is not used, and everything is walked, before this object's first walk, and
   * when it names an ignore file, the root, or something that contradicts the last walk.
   */
  async snapshotIfChanged(
    message = "",
    options: { strategy?: Strategy; tags?: readonly string[]; onProgress?: ProgressListener; changed?: Iterable<string> } = {},
  ): Promise<SnapshotResult | null> {
    // Files as HEAD has them by their stats alone (no file to read): nothing to record, no tree built (a hook after a tool that wrote nothing).
    const head = options.changed === undefined ? (await this.session.head()).checkpoint : null;
    const cols = head?.filesRoot && this.#kept.lastCommit?.root !== head.filesRoot ? this.#kept.columns(head.filesRoot) : undefined;
    if (cols) await this.#scanner.askWatcher(cols);
    const found = cols && this.#scanner.compare(cols, true);
    if (found && nothingChanged(found)) return null;
    return this.#snapshotLoop(message, options, true, undefined, cols && found && { cols, found });
  }

  /**
   * `scanned`: a walk just made (by a restore, for its safety snapshot), used by the first
   * attempt instead of walking again. `into`: the session to record it in, when not this
   * workspace's own (a partial restore's safety snapshot): HEAD, the caches and the edit
   * journal are then left as they are.
   */
  async #snapshotLoop(message: string, options: SnapshotOptions, ifChanged: boolean, scanned?: Scanned, compared?: Compared): Promise<SnapshotResult | null> {
    const strategy = options.strategy ?? "warn";
    if (!(STRATEGIES as readonly string[]).includes(strategy))
      throw new InvalidArgumentError(`unknown strategy "${strategy}"`, `use one of ${STRATEGIES.join(", ")}`);
    // A gc that runs while objects are chosen makes it start again, checking every object anew.
    return this.#store.withGcEpoch((epoch, attempt) =>
      this.#snapshotOnce(message, strategy, options, ifChanged, epoch, attempt === 1 ? scanned : undefined, attempt === 1 ? compared : undefined),
    );
  }

  async #snapshotOnce(
    message: string,
    strategy: Strategy,
    options: SnapshotOptions,
    ifChanged: boolean,
    epoch: number,
    scanned?: Scanned,
    compared?: Compared,
  ): Promise<SnapshotResult | null> {
    // Only file contents changed: the snapshot is made from the kept columns (quick-snapshot.ts), no tree built.
    const head = (await this.session.head()).checkpoint;
    const cols = !scanned && !options.into && !options.safety && options.changed === undefined ? this.#kept.withStats(head?.filesRoot) : undefined;
    if (cols && compared?.cols !== cols) await this.#scanner.askWatcher(cols);
    const found = cols && (compared?.cols === cols ? compared.found : this.#scanner.compare(cols, true));
    const q = cols && found && (await quickTree(this.root, cols, found, this.#objects, options.onProgress));
    if (q) mark("snapshot: files read against the kept columns");
    const outside = q && !options.trusted ? this.#journal.unknown(q.changes, q.read) : [];
    // Changes made outside the agent to integrate first need the whole tree: the way below.
    if (head && cols && q && !(strategy === "auto-integrate" && outside.length > 0)) {
      if (ifChanged && q.root === head.filesRoot) return null;
      const unknown = refuseUnknown(outside, strategy);
      return this.#commitQuick(cols, q, message, options.tags ?? [], { unknown: strategy === "warn" ? unknown : [], epoch }, unknown);
    }
    const base = await this.#base();
    // A comparison by stats just made against the same columns is not made again; one that found a folder changed (or new files), not at all.
    const known = walkable(found) ?? (compared?.cols === base?.quick?.cols ? walkable(compared?.found) : undefined);
    const quick =
      base?.quick &&
      (cols === base.quick.cols && !walkable(found) ? { ...base.quick, foldersChanged: true } : known ? { ...base.quick, found: known } : base.quick);
    mark("snapshot: last snapshot's tree read");
    // A walk made before the epoch was read is as good as one made now: every hash in it is
    // checked to be stored (or its file stored) below, after the read.
    const { tree, unreadable, newBytes: read, limited, secretFiles, reread } = scanned ?? (await this.#scan(true, options.onProgress, options.changed, quick));
    // First, as it may read a file again (and so change its entry): asks nothing when nothing changed.
    const newBytes = read + (await this.#scanner.ensureStored(this.#objects, tree, base?.tree ?? null, reread));
    // The directory objects, against the last snapshot's (reused where nothing changed).
    const built = buildTree(tree, base?.tree ?? null, base === null ? undefined : reread);
    if (ifChanged && base !== null && built.root === base.checkpoint.filesRoot) return null;
    const changes = compareTrees(base?.tree ?? emptyTree(), tree, base === null ? undefined : reread);
    // A safety snapshot takes things as they are; a restore's own snapshot records the agent's doing.
    const unknown = base === null || options.safety || options.trusted ? [] : refuseUnknown(this.#journal.unknown(changes, tree.files), strategy);
    let external: Checkpoint | null = null;
    if (unknown.length > 0 && strategy === "auto-integrate" && base !== null) {
      // The known state with only the outside changes applied: who changed what, in order.
      const outside = applyPaths(base.tree, tree, unknown);
      external = await this.#commit(madeOf(outside, buildTree(outside, base.tree)), new Map(), "external changes (made outside the agent)", ["external"], {
        external: true,
        unknown,
        epoch,
        base,
        followed: true,
      });
    }
    const snapshot = await this.#commit(madeOf(tree, built), unreadable, message, options.tags ?? [], {
      secretFiles,
      unknown: strategy === "warn" ? unknown : [],
      safety: options.safety === true,
      epoch,
      newBytes,
      changes,
      base,
      ...(options.into && { into: options.into }),
      // A whole restore's safety snapshot: the restored one follows at once.
      followed: options.safety === true && !options.into,
    });
    return this.#recorded({ snapshot, external, unknown, changes, newBytes, incomplete: unreadable.size > 0, limited, secretFiles, into: options.into });
  }

  /** A quick snapshot (quick-snapshot.ts) committed and recorded; `unknown`: the changes made outside the agent it holds. */
  async #commitQuick(
    cols: TreeColumns,
    q: QuickTree,
    message: string,
    tags: readonly string[],
    extra: QuickExtra,
    unknown: string[] = [],
  ): Promise<SnapshotResult> {
    const all = { ...extra, secretFiles: q.secretFiles, newBytes: q.newBytes, changes: q.changes, base: null };
    return this.#recorded(recordedQuick(await this.#commit(madeOfQuick(cols, q), new Map(), message, tags, all), unknown, q));
  }

  /** After a snapshot is recorded: the edit journal cleared, retention applied, the result. */
  async #recorded(r: Recorded): Promise<SnapshotResult> {
    if (!r.into) this.#journal.clear();
    await applyRetention(r.into ?? this.session, this.#retention, this.#store.clock.now());
    return snapshotResult(r);
  }

  async #commit(made: Made, unreadable: Map<string, string>, message: string, tags: readonly string[], extra: CommitExtra): Promise<Checkpoint> {
    const { root, objects } = made;
    const dirs = await this.#objects.putRaw(objects);
    const state = snapshotState(this.root, made, unreadable, extra);
    const allTags = [...tags, ...(unreadable.size > 0 ? ["incomplete"] : []), ...(extra.safety ? ["safety"] : [])];
    const checkpoint = await (extra.into ?? this.session).checkpoint(state, {
      message: message || (extra.safety ? "before restore" : "snapshot"),
      tags: allTags,
      trigger: extra.external ? "external-changes" : extra.safety ? "pre-restore" : "files",
      filesRoot: root,
      gcEpoch: extra.epoch,
      // A snapshot is what a hook takes after every tool call: the search index takes its
      // changed files in at the next search (reading the parent's folders back and
      // tokenizing the changed text cost ~14 ms of a 10-file snapshot), not on this path.
      searchIndex: "later",
      metadata: {
        // What the files cost the store: the checkpoint's own sizes count only its summary.
        fileBytesAdded: (extra.newBytes ?? 0) + dirs.newBytes,
        ...(extra.changes && { changed: countChanges(extra.changes) }),
      },
    });
    mark("snapshot: checkpoint committed");
    if (extra.into) return checkpoint; // not HEAD: the next status and snapshot compare against HEAD's tree
    if (made.quick) {
      // The cache patched where the snapshot changed it; the tree itself is never built (this object reads the cache again if it needs it).
      if (!extra.followed) writePatchedTreeCache(this.#kept.path, made.quick.cols, made.quick.q.patch);
      this.#kept.lastCommit = null;
      this.#scanner.forgetLastWalk(); // a walk limited to a hint needs a whole tree as its base
    } else if (made.tree) {
      // Kept beside the store, with what the walk saw (unless the copy there is of this very tree already):
      // the next status and snapshot compare against it; written again when the walk read files whose stats changed.
      const walk = this.#scanner.walkStats(made.tree);
      const same = extra.base?.cached === true && extra.base.checkpoint.filesRoot === root;
      if (!extra.followed && (!same || (walk?.read ?? 0) + (walk?.relisted ?? 0) > 0)) writeTreeCache(this.#kept.path, root, made.tree, walk);
      this.#kept.lastCommit = { root, tree: made.tree };
    }
    mark("snapshot: tree cache written");
    return checkpoint;
  }

  /**
   * The tree a ref names: a snapshot of the workspace session, or "working" for the files on
   * disk. A ref that names none of them may name a safety snapshot of a partial restore (by
   * the id the restore printed), kept in the session beside this one.
   */
  async treeOf(ref: string): Promise<{ tree: Tree; checkpoint: Checkpoint | null }> {
    if (ref === "working") return { tree: (await this.#scan(false)).tree, checkpoint: null };
    const cp = await this.#snapshotOf(ref);
    return { tree: (await this.#kept.read(cp.filesRoot as Hash, this.#objects)).tree, checkpoint: cp };
  }

  /** The snapshot a ref names (not "working"): see `treeOf`. */
  async #snapshotOf(ref: string): Promise<Checkpoint> {
    const cp = await this.session.get(ref).catch(async (e: unknown) => {
      if (!(e instanceof ForgeError && e.code === "CHECKPOINT_NOT_FOUND")) throw e;
      const safety = await this.#safetySnapshot(ref);
      if (safety) return safety;
      throw new ForgeError("CHECKPOINT_NOT_FOUND", e.message, { hint: "`forge files log` lists the snapshots", cause: e });
    });
    if (cp.filesRoot === null) throw new InvalidArgumentError(`checkpoint ${cp.id} carries no files snapshot`);
    return cp;
  }

  /** A partial restore's safety snapshot by the id (or a prefix of it) that the restore printed. */
  async #safetySnapshot(ref: string): Promise<Checkpoint | undefined> {
    // Only an id: "#3", "HEAD~1" and the like name places on this workspace's own timeline.
    if (!/^[0-9A-Za-z]{8,}$/.test(ref)) return undefined;
    const session = await this.#store.getSession(this.safetySession).catch(unlessCode("SESSION_NOT_FOUND"));
    return session && (await session.get(ref).catch(unlessCode("CHECKPOINT_NOT_FOUND")));
  }

  /** The changes between two trees (default: the last snapshot and the files on disk), optionally only under `paths`. */
  async diff(
    from?: string,
    to?: string,
    options: { paths?: readonly string[] } = {},
  ): Promise<{ changes: FileChange[]; read: (f: FileInfo, side: "before" | "after", path: string) => Promise<Buffer> }> {
    const a = from === undefined ? ((await this.#base())?.tree ?? emptyTree()) : (await this.treeOf(from)).tree;
    const bWorking = to === undefined || to === "working";
    const b = bWorking ? (await this.#scan(false)).tree : (await this.treeOf(to)).tree;
    const filter = pathFilter(this.root, options.paths);
    const changes = compareTrees(a, b).filter((c) => filter(c.path) || (c.from !== undefined && filter(c.from)));
    const read = async (f: FileInfo, side: "before" | "after", path: string): Promise<Buffer> => {
      if (side === "after" && bWorking) return readFileSync(join(this.root, path));
      return readFileObject(this.#objects, f.hash);
    };
    return { changes, read };
  }

  /**
   * Brings the files (or only `paths`) back to a snapshot. Rewrites changed files atomically
   * (temp file + rename), removes files that did not exist then, restores modes and symlinks.
   * Ignored files are never touched, too large and unreadable files are left alone, and
   * nothing is ever written outside the root: unsafe names and symlinks pointing outside are
   * refused before anything is written.
   *
   * The whole tree: the current state is snapshotted first (so the restore can be undone) and
   * the result is recorded as a snapshot — HEAD moves to it. Only `paths` (each of which the
   * snapshot must hold): HEAD stays where it is, and the restore shows in `status` until the
   * next snapshot. If the paths hold changes since HEAD, the current state is first kept as a
   * safety snapshot in the session beside this one (`safetySession`), off HEAD's timeline;
   * if they hold none, HEAD itself undoes the restore.
   */
  async restore(ref: string, options: RestoreOptions = {}): Promise<RestoreReport> {
    if (ref === "working") throw new InvalidArgumentError("restore needs a snapshot, not the working files");
    return this.#restoreSnapshot(await this.#snapshotOf(ref), options);
  }

  /** Restores the files a checkpoint of any session carries (`forge checkpoint restore --files`). */
  async restoreCheckpoint(checkpoint: Checkpoint, options: RestoreOptions = {}): Promise<RestoreReport> {
    if (checkpoint.filesRoot === null)
      throw new InvalidArgumentError(`checkpoint ${checkpoint.id} carries no files snapshot`, "create checkpoints with --files to carry one");
    return this.#restoreSnapshot(checkpoint, options);
  }

  /** A whole restore where only file contents differ, by the kept columns (quick-restore.ts); else both trees planned whole. */
  async #restoreSnapshot(checkpoint: Checkpoint, options: RestoreOptions): Promise<RestoreReport> {
    const whole = !options.dryRun && (options.paths ?? []).length === 0;
    const quick = whole ? await this.#quickRestore(checkpoint) : undefined;
    return quick ?? this.#restoreTree((await this.#kept.read(checkpoint.filesRoot as Hash, this.#objects)).tree, checkpoint, options);
  }

  /**
   * The work tree's state as it is recorded (the safety snapshot), the files whose content
   * differs from `checkpoint`'s written, and the result recorded — all from the kept columns,
   * no tree built; undefined, with nothing written or recorded, when that cannot say.
   */
  async #quickRestore(checkpoint: Checkpoint): Promise<RestoreReport | undefined> {
    const head = (await this.session.head()).checkpoint;
    const cols = this.#kept.withStats(head?.filesRoot);
    const found = cols && this.#scanner.compare(cols);
    if (!head || !cols || !found) return undefined;
    return (await import("./quick-restore.js")).quickRestore(this.root, cols, found, checkpoint, {
      objects: this.#objects,
      head,
      withGcEpoch: (write) => this.#store.withGcEpoch(write),
      commit: async (q, message, tags, extra) => (await this.#commitQuick(cols, q, message, tags, extra)).snapshot,
      walked: async (message) => ((await this.#snapshotLoop(message, { trusted: true, tags: ["restore"] }, false)) as SnapshotResult).snapshot,
    });
  }

  /** The session holding the safety snapshots of partial restores: "<this session>/safety". */
  get safetySession(): string {
    return `${this.session.name}/safety`;
  }

  async #restoreTree(targetTree: Tree, checkpoint: Checkpoint, options: RestoreOptions): Promise<RestoreReport> {
    const paths = relativePaths(this.root, options.paths ?? []);
    const partial = paths.length > 0;
    // Loaded here: a status, a snapshot or a hook never restores.
    const { applyRestore, holds, planRestore, refuseMissing } = await import("./restore.js");
    refuseMissing(this.root, checkpoint, targetTree, paths);
    // The walk compares stats where it can (quick-status.ts).
    const head = await this.#base();
    const scanned = await this.#scan(false, undefined, undefined, head?.quick);
    const filter = pathFilter(this.root, paths);
    const input = { root: this.root, target: targetTree, current: scanned.tree, filter, extraIgnores: this.#extraIgnores, secretFiles: this.#secretFiles };
    const plan = planRestore(input);
    const deleted = [...plan.deletes];
    const report = { deleted, dryRun: false };
    if (options.dryRun)
      return { ...report, safety: null, restored: null, undo: null, written: plan.writes.map(([p]) => p), skipped: [...plan.skipped], dryRun: true };
    const label = `${checkpoint.id.slice(0, 10)}${partial ? ` (${paths.map((p) => p || ".").join(", ")})` : ""}`;
    if (partial && plan.writes.length === 0 && deleted.length === 0)
      return { ...report, safety: null, restored: null, undo: null, written: [], skipped: [...plan.skipped] };
    // Undone by HEAD if the files (a partial restore's paths) are as it has them; else by a snapshot of the walk above.
    const asHead = head !== null && (partial ? !changedUnder(head.tree, scanned.tree, filter) : sameTree(head.tree, scanned.tree));
    const safety = asHead
      ? null
      : (
          (await this.#snapshotLoop(
            `before restoring ${label}`,
            { safety: true, ...(partial && { into: await this.#safetySessionObject() }) },
            false,
            scanned,
          )) as SnapshotResult
        ).snapshot;
    const undone = (safety ?? head?.checkpoint) as Checkpoint;
    // The files change under this object now. A partial restore records nothing after: no
    // walk limited to a hint until everything was walked again. A whole one records its
    // result at once, walking again only the folders it changed (the walk above is the base).
    if (partial) this.#scanner.forgetLastWalk();
    const applied = await applyRestore({ ...input, plan, read: (hash) => readFileObject(this.#objects, hash) });
    const skipped = [...plan.skipped, ...applied.skipped];
    if (partial) {
      // The restore is the caller's own change, not one made outside the agent.
      await this.endEdit([...applied.written, ...deleted]);
      const before = safety ? scanned.tree : (head as { tree: Tree }).tree;
      return {
        ...report,
        safety,
        restored: null,
        written: applied.written,
        skipped,
        undo: { snapshot: undone, paths: paths.filter((p) => holds(before, p)), created: paths.filter((p) => !holds(before, p)) },
      };
    }
    // The restore is the agent's own change: its snapshot has no unknown changes.
    const restored = ((await this.#snapshotLoop(`restored ${label}`, { trusted: true, tags: ["restore"], changed: applied.touched }, false)) as SnapshotResult)
      .snapshot;
    return { ...report, safety, restored, written: applied.written, skipped, undo: { snapshot: undone, paths: [], created: [] } };
  }

  /** The session of partial restores' safety snapshots, created when first needed. */
  #safetySessionObject(): Promise<Session> {
    return this.#store.session(this.safetySession, { kind: "workspace" });
  }

  /** Snapshots, newest first, with what each added to the store. */
  async log(limit?: number): Promise<Checkpoint[]> {
    return this.session.list({ order: "desc", ...(limit !== undefined && { limit }) });
  }

  // The edit journal: what the agent changed through its own tools since the last snapshot.

  /** The agent is about to change these paths; until `endEdit`, any change to them is its own. */
  async beginEdit(paths: readonly string[]): Promise<void> {
    await this.#journal.update(paths.map((p) => [relativeIn(this.root, p), EDITING] as const));
  }

  /** The agent finished changing these paths: their content now is its own. */
  async endEdit(paths: readonly string[]): Promise<void> {
    const now = await this.#scanner.filesNow(paths.map((p) => relativeIn(this.root, p)));
    await this.#journal.update(new Map([...now].map(([rel, f]) => [rel, f === null ? DELETED : fileKey(f)])));
  }

  /** Records paths the agent just changed (`beginEdit` and `endEdit` in one). */
  recordEdit(paths: readonly string[]): Promise<void> {
    return this.endEdit(paths);
  }
}
