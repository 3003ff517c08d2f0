// bin/code-cache.js: the bundled CLI's compiled code, kept between runs in
// $TMPDIR/forge-<uid>/code-cache. It may only ever save time: a damaged, foreign or
// stale cache must cost a recompile, never a wrong or failed command.
import { chownSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
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
  const commands = () => {
    const list = files().find((f) => f.endsWith(".cmds"));
    return list === undefined ? [] : readFileSync(join(dir, list), "utf8").split("\n");
  };
  const bin = () => join(dir, files().find((f) => f.endsWith(".bin")) as string);
  return { tmp, cwd, run, dir, files, commands, bin };
}

describe("the code cache of the bundled CLI", () => {
  it("is written after the first command, in private folders, and lists each command it holds the code of", () => {
    const s = setup();
    expect(s.files().filter((f) => f.endsWith(".bin"))).toHaveLength(1);
    expect(statSync(s.dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(s.dir, "..")).mode & 0o777).toBe(0o700);
    expect(s.commands()).toEqual(["forge init"]);
    const written = statSync(s.bin()).mtimeMs;
    ok(s.run(["init"])); // already there: the same store, and the same cache, untouched
    expect(statSync(s.bin()).mtimeMs).toBe(written);
    ok(s.run(["checkpoint", "list"]));
    expect(s.commands()).toEqual(["forge init", "forge checkpoint list"]);
    ok(s.run(["checkpoint", "list"]));
    expect(s.commands()).toEqual(["forge init", "forge checkpoint list"]);
  });

  it("is written again when V8 refuses it, and the command runs as if there were none", () => {
    const s = setup();
    writeFileSync(s.bin(), Buffer.alloc(4096, 7));
    const out = ok(s.run(["--json", "checkpoint", "list"]));
    expect(JSON.parse(out)).toBeDefined();
    expect(readFileSync(s.bin()).equals(Buffer.alloc(4096, 7))).toBe(false);
    expect(s.commands()).toEqual(["forge checkpoint list"]);
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

  it("removes the caches nobody wrote for a week when it writes a new one, and nothing under FORGE_NO_CODE_CACHE=1", () => {
    const s = setup();
    const old = join(s.dir, "0123456789abcdef0123456789abcdef.bin");
    writeFileSync(old, "old");
    const weekAgo = Date.now() / 1000 - 8 * 86400;
    utimesSync(old, weekAgo, weekAgo);
    const recent = join(s.dir, "fedcba9876543210fedcba9876543210.bin");
    writeFileSync(recent, "recent");
    // This build's cache removed: the next command writes a new one, as after a rebuild or a Node upgrade.
    for (const f of s.files()) if (!f.startsWith("0123") && !f.startsWith("fedc")) unlinkSync(join(s.dir, f));
    ok(s.run(["checkpoint", "list"]));
    expect(existsSync(old)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    const before = s.files();
    ok(s.run(["session", "list"], { FORGE_NO_CODE_CACHE: "1" }));
    expect(s.files()).toEqual(before);
    expect(s.commands()).not.toContain("forge session list");
  });
});
