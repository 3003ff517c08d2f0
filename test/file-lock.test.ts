// The file store's lock file (src/core/file-lock.ts): one holder at a time, and a
// lock left behind by a process that died is taken over instead of blocking the store.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { FileLock } from "../src/core/file-lock.js";
import { rejectsWith } from "./support/errors.js";
import { makeTempDir } from "./support/temp.js";

function lockPath(): string {
  const dir = makeTempDir("lock");
  onTestFinished(() => dir.remove());
  return join(dir.path, "meta.lock");
}

/** The pid of a real process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

describe("the file store's lock", () => {
  it("acquire writes the holder's pid and host, and release removes the lock file", async () => {
    const path = lockPath();
    const lock = new FileLock(path);
    await lock.acquire();
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({ pid: process.pid, host: hostname() });
    lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it("a lock held by a running process is not taken: acquire gives up with STORE_LOCKED", async () => {
    const path = lockPath();
    writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now() }));
    await rejectsWith(new FileLock(path, { timeoutMs: 300 }).acquire(), "STORE_LOCKED");
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({ pid: process.pid });
  });

  it("a lock left by a process that no longer runs is taken over", async () => {
    const path = lockPath();
    writeFileSync(path, JSON.stringify({ pid: deadPid(), host: hostname(), at: Date.now() - 60_000 }));
    await new FileLock(path, { timeoutMs: 5_000 }).acquire();
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({ pid: process.pid });
  });

  it("an empty lock file an hour old (its creator was killed before writing its pid) is taken over", async () => {
    // FileLock creates the file with O_EXCL and writes its owner in a second step; a
    // SIGKILL between the two leaves this file behind.
    const path = lockPath();
    writeFileSync(path, "");
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(path, anHourAgo, anHourAgo);
    await new FileLock(path, { timeoutMs: 2_000 }).acquire();
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({ pid: process.pid });
  });
});
