// The git hook `forge enable` installs, driven by real `git commit`s: prepare-commit-msg runs
// `forge hook commit-msg` (a stand-in `forge` on PATH writes down its arguments) beside the
// user's own hook, in a plain repository, under core.hooksPath and under husky; it never
// blocks a commit, and disable leaves the hook scripts byte for byte as they were.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { json, ok, forge as runForge } from "../support/cli.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { fakeForge, git, gitRepo, gitRun } from "./git-support.js";

let dir: TempDir;
let env: Record<string, string>;
beforeEach(() => {
  dir = makeTempDir("git-hook");
  mkdirSync(join(dir.path, "repo"));
  gitRepo(repo());
  env = { PATH: fakeForge(join(dir.path, "bin")), FORGE_FAKE_LOG: join(dir.path, "forge.log") };
});
afterEach(() => dir.remove());

const repo = (rel = "") => join(dir.path, "repo", rel);
const forge = (...args: string[]) => runForge(repo(), args);
const calls = () =>
  existsSync(env["FORGE_FAKE_LOG"] as string)
    ? readFileSync(env["FORGE_FAKE_LOG"] as string, "utf8")
        .trim()
        .split("\n")
    : [];

function script(rel: string, text: string, mode = 0o755): void {
  mkdirSync(dirname(repo(rel)), { recursive: true });
  writeFileSync(repo(rel), text);
  chmodSync(repo(rel), mode);
}

/** Commits a change with `git commit -m`, returning git's result and the message it recorded. */
function commit(extra: Record<string, string> = {}): { code: number; stderr: string; message: string } {
  writeFileSync(repo("change.txt"), `${Math.random()}\n`);
  git(repo(), "add", "-A");
  const r = gitRun(repo(), { ...env, ...extra }, "commit", "-q", "-m", "work");
  return { code: r.code, stderr: r.stderr, message: r.code === 0 ? git(repo(), "log", "-1", "--format=%B") : "" };
}

/** A user's hook that appends a line to the message, so a commit shows it ran. */
const USER_HOOK = '#!/bin/sh\n# the user\'s own hook\necho "user hook ran" >> "$1"\n';

describe("forge enable's git hook", () => {
  it("in a plain repository: creates prepare-commit-msg, which runs forge hook commit-msg; disable deletes it", () => {
    ok(forge("enable", "claude-code"));
    const hook = repo(".git/hooks/prepare-commit-msg");
    expect(statSync(hook).mode & 0o111).not.toBe(0);
    expect(commit().code).toBe(0);
    expect(calls()).toEqual([expect.stringMatching(/^hook commit-msg \S*COMMIT_EDITMSG message\s*$/)]);
    ok(forge("disable", "claude-code"));
    expect(existsSync(hook)).toBe(false);
  });

  it("keeps the user's shell hook running after Forge's line, and disable leaves it byte for byte", () => {
    script(".git/hooks/prepare-commit-msg", USER_HOOK);
    ok(forge("enable", "claude-code"));
    const c = commit();
    expect(c.code, c.stderr).toBe(0);
    expect(c.message).toContain("user hook ran");
    expect(calls()).toHaveLength(1);
    ok(forge("enable", "claude-code"));
    expect(readFileSync(repo(".git/hooks/prepare-commit-msg"), "utf8").match(/>>> forge enable/g)).toHaveLength(1);
    ok(forge("disable", "claude-code"));
    expect(readFileSync(repo(".git/hooks/prepare-commit-msg"), "utf8")).toBe(USER_HOOK);
    expect(statSync(repo(".git/hooks/prepare-commit-msg")).mode & 0o777).toBe(0o755);
  });

  it("moves a hook in another language aside and calls it; disable puts it back", () => {
    const node = `#!${process.execPath}\nrequire("node:fs").appendFileSync(process.argv[2], "node hook ran\\n");\n`;
    script(".git/hooks/prepare-commit-msg", node, 0o750);
    const r = json<{ gitHook: { action: string } }>(forge("enable", "claude-code", "--json"));
    expect(r.gitHook.action).toBe("wrapped");
    const c = commit();
    expect(c.code, c.stderr).toBe(0);
    expect(c.message).toContain("node hook ran");
    expect(calls()).toHaveLength(1);
    ok(forge("disable", "claude-code"));
    expect(readFileSync(repo(".git/hooks/prepare-commit-msg"), "utf8")).toBe(node);
    expect(statSync(repo(".git/hooks/prepare-commit-msg")).mode & 0o777).toBe(0o750);
    expect(existsSync(repo(".git/hooks/prepare-commit-msg.forge-chained"))).toBe(false);
  });

  it("honours core.hooksPath, creating its folder, and disable removes what it created", () => {
    git(repo(), "config", "core.hooksPath", ".githooks");
    ok(forge("enable", "claude-code"));
    expect(existsSync(repo(".githooks/prepare-commit-msg"))).toBe(true);
    expect(existsSync(repo(".git/hooks/prepare-commit-msg"))).toBe(false);
    expect(commit().code).toBe(0);
    expect(calls()).toHaveLength(1);
    ok(forge("disable", "claude-code"));
    expect(existsSync(repo(".githooks"))).toBe(false);
  });

  it("under husky: goes in husky's user script .husky/prepare-commit-msg and leaves .husky/_ alone", () => {
    const h =
      '#!/usr/bin/env sh\nn=$(basename "$0")\ns=$(dirname "$(dirname "$0")")/$n\n[ ! -f "$s" ] && exit 0\nsh -e "$s" "$@"\nc=$?\n[ $c != 0 ] && echo "husky - $n script failed (code $c)"\nexit $c\n';
    const stub = '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n';
    script(".husky/_/h", h);
    script(".husky/_/prepare-commit-msg", stub);
    const user = 'echo "husky user hook ran" >> "$1"\n';
    script(".husky/prepare-commit-msg", user, 0o644);
    git(repo(), "config", "core.hooksPath", ".husky/_");
    ok(forge("enable", "claude-code"));
    expect(readFileSync(repo(".husky/_/prepare-commit-msg"), "utf8")).toBe(stub);
    expect(readFileSync(repo(".husky/_/h"), "utf8")).toBe(h);
    const c = commit();
    expect(c.code, c.stderr).toBe(0);
    expect(c.message).toContain("husky user hook ran");
    expect(calls()).toHaveLength(1);
    ok(forge("disable", "claude-code"));
    expect(readFileSync(repo(".husky/prepare-commit-msg"), "utf8")).toBe(user);
  });

  it("never blocks a commit: a failing forge is ignored, and the user's hook's status is the hook's", () => {
    script(".git/hooks/prepare-commit-msg", USER_HOOK);
    ok(forge("enable", "claude-code"));
    expect(commit({ FORGE_FAKE_EXIT: "3" }).code).toBe(0);
    expect(commit({ PATH: "/usr/bin:/bin" }).code).toBe(0);
    script(
      ".git/hooks/prepare-commit-msg",
      readFileSync(repo(".git/hooks/prepare-commit-msg"), "utf8").replace('user hook ran" >> "$1"', 'user hook ran" >> "$1"; exit 4'),
    );
    expect(commit().code).not.toBe(0);
  });

  it("never blocks a commit where forge is not on the PATH, when the hook is Forge's block alone", () => {
    ok(forge("enable", "claude-code"));
    expect(commit({ PATH: "/usr/bin:/bin" }).code).toBe(0);
  });

  it("is skipped outside a git work tree, and status says so", () => {
    const plain = join(dir.path, "plain");
    mkdirSync(plain);
    const r = json<{ gitHook: { action: string } }>(runForge(plain, ["enable", "claude-code", "--json"]));
    expect(r.gitHook.action).toBe("skipped");
    expect(json<{ gitHook: { installed: boolean; path: string | null } }>(runForge(plain, ["status", "--json"])).gitHook).toEqual({
      installed: false,
      path: null,
    });
  });

  it("status says whether it is installed", () => {
    type S = { gitHook: { installed: boolean; path: string } };
    expect(json<S>(forge("status", "--json")).gitHook).toEqual({ installed: false, path: ".git/hooks/prepare-commit-msg" });
    ok(forge("enable", "codex"));
    expect(json<S>(forge("status", "--json")).gitHook.installed).toBe(true);
    ok(forge("enable", "claude-code"));
    ok(forge("disable", "codex"));
    expect(json<S>(forge("status", "--json")).gitHook.installed).toBe(true);
    ok(forge("disable", "claude-code"));
    expect(json<S>(forge("status", "--json")).gitHook.installed).toBe(false);
  });
});
