// An exclusive lock file shared by processes on one machine: created with O_EXCL, holding
// the owner's pid and host. A lock whose owner on this host is gone is taken over, so a
// crashed process never leaves a store stuck.
import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { ForgeError } from "../../core/errors.js";

export interface LockOptions {
  readonly timeoutMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

  #tryCreate(): boolean {
    let fd: number;
    try {
      fd = openSync(this.#path, "wx");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw e;
    }
    try {
      writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now() }));
    } finally {
      closeSync(fd);
    }
    return true;
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
    let owner: { pid?: unknown; host?: unknown };
    try {
      owner = JSON.parse(content) as { pid?: unknown; host?: unknown };
    } catch {
      return false; // being written right now
    }
    if (owner.host !== hostname() || typeof owner.pid !== "number" || isAlive(owner.pid)) return false;
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
