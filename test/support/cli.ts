// The `forge` command as a user runs it: a real child process (bin/forge.js on the built
// dist/) in a clean environment, and the checks every CLI test makes on what it printed.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

/** bin/forge.js, the command users run; it imports the compiled CLI from dist/. */
export const FORGE_BIN = fileURLToPath(new URL("../../bin/forge.js", import.meta.url));

/** A stack-trace line: a user error must never print one. */
export const STACK = /^\s+at .+[:(]/m;

/** What a finished `forge` process left behind. */
export interface Run {
  /** The exit status; 128 when a signal ended the process. */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A user to run the command as (spawn's `uid` and `gid`). */
export interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

/** How one `forge` run differs from the default: empty stdin, clean environment, no time limit. */
export interface ForgeOptions {
  /** Standard input; without it the command reads an empty stdin. */
  readonly input?: string;
  /** Variables set on top of {@link forgeEnv}'s clean environment (for example FORGE_STORE, TMPDIR). */
  readonly env?: Readonly<Record<string, string>>;
  /** Kills the process after this many milliseconds, and the run throws; no limit by default. */
  readonly timeoutMs?: number;
  /** Runs the command as another user, for checks root would pass anyway. */
  readonly as?: RunAs;
  /** Options for node itself, before the script (for example `--require` of a probe). */
  readonly nodeArgs?: readonly string[];
}

/** The largest stdout or stderr a run may print (a run printing more throws). */
const MAX_OUTPUT = 64 * 1024 * 1024;

/**
 * The environment every `forge` run gets: the test process's own, with colour off and the
 * variables a developer's shell might have set for Forge cleared (FORGE_STORE,
 * FORGE_SESSION, FORGE_DEBUG, FORGE_HOOK_STRICT, FORGE_WATCH_HINTS), then `extra` on top.
 */
export function forgeEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const inherited = Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined);
  return {
    ...Object.fromEntries(inherited),
    NO_COLOR: "1",
    FORGE_STORE: "",
    FORGE_SESSION: "",
    FORGE_DEBUG: "",
    FORGE_HOOK_STRICT: "",
    FORGE_WATCH_HINTS: "",
    ...extra,
  };
}

/**
 * Runs `forge ARGS` in `cwd` to completion and returns its exit status and output. Throws
 * when the process could not be run to the end (it did not start, hit `timeoutMs`, or
 * printed more than 64 MB): that is a broken harness, not a result to assert on.
 */
export function forge(cwd: string, args: readonly string[], options: ForgeOptions = {}): Run {
  const r = spawnSync(process.execPath, [...(options.nodeArgs ?? []), FORGE_BIN, ...args], {
    cwd,
    encoding: "utf8",
    maxBuffer: MAX_OUTPUT,
    env: forgeEnv(options.env),
    ...(options.input !== undefined && { input: options.input }),
    ...(options.timeoutMs !== undefined && { timeout: options.timeoutMs }),
    ...(options.as && { uid: options.as.uid, gid: options.as.gid }),
  });
  if (r.error) throw r.error;
  return { code: r.status ?? (r.signal ? 128 : -1), stdout: r.stdout, stderr: r.stderr };
}

/** A command that succeeded: exit 0 and nothing on stderr. Returns its stdout. */
export function ok(r: Run): string {
  expect(r.stderr, r.stdout).toBe("");
  expect(r.code, r.stdout).toBe(0);
  return r.stdout;
}

/**
 * Parses a command's --json output, expecting exit 0 and nothing on stderr. With
 * `allowStderr`, only the exit status is checked (for commands that may warn on stderr).
 */
export function json<T>(r: Run, options: { readonly allowStderr?: boolean } = {}): T {
  if (options.allowStderr) {
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as T;
  }
  return JSON.parse(ok(r)) as T;
}

/** A failed command: its exit code, one `forge: …` message on stderr, no stack trace, no "internal error". */
export function fails(r: Run, code: number, message: RegExp): void {
  expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(code);
  expect(r.stderr).toMatch(/^forge: /);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(STACK);
  expect(r.stderr).not.toMatch(/internal error/);
}

/**
 * What `forge init` makes in `folder` (its `.forge/` with the embedded store), made in this
 * process: only `forge init` creates a store, and most tests need one to exist. With `url`,
 * the store at that URL instead (`--store URL` tests).
 */
export async function initStore(folder: string, url?: string): Promise<string> {
  const { openStore } = await import("../../src/index.js");
  const target = url ?? `sqlite:${folder}/.forge/forge.db`;
  await (await openStore(target, { cwd: folder })).close();
  return target;
}
