// An exclusive lock file shared by processes on one machine: created with O_EXCL, holding
// the owner's pid, host, start time and (on Linux) the kernel's start tick of its process.
// A lock whose owner on this host is gone is taken over, so a crashed process never leaves
// a store stuck — nor does one whose pid a new process has since been given.
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { ForgeError } from "./errors.js";

export interface LockOptions {
  readonly timeoutMs?: number;
  /** More facts about the holder, written into the lock file for whoever finds it taken. */
  readonly info?: Readonly<Record<string, unknown>>;
}

/** What a lock file says about its holder. */
export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  /** When the lock was taken (ms since the epoch). */
  readonly at: number;
  /** The holder's `info`. */
  readonly [key: string]: unknown;
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
  readonly #info: Readonly<Record<string, unknown>>;

  constructor(path: string, options: LockOptions = {}) {
    this.#path = path;
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#info = options.info ?? {};
  }

  get path(): string {
    return this.#path;
  }

  /** Takes the lock if it is free or stale; false, at once, if a live process holds it. */
  tryAcquire(): boolean {
    for (let attempt = 0; attempt < 5; attempt++) {
      if (this.#tryCreate()) return true;
      if (!this.#breakIfStale()) return false;
    }
    return false;
  }

  /** Who holds the lock now; undefined if nobody does (or its file cannot be read). */
  owner(): LockOwner | undefined {
    try {
      const o = JSON.parse(readFileSync(this.#path, "utf8")) as Partial<LockOwner>;
      return typeof o.pid === "number" && typeof o.host === "string" ? ({ at: 0, ...o } as LockOwner) : undefined;
    } catch {
      return undefined; // the lock vanished or is being written: the caller retries
    }
  }

  /** Marks the lock file as still in use (its mtime), so tmp cleaners leave a long-held lock alone. */
  touch(): void {
    const now = new Date();
    utimesSync(this.#path, now, now);
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
    const start = (ownStart ??= processStart(process.pid) ?? "");
    writeFileSync(tmp, JSON.stringify({ ...this.#info, pid: process.pid, host: hostname(), at: Date.now(), ...(start !== "" && { start }) }));
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
    const o = this.owner();
    return o && `process ${o.pid} on ${o.host}`;
  }

  /** Removes the lock if its owner on this host no longer runs; true if it did. */
  #breakIfStale(): boolean {
    let content: string;
    try {
      content = readFileSync(this.#path, "utf8");
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === "ENOENT";
    }
    let owner: { pid?: unknown; host?: unknown; start?: unknown } | undefined;
    try {
      owner = JSON.parse(content) as { pid?: unknown; host?: unknown; start?: unknown };
    } catch {
      owner = undefined;
    }
    if (owner === undefined) {
      // Locks are linked into place whole, so an unreadable one was left by an older writer
      // or damaged; once it is old enough that no writer can still be filling it, it is stale.
      if (Date.now() - mtimeOf(this.#path) < UNREADABLE_STALE_MS) return false;
    } else if (owner.host !== hostname() || typeof owner.pid !== "number" || isAlive(owner.pid, typeof owner.start === "string" ? owner.start : undefined)) {
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

/** This process's start tick ("" where there is no /proc), read once. */
let ownStart: string | undefined;

/** Whether `pid` runs — and, when the lock recorded its start tick, is still the same process. */
function isAlive(pid: number, start: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (start === undefined) return true;
  const now = processStart(pid);
  // A pid given to a new process since: the holder is gone.
  return now === undefined || now === start;
}

/**
 * When a process started, in clock ticks since boot (field 22 of /proc/PID/stat, Linux);
 * undefined where there is no /proc. The field follows the command name, which may itself
 * hold spaces and parentheses, so counting starts after its last ")".
 */
function processStart(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[19];
}
