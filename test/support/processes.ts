// Real child processes running the fixture scripts in test/fixtures/ (plain JS that imports
// the built library from dist/, which `npm test` builds first).
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const DIST_INDEX = fileURLToPath(new URL("../../dist/index.js", import.meta.url));

/** Fails early, with what to do, when the fixtures would have no library to import. */
export function requireBuiltLibrary(): void {
  if (!existsSync(DIST_INDEX)) {
    throw new Error(`${DIST_INDEX} is missing: build it first with \`npx tsc -p tsconfig.build.json\` (npm test does)`);
  }
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface Fixture {
  readonly child: ChildProcessWithoutNullStreams;
  /** Lines printed on stdout so far. */
  readonly lines: readonly string[];
  /** Everything printed on stderr so far. */
  stderr(): string;
  /** Resolves once `count` lines are out; rejects if the process exits first or `timeoutMs` passes. */
  waitForLines(count: number, timeoutMs: number): Promise<void>;
  /** Settles when the process has exited and its output is read to the end. */
  readonly exited: Promise<Exit>;
}

export function runFixture(script: string, args: readonly string[]): Fixture {
  const path = fileURLToPath(new URL(`../fixtures/${script}`, import.meta.url));
  const child = spawn(process.execPath, [path, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  const lines: string[] = [];
  let stderr = "";
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => (stderr += chunk));
  const reader = createInterface({ input: child.stdout });
  reader.on("line", (line) => {
    lines.push(line);
    notify();
  });
  const outputDone = new Promise<void>((resolve) => reader.once("close", resolve));
  let finished = false;
  const exited = new Promise<Exit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal }))).then(async (exit) => {
    await outputDone;
    finished = true;
    notify();
    return exit;
  });

  const waitForLines = (count: number, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (lines.length >= count) done(resolve);
        else if (finished) done(() => reject(new Error(`${script} exited after ${lines.length} of ${count} lines; stderr: ${stderr}`)));
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`${script} printed ${lines.length} of ${count} lines in ${timeoutMs} ms; stderr: ${stderr}`))),
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

  return { child, lines, stderr: () => stderr, waitForLines, exited };
}

/** A small seeded PRNG (mulberry32), so a failing run can be repeated from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
