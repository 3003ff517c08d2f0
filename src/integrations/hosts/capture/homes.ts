// Where each host keeps its sessions on this machine: its config folder (with the host's own
// override variable honoured), read through core/config's readEnv.
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { readEnv } from "../../../core/config.js";

/** The user's home folder: HOME (USERPROFILE on Windows) when set, else the system's answer. */
export function homeFolder(): string {
  const env = readEnv(["HOME", "USERPROFILE"]);
  return env["HOME"] || env["USERPROFILE"] || homedir();
}

/** Claude Code's config folder: CLAUDE_CONFIG_DIR when set and not empty, else ~/.claude. */
export function claudeConfigDir(): string {
  const dir = readEnv(["CLAUDE_CONFIG_DIR"])["CLAUDE_CONFIG_DIR"]?.trim();
  return dir ? dir : join(homeFolder(), ".claude");
}

/** Codex's home: CODEX_HOME when set and not empty, else ~/.codex. */
export function codexHome(): string {
  const dir = readEnv(["CODEX_HOME"])["CODEX_HOME"]?.trim();
  return dir ? dir : join(homeFolder(), ".codex");
}

/** Gemini CLI's global folder: GEMINI_CLI_HOME/.gemini when that is set (it replaces the home folder), else ~/.gemini. */
export function geminiDir(): string {
  const home = readEnv(["GEMINI_CLI_HOME"])["GEMINI_CLI_HOME"]?.trim();
  return join(home ? home : homeFolder(), ".gemini");
}

/** Longest project folder name Claude Code writes before it shortens the name and adds a hash. */
const CLAUDE_MAX_NAME = 200;

/**
 * The folder under `<claude config>/projects` where Claude Code keeps the sessions of `cwd`:
 * the canonical path (realpath, NFC) with every character but ASCII letters and digits
 * replaced by "-". A name over 200 characters is cut and given a hash suffix the CLI computes
 * with Bun.hash, which Node cannot reproduce, so an existing folder with that prefix is used
 * when there is one, else the SDK's djb2 form.
 */
export function claudeProjectDir(cwd: string): string {
  const projects = join(claudeConfigDir(), "projects");
  const canonical = canonicalPath(cwd);
  const name = canonical.replace(/[^a-zA-Z0-9]/g, "-");
  if (name.length <= CLAUDE_MAX_NAME) return join(projects, name);
  const prefix = `${name.slice(0, CLAUDE_MAX_NAME)}-`;
  if (existsSync(projects)) {
    const match = readdirSync(projects).find((entry) => entry.startsWith(prefix));
    if (match !== undefined) return join(projects, match);
  }
  return join(projects, `${prefix}${Math.abs(djb2(canonical)).toString(36)}`);
}

function canonicalPath(dir: string): string {
  const abs = resolve(dir);
  try {
    return realpathSync(abs).normalize("NFC");
  } catch {
    return abs.normalize("NFC"); // a folder that does not exist (yet): its path as given, as Claude Code does
  }
}

function djb2(s: string): number {
  let hash = 0;
  for (let i = 0; i < s.length; i++) hash = ((hash << 5) - hash + s.charCodeAt(i)) | 0;
  return hash;
}
