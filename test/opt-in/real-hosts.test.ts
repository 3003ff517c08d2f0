// Opt-in, outside the default run (`npm run test:real-hosts`, FORGE_REAL_HOSTS=claude-code,… to pick hosts): drives the real host binaries
// (they need their own login or API key, which CI does not have): one non-interactive
// prompt that writes a file, through the hooks `forge enable` wrote, must leave a captured
// session with that prompt and that file change. The fake agent (agent-e2e.test.ts) covers
// the same path on every run; this is the check that the hosts still behave as documented.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FORGE_BIN, forge, json, ok } from "../support/cli.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { gitRepo } from "../hosts/git-support.js";

const installed = (bin: string) => spawnSync("sh", ["-c", `command -v ${bin}`]).status === 0;

/** Each host's non-interactive run of one prompt that is allowed to write files. */
const HOSTS = [
  { host: "claude-code", bin: "claude", args: (p: string) => ["-p", p, "--permission-mode", "acceptEdits"] },
  { host: "codex", bin: "codex", args: (p: string) => ["exec", "--full-auto", p] },
  { host: "gemini-cli", bin: "gemini", args: (p: string) => ["-p", p, "--approval-mode", "auto_edit"] },
] as const;

let dir: TempDir | undefined;
afterEach(() => dir?.remove());

// FORGE_REAL_HOSTS=claude-code,codex picks the hosts (default: all three).
const wanted = (process.env["FORGE_REAL_HOSTS"] ?? "").split(",").filter((h) => h !== "");
const chosen = HOSTS.filter((h) => wanted.length === 0 || wanted.includes(h.host));

describe.each(chosen)("the real $bin", ({ host, bin, args }) => {
  it("captures a prompt that writes a file", () => {
    expect(installed(bin), `${bin} is not on the PATH`).toBe(true);
    dir = makeTempDir(`real-${host}`);
    const project = join(dir.path, "project");
    mkdirSync(project);
    gitRepo(project);
    const shim = join(dir.path, "bin");
    mkdirSync(shim);
    writeFileSync(join(shim, "forge"), `#!/bin/sh\nexec "${process.execPath}" "${FORGE_BIN}" "$@"\n`);
    chmodSync(join(shim, "forge"), 0o755);
    const env = { ...process.env, PATH: `${shim}:${process.env["PATH"] ?? ""}` };
    ok(forge(project, ["enable", host], { env: { PATH: env.PATH } }));
    const r = spawnSync(bin, args("Create a file named hello.txt containing the word hi. Do nothing else."), {
      cwd: project,
      env,
      encoding: "utf8",
      timeout: 300_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const list = json<{ sessions: { host: string; prompts: number; filesChanged: number }[] }>(
      forge(project, ["agent", "list", "--json"], { env: { PATH: env.PATH } }),
    );
    expect(list.sessions).toEqual([expect.objectContaining({ host, prompts: 1 })]);
    expect(list.sessions[0]?.filesChanged).toBeGreaterThanOrEqual(1);
  });
});
