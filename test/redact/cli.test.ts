// Redaction as a user meets it, through the `forge` command: a hook payload and a host
// transcript carrying a token, chat messages, secret files in a workspace, and `forge scan`.
// After each, neither the output, an export, nor the store's files (searched plain and inside
// deflate streams) hold the secret.
import { spawnSync } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forge, json, ok } from "../support/cli.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { leaksIn, leaksUnder } from "./leaks.js";

const pick = (alphabet: string, n: number) => [...randomBytes(n)].map((b) => alphabet[b % alphabet.length]).join("");
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const awsKey = () => `AKIA${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`;
const ghToken = () => `ghp_${pick(ALNUM, 36)}`;

let tmp: TempDir;
let project: string;
let elsewhere: string;
const env = () => ({ HOME: join(tmp.path, "home"), CLAUDE_CONFIG_DIR: "" });
const run = (args: readonly string[], input?: string) => forge(project, args, { env: env(), ...(input !== undefined && { input }) });

beforeEach(() => {
  tmp = makeTempDir("redact-cli");
  project = join(tmp.path, "project");
  elsewhere = join(tmp.path, "host");
  for (const d of [project, elsewhere, join(tmp.path, "home")]) mkdirSync(d, { recursive: true });
});
afterEach(() => tmp.remove());

/** Neither `checkpoint show`, an export bundle nor the store's files hold any of `secrets`. */
function expectNowhere(secrets: readonly string[], session?: string): void {
  const s = session === undefined ? [] : ["--session", session];
  expect(ok(run([...s, "checkpoint", "list", "--json"]))).not.toMatch(new RegExp(secrets.join("|")));
  expect(ok(run([...s, "checkpoint", "show", "HEAD", "--json"]))).not.toMatch(new RegExp(secrets.join("|")));
  const bundle = join(tmp.path, "all.bundle");
  ok(run([...s, "checkpoint", "export", "--output", bundle]));
  expect(leaksIn(readFileSync(bundle), secrets)).toEqual([]);
  expect(leaksUnder(join(project, ".forge"), secrets)).toEqual([]);
}

describe("hooks", () => {
  it("forge hook stop --strict with a Claude Code payload carrying an AWS key stores no trace of it", () => {
    const key = awsKey();
    ok(run(["init"]));
    ok(run(["note", "rotating the deploy credentials"]));
    const payload = {
      session_id: `host-${key}`,
      transcript_path: join(elsewhere, "t.jsonl"),
      cwd: project,
      hook_event_name: "Stop",
      stop_hook_active: false,
      tool_name: "Bash",
      tool_input: { command: `aws configure set aws_access_key_id ${key}` },
      tool_response: { stdout: `configured ${key}` },
    };
    const r = run(["hook", "stop", "--strict"], JSON.stringify(payload));
    expect(r.code).toBe(0);
    const show = json<{ checkpoint: { metadata: Record<string, unknown> } }>(run(["checkpoint", "show", "HEAD", "--json"]));
    expect(show.checkpoint.metadata["hostSession"]).toBe("host-[REDACTED:aws-access-token]");
    expectNowhere([key]);
  });

  it("forge hook prompt --host claude-code imports a transcript carrying a token with the token redacted", () => {
    const gh = ghToken();
    ok(run(["init"]));
    ok(run(["enable", "claude-code"]));
    const transcript = join(elsewhere, "transcript.jsonl");
    const line = (role: string, content: string) => `${JSON.stringify({ type: role, uuid: randomUUID(), message: { role, content } })}\n`;
    writeFileSync(transcript, line("user", "set up the repo") + line("assistant", `I exported GITHUB_TOKEN=${gh} and pushed.`));
    const payload = { session_id: "s1", transcript_path: transcript, cwd: project, hook_event_name: "UserPromptSubmit", prompt: `now use ${gh} again` };
    expect(run(["hook", "prompt", "--host", "claude-code"], JSON.stringify(payload)).code).toBe(0);
    const shown = ok(run(["agent", "show", "s1", "--json"]));
    expect(shown).toContain("[REDACTED:github-pat]");
    expect(shown).toContain("pushed");
    expectNowhere([gh], "agent/claude-code/s1");
  });

  it("a host session id holding a secret names its session and state file by a hash", () => {
    const key = awsKey();
    ok(run(["init"]));
    ok(run(["enable", "claude-code"]));
    const payload = { session_id: `id-${key}`, cwd: project, hook_event_name: "UserPromptSubmit", prompt: "hello" };
    expect(run(["hook", "prompt", "--host", "claude-code"], JSON.stringify(payload)).code).toBe(0);
    const sessions = json<{ sessions: { name: string }[] }>(run(["session", "list", "--json"])).sessions.map((s) => s.name);
    expect(sessions.some((n) => /^agent\/claude-code\/[0-9a-f]{32}$/.test(n))).toBe(true);
    expect(leaksUnder(join(project, ".forge"), [key])).toEqual([]);
  });
});

describe("chat", () => {
  it("append redacts; show, export and the store's files hold no secret; the rest of the message stays", () => {
    const gh = ghToken();
    const key = awsKey();
    ok(run(["init"]));
    ok(run(["chat", "new"]));
    ok(run(["chat", "append", "--role", "user", `canary: clone with ${gh}, upload with ${key}, migrate postgres://app:S3cr3tPassw0rd@db:5432/x`]));
    ok(run(["chat", "save", "deploy"]));
    const show = ok(run(["chat", "show"]));
    expect(show).toContain(
      "canary: clone with [REDACTED:github-pat], upload with [REDACTED:aws-access-token], migrate postgres://app:[REDACTED:url-password]@db",
    );
    const exported = ok(run(["chat", "export"]));
    expect(exported).toContain("canary");
    const secrets = [gh, key, "S3cr3tPassw0rd"];
    for (const text of [show, exported, ok(run(["chat", "show", "--json"]))]) for (const s of secrets) expect(text).not.toContain(s);
    expect(leaksUnder(join(project, ".forge"), secrets)).toEqual([]);
  });

  it("keeps hashes, UUIDs and the word password as they were written", () => {
    const sha1 = randomBytes(20).toString("hex");
    const sha256 = createHash("sha256").update(randomBytes(16)).digest("hex");
    const uuid = randomUUID();
    const msg = `Merged commit ${sha1} for job ${uuid}; the image digest is sha256:${sha256}. The password is never logged.`;
    ok(run(["init"]));
    ok(run(["chat", "new"]));
    ok(run(["chat", "append", "--role", "assistant", msg]));
    expect(ok(run(["chat", "export"]))).toContain(JSON.stringify(msg).slice(1, -1));
  });
});

describe("secret files in snapshots", () => {
  const files = {
    ".env": "API_TOKEN=abc\n",
    ".env.production": "X=1\n",
    ".env.example": "API_TOKEN=\n",
    "deploy/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n",
    "certs/server.pem": "-----BEGIN CERTIFICATE-----\nabc\n-----END CERTIFICATE-----\n",
    "certs/server.key": "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n",
    ".npmrc": "registry=https://registry.npmjs.org/\n",
    "home/.npmrc": "//registry.npmjs.org/:_authToken=npm_abc\n",
    "home/.aws/credentials": "[default]\naws_access_key_id=x\n",
    ".netrc": "machine x login y password z\n",
    "src/app.ts": "export const x = 1;\n",
  };
  const secret = [".env", ".env.production", ".netrc", "certs/server.key", "deploy/id_rsa", "home/.aws/credentials", "home/.npmrc"];
  const write = () => {
    for (const [p, text] of Object.entries(files)) {
      mkdirSync(join(project, p, ".."), { recursive: true });
      writeFileSync(join(project, p), text);
    }
  };
  it("are left out by default, and status and snapshot say which", () => {
    ok(run(["init"]));
    write();
    const status = json<{ secretFiles: string[] }>(run(["files", "status", "--json"]));
    expect([...status.secretFiles].sort()).toEqual(secret);
    expect(ok(run(["files", "status"]))).toMatch(/secret file, left out of snapshots: \.env /);
    const snap = json<{ secretFiles: string[]; files: number }>(run(["files", "snapshot", "--json"]));
    expect([...snap.secretFiles].sort()).toEqual(secret);
    expect(snap.files).toBe(Object.keys(files).length - secret.length);
    expect(leaksUnder(join(project, ".forge"), ["API_TOKEN=abc", "_authToken=npm_abc"])).toEqual([]);
  });

  it("are kept when git tracks them", () => {
    ok(run(["init"]));
    write();
    const git = (...args: string[]) => spawnSync("git", args, { cwd: project, encoding: "utf8", env: { ...process.env, ...env() } });
    git("init", "-q");
    git("add", "-f", ".env");
    const snap = json<{ secretFiles: string[] }>(run(["files", "snapshot", "--json"]));
    expect(snap.secretFiles).not.toContain(".env");
    expect(snap.secretFiles).toContain(".env.production");
  });

  it("are kept when workspace.secretFiles opts them in", () => {
    ok(run(["init"]));
    write();
    writeFileSync(join(project, ".forge", "config.json"), JSON.stringify({ workspace: { secretFiles: [".env*"] } }));
    const snap = json<{ secretFiles: string[] }>(run(["files", "snapshot", "--json"]));
    expect([...snap.secretFiles].sort()).toEqual(secret.filter((p) => !p.startsWith(".env")));
  });
});

describe("forge scan", () => {
  it("says a clean store is clean and exits 0", () => {
    ok(run(["init"]));
    ok(run(["note", "the retry budget is three attempts"]));
    ok(run(["checkpoint", "create", "clean"]));
    const r = run(["scan"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^clean: no secret found/m);
    expect(json<{ clean: boolean; findings: unknown[] }>(run(["scan", "--json"]))).toMatchObject({ clean: true, findings: [] });
  });

  it("reports secrets already in history — where, never what — and exits 1", () => {
    const gh = ghToken();
    ok(run(["init"]));
    // A store that did not redact then (redaction turned off), redacting again now.
    const cfgPath = join(project, ".forge", "config.json");
    writeFileSync(cfgPath, JSON.stringify({ redact: { enabled: false } }));
    ok(run(["note", `pushed with ${gh}`]));
    ok(run(["checkpoint", "create", "leaky"]));
    writeFileSync(cfgPath, "{}");
    const r = run(["scan", "--json"]);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain(gh);
    const v = JSON.parse(r.stdout) as {
      clean: boolean;
      findings: { session: string; where: string; path: string; rule: string; checkpoints: { seq: number }[] }[];
    };
    expect(v.clean).toBe(false);
    expect(v.findings).toContainEqual(
      expect.objectContaining({ session: "default", where: "state", rule: "github-pat", checkpoints: [expect.objectContaining({ seq: 1 })] }),
    );
    const text = run(["scan"]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/github-pat {2}default: state notes\.0\.text in 1 checkpoint \(#1\)/);
    expect(text.stdout).not.toContain(gh);
  });
});

describe("forge redact", () => {
  it("asks for --yes, says what it would do with --dry-run, then rewrites the secret out: scan clean, fsck clean, export clean", () => {
    const gh = ghToken();
    ok(run(["init"]));
    const cfgPath = join(project, ".forge", "config.json");
    writeFileSync(cfgPath, JSON.stringify({ redact: { enabled: false } }));
    for (const note of ["first step", `pushed with ${gh}`, "third step"]) {
      ok(run(["note", note]));
      ok(run(["checkpoint", "create", note.slice(0, 5)]));
    }
    writeFileSync(cfgPath, "{}");
    expect(run(["scan"]).code).toBe(1);
    const refused = run(["redact"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^forge: forge redact rewrites history \(see what it would change with --dry-run, then run it with --yes\)/);
    expect(ok(run(["redact", "--dry-run"]))).toMatch(/^would redact 2 states in 2 checkpoints, 1 working state/);
    expect(run(["scan"]).code).toBe(1);
    expect(ok(run(["redact", "--yes"]))).toMatch(/^redacted 2 states in 2 checkpoints/);
    expect(run(["scan"]).code).toBe(0);
    expect(json<{ ok: boolean }>(run(["fsck", "--json"])).ok).toBe(true);
    expect(ok(run(["checkpoint", "show", "#3", "--json"]))).toContain("pushed with [REDACTED:github-pat]");
    const bundle = join(tmp.path, "after.bundle");
    ok(run(["checkpoint", "export", "--output", bundle]));
    expect(leaksIn(readFileSync(bundle), [gh])).toEqual([]);
  });
});
