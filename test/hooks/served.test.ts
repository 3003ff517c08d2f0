// A capture hook (`forge hook <kind> --host <id>`, what `forge enable` writes) handed to the
// workspace's running `forge mcp` (domains/workspace/hook-client.ts, operations/hooks/served.ts):
// the server runs it only where the hook's own process would have done the same, and what the
// host sees — stdout, stderr, the exit code — and what the store records are what the hook's
// own process gives. Everything else (another environment, no server) runs as before, with
// the stdin the hand-over read passed on to the CLI. Real processes: the server and the hooks.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { FORGE_BIN, forgeEnv, type Run } from "../support/cli.js";
import { requireBuiltLibrary } from "../support/processes.js";
import { forge, forgeJson, place, sleep, watch, type Place } from "../watch/support.js";
import { put } from "../workspace/support.js";
import { forge as runForge } from "../support/cli.js";

beforeAll(() => requireBuiltLibrary());

const SERVED = /forge trace: +[\d.]+ ms {2}hook: served by pid (\d+)/;

/** `forge mcp` (or `args`) in the place, its stdin held open (mcp serves until that ends), killed at the end of the test. */
async function mcp(
  p: Place,
  env: Record<string, string> = {},
  args: readonly string[] = ["mcp"],
): Promise<{ pid: number; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [FORGE_BIN, ...args], { cwd: p.root, env: forgeEnv({ TMPDIR: p.tmp, ...env }), stdio: ["pipe", "ignore", "pipe"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  onTestFinished(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  const dir = join(p.tmp, `forge-${process.getuid?.() ?? "user"}`, "watch");
  for (let i = 0; i < 100 && !(existsSync(dir) && readdirSync(dir).some((n) => n.endsWith(".sock"))); i++) await sleep(50);
  if (!readdirSync(dir).some((n) => n.endsWith(".sock"))) throw new Error(`forge ${args.join(" ")} made no hint socket in 5 s`);
  return {
    pid: child.pid as number,
    stop: () => {
      child.stdin.end();
      return exited;
    },
  };
}

/** `forge hook KIND --host HOST` in the place with `payload` on stdin, traced (FORGE_TRACE=1). */
function hook(p: Place, kind: string, host: string, payload: string, env: Record<string, string> = {}): Run & { servedBy: number | undefined } {
  const r = runForge(p.root, ["hook", kind, "--host", host], { env: { TMPDIR: p.tmp, FORGE_TRACE: "1", ...env }, input: payload, timeoutMs: 30_000 });
  const m = SERVED.exec(r.stderr);
  return { ...r, stderr: r.stderr.replace(/^forge trace:.*\n/gm, ""), servedBy: m ? Number(m[1]) : undefined };
}

/** A workspace with a snapshot kept (hooks work there) and an Edit payload naming a file just changed. */
function edited(p: Place, session: string, file: string, text: string): string {
  writeFileSync(join(p.root, file), text);
  return JSON.stringify({ session_id: session, cwd: p.root, hook_event_name: "PostToolUse", tool_name: "Edit", tool_input: { file_path: join(p.root, file) } });
}

interface Snap {
  readonly message: string;
}

function seeded(label: string): Place {
  const p = place(label);
  for (let i = 0; i < 30; i++) put(p.root, `d${i % 3}/f${i}.txt`, `file ${i}\n`);
  expect(forge(p, ["files", "snapshot", "base"]).code).toBe(0);
  return p;
}

describe("capture hooks handed to a running forge mcp", () => {
  it("are run by the server, saying and recording what the hook's own process does", async () => {
    const p = seeded("served-hooks");
    const server = await mcp(p);
    const served = hook(p, "tool", "claude-code", edited(p, "s1", "d0/f0.txt", "edited, served\n"));
    expect(served.servedBy).toBe(server.pid);
    const own = hook(p, "tool", "claude-code", edited(p, "s1", "d1/f1.txt", "edited, own process\n"), { FORGE_HOOK_SERVE: "0" });
    expect(own.servedBy).toBeUndefined();
    for (const r of [served, own]) expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: "", stderr: "" });
    // Each recorded its edit as a snapshot of the agent's session, and left nothing unrecorded.
    const log = forgeJson<{ snapshots: Snap[] } | Snap[]>(p, ["files", "log"]);
    const snaps = Array.isArray(log) ? log : log.snapshots;
    expect(snaps.slice(0, 2).map((s) => s.message)).toEqual(["claude-code: after Edit", "claude-code: after Edit"]);
    expect(forge(p, ["files", "status"]).stdout).toMatch(/no changes/);
    // A file made outside the agent goes into the next snapshot alike, whichever process takes it.
    put(p.root, "d2/outside.txt", "made by hand\n");
    expect(hook(p, "tool", "claude-code", edited(p, "s1", "d0/f3.txt", "again\n")).servedBy).toBe(server.pid);
    expect(forge(p, ["files", "status"]).stdout).toMatch(/no changes/);
    put(p.root, "d2/outside2.txt", "made by hand too\n");
    expect(hook(p, "tool", "claude-code", edited(p, "s1", "d1/f4.txt", "again\n"), { FORGE_HOOK_SERVE: "0" }).servedBy).toBeUndefined();
    expect(forge(p, ["files", "status"]).stdout).toMatch(/no changes/);
    expect(await server.stop()).toBe(0);
  });

  it("give the host the stdout and exit code it expects from either (JSON for Gemini CLI, 1 under --strict)", async () => {
    const p = seeded("served-hooks-output");
    const server = await mcp(p);
    const gemini = (env: Record<string, string> = {}) => hook(p, "tool", "gemini-cli", "not json", env);
    const [a, b] = [gemini(), gemini({ FORGE_HOOK_SERVE: "0" })];
    expect(a.servedBy).toBe(server.pid);
    expect(JSON.parse(a.stdout)).toEqual({});
    expect({ ...a, servedBy: 0 }).toEqual({ ...b, servedBy: 0 });
    const strict = (env: Record<string, string> = {}) => hook(p, "tool", "claude-code", "[1]", { FORGE_HOOK_STRICT: "1", ...env });
    const [c, d] = [strict(), strict({ FORGE_HOOK_SERVE: "0" })];
    expect(c.servedBy).toBe(server.pid);
    expect(c.code).toBe(1);
    expect(c.stderr).toMatch(/^forge hook tool: error: the hook input is not a JSON object/m);
    expect({ ...c, servedBy: 0 }).toEqual({ ...d, servedBy: 0 });
  });

  it("are run by their own process where the server's could differ, with the stdin already read", async () => {
    const p = seeded("served-hooks-refused");
    const server = await mcp(p);
    // Another session name in the hook's environment: refused, and the hook's own process reads the payload it was given.
    const r = hook(p, "tool", "claude-code", edited(p, "other-env", "d0/f0.txt", "edited\n"), { FORGE_SESSION: "elsewhere" });
    expect(r.servedBy).toBeUndefined();
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(forge(p, ["agent", "list"]).stdout).toMatch(/^other-env\s+claude-code/m);
    expect(forge(p, ["files", "status"]).stdout).toMatch(/no changes/);
    // A command line other than enable's (a flag more) is not offered at all.
    const verbose = runForge(p.root, ["hook", "tool", "--host", "claude-code", "-v"], {
      env: { TMPDIR: p.tmp, FORGE_TRACE: "1" },
      input: edited(p, "s2", "d1/f1.txt", "x\n"),
    });
    expect(verbose.stderr).not.toMatch(/hook: (served|not handed over)/);
    expect(verbose.stderr).toMatch(/forge hook tool: /);
    await server.stop();
    // With the server gone, a hook says why it ran itself and runs.
    const alone = hook(p, "tool", "claude-code", edited(p, "s3", "d2/f2.txt", "y\n"));
    expect(alone.servedBy).toBeUndefined();
    expect(alone.code).toBe(0);
    expect(forge(p, ["agent", "list"]).stdout).toMatch(/^s3\s+claude-code/m);
  });

  it("are run by a forge watch --files too, which takes them between its own snapshots", async () => {
    const p = seeded("served-hooks-watch");
    const w = watch(p, ["--files", "--every", "1h", "--quiet-period", "1h", "--rescan", "off"]);
    const started = await w.waitFor((l) => l.event === "started");
    const r = hook(p, "tool", "claude-code", edited(p, "w1", "d0/f0.txt", "edited with the watcher running\n"));
    expect(r.servedBy).toBe(started["pid"]);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(forge(p, ["files", "status"]).stdout).toMatch(/no changes/);
    expect(forge(p, ["agent", "list"]).stdout).toMatch(/^w1\s+claude-code/m);
  });

  it("are run by a forge ui too", async () => {
    const p = seeded("served-hooks-ui");
    const ui = await mcp(p, {}, ["ui", "--port", "0"]);
    const r = hook(p, "tool", "claude-code", edited(p, "u1", "d0/f0.txt", "edited with the page open\n"));
    expect(r.servedBy).toBe(ui.pid);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(forge(p, ["files", "status"]).stdout).toMatch(/no changes/);
  });
});
