// Git repositories for the host tests: a real repository with one commit, git run as a user
// would (no system config, a fixed author, no signing), and a stand-in `forge` on PATH that
// writes down how a git hook called it.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FORGE_BIN } from "../support/cli.js";

/** git's environment: the test process's, without the system config, with a fixed author. */
export function gitEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const inherited = Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined);
  return {
    ...Object.fromEntries(inherited),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Test",
    GIT_AUTHOR_EMAIL: "test@example.invalid",
    GIT_COMMITTER_NAME: "Test",
    GIT_COMMITTER_EMAIL: "test@example.invalid",
    ...extra,
  };
}

/** Runs git in `cwd`; a failure throws with git's stderr. Returns stdout. */
export function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", ["-c", "commit.gpgsign=false", ...args], { cwd, encoding: "utf8", env: gitEnv() });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.trim()}`);
  return r.stdout;
}

/** Runs git with `env` added, returning its exit status and output (for commits that may fail). */
export function gitRun(cwd: string, env: Readonly<Record<string, string>>, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync("git", ["-c", "commit.gpgsign=false", ...args], { cwd, encoding: "utf8", env: gitEnv(env) });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Makes `dir` a git repository with one commit. */
export function gitRepo(dir: string): void {
  git(dir, "init", "-q");
  writeFileSync(join(dir, "README.md"), "# demo\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "start");
}

/**
 * A `forge` stand-in in `binDir`: appends its arguments to $FORGE_FAKE_LOG and exits with
 * $FORGE_FAKE_EXIT (0 by default). Returns the PATH that finds it first.
 */
export function fakeForge(binDir: string): string {
  mkdirSync(binDir, { recursive: true });
  const script = join(binDir, "forge");
  writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$*" >> "$FORGE_FAKE_LOG"\nexit "\${FORGE_FAKE_EXIT:-0}"\n`);
  chmodSync(script, 0o755);
  return `${binDir}:${process.env["PATH"] ?? ""}`;
}

/**
 * The folders of a host test under `dir`: a git project with one commit, a HOME of its own,
 * and a PATH whose `forge` runs this checkout's (hooks that enable writes call it by name).
 */
export function hostBench(dir: string): { project: string; home: string; path: string } {
  const project = join(dir, "project");
  const home = join(dir, "home");
  mkdirSync(project);
  mkdirSync(home);
  gitRepo(project);
  const bin = join(dir, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "forge"), `#!/bin/sh\nexec "${process.execPath}" "${FORGE_BIN}" "$@"\n`);
  chmodSync(join(bin, "forge"), 0o755);
  return { project, home, path: `${bin}:${process.env["PATH"] ?? ""}` };
}
