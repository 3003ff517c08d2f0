// A running `forge watch --files` answers the statuses and hooks of other processes with the
// paths its file events named since the last snapshot's walk (change-log.ts, watch-hint.ts):
// they lstat only those files. Every case holds the answer to a status that compares every
// file (the same command with no watcher to ask), and says whether the watcher's word was used.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { ChangeLog } from "../../src/domains/watch/change-log.js";
import { FORGE_BIN, forge as runForge, forgeEnv, json } from "../support/cli.js";
import { requireBuiltLibrary } from "../support/processes.js";
import { git, put, tempDir } from "../workspace/support.js";
import { forge, place, sleep, watch, type Place, type WatchLine } from "./support.js";

beforeAll(() => requireBuiltLibrary());

const HINTED = /watch: changed paths from the watcher/;

/** `forge files status` in the place (TMPDIR: its own, where the watcher's socket is; or `tmp`): the changes, and whether a watcher's paths were used. */
function status(p: Place, tmp = p.tmp): { changes: string[]; hinted: boolean } {
  const r = runForge(p.root, ["--json", "files", "status"], { env: { TMPDIR: tmp, FORGE_TRACE: "1" }, timeoutMs: 30_000 });
  const changes = json<{ changes: { kind: string; path: string }[] }>(r, { allowStderr: true }).changes.map((c) => `${c.kind} ${c.path}`);
  return { changes, hinted: HINTED.test(r.stderr) };
}

/** The status as a comparison of every file gives it: in a TMPDIR where no watcher answers. */
function walked(p: Place): string[] {
  return status(p, tempDir("no-watcher").path).changes;
}

function seed(p: Place): void {
  for (let i = 0; i < 60; i++) put(p.root, `d${i % 6}/f${i}.txt`, `file ${i}\n`);
}

const isStarted = (l: WatchLine) => l.event === "started";
const isSnapshot = (l: WatchLine) => l.event === "snapshot";

/** A watcher that will not snapshot by itself, and a snapshot (of a change: with none, nothing is recorded) taken once its word counts, two seconds after it set its watches. */
async function watched(p: Place) {
  const w = watch(p, ["--files", "--every", "1h", "--quiet-period", "1h", "--rescan", "off"]);
  await w.waitFor(isStarted);
  await sleep(2100);
  put(p.root, "d5/base.txt", "a change for the snapshot to record\n");
  expect(forge(p, ["files", "snapshot", "base"]).code).toBe(0);
  return w;
}

describe("statuses and hooks asking a running watcher", () => {
  it("lstat only the paths its events named, and say what a comparison of every file says", async () => {
    const p = place("hints-status");
    seed(p);
    expect(forge(p, ["files", "snapshot", "one"]).code).toBe(0);
    await watched(p);
    expect(status(p)).toEqual({ changes: [], hinted: true });
    writeFileSync(join(p.root, "d1/f7.txt"), "edited in place\n");
    expect(status(p)).toEqual({ changes: ["modified d1/f7.txt"], hinted: true });
    put(p.root, "d2/new.txt", "new\n");
    rmSync(join(p.root, "d3/f9.txt"));
    renameSync(join(p.root, "d4/f10.txt"), join(p.root, "d5/moved.txt"));
    const got = status(p);
    expect(got).toEqual({ changes: ["modified d1/f7.txt", "created d2/new.txt", "deleted d3/f9.txt", "renamed d5/moved.txt"], hinted: true });
    expect(got.changes).toEqual(walked(p));
    // A hook's snapshot asks too, and records what a walk would.
    const payload = JSON.stringify({
      session_id: "s",
      cwd: p.root,
      hook_event_name: "PostToolUse",
      tool_name: "Edit",
      tool_input: { file_path: join(p.root, "d1/f7.txt") },
    });
    const hook = runForge(p.root, ["hook", "post-edit"], { env: { TMPDIR: p.tmp, FORGE_TRACE: "1" }, input: payload, timeoutMs: 30_000 });
    expect(hook.code).toBe(0);
    expect(hook.stderr).toMatch(HINTED);
    expect(status(p)).toEqual({ changes: [], hinted: true });
    expect(walked(p)).toEqual([]);
  });

  it("is not taken at its word about a time before it set its watches", async () => {
    const p = place("hints-before");
    seed(p);
    expect(forge(p, ["files", "snapshot", "one"]).code).toBe(0);
    writeFileSync(join(p.root, "d0/f0.txt"), "edited while nobody watched\n");
    const w = watch(p, ["--files", "--every", "1h", "--quiet-period", "1h", "--rescan", "off"]);
    // Its first snapshot takes in what changed while nobody watched; its walk began as the watches were set.
    expect(await w.waitFor(isSnapshot)).toMatchObject({ cause: "startup", changes: { modified: 1 } });
    writeFileSync(join(p.root, "d0/f6.txt"), "edited since\n");
    expect(status(p)).toEqual({ changes: ["modified d0/f6.txt"], hinted: false });
    // A snapshot taken once the watcher has watched long enough: its word counts from then on.
    await sleep(2100);
    expect(forge(p, ["files", "snapshot", "two"]).code).toBe(0);
    writeFileSync(join(p.root, "d0/f12.txt"), "edited later\n");
    expect(status(p)).toEqual({ changes: ["modified d0/f12.txt"], hinted: true });
    expect(walked(p)).toEqual(["modified d0/f12.txt"]);
  });

  it("is not taken at its word for a folder it does not follow: one git's index made the walk enter since it listed them", async () => {
    const p = place("hints-unwatched");
    seed(p);
    put(p.root, "node_modules/lib/x.js", "x\n");
    put(p.root, ".gitignore", "node_modules/\n");
    git(p.root, "init", "-q");
    git(p.root, "add", "-A");
    git(p.root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "base");
    await watched(p); // it lists the folders: node_modules is ignored, nothing in it tracked
    git(p.root, "add", "-f", "node_modules/lib/x.js");
    put(p.root, "d0/f0.txt", "a change to record\n");
    expect(forge(p, ["files", "snapshot", "tracked"]).code).toBe(0); // the walk takes x.js now: git tracks it
    writeFileSync(join(p.root, "node_modules/lib/x.js"), "x, edited\n");
    expect(status(p)).toEqual({ changes: ["modified node_modules/lib/x.js"], hinted: false });
  });

  it("compares every file when the watcher is gone and its socket left behind (killed)", async () => {
    const p = place("hints-killed");
    seed(p);
    const w = await watched(p);
    w.child.kill("SIGKILL");
    await w.exited;
    writeFileSync(join(p.root, "d2/f2.txt"), "edited after the watcher died\n");
    expect(status(p)).toEqual({ changes: ["modified d2/f2.txt"], hinted: false });
  });
});

describe("forge mcp and forge ui", () => {
  /** `forge mcp` in the place, its stdin held open (it serves until that ends), killed at the end of the test if still running. */
  function mcp(p: Place, env: Record<string, string> = {}) {
    const child = spawn(process.execPath, [FORGE_BIN, "mcp"], { cwd: p.root, env: forgeEnv({ TMPDIR: p.tmp, ...env }), stdio: ["pipe", "ignore", "pipe"] });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    onTestFinished(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    return { child, exited };
  }

  /** Waits for the place's hint socket (the server answers once it is there). */
  async function socketOf(p: Place): Promise<void> {
    const dir = join(p.tmp, `forge-${process.getuid?.() ?? "user"}`, "watch");
    for (let i = 0; i < 100; i++) {
      if (existsSync(dir) && readdirSync(dir).some((n) => n.endsWith(".sock"))) return;
      await sleep(50);
    }
    throw new Error("forge mcp made no hint socket in 5 s");
  }

  it("answers the workspace's statuses and hooks while it runs, and ends with its client", async () => {
    const p = place("hints-mcp");
    seed(p);
    expect(forge(p, ["files", "snapshot", "one"]).code).toBe(0); // a tree kept with its stats: hooks run here
    const server = mcp(p);
    await socketOf(p);
    await sleep(2100);
    put(p.root, "d5/base.txt", "a change for the snapshot to record\n");
    expect(forge(p, ["files", "snapshot", "base"]).code).toBe(0);
    writeFileSync(join(p.root, "d3/f15.txt"), "edited with the MCP server running\n");
    put(p.root, "d4/new.txt", "new\n");
    const got = status(p);
    expect(got).toEqual({ changes: ["modified d3/f15.txt", "created d4/new.txt"], hinted: true });
    expect(got.changes).toEqual(walked(p));
    // Its client gone (stdin closed), it ends: the watches do not keep it alive.
    server.child.stdin.end();
    expect(await server.exited).toBe(0);
    expect(status(p)).toEqual({ changes: ["modified d3/f15.txt", "created d4/new.txt"], hinted: false });
  });

  it("gives the socket over to a forge watch started after it, and leaving, does not take it away", async () => {
    const p = place("hints-mcp-then-watch");
    seed(p);
    expect(forge(p, ["files", "snapshot", "one"]).code).toBe(0);
    const server = mcp(p);
    await socketOf(p);
    const w = watch(p, ["--files", "--every", "1h", "--quiet-period", "1h", "--rescan", "off"]);
    await w.waitFor(isStarted);
    server.child.stdin.end();
    expect(await server.exited).toBe(0);
    await sleep(2100);
    put(p.root, "d5/base.txt", "a change for the snapshot to record\n");
    expect(forge(p, ["files", "snapshot", "base"]).code).toBe(0);
    writeFileSync(join(p.root, "d1/f1.txt"), "edited with the watcher answering\n");
    expect(status(p)).toEqual({ changes: ["modified d1/f1.txt"], hinted: true });
  });

  it("forge ui answers too while it runs", async () => {
    const p = place("hints-ui");
    seed(p);
    expect(forge(p, ["files", "snapshot", "one"]).code).toBe(0);
    const child = spawn(process.execPath, [FORGE_BIN, "ui", "--port", "0"], {
      cwd: p.root,
      env: forgeEnv({ TMPDIR: p.tmp }),
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    onTestFinished(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    await socketOf(p);
    await sleep(2100);
    put(p.root, "d5/base.txt", "a change for the snapshot to record\n");
    expect(forge(p, ["files", "snapshot", "base"]).code).toBe(0);
    writeFileSync(join(p.root, "d2/f8.txt"), "edited with the page's server running\n");
    expect(status(p)).toEqual({ changes: ["modified d2/f8.txt"], hinted: true });
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("serves no hints with FORGE_WATCH_HINTS=0, nor in a folder whose tree is not kept with its stats", async () => {
    const p = place("hints-mcp-off");
    seed(p);
    expect(forge(p, ["files", "snapshot", "one"]).code).toBe(0);
    const off = mcp(p, { FORGE_WATCH_HINTS: "0" });
    const bare = place("hints-mcp-bare"); // forge init, no snapshot: no tree kept
    const none = mcp(bare);
    await sleep(1500);
    const watchDirOf = (q: Place) => join(q.tmp, `forge-${process.getuid?.() ?? "user"}`, "watch");
    for (const q of [p, bare]) expect(existsSync(watchDirOf(q)) && readdirSync(watchDirOf(q)).some((n) => n.endsWith(".sock"))).toBe(false);
    for (const s of [off, none]) {
      s.child.stdin.end();
      expect(await s.exited).toBe(0);
    }
  });
});

describe("the change log", () => {
  it("names the paths recorded since a time, and nothing for a time before it was watching or blind", () => {
    const log = new ChangeLog(1000);
    expect(log.since(1000)).toBeUndefined(); // from the moment it starts: not before
    log.record("a.txt", 1100);
    log.record("b/c.txt", 1200);
    expect(log.since(1001)).toEqual(["a.txt", "b/c.txt"]);
    expect(log.since(1150)).toEqual(["b/c.txt"]);
    log.record("a.txt", 1300);
    expect(log.since(1250)).toEqual(["a.txt"]);
    log.blind(1400);
    expect(log.since(1300)).toBeUndefined();
    expect(log.since(1401)).toEqual([]);
  });

  it("goes blind rather than keep more paths than it may", () => {
    const log = new ChangeLog(0);
    for (let i = 0; i < 20000; i++) log.record(`f${i}`, 10);
    expect(log.since(5)).toHaveLength(20000);
    log.record("one-more", 20);
    expect(log.since(5)).toBeUndefined();
    expect(log.since(21)).toEqual([]);
  });
});
