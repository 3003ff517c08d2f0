// Asking a running `forge watch` what changed (its side: domains/watch/change-log.ts). A
// watcher's inotify watches already name every file changed in the workspace; a status or a
// hook in a fresh process then lstat's only the files named since the last snapshot's walk
// began, instead of every file (10,000 files: ~20 ms of lstat; 100,000: ~200 ms), as git
// asks its fsmonitor daemon. With no watcher, or one that cannot say (it started after that
// walk, a watch failed, a flood of events may have overflowed the kernel's queue, other
// ignore settings), the comparison lstat's every file as before.
//
// The socket is the user's own: in the watch folder of the system's temporary directory
// (`forge-<uid>/watch`, made 0700), named by the workspace folder's real path. Answers are
// trusted only from a socket and a folder this user owns that nobody else may write: an
// answer that left a change out would make a snapshot miss it.
import { createHash } from "node:crypto";
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

/** The protocol's version: a watcher of another one is not asked. */
export const HINT_VERSION = 1;
/** How long a status waits for the watcher's answer before it lstat's everything itself. */
const ANSWER_MS = 150;

/** The folder of the user's watch locks and sockets. */
export function watchDir(): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : "user";
  return join(tmpdir(), `forge-${uid}`, "watch");
}

/** The key of a workspace folder in the watch folder: its real path, hashed. */
export function rootKey(root: string): string {
  return createHash("sha256").update(realpathSync(root)).digest("hex").slice(0, 32);
}

/** Where the watcher of the workspace at `root` answers. */
export function hintSocketPath(root: string): string {
  return join(watchDir(), `files-${rootKey(root)}.sock`);
}

/**
 * What a status asks: every path named since `since` (ms), by a watcher that applies `ignore`
 * and watches every folder in `dirs` (the snapshot's: a folder git's index made the walk
 * enter since the watcher last listed the folders would be one it does not follow).
 */
export interface HintRequest {
  readonly v: number;
  readonly since: number;
  readonly ignore: readonly string[];
  readonly dirs: readonly string[];
}

/** The answer: the paths (relative, "/"-separated), or why the watcher cannot say. */
export type HintAnswer = { readonly v: number; readonly paths: readonly string[] } | { readonly v: number; readonly unknown: string };

/**
 * The socket answering at `path`, if it is this user's, in a folder of this user's that
 * nobody else may write: `path` is a link (the user's own) to a socket of the answering
 * process beside it (`<name>.<pid>`, domains/watch/change-log.ts `serveHints`).
 */
export function ownSocket(path: string, dir: string): string | undefined {
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  if (uid === undefined) return undefined;
  try {
    const link = lstatSync(path, { throwIfNoEntry: false });
    if (link?.isSymbolicLink() !== true || link.uid !== uid) return undefined;
    const target = readlinkSync(path);
    if (!target.startsWith(`${basename(path)}.`) || !/^\d+$/.test(target.slice(basename(path).length + 1))) return undefined;
    const socket = join(dir, target);
    const s = lstatSync(socket);
    const d = lstatSync(dir);
    return s.isSocket() && s.uid === uid && d.isDirectory() && d.uid === uid && (d.mode & 0o022) === 0 ? socket : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The paths a running watcher of `root` saw change since `since` (ms), if one runs there and
 * can say for every folder in `dirs`; undefined otherwise (no watcher, another user's socket,
 * no answer in time, an answer it cannot give).
 */
export async function askWatcher(root: string, since: number, ignore: readonly string[], dirs: readonly string[]): Promise<readonly string[] | undefined> {
  let path: string;
  try {
    path = hintSocketPath(root);
  } catch {
    return undefined;
  }
  const socketPath = ownSocket(path, watchDir());
  if (socketPath === undefined) return undefined;
  const line = await askSocket(socketPath, `${JSON.stringify({ v: HINT_VERSION, since, ignore, dirs } satisfies HintRequest)}\n`, ANSWER_MS);
  return line === undefined ? undefined : parseAnswer(line);
}

/**
 * Sends `request` (a line) to the socket at `path` and gives the first line answered, or
 * undefined: no connection, the connection ended first, or nothing within `timeoutMs`.
 */
export async function askSocket(path: string, request: string, timeoutMs: number): Promise<string | undefined> {
  const { createConnection } = await import("node:net");
  return new Promise((resolve) => {
    let text = "";
    let done = false;
    const finish = (line: string | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(line);
    };
    const socket = createConnection(path);
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    socket.setEncoding("utf8");
    socket.on("error", () => finish(undefined));
    socket.on("data", (chunk: string) => {
      text += chunk;
      const nl = text.indexOf("\n");
      if (nl >= 0) finish(text.slice(0, nl));
    });
    socket.on("end", () => finish(undefined));
    socket.write(request);
  });
}

function parseAnswer(line: string): readonly string[] | undefined {
  try {
    const a = JSON.parse(line) as Partial<{ v: unknown; paths: unknown }>;
    if (a.v !== HINT_VERSION || !Array.isArray(a.paths) || !a.paths.every((p) => typeof p === "string")) return undefined;
    return a.paths as string[];
  } catch {
    return undefined;
  }
}
