// The pieces under `forge watch` that need no process of their own: its locks (which must
// never stay stuck after a crash, nor be taken from a live watcher) and its durations.
import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { FileLock } from "../../src/core/file-lock.js";
import { parseDuration } from "../../src/core/time.js";
import { WatchLocks } from "../../src/domains/watch/watch-lock.js";
import { rejectsWith } from "../support/errors.js";
import { makeTempDir } from "../support/temp.js";

function dir(): string {
  const d = makeTempDir("watch-lock");
  onTestFinished(() => d.remove());
  return d.path;
}

/** This process's start tick, as /proc says. */
function ownStart(): string {
  const stat = readFileSync(`/proc/${process.pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] as string;
}

describe("watch locks", () => {
  it("hold the holder's pid, host, start time and process start tick", () => {
    const path = join(dir(), "x.lock");
    const lock = new FileLock(path, { info: { session: "s" } });
    expect(lock.tryAcquire()).toBe(true);
    const owner = lock.owner();
    expect(owner).toMatchObject({ pid: process.pid, host: hostname(), session: "s", start: ownStart() });
    expect(Date.now() - (owner?.at ?? 0)).toBeLessThan(10_000);
    expect(new FileLock(path).tryAcquire()).toBe(false);
    lock.release();
    expect(new FileLock(path).tryAcquire()).toBe(true);
  });

  it("a lock whose pid now belongs to another process (its start tick differs) is taken over", () => {
    const path = join(dir(), "x.lock");
    // This very pid is alive, but the lock says it started at another tick: a reused pid.
    writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now() - 60_000, start: "1" }));
    expect(new FileLock(path).tryAcquire()).toBe(true);
    expect(new FileLock(path).owner()?.start).toBe(ownStart());
  });

  it("a lock of a live process with its own start tick is not taken", () => {
    const path = join(dir(), "x.lock");
    writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now(), start: ownStart() }));
    expect(new FileLock(path).tryAcquire()).toBe(false);
  });

  it("a second watcher of a session, or of a folder, is refused with ALREADY_RUNNING naming the first one's pid; nothing of it is kept", async () => {
    const d = dir();
    const locks = join(d, "locks");
    const first = WatchLocks.acquire({ session: { id: "S1", name: "default" }, store: "sqlite:x", root: d }, locks);

    const sameSession = await rejectsWith(
      Promise.resolve().then(() => WatchLocks.acquire({ session: { id: "S1", name: "default" }, store: "sqlite:x" }, locks)),
      "ALREADY_RUNNING",
      new RegExp(`^session "default" is already watched by another forge watch \\(pid ${process.pid} on `),
    );
    expect(sameSession.data).toMatchObject({ pid: process.pid, host: hostname() });
    expect(sameSession.hint).toMatch(new RegExp(`kill ${process.pid}`));

    // Session S2 is free but the folder is not: refused, and S2's lock is given back.
    await rejectsWith(
      Promise.resolve().then(() => WatchLocks.acquire({ session: { id: "S2", name: "other" }, store: "sqlite:x", root: d }, locks)),
      "ALREADY_RUNNING",
      /^the workspace .* is already watched/,
    );
    WatchLocks.acquire({ session: { id: "S2", name: "other" }, store: "sqlite:x" }, locks).release();

    first.release();
    WatchLocks.acquire({ session: { id: "S1", name: "default" }, store: "sqlite:x", root: d }, locks).release();
  });
});

describe("durations", () => {
  it.each([
    ["500ms", 500],
    ["2s", 2000],
    ["1.5s", 1500],
    ["10m", 600_000],
    ["1h30m", 5_400_000],
    ["1h 30m", 5_400_000],
    ["1d", 86_400_000],
    [" 2S ", 2000],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "10", "m", "2 weeks", "1.2.3s", "-1s", "2s and more"])("%j is refused with INVALID_TIME", async (text) => {
    await rejectsWith(
      Promise.resolve().then(() => parseDuration(text)),
      "INVALID_TIME",
      /is not a duration/,
    );
  });
});
