// `forge watch` as a real child process: its JSON lines read as they come, waits on what it
// prints (never on fixed sleeps where a line can be waited for), and one-shot `forge`
// commands in the same folder. Each test gets its own TMPDIR, so watch locks never meet
// those of other runs.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { expect, onTestFinished } from "vitest";
import { FORGE_BIN, forge as runForge, forgeEnv, json, type Run } from "../support/cli.js";
import { tempDir } from "../workspace/support.js";

export interface Place {
  /** The workspace (and .forge) folder. */
  readonly root: string;
  /** The TMPDIR the watchers see: their locks live under it. */
  readonly tmp: string;
}

/** A fresh folder with `forge init` run in it. */
export function place(label: string): Place {
  const parent = realpathSync(tempDir(label).path);
  const root = join(parent, "ws");
  const tmp = join(parent, "tmp");
  mkdirSync(root);
  mkdirSync(tmp);
  const p = { root, tmp };
  expect(forge(p, ["init"]).code).toBe(0);
  return p;
}

/** The place's own TMPDIR, on top of the harness's clean environment. */
function env(p: Place): Record<string, string> {
  return { TMPDIR: p.tmp };
}

/** Runs `forge ARGS` to completion in the place's folder; a run past `timeoutMs` throws. */
export function forge(p: Place, args: readonly string[], timeoutMs = 30_000): Run {
  return runForge(p.root, args, { env: env(p), timeoutMs });
}

/** `forge ARGS --json`, expecting exit 0 (stderr is not checked). */
export function forgeJson<T>(p: Place, args: readonly string[]): T {
  return json<T>(forge(p, [...args, "--json"]), { allowStderr: true });
}

export interface WatchLine {
  readonly event: "started" | "snapshot" | "checkpoint" | "skipped" | "error" | "stopping" | "stopped";
  readonly [key: string]: unknown;
}

export interface WatchProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  /** Every JSON line printed so far. */
  readonly lines: readonly WatchLine[];
  stderr(): string;
  /** Resolves with the first line from index `from` on that matches; rejects if the process exits first or `timeoutMs` passes. */
  waitFor(match: (line: WatchLine) => boolean, timeoutMs?: number, from?: number): Promise<WatchLine>;
  /** Settles when the process has exited and its output is read to the end. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `forge watch ARGS --json` in the place's folder; killed at the end of the test if still running. */
export function watch(p: Place, args: readonly string[]): WatchProcess {
  const child = spawn(process.execPath, [FORGE_BIN, "watch", ...args, "--json"], { cwd: p.root, env: forgeEnv(env(p)), stdio: ["pipe", "pipe", "pipe"] });
  const lines: WatchLine[] = [];
  let stderr = "";
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (s: string) => (stderr += s));
  const reader = createInterface({ input: child.stdout });
  reader.on("line", (line) => {
    try {
      lines.push(JSON.parse(line) as WatchLine);
    } catch {
      // Kept as an error line, so a test expecting none sees it.
      lines.push({ event: "error", code: "NOT_JSON", message: `forge watch --json printed a line that is not JSON: ${line}` });
    }
    notify();
  });
  const outputDone = new Promise<void>((resolve) => reader.once("close", resolve));
  let finished = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  ).then(async (r) => {
    await outputDone;
    finished = true;
    notify();
    return r;
  });
  onTestFinished(async () => {
    if (!finished) {
      child.kill("SIGKILL");
      await exited;
    }
  });
  const waitFor = (match: (line: WatchLine) => boolean, timeoutMs = 20_000, from = 0) =>
    new Promise<WatchLine>((resolve, reject) => {
      const check = () => {
        const hit = lines.slice(from).find(match);
        if (hit) done(() => resolve(hit));
        else if (finished) done(() => reject(new Error(`forge watch exited without the line awaited; lines: ${JSON.stringify(lines)}; stderr: ${stderr}`)));
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`the line awaited did not come in ${timeoutMs} ms; lines: ${JSON.stringify(lines)}; stderr: ${stderr}`))),
        timeoutMs,
      );
      const done = (settle: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        settle();
      };
      waiters.add(check);
      check();
    });
  return { child, pid: child.pid as number, lines, stderr: () => stderr, waitFor, exited };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface CheckpointJson {
  readonly id: string;
  readonly seq: number;
  readonly trigger: string;
  readonly tags: string[];
  readonly message: string;
  readonly filesRoot: string | null;
  readonly stateRoot: string;
}

/** The checkpoints of a session, oldest first. */
export function checkpoints(p: Place, session = "default"): CheckpointJson[] {
  return forgeJson<{ checkpoints: CheckpointJson[] }>(p, ["checkpoint", "list", "--session", session]).checkpoints;
}

/** `forge fsck` holds: every object re-hashed, every reference checked. */
export function expectWhole(p: Place): void {
  const r = forge(p, ["fsck"]);
  expect(r.stdout + r.stderr).toMatch(/ok: the store is whole/);
  expect(r.code).toBe(0);
}
