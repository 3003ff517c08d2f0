// A long-lived watcher over one session and, optionally, its workspace (`forge watch`):
// every interval a checkpoint with the "scheduled" trigger when something changed since the
// last one, and a snapshot of the files once each burst of edits has gone quiet.
//
// Everything that writes runs through one queue, one thing at a time, so stopping means:
// start nothing new, let the write in progress finish. Idle, the process sleeps on its
// timers and inotify watches; nothing polls.
import { dirname, isAbsolute, relative, sep } from "node:path";
import { ForgeError } from "../../core/errors.js";
import type { Session } from "../../timeline/session.js";
import type { Store } from "../../timeline/store.js";
import type { Checkpoint } from "../../timeline/types.js";
import { IgnoreRules } from "../workspace/ignore-rules.js";
import { countChanges, type SnapshotResult, type Strategy, type Workspace } from "../workspace/workspace.js";
import { inotifyQueueLimit, TreeWatcher } from "./tree-watcher.js";
import { WatchLocks } from "./watch-lock.js";
import { WatchHints } from "./change-log.js";

/**
 * The trigger of a watcher's checkpoints: the forge-reasoning design's third kind besides
 * manual and the eight automatic ones (`TRIGGERS`), made on a schedule rather than by an
 * event.
 */
export const SCHEDULED_TRIGGER = "scheduled";

import { DEFAULT_EVERY_MS, DEFAULT_QUIET_MS, DEFAULT_RESCAN_MS } from "./defaults.js";
export { DEFAULT_EVERY_MS, DEFAULT_QUIET_MS, DEFAULT_RESCAN_MS };
export type { WatchOptions, SnapshotCause, WatchEvent, WatchSummary } from "./types.js";
import type { WatchOptions, SnapshotCause, WatchEvent, WatchSummary } from "./types.js";
import type { HookHandler } from "../workspace/hook-serve.js";

type Job = "snapshot" | "tick" | "rescan";
const CONFLICT_ATTEMPTS = 4;
/** More paths than this changed since the last snapshot: walk everything (and hold no longer list). */
const MAX_CHANGED_PATHS = 5000;
/** How far back HEAD's ancestry is searched for the files a session last carried. */
const FILES_LOOKBACK = 50;

export class Watcher {
  readonly #store: Store;
  readonly #session: Session;
  readonly #workspace: Workspace | undefined;
  readonly #everyMs: number;
  readonly #quietMs: number;
  readonly #rescanMs: number;
  readonly #hooks: HookHandler | undefined;
  readonly #strategy: Strategy;
  readonly #emit: (event: WatchEvent) => void;
  readonly #locks: WatchLocks;
  #tree: TreeWatcher | undefined;

  /** The queue every write goes through, and which jobs are waiting in it. */
  #queue: Promise<void> = Promise.resolve();
  readonly #queued = new Set<Job>();
  /** The job running now, if any. */
  #running: Job | undefined;
  #stopping = false;
  #stopped: Promise<WatchSummary> | undefined;

  #tickTimer: NodeJS.Timeout | undefined;
  #rescanTimer: NodeJS.Timeout | undefined;
  #quietTimer: NodeJS.Timeout | undefined;
  /** The burst of file events not yet snapshotted: when it began and how many events. */
  #burst: { start: number; events: number } | null = null;
  /**
   * The paths the file events named since the last snapshot job began: the next snapshot
   * lists only their folders. null when they cannot be trusted to name every change (a
   * watched folder gone or replaced, an ignore file changed, a watch failed, too many).
   */
  #changed: Set<string> | null = new Set();
  /** The tree watcher's event and failure counts when the last snapshot job began, and that window's event count. */
  #eventsAt = 0;
  #eventsBefore = 0;
  #failuresAt = 0;
  /** Events in one window from which an inotify queue overflow (which Node cannot see) is possible. */
  readonly #eventLimit = Math.floor(inotifyQueueLimit() / 2);
  /** The events served to other processes' statuses and hooks (change-log.ts). */
  #hints: WatchHints | undefined;

  #snapshots = 0;
  #checkpoints = 0;
  #errors = 0;
  /** The files root HEAD's checkpoint (or its nearest ancestor with files) carries, by HEAD id. */
  #carried: { head: string | null; root: string | null } | undefined;
  /** Unknown changes strict refused last time, so the same refusal is not reported at every rescan. */
  #lastRefusal = "";
  #reportedNoWorking = false;

  private constructor(store: Store, options: WatchOptions, locks: WatchLocks) {
    this.#store = store;
    this.#session = options.session;
    this.#workspace = options.workspace;
    this.#everyMs = options.everyMs ?? DEFAULT_EVERY_MS;
    this.#quietMs = options.quietMs ?? DEFAULT_QUIET_MS;
    this.#rescanMs = options.rescanMs ?? DEFAULT_RESCAN_MS;
    this.#hooks = options.hooks;
    this.#strategy = options.strategy ?? "warn";
    this.#emit = options.onEvent ?? (() => undefined);
    this.#locks = locks;
  }

  /**
   * Starts watching: takes the locks (ALREADY_RUNNING if another watcher has this session
   * or workspace), starts the file watches, snapshots what changed while nobody watched,
   * and arms the timers.
   */
  static async start(store: Store, options: WatchOptions): Promise<Watcher> {
    for (const [name, v, min] of [
      ["everyMs", options.everyMs, 100],
      ["quietMs", options.quietMs, 0],
      ["rescanMs", options.rescanMs, 0],
    ] as const) {
      if (v !== undefined && (!Number.isFinite(v) || v < min)) {
        throw new ForgeError("INVALID_ARGUMENT", `${name} must be a number of milliseconds ≥ ${min}, not ${v}`);
      }
    }
    if (options.workspace) checkStoreOutside(store.url, options.workspace);
    const locks = WatchLocks.acquire(
      { session: { id: options.session.id, name: options.session.name }, store: store.url, ...(options.workspace && { root: options.workspace.root }) },
      options.lockDir,
    );
    const w = new Watcher(store, options, locks);
    try {
      w.#begin();
    } catch (e) {
      w.#tree?.close();
      locks.release();
      throw e;
    }
    return w;
  }

  #begin(): void {
    const ws = this.#workspace;
    if (ws) {
      // Watch first, then walk: an edit made during the first walk is still seen.
      this.#tree = new TreeWatcher({
        root: ws.root,
        ignore: ws.ignorePatterns,
        onChange: (path, sure) => {
          if (this.#changed !== null) {
            if (sure && this.#changed.size < MAX_CHANGED_PATHS) this.#changed.add(path);
            else this.#changed = null;
          }
          this.#hints?.event(path, sure);
          this.#fileEvent();
        },
        onError: (e, dir) =>
          this.#error(
            "watch",
            e,
            `cannot watch ${dir === "" ? "the workspace folder" : dir} (${(e as NodeJS.ErrnoException).code ?? e.message}); ${this.#rescanMs > 0 ? `changes there are found by the rescan every ${Math.round(this.#rescanMs / 1000)} s` : "changes there are not seen (the rescan is off)"}`,
          ),
      });
      this.#tree.sync();
      // What changed from here on, its watches set.
      this.#hints = new WatchHints(this.#tree, ws.root, ws.ignorePatterns, this.#hooks);
    }
    this.#emit({
      type: "started",
      at: new Date(),
      session: this.#session.name,
      root: ws?.root ?? null,
      everyMs: this.#everyMs,
      quietMs: this.#quietMs,
      rescanMs: ws ? this.#rescanMs : 0,
      strategy: ws ? this.#strategy : null,
      folders: this.#tree?.size ?? 0,
      pid: process.pid,
    });
    if (ws) this.#enqueue("snapshot", () => this.#snapshot("startup", 0));
    this.#armTick();
    if (ws && this.#rescanMs > 0) this.#armRescan();
  }

  /**
   * Stops: no new work starts, the write in progress (if any) finishes, the watches and
   * locks go. Edits of a burst not yet snapshotted are left for the next watcher's first
   * walk, or a `forge files snapshot`.
   */
  stop(reason = "stopped"): Promise<WatchSummary> {
    if (this.#stopped) return this.#stopped;
    this.#stopping = true;
    if (this.#running) this.#emit({ type: "stopping", at: new Date(), reason, finishing: this.#running === "tick" ? "checkpoint" : "snapshot" });
    for (const t of [this.#tickTimer, this.#rescanTimer, this.#quietTimer]) if (t) clearTimeout(t);
    this.#tree?.close();
    this.#hints?.close();
    this.#stopped = this.#queue.then(() => {
      this.#locks.release();
      const summary = { snapshots: this.#snapshots, checkpoints: this.#checkpoints, errors: this.#errors };
      this.#emit({ type: "stopped", at: new Date(), reason, ...summary });
      return summary;
    });
    return this.#stopped;
  }

  /**
   * For a process about to exit at once (a second signal): gives the locks back now. A
   * write still in flight is abandoned; the store's write order leaves no half checkpoint.
   */
  releaseLocks(): void {
    this.#tree?.close();
    this.#hints?.close();
    this.#locks.release();
  }

  // ------------------------------------------------------------------ scheduling

  #enqueue(job: Job, run: () => Promise<void>): void {
    if (this.#stopping || this.#queued.has(job)) return;
    this.#queued.add(job);
    this.#queue = this.#queue.then(async () => {
      this.#queued.delete(job);
      if (this.#stopping) return;
      this.#running = job;
      try {
        await run();
      } catch (e) {
        this.#error(job === "tick" ? "checkpoint" : "snapshot", e);
      } finally {
        this.#running = undefined;
      }
    });
  }

  #armTick(): void {
    this.#tickTimer = setTimeout(() => {
      this.#enqueue("tick", () => this.#tick());
      this.#armTick();
    }, this.#everyMs);
  }

  #armRescan(): void {
    this.#rescanTimer = setTimeout(() => {
      this.#enqueue("rescan", () => this.#rescan());
      this.#armRescan();
    }, this.#rescanMs);
  }

  /** A file event: (re)start the quiet period; a burst that never goes quiet is snapshotted once an interval has passed. */
  #fileEvent(): void {
    if (this.#stopping) return;
    const now = Date.now();
    this.#burst ??= { start: now, events: 0 };
    this.#burst.events++;
    if (this.#quietTimer) clearTimeout(this.#quietTimer);
    const maxWait = Math.max(this.#quietMs, this.#everyMs);
    const wait = Math.max(0, Math.min(this.#quietMs, this.#burst.start + maxWait - now));
    this.#quietTimer = setTimeout(() => {
      this.#quietTimer = undefined;
      const events = this.#burst?.events ?? 0;
      this.#burst = null;
      this.#enqueue("snapshot", () => this.#snapshot("changes", events));
    }, wait);
  }

  // ------------------------------------------------------------------ the work

  /**
   * The paths changed since the last snapshot job began, if they can be trusted to name
   * every change; undefined otherwise (walk everything). Starts the next window.
   *
   * Not trusted when: a path was reported unsure or there were too many (`#changed` null);
   * a watch failed or a folder has none; or so many events came in this window or the one
   * before that the kernel's queue may have overflowed — libuv drops the overflow event, so
   * an overflow cannot be seen, only the flood that causes it (all the events queued at the
   * moment of an overflow are delivered in one read, within one window).
   */
  #takeChanged(): Set<string> | undefined {
    const tree = this.#tree;
    const changed = this.#changed;
    this.#changed = new Set();
    if (!tree) return undefined;
    const inWindow = tree.events - this.#eventsAt;
    const flood = inWindow >= this.#eventLimit || this.#eventsBefore >= this.#eventLimit;
    this.#eventsAt = tree.events;
    this.#eventsBefore = inWindow;
    const blind = tree.failures !== this.#failuresAt || !tree.complete;
    this.#failuresAt = tree.failures;
    return changed === null || flood || blind ? undefined : changed;
  }

  async #snapshot(cause: SnapshotCause, events: number): Promise<void> {
    const ws = this.#workspace;
    if (!ws) return;
    const started = performance.now();
    // Taken before the walk: events from here on are the next window's. A startup or rescan
    // walks everything, which covers whatever the window held.
    const taken = this.#takeChanged();
    const changed = cause === "changes" ? taken : undefined;
    let r: SnapshotResult | null;
    try {
      const message =
        cause === "startup" ? "watch: changes since the last snapshot" : cause === "rescan" ? "watch: changes found by a full rescan" : "watch: file changes";
      r = await ws.snapshotIfChanged(message, { strategy: this.#strategy, tags: ["watch"], ...(changed && { changed }) });
    } catch (e) {
      // The walk may not have happened: the paths taken go back into the next window (all of
      // them, or the doubt).
      if (changed === undefined) this.#changed = null;
      else if (this.#changed !== null) for (const p of changed) this.#changed.add(p);
      if (e instanceof ForgeError && e.code === "UNKNOWN_CHANGES") {
        // Strict: said once per set of unknown changes, not at every rescan.
        const key = JSON.stringify(e.data["unknown"] ?? e.message);
        if (key === this.#lastRefusal) return;
        this.#lastRefusal = key;
      }
      throw e;
    }
    this.#lastRefusal = "";
    if (r === null) {
      if (cause === "changes")
        this.#emit({ type: "skipped", at: new Date(), what: "snapshot", reason: `${events} file event(s), but the files are as in the last snapshot` });
      return;
    }
    this.#snapshots++;
    this.#emit({
      type: "snapshot",
      at: new Date(),
      cause,
      snapshot: r.snapshot,
      external: r.external,
      changes: countChanges(r.changes),
      paths: r.changes.slice(0, 20).map((c) => c.path),
      unknown: r.unknown,
      events,
      walk: r.walk,
      ms: Math.round(performance.now() - started),
    });
  }

  async #rescan(): Promise<void> {
    this.#locks.touch();
    // New folders get their watches; a vanished one loses its. A folder that had none was not
    // followed: whatever changed in it is walked for, by this rescan or the pending burst's.
    if ((this.#tree?.sync().length ?? 0) > 0) {
      this.#changed = null;
      this.#hints?.blind();
    }
    // A burst in progress gets its own snapshot when it goes quiet: one per burst.
    if (this.#burst === null) await this.#snapshot("rescan", 0);
  }

  /** The scheduled check: a checkpoint if the working state or the files moved on since the last one. */
  async #tick(): Promise<void> {
    const started = performance.now();
    for (let attempt = 1; ; attempt++) {
      const epoch = await this.#store.gcEpoch();
      const workRoot = await this.#session.workRoot().catch((e: unknown) => {
        if (e instanceof ForgeError && e.code === "SESSION_NOT_FOUND")
          throw new ForgeError("SESSION_NOT_FOUND", `session "${this.#session.name}" no longer exists`, {
            hint: "it was deleted while watched; stop this watcher",
          });
        throw e;
      });
      const head = (await this.#session.head()).checkpoint;
      const stateChanged = workRoot !== null && workRoot !== head?.stateRoot;
      const filesRoot = this.#workspace ? ((await this.#workspace.session.head()).checkpoint?.filesRoot ?? null) : null;
      const filesChanged = filesRoot !== null && filesRoot !== (await this.#carriedFiles(head));
      if (!stateChanged && !filesChanged) return;
      if (workRoot === null) {
        // Nothing to checkpoint the files with: a session's state comes from its own work.
        if (!this.#reportedNoWorking) {
          this.#reportedNoWorking = true;
          this.#emit({
            type: "skipped",
            at: new Date(),
            what: "checkpoint",
            reason: `session "${this.#session.name}" has no working state yet; the files are snapshotted in session "${this.#workspace?.session.name}"`,
          });
        }
        return;
      }
      this.#reportedNoWorking = false;
      const working = await this.#session.working();
      if (!working) {
        if (attempt >= CONFLICT_ATTEMPTS) return;
        continue; // cleared meanwhile: look again
      }
      const reasons: ("state" | "files")[] = [...(stateChanged ? (["state"] as const) : []), ...(filesChanged ? (["files"] as const) : [])];
      try {
        const r = await this.#session.setWorking(working.state, {
          expectedVersion: working.version,
          checkpoint: ({ unsaved }) =>
            unsaved || filesChanged
              ? {
                  message: `scheduled: ${reasons.map((x) => (x === "state" ? "state changed" : "files changed")).join(", ")}`,
                  trigger: SCHEDULED_TRIGGER,
                  tags: [SCHEDULED_TRIGGER],
                  metadata: { watch: { reasons, everyMs: this.#everyMs } },
                  // The files as last snapshotted: the checkpoint carries them, as `checkpoint create --files` does.
                  ...(filesRoot !== null && { filesRoot, gcEpoch: epoch }),
                }
              : undefined,
        });
        if (r.checkpoint) {
          this.#checkpoints++;
          this.#carried = { head: r.checkpoint.id, root: r.checkpoint.filesRoot };
          this.#emit({ type: "checkpoint", at: new Date(), checkpoint: r.checkpoint, reasons, ms: Math.round(performance.now() - started) });
        }
        return;
      } catch (e) {
        // Another process saved (or a gc ran) between our look and our write: look again.
        if (!(e instanceof ForgeError && e.code === "CONFLICT") || attempt >= CONFLICT_ATTEMPTS) throw e;
      }
    }
  }

  /** The files root the session last carried: HEAD's, or its nearest ancestor's that has one (null if none). */
  async #carriedFiles(head: Checkpoint | null): Promise<string | null> {
    const headId = head?.id ?? null;
    if (this.#carried?.head === headId) return this.#carried.root;
    let root: string | null = head?.filesRoot ?? null;
    let parent = head?.parentId ?? null;
    for (let i = 0; root === null && parent !== null && i < FILES_LOOKBACK; i++) {
      const row = await this.#session.byId(parent);
      root = row?.filesRoot ?? null;
      parent = row?.parentId ?? null;
    }
    this.#carried = { head: headId, root };
    return root;
  }

  #error(what: "snapshot" | "checkpoint" | "watch", e: unknown, message?: string): void {
    this.#errors++;
    const fe = e instanceof ForgeError ? e : undefined;
    this.#emit({
      type: "error",
      at: new Date(),
      what,
      code: fe?.code ?? (e as NodeJS.ErrnoException)?.code ?? "INTERNAL",
      message: message ?? (e as Error)?.message ?? String(e),
      hint: fe?.hint ?? null,
      data: fe?.data ?? {},
    });
  }
}

/**
 * A store kept inside the watched folder, where the walk sees it, would make every snapshot
 * a change to the files watched — and so another snapshot, forever. The default
 * (.forge/forge.db) is in an ignored folder; anything else must be too.
 */
function checkStoreOutside(url: string, ws: Workspace): void {
  const m = /^(sqlite|file):(.+)$/.exec(url);
  if (!m || m[2] === ":memory:" || !isAbsolute(m[2] as string)) return;
  // SQLite keeps -wal and -shm files beside the database: its folder is what must be ignored.
  const folder = m[1] === "sqlite" ? dirname(m[2] as string) : (m[2] as string);
  const rel = relative(ws.root, folder);
  if (rel.startsWith("..") || isAbsolute(rel)) return;
  const rules = new IgnoreRules(ws.root, ws.ignorePatterns);
  const parts = rel === "" ? [] : rel.split(sep);
  for (let i = 1; i <= parts.length; i++) {
    const dir = parts.slice(0, i).join("/");
    if (rules.ignores(dir, true)) return;
    rules.enter(dir);
  }
  throw new ForgeError(
    "INVALID_ARGUMENT",
    `the store ${m[2]} is inside the watched folder ${ws.root}, in a place its ignore rules do not exclude: every snapshot would change the files watched`,
    {
      hint: "keep the store in .forge/ (the default), outside the folder, or in a folder listed in .forgeignore",
    },
  );
}
