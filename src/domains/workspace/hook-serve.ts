// Handing a capture hook to a long-lived Forge process of the same workspace (`forge mcp`,
// `forge ui`): what the hook process asks over the workspace's hint socket (watch-hint.ts,
// watch/change-log.ts) and what it gets back. The server runs the hook as the hook process
// would have (operations/hooks/served.ts) only when nothing could make the two differ: the
// same build of Forge, the same environment, the same store and workspace; otherwise it
// refuses and the hook runs in its own process, as it does with no server.
import { realpathSync, statSync } from "node:fs";

/** What a hook process asks (the `hook` field of a request line on the hint socket). */
export interface ServedHookRequest {
  /** `bundleBuild` of the CLI bundle the hook process would have loaded. */
  readonly build: string;
  readonly kind: string;
  readonly host: string;
  readonly strict: boolean;
  /** What the host sent on stdin. */
  readonly stdin: string;
  /** The hook process's working folder. */
  readonly cwd: string;
  /** `servedEnv()` of the hook process. */
  readonly env: Readonly<Record<string, string>>;
}

/** The answer: what the hook printed and its exit code, or why the server did not run it. */
export type ServedHookAnswer =
  | { readonly v: number; readonly served: { readonly stdout: string; readonly stderr: string; readonly code: number; readonly pid: number } }
  | { readonly v: number; readonly refused: string };

/** Runs (or refuses) a hook request; never throws. */
export type HookHandler = (request: unknown) => Promise<ServedHookAnswer>;

/** A build of the CLI bundle at `path`: a server of another build (an upgrade since it started) does not take the hook. */
export function bundleBuild(path: string): string {
  const real = realpathSync(path);
  const st = statSync(real);
  return `${real}\0${st.size}\0${st.mtimeMs}\0${st.ino}`;
}

/** Variables that only say how one process runs (tracing, caches, preloads, this hand-over, strictness sent as a field). */
const PER_PROCESS = new Set(["FORGE_TRACE", "FORGE_NO_PRELOAD", "FORGE_NO_CODE_CACHE", "FORGE_NO_BUNDLE", "FORGE_HOOK_SERVE", "FORGE_HOOK_STRICT"]);

/** Variables a capture hook's work reads besides Forge's and git's own: where homes, configs and transcripts are, and the temporary folder. */
const READ = new Set([
  "HOME",
  "USERPROFILE",
  "PATH",
  "TMPDIR",
  "XDG_CONFIG_HOME",
  "CLAUDE_CONFIG_DIR",
  "CODEX_HOME",
  "GEMINI_CLI_HOME",
  "CURSOR_TRANSCRIPT_PATH",
]);

/** The environment a capture hook's work may depend on, sorted: the server's must be the same as the hook process's. */
export function servedEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (value === undefined || PER_PROCESS.has(name)) continue;
    if (name.startsWith("FORGE_") || name.startsWith("GIT_") || READ.has(name)) out[name] = value;
  }
  return out;
}
