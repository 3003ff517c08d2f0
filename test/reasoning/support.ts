// Shared set-up for the reasoning tests: a reasoning session on a real SQLite file in a
// temp folder, driven by a ManualClock; temp git repositories; small process helpers.
// Everything opened here is closed and removed when the calling test finishes.
import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { onTestFinished } from "vitest";
import { ManualClock, openStore, type Store } from "../../src/index.js";
import { ReasoningSession, type ReasoningOptions } from "../../src/domains/reasoning/reasoning-session.js";
import { makeTempDir, type TempDir } from "../support/temp.js";

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** A round moment to start ManualClocks at: 2025-01-20 09:00:00 UTC (on an hour boundary). */
export const T0 = Date.UTC(2025, 0, 20, 9, 0, 0);

export interface Bench {
  readonly dir: TempDir;
  readonly url: string;
  readonly clock: ManualClock;
  readonly store: Store;
  readonly rs: ReasoningSession;
  /** Another handle on the same SQLite file (as a second process would have), same clock. */
  reopen(options?: ReasoningOptions): Promise<{ store: Store; rs: ReasoningSession }>;
}

/** A reasoning session `name` in a new SQLite store under a temp folder, with a ManualClock at T0. */
export async function reasoningBench(name = "debug", options: ReasoningOptions = {}, start = T0): Promise<Bench> {
  const dir = makeTempDir("reasoning");
  const url = `sqlite:${dir.path}/forge.db`;
  const clock = new ManualClock(start);
  const stores: Store[] = [];
  onTestFinished(async () => {
    for (const s of stores.reverse()) await s.close();
    dir.remove();
  });
  const store = await openStore(url, { clock });
  stores.push(store);
  const rs = await ReasoningSession.open(store, name, options);
  return {
    dir,
    url,
    clock,
    store,
    rs,
    reopen: async (opts = {}) => {
      const other = await openStore(url, { clock });
      stores.push(other);
      return { store: other, rs: await ReasoningSession.open(other, name, opts) };
    },
  };
}

/** A temp folder removed when the test finishes. */
export function tempDir(label: string): TempDir {
  const dir = makeTempDir(label);
  onTestFinished(() => dir.remove());
  return dir;
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "Forge Test",
  GIT_AUTHOR_EMAIL: "forge@example.invalid",
  GIT_COMMITTER_NAME: "Forge Test",
  GIT_COMMITTER_EMAIL: "forge@example.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

/** Runs git in `cwd` and returns its standard output. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8" });
}

export function writeFile(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

export interface Repo {
  /** The repository's top folder, with symlinks resolved (as `git rev-parse --show-toplevel` prints it). */
  readonly root: string;
  /** The commit HEAD is at. */
  readonly commit: string;
}

/** A git repository on branch main with one commit of `app.txt` ("one\n") in a new temp folder. */
export function gitRepo(): Repo {
  const dir = tempDir("git");
  const root = realpathSync(dir.path);
  git(root, "init", "-q", "-b", "main");
  writeFile(root, "app.txt", "one\n");
  writeFile(root, ".gitignore", ".forge/\n");
  git(root, "add", "app.txt", ".gitignore");
  git(root, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "first");
  return { root, commit: git(root, "rev-parse", "HEAD").trim() };
}

/** argv for a Node one-liner: a portable command for verify and run. */
export function nodeArgv(script: string): string[] {
  return [process.execPath, "-e", script];
}

/** The ids of a list, in order. */
export function ids(items: readonly { readonly id: string }[]): string[] {
  return items.map((x) => x.id);
}
