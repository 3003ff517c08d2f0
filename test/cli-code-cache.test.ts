// bin/code-cache.js: the bundled CLI's compiled code, kept between runs in
// $TMPDIR/forge-<uid>/code-cache. It may only ever save time: a damaged, foreign or
// stale cache must cost a recompile, never a wrong or failed command.
import { chownSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { forge, ok } from "./support/cli.js";
import { makeTempDir } from "./support/temp.js";

/** A temporary folder removed when the test is over. */
function temp(label: string): string {
  const t = makeTempDir(label);
  onTestFinished(() => t.remove());
  return t.path;
}

/** A fresh TMPDIR and a folder with a store to run commands in. */
function setup() {
  const tmp = temp("code-cache-tmp");
  const cwd = temp("code-cache-cwd");
  const run = (args: string[], env: Record<string, string> = {}) => forge(cwd, args, { env: { TMPDIR: tmp, ...env } });
  ok(run(["init"]));
  const dir = join(tmp, `forge-${process.getuid?.()}`, "code-cache");
  const files = () => (existsSync(dir) ? readdirSync(dir).sort() : []);
  const bins = () => files().filter((f) => f.endsWith(".bin"));
  /** The cache file a command wrote: the one `run(args)` adds. */
  const added = (args: string[], env: Record<string, string> = {}) => {
    const before = new Set(bins());
    ok(run(args, env));
    return bins().filter((f) => !before.has(f));
  };
  return { tmp, cwd, run, dir, files, bins, added };
}

describe("the code cache of the bundled CLI", () => {
  it("is written after a command's first run, one per command, in private folders", () => {
    const s = setup();
    expect(s.bins()).toHaveLength(1); // forge init's
    expect(statSync(s.dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(s.dir, "..")).mode & 0o777).toBe(0o700);
    const [initCache] = s.bins();
    const written = statSync(join(s.dir, initCache as string)).mtimeMs;
    expect(s.added(["init"])).toEqual([]); // already there: the same store, and the same cache, untouched
    expect(statSync(join(s.dir, initCache as string)).mtimeMs).toBe(written);
    const list = s.added(["checkpoint", "list"]);
    expect(list).toHaveLength(1);
    expect(s.added(["checkpoint", "list"])).toEqual([]);
    expect(s.added(["--json", "checkpoint", "list", "--limit", "5"])).toEqual([]); // the same command: its cache
    expect(s.added(["cp", "ls"])).toHaveLength(1); // an alias is found by its own words
  });

  it("keys a command by as many words as its name has: its arguments share its cache", () => {
    const s = setup();
    expect(s.added(["search", "alpha"])).toHaveLength(1);
    expect(s.added(["search", "beta"])).toEqual([]);
    expect(s.added(["search", "gamma", "--json"])).toEqual([]);
  });

  it("is written again after a run that went a way it was not written after, and lists the ways", () => {
    const s = setup();
    const [cache] = s.added(["files", "status"]); // no snapshot yet: a walk
    const path = join(s.dir, cache as string);
    const ways = () => readFileSync(`${path}.ways`, "utf8").split("\n");
    expect(ways()).toHaveLength(1);
    const written = statSync(path).mtimeMs;
    ok(s.run(["files", "status"])); // the same way again: nothing written
    expect(statSync(path).mtimeMs).toBe(written);
    expect(ways()).toHaveLength(1);
    ok(s.run(["files", "snapshot", "one"]));
    ok(s.run(["files", "status"])); // against a snapshot now: another way
    expect(ways().length).toBeGreaterThan(1);
    expect(new Set(ways()).size).toBe(ways().length);
    expect(ways().some((w) => w.includes("status: stats compared"))).toBe(true);
  });

  it("is written again when V8 refuses it, and the command runs as if there were none", () => {
    const s = setup();
    const [cache] = s.added(["checkpoint", "list"]);
    const path = join(s.dir, cache as string);
    writeFileSync(path, Buffer.alloc(4096, 7));
    const out = ok(s.run(["--json", "checkpoint", "list"]));
    expect(JSON.parse(out)).toBeDefined();
    expect(readFileSync(path).equals(Buffer.alloc(4096, 7))).toBe(false);
  });

  it("is not used from a folder another user owns", () => {
    const s = setup();
    if (process.getuid?.() !== 0) return expect(process.getuid?.()).not.toBe(0); // only root can give a folder away here
    const other = temp("code-cache-foreign");
    const dir = join(other, `forge-${process.getuid()}`);
    mkdirSync(join(dir, "code-cache"), { recursive: true, mode: 0o700 });
    chownSync(dir, 65534, 65534);
    ok(forge(s.cwd, ["checkpoint", "list"], { env: { TMPDIR: other } }));
    expect(readdirSync(join(dir, "code-cache"))).toEqual([]);
  });

  it("removes the caches of an earlier build of the same bundle when it writes a new one, and keeps other bundles' recent ones", () => {
    const s = setup();
    const [initCache] = s.bins();
    // <where the bundle is and the runtime>-<its build>-<the command>.bin
    const [place, build] = (initCache as string).split("-");
    expect(place).toMatch(/^[0-9a-f]{16}$/);
    expect(build).toMatch(/^[0-9a-f]{16}$/);
    const superseded = join(s.dir, `${place}-0123456789abcdef-0123456789abcdef.bin`);
    writeFileSync(superseded, "an earlier build's");
    writeFileSync(`${superseded}.ways`, "");
    const elsewhere = join(s.dir, "fedcba9876543210-0123456789abcdef-0123456789abcdef.bin"); // a bundle at another path
    writeFileSync(elsewhere, "another bundle's");
    expect(s.added(["checkpoint", "list"])).toHaveLength(1);
    expect(existsSync(superseded)).toBe(false);
    expect(existsSync(`${superseded}.ways`)).toBe(false);
    expect(existsSync(elsewhere)).toBe(true);
    expect(existsSync(join(s.dir, initCache as string))).toBe(true); // the current build's, all kept
  });

  it("keeps at most 300 cache files of other bundles, the oldest going first", () => {
    const s = setup();
    const now = Date.now() / 1000;
    const others = Array.from({ length: 310 }, (_, i) =>
      join(s.dir, `${(0xa000000000000000n + BigInt(i)).toString(16)}-0123456789abcdef-0123456789abcdef.bin`),
    );
    others.forEach((path, i) => {
      writeFileSync(path, "other");
      utimesSync(path, now - 3600 + i, now - 3600 + i); // the first ones oldest
    });
    expect(s.added(["checkpoint", "list"])).toHaveLength(1);
    expect(others.filter((p) => existsSync(p))).toEqual(others.slice(10));
    expect(s.bins().filter((f) => !others.some((p) => p.endsWith(f)))).toHaveLength(2); // init's and checkpoint list's
  });

  it("removes the caches nobody wrote for a week when it writes a new one, and nothing under FORGE_NO_CODE_CACHE=1", () => {
    const s = setup();
    const old = join(s.dir, "0123456789abcdef-0123456789abcdef-0123456789abcdef.bin");
    writeFileSync(old, "old");
    const oldList = join(s.dir, "0123456789abcdef0123456789abcdef.cmds"); // an earlier version's list
    writeFileSync(oldList, "forge init");
    const weekAgo = Date.now() / 1000 - 8 * 86400;
    utimesSync(old, weekAgo, weekAgo);
    utimesSync(oldList, weekAgo, weekAgo);
    const recent = join(s.dir, "fedcba9876543210-fedcba9876543210-fedcba9876543210.bin");
    writeFileSync(recent, "recent");
    expect(s.added(["checkpoint", "list"])).toHaveLength(1);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(oldList)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(s.added(["session", "list"], { FORGE_NO_CODE_CACHE: "1" })).toEqual([]);
    expect(s.added(["session", "list"])).toHaveLength(1);
  });
});
