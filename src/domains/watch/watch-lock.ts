// One watcher per session and per workspace folder on a machine: lock files holding the
// watcher's pid, host and start time. A watcher that was killed (SIGKILL, a crash) leaves
// its lock behind; the next one finds the pid dead (or given to another process since)
// and takes the lock over.
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { ForgeError } from "../../core/errors.js";
import { FileLock, type LockOwner } from "../../core/file-lock.js";
import { rootKey, watchDir } from "../workspace/watch-hint.js";

/**
 * Where watch locks live by default: a folder of the user's in the system's temporary
 * directory. Per machine, like the pids in them; keyed by session id (unique across
 * stores) and by the workspace folder's real path.
 */
export function defaultLockDir(): string {
  return watchDir(); // where the watchers' hint sockets are too
}

export interface WatchTarget {
  /** The session's id (the lock's key) and name (for messages). */
  readonly session: { readonly id: string; readonly name: string };
  /** The workspace folder, when files are watched too. */
  readonly root?: string;
  /** The store's URL, written into the lock for whoever finds it taken. */
  readonly store: string;
}

/** The locks a watcher holds; `release` gives them all back. */
export class WatchLocks {
  readonly #locks: FileLock[];

  private constructor(locks: FileLock[]) {
    this.#locks = locks;
  }

  /**
   * Takes the session's lock and, with a root, the folder's. ALREADY_RUNNING, naming the
   * other watcher's pid, if a live process holds either; nothing is kept then.
   */
  static acquire(target: WatchTarget, dir: string = defaultLockDir()): WatchLocks {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const info = { store: target.store, session: target.session.name, root: target.root ?? null, command: "forge watch" };
    const wanted: [FileLock, string][] = [[new FileLock(join(dir, `session-${target.session.id}.lock`), { info }), `session "${target.session.name}"`]];
    if (target.root !== undefined) {
      const real = realpathSync(target.root);
      const key = rootKey(real); // the name of its hint socket too
      wanted.push([new FileLock(join(dir, `files-${key}.lock`), { info }), `the workspace ${real}`]);
    }
    const held: FileLock[] = [];
    for (const [lock, what] of wanted) {
      if (lock.tryAcquire()) {
        held.push(lock);
        continue;
      }
      for (const h of held) h.release();
      throw alreadyWatched(what, lock.owner(), lock.path);
    }
    return new WatchLocks(held);
  }

  /** Refreshes the lock files' times (tmp cleaners remove files nobody touched for days). */
  touch(): void {
    for (const l of this.#locks) l.touch();
  }

  release(): void {
    for (const l of this.#locks.splice(0)) l.release();
  }
}

function alreadyWatched(what: string, owner: LockOwner | undefined, path: string): ForgeError {
  const who = owner ? `pid ${owner.pid} on ${owner.host}${owner.at ? `, since ${new Date(owner.at).toISOString()}` : ""}` : "another process";
  return new ForgeError("ALREADY_RUNNING", `${what} is already watched by another forge watch (${who})`, {
    hint: owner
      ? `stop that watcher first (kill ${owner.pid}), or watch another session with --session; its lock is ${path}`
      : `wait a moment and try again; the lock is ${path}`,
    data: { pid: owner?.pid ?? null, host: owner?.host ?? null, lock: path },
  });
}
