// How `forge` speaks, as the best CLIs do: a closed pipe ends it quietly, an error under
// --json is one JSON object, exit statuses 0/1/2, future times refused where a time names a
// past moment, counts in the right number, global options in every help, and file-system
// errors that name the path and the cause.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, RunStore } from "../src/index.js";
import { FORGE_BIN, fails, forgeEnv, json, ok, forge as runForge, type Run, STACK } from "./support/cli.js";
import { makeTempDir, type TempDir } from "./support/temp.js";

/** A store whose list and show outputs are far larger than a pipe's buffer. */
let big: TempDir;
let bigUrl: string;
/** A store with one checkpoint and one workflow run, for the error cases. */
let small: TempDir;
let smallUrl: string;

const CHECKPOINTS = 300;

beforeAll(async () => {
  big = makeTempDir("output-big");
  bigUrl = `sqlite:${join(big.path, "forge.db")}`;
  const store = await openStore(bigUrl);
  const session = await store.session("default");
  for (let i = 1; i <= CHECKPOINTS; i++) await session.checkpoint({ step: i }, { message: `step ${i} ${"x".repeat(2000)}` });
  await session.checkpoint({ lines: Array.from({ length: 20_000 }, (_, i) => `line ${i} ${"y".repeat(60)}`) }, { message: "big state" });
  await store.close();

  small = makeTempDir("output-small");
  smallUrl = `sqlite:${join(small.path, "forge.db")}`;
  ok(forge(small, ["init"]));
  writeFileSync(join(small.path, "s.json"), JSON.stringify({ step: 1 }));
  ok(forge(small, ["checkpoint", "create", "first", "--state", "s.json"]));
  const runStore = await openStore(smallUrl);
  await new RunStore(runStore).save("nightly", "extract", new TextEncoder().encode('{"rows":3}'));
  await runStore.close();
});
afterAll(() => {
  big?.remove();
  small?.remove();
});

function urlOf(dir: TempDir): string {
  return dir === big ? bigUrl : dir === small ? smallUrl : `sqlite:${join(dir.path, "forge.db")}`;
}

/** `forge --store URL ARGS` in the store's folder. */
function forge(dir: TempDir, args: readonly string[], options: { nodeArgs?: readonly string[] } = {}): Run {
  return runForge(dir.path, ["--store", urlOf(dir), ...args], options);
}

/** A store of its own with one checkpoint, for a test that might change it. */
function oneCheckpointStore(label: string): TempDir {
  const dir = makeTempDir(label);
  ok(forge(dir, ["init"]));
  writeFileSync(join(dir.path, "s.json"), JSON.stringify({ step: 1 }));
  ok(forge(dir, ["checkpoint", "create", "first", "--state", "s.json"]));
  return dir;
}

/** Runs forge with its stdout read by a reader that closes the pipe after the first line. */
function firstLineThenClose(dir: TempDir, args: readonly string[]): Promise<{ code: number | null; signal: string | null; firstLine: string; stderr: string }> {
  const p = spawn(process.execPath, [FORGE_BIN, "--store", urlOf(dir), ...args], { cwd: dir.path, env: forgeEnv(), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let firstLine: string | undefined;
  p.stdout.on("data", (chunk: Buffer) => {
    if (firstLine !== undefined) return;
    out += chunk.toString("utf8");
    const nl = out.indexOf("\n");
    if (nl >= 0) {
      firstLine = out.slice(0, nl);
      p.stdout.destroy();
    }
  });
  let stderr = "";
  p.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    p.once("error", reject);
    p.once("close", (code, signal) => resolve({ code, signal, firstLine: firstLine ?? "", stderr }));
  });
}

/** The one JSON object an error under --json prints on stdout; stderr has the same error as the one line for people. */
function jsonError(r: Run): { code: string; message: string; hint: string | null; data?: Record<string, unknown> } {
  const lines = r.stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  const error = JSON.parse(lines[0] as string) as { code: string; message: string; hint: string | null; data?: Record<string, unknown> };
  expect(r.stderr).toBe(`forge: ${error.message}${error.hint ? ` (${error.hint})` : ""}\n`);
  return error;
}

/**
 * A script for `node -r` that writes, at exit (after everything the command did), which of
 * Node's modules named by `modules` (a regular expression's alternatives) it loaded: "loaded:" and their names.
 */
function loadedProbe(name: string, modules: string): string {
  const probe = join(small.path, name);
  const test = `/^NativeModule (${modules})$/`;
  writeFileSync(
    probe,
    `process.on("exit", () => require("fs").writeSync(2, "loaded:" + process.moduleLoadList.filter((m) => ${test}.test(m)).join(",") + "\\n"));`,
  );
  return probe;
}

describe("standard output to a pipe", () => {
  it("is written whole without Node's stdout stream (whose net and stream modules cost every hook ~2.5 ms)", () => {
    const probe = loadedProbe("probe.cjs", "net|tty");
    const r = forge(small, ["checkpoint", "list"], { nodeArgs: ["-r", probe] });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\* #1 .* first$/m);
    expect(r.stdout.endsWith("\n")).toBe(true);
    expect(r.stderr).toBe("loaded:\n");
    const asJson = forge(small, ["--json", "checkpoint", "list"], { nodeArgs: ["-r", probe] });
    expect((JSON.parse(asJson.stdout) as { session: string }).session).toBe("default");
    expect(asJson.stderr).toBe("loaded:\n");
  });
});

describe("standard output to /dev/null", () => {
  it("is written without Node's stdout stream, which asking whether it is a terminal would make", () => {
    const probe = loadedProbe("probe-null.cjs", "net|tty|internal\\/fs\\/sync_write_stream");
    const out = openSync("/dev/null", "w");
    try {
      // Colour not turned off: the CLI asks whether standard output is a terminal.
      const env = forgeEnv({ NO_COLOR: "" });
      const r = spawnSync(process.execPath, ["-r", probe, FORGE_BIN, "checkpoint", "list"], {
        cwd: small.path,
        env,
        stdio: ["ignore", out, "pipe"],
        encoding: "utf8",
      });
      expect(r.status).toBe(0);
      expect(r.stderr).toBe("loaded:\n");
    } finally {
      closeSync(out);
    }
  });
});

describe("a closed pipe", () => {
  it("ends checkpoint list quietly with exit 0 when the reader closes after the first line", async () => {
    const r = await firstLineThenClose(big, ["checkpoint", "list"]);
    expect(r.firstLine).toMatch(/#1 .* step 1 x/);
    expect(r.stderr).toBe("");
    expect([r.code, r.signal]).toEqual([0, null]);
  });

  it("ends a --json output quietly with exit 0 when the reader closes after the first line", async () => {
    const r = await firstLineThenClose(big, ["checkpoint", "show", "--json"]);
    expect(r.firstLine).toBe("{");
    expect(r.stderr).toBe("");
    expect([r.code, r.signal]).toEqual([0, null]);
  });
});

describe("errors under --json", () => {
  it("prints a Forge error as one object with code, message, hint and data on stdout (and its line on stderr), exit 1", () => {
    const r = forge(small, ["--json", "checkpoint", "show", "no-such-ref"]);
    expect(r.code).toBe(1);
    expect(jsonError(r)).toEqual({
      code: "CHECKPOINT_NOT_FOUND",
      message: 'no checkpoint matches "no-such-ref"',
      hint: expect.stringContaining("forge checkpoint list"),
      data: { ref: "no-such-ref" },
    });
  });

  it("prints an unknown command as one USAGE object with commander's suggestion, exit 2", () => {
    const r = forge(small, ["--json", "chekpoint", "list"]);
    expect(r.code).toBe(2);
    expect(jsonError(r)).toEqual({ code: "USAGE", message: "unknown command 'chekpoint'", hint: "did you mean checkpoint?" });
  });

  it("prints an unknown option as one USAGE object that points at the command's help, exit 2", () => {
    const r = forge(small, ["checkpoint", "list", "--bogus", "--json"]);
    expect(r.code).toBe(2);
    expect(jsonError(r)).toEqual({ code: "USAGE", message: "unknown option '--bogus'", hint: "see `forge checkpoint list --help`" });
  });

  it("prints a missing argument as one USAGE object, exit 2", () => {
    const r = forge(small, ["--json", "checkpoint", "restore"]);
    expect(r.code).toBe(2);
    expect(jsonError(r)).toMatchObject({ code: "USAGE", message: "missing required argument 'ref'" });
  });

  it("prints a usage error the CLI itself finds as one USAGE object, exit 2", () => {
    const r = forge(small, ["--json", "checkpoint", "squash", "not-a-range"]);
    expect(r.code).toBe(2);
    expect(jsonError(r)).toMatchObject({ code: "USAGE", message: expect.stringContaining('"not-a-range" is not a range') });
  });

  it("prints an internal error as one INTERNAL object, exit 1, with no stack", () => {
    const probe = 'data:text/javascript,Date.prototype.toISOString=function(){throw new TypeError("probe: no ISO times")}';
    const r = forge(small, ["--json", "checkpoint", "list"], { nodeArgs: ["--import", probe] });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(STACK);
    expect(jsonError(r)).toEqual({ code: "INTERNAL", message: "internal error: probe: no ISO times", hint: expect.stringContaining("FORGE_DEBUG=1") });
  });

  it("keeps an error without --json as one `forge: message (hint)` line", () => {
    const r = forge(small, ["checkpoint", "show", "no-such-ref"]);
    fails(r, 1, /^forge: no checkpoint matches "no-such-ref" \(run `forge checkpoint list` to see the checkpoints\)\n$/);
  });
});

describe("times that name a past moment", () => {
  it("refuses checkpoint at tomorrow with INVALID_TIME naming the expression and the time it means", () => {
    const r = forge(small, ["--json", "checkpoint", "at", "tomorrow"]);
    expect(r.code).toBe(1);
    const e = jsonError(r);
    expect(e.code).toBe("INVALID_TIME");
    expect(e.message).toMatch(/^"tomorrow": means \d{4}-\d\d-\d\dT[\d:.]+Z, which is in the future$/);
    expect(Date.parse(e.data?.["time"] as string)).toBeGreaterThan(Date.now());
  });

  it("accepts a time a few seconds ahead of this clock (another machine's) as now, and refuses two minutes ahead", () => {
    const soon = json<{ checkpoint: { seq: number } }>(forge(small, ["checkpoint", "at", new Date(Date.now() + 5_000).toISOString(), "--json"]));
    expect(soon.checkpoint.seq).toBeGreaterThan(0);
    fails(forge(small, ["checkpoint", "at", new Date(Date.now() + 120_000).toISOString()]), 1, /which is in the future/);
  });

  it("refuses a --since in the future, which could match no checkpoint", () => {
    fails(
      forge(small, ["checkpoint", "list", "--since", "in 2 hours"]),
      1,
      /^forge: "in 2 hours": means .*, which is in the future \(name a moment in the past/,
    );
  });

  it("accepts an --until in the future, which only says up to now", () => {
    const r = json<{ checkpoints: unknown[] }>(forge(small, ["checkpoint", "list", "--until", "tomorrow", "--json"]));
    expect(r.checkpoints).toHaveLength(1);
  });

  it("refuses runs delete --older-than a future time and deletes nothing", () => {
    fails(forge(small, ["runs", "delete", "--older-than", "tomorrow"]), 1, /^forge: "tomorrow": means .*, which is in the future/);
    expect(json<{ runs: { runId: string }[] }>(forge(small, ["runs", "list", "--json"])).runs.map((r) => r.runId)).toEqual(["nightly"]);
  });
});

describe("counts", () => {
  it("puts one checkpoint in the singular in export, du and session list", () => {
    const dir = oneCheckpointStore("output-one");
    try {
      const lines = [
        ok(forge(dir, ["checkpoint", "export", "--output", "one.bundle"])),
        ok(forge(dir, ["du"])),
        ok(forge(dir, ["session", "list"])),
        ok(forge(dir, ["checkpoint", "prune", "--keep-last", "1", "--dry-run"])),
      ].join("");
      expect(lines).toMatch(/exported 1 checkpoint \(/);
      expect(lines).toMatch(/\b1 checkpoint\s+\d/);
      expect(lines).toMatch(/would delete 0 checkpoints, kept 1/);
      expect(lines).not.toMatch(/\b1 (checkpoints|objects|files)\b|\(s\)/);
    } finally {
      dir.remove();
    }
  });
});

describe("help", () => {
  it("shows the global options in a subcommand's help", () => {
    const help = ok(forge(small, ["checkpoint", "list", "--help"]));
    expect(help).toMatch(/Global Options:[\s\S]*--store <url>[\s\S]*--session <name>[\s\S]*--json/);
    expect(help).toMatch(/--since <time>/);
  });
});

describe("file-system errors", () => {
  it.each([
    [
      "checkpoint export into a missing folder",
      ["checkpoint", "export", "--output", "missing/dir/x.bundle"],
      /^forge: cannot write missing\/dir\/x\.bundle: its folder does not exist \(/,
    ],
    [
      "checkpoint create --state of a missing file",
      ["checkpoint", "create", "x", "--state", "nofile.json"],
      /^forge: cannot read nofile\.json: no such file \(/,
    ],
    ["checkpoint create --state of a folder", ["checkpoint", "create", "x", "--state", "."], /^forge: cannot read \.: it is a folder \(/],
    ["checkpoint import of a missing file", ["checkpoint", "import", "nofile.bundle"], /^forge: cannot read nofile\.bundle: no such file \(/],
    [
      "checkpoint restore --output into a missing folder",
      ["checkpoint", "restore", "#1", "--output", "missing/x.json"],
      /^forge: cannot write missing\/x\.json: its folder does not exist \(/,
    ],
    ["chat import of a missing file", ["chat", "import", "nofile.json"], /^forge: cannot read nofile\.json: no such file \(/],
    [
      "runs load --output into a missing folder",
      ["runs", "load", "nightly", "extract", "--output", "missing/x.bin"],
      /^forge: cannot write missing\/x\.bin: its folder does not exist \(/,
    ],
  ])("%s names the path and the cause", (_what, args, message) => {
    fails(forge(small, args), 1, message);
  });

  it("chat export --output into a missing folder names the path and the cause", () => {
    ok(forge(small, ["--session", "talk", "chat", "new", "--system", "be brief"]));
    fails(
      forge(small, ["--session", "talk", "chat", "export", "--output", "missing/talk.json"]),
      1,
      /^forge: cannot write missing\/talk\.json: its folder does not exist \(/,
    );
  });

  it("checkpoint restore --output into a missing folder fails before it moves HEAD", () => {
    const dir = oneCheckpointStore("output-restore");
    try {
      writeFileSync(join(dir.path, "s2.json"), JSON.stringify({ step: 2 }));
      ok(forge(dir, ["checkpoint", "create", "second", "--state", "s2.json"]));
      fails(forge(dir, ["checkpoint", "restore", "#1", "--output", "missing/x.json"]), 1, /cannot write missing\/x\.json/);
      expect(json<{ checkpoint: { seq: number } }>(forge(dir, ["checkpoint", "show", "HEAD", "--json"])).checkpoint.seq).toBe(2);
    } finally {
      dir.remove();
    }
  });
});
