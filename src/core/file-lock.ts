// An exclusive lock file shared by processes on one machine: created with O_EXCL, holding
// the owner's pid and host. A lock whose owner on this host is gone is taken over, so a
// crashed process never leaves a store stuck.
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { ForgeError } from "./errors.js";

export interface LockOptions {
  readonly timeoutMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** An unreadable lock file older than this is stale. */
const UNREADABLE_STALE_MS = 5_000;

function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Date.now(); // gone meanwhile: the caller retries
  }
}

export class FileLock {
  readonly #path: string;
  readonly #timeoutMs: number;

  constructor(path: string, options: LockOptions = {}) {
    this.#path = path;
    this.#timeoutMs = options.timeoutMs ?? 60_000;
  }

  async acquire(): Promise<void> {
    const deadline = Date.now() + this.#timeoutMs;
    let wait = 2;
    for (;;) {
      if (this.#tryCreate()) return;
      if (this.#breakIfStale()) continue;
      if (Date.now() > deadline) {
        throw new ForgeError("STORE_LOCKED", `the store lock ${this.#path} is held by ${this.#owner() ?? "another process"}`, {
          hint: "wait for that process to finish; if it no longer runs, delete the lock file",
        });
      }
      await sleep(wait);
      wait = Math.min(wait * 2, 50);
    }
  }

  release(): void {
    try {
      unlinkSync(this.#path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }

  /** Creates the lock with its owner already in it: written to a temp file, then linked into place. */
  #tryCreate(): boolean {
    const tmp = `${this.#path}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now() }));
    try {
      linkSync(tmp, this.#path);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw e;
    } finally {
      unlinkSync(tmp);
    }
  }

  #owner(): string | undefined {
    try {
      const o = JSON.parse(readFileSync(this.#path, "utf8")) as { pid?: number; host?: string };
      return `process ${o.pid} on ${o.host}`;
    } catch {
      return undefined; // the lock vanished or is being written: the caller retries
    }
  }

  /** Removes the lock if its owner on this host no longer runs; true if it did. */
  #breakIfStale(): boolean {
    let content: string;
    try {
      content = readFileSync(this.#path, "utf8");
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === "ENOENT";
    }
    let owner: { pid?: unknown; host?: unknown } | undefined;
    try {
      owner = JSON.parse(content) as { pid?: unknown; host?: unknown };
    } catch {
      owner = undefined;
    }
    if (owner === undefined) {
      // Locks are linked into place whole, so an unreadable one was left by an older writer
      // or damaged; once it is old enough that no writer can still be filling it, it is stale.
      if (Date.now() - mtimeOf(this.#path) < UNREADABLE_STALE_MS) return false;
    } else if (owner.host !== hostname() || typeof owner.pid !== "number" || isAlive(owner.pid)) {
      return false;
    }
    // Move it aside first so two waiters cannot both delete a fresh lock.
    const aside = `${this.#path}.stale-${process.pid}`;
    try {
      renameSync(this.#path, aside);
    } catch {
      return true; // someone else took it over: try again
    }
    const moved = readFileSync(aside, "utf8");
    unlinkSync(aside);
    if (moved !== content) {
      // We moved a live lock that replaced the stale one in between: its owner keeps going;
      // put it back if nobody has locked since.
      try {
        const fd = openSync(this.#path, "wx");
        writeSync(fd, moved);
        closeSync(fd);
      } catch {
        /* another lock exists now; the displaced owner's release will find ENOENT */
      }
    }
    return true;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
