// The code a session is about: the git commit, the uncommitted changes as a patch, the
// untracked files, and chosen environment variables — never secrets unless asked.
import { spawnSync } from "node:child_process";
import { InvalidArgumentError } from "../../core/errors.js";
import { setOwn } from "../../core/own.js";
import type { CodeState } from "./model.js";

/** Names that look like they hold secrets; refused unless `allowSecrets`. */
const SECRET = /(KEY|TOKEN|SECRET|PASS(WORD|WD)?|CREDENTIAL|AUTH|PRIVATE|COOKIE|SESSION|SIGNATURE)/i;
export const MAX_PATCH_BYTES = 1024 * 1024;

export interface CaptureOptions {
  readonly cwd: string;
  /** Environment values to record, already read (core/config.readEnv). */
  readonly env?: Record<string, string>;
  readonly allowSecrets?: boolean;
  readonly now: string;
}

export function isSecretName(name: string): boolean {
  return SECRET.test(name);
}

function git(cwd: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync("git", args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return { ok: r.status === 0 && !r.error, out: r.stdout ?? "" };
}

export function captureCodeState(options: CaptureOptions): CodeState {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (isSecretName(name) && !options.allowSecrets) {
      throw new InvalidArgumentError(`refusing to record ${name}: it looks like a secret`, "leave it out, or pass --allow-secrets if it truly is not one");
    }
    setOwn(env, name, value); // a variable may be named "__proto__": it stays an entry
  }
  const top = git(options.cwd, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) {
    return { capturedAt: options.now, root: null, commit: null, branch: null, patch: "", patchBytes: 0, patchTruncated: false, untracked: [], env };
  }
  const root = top.out.trim();
  const head = git(root, ["rev-parse", "HEAD"]);
  const branch = git(root, ["symbolic-ref", "--short", "-q", "HEAD"]);
  // Against HEAD when there is one; in a repository without commits, the staged changes.
  const diff = head.ok ? git(root, ["diff", "HEAD", "--no-color", "--no-ext-diff"]) : git(root, ["diff", "--cached", "--no-color"]);
  const patchBytes = Buffer.byteLength(diff.out);
  const truncated = patchBytes > MAX_PATCH_BYTES;
  const untracked = git(root, ["ls-files", "--others", "--exclude-standard", "-z"])
    .out.split("\0")
    .filter((p) => p !== "");
  return {
    capturedAt: options.now,
    root,
    commit: head.ok ? head.out.trim() : null,
    branch: branch.ok ? branch.out.trim() || null : null,
    patch: truncated ? Buffer.from(diff.out).subarray(0, MAX_PATCH_BYTES).toString("utf8") : diff.out,
    patchBytes,
    patchTruncated: truncated,
    untracked: untracked.slice(0, 1000),
    env,
  };
}

/** Whether two captures describe different code (commit, patch or untracked files). */
export function codeChanged(a: CodeState | null, b: CodeState): boolean {
  if (a === null) return false; // the first capture is a baseline, not a modification
  return a.commit !== b.commit || a.patch !== b.patch || a.untracked.join("\0") !== b.untracked.join("\0");
}
