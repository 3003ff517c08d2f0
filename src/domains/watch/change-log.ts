// What a watcher's file events named, and when, for the statuses and hooks of other
// processes (workspace/watch-hint.ts asks): they then lstat only the files named since the
// last snapshot's walk began. The log says nothing for a time it may have missed a change
// in: before its watches were set, or before the last time it went blind — a path reported
// unsure, a watch that failed or a folder without one, folders found by a rescan that had
// none, a flood of events that may have overflowed the kernel's queue (libuv drops the
// overflow event: only the flood can be seen), too many paths to keep.
import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, readlinkSync, readSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { basename, dirname, join } from "node:path";
import { findForgeRoot, readConfigFile } from "../../core/config.js";
import { type WorkspaceLocation, workspaceRoot } from "../workspace/location.js";
import type { HookHandler } from "../workspace/hook-serve.js";
import { HINT_VERSION, hintSocketPath, type HintAnswer, type HintRequest } from "../workspace/watch-hint.js";
import { inotifyQueueLimit, TreeWatcher } from "./tree-watcher.js";

/** More paths than this kept: the log forgets them and goes blind (the statuses lstat everything). */
const MAX_PATHS = 20000;
/** A request longer than this is no status's (its folders' paths: ~2 MB for 100,000 folders). */
const MAX_REQUEST = 16 * 1024 * 1024;

export class ChangeLog {
  /** Path → when an event last named it (ms). */
  readonly #times = new Map<string, number>();
  /** Until when (ms) the log cannot say what changed: asked about any time before, it does not answer. */
  #blindUntil: number;

  constructor(now = Date.now()) {
    this.#blindUntil = now;
  }

  /** An event named `path` (relative, "/"-separated; "" for the root). */
  record(path: string, now = Date.now()): void {
    if (this.#times.size >= MAX_PATHS && !this.#times.has(path)) this.blind(now);
    this.#times.set(path, now);
  }

  /** Changes up to `now` may have gone unseen. */
  blind(now = Date.now()): void {
    this.#times.clear();
    this.#blindUntil = now;
  }

  /** Every path named at `since` (ms) or after, or undefined when the log cannot say. */
  since(since: number): string[] | undefined {
    if (!(since > this.#blindUntil)) return undefined;
    const out: string[] = [];
    for (const [path, t] of this.#times) if (t >= since) out.push(path);
    return out;
  }
}

/** What the watcher tells the server of itself. */
export interface Watched {
  /** The ignore settings it applies: a status with others is not answered (it may not follow folders that walk takes). */
  readonly ignore: readonly string[];
  /** Whether it follows the folder (relative, "" for the root). */
  watches(dir: string): boolean;
  /** Run before each answer: the watcher sends the log blind if its watches failed meanwhile. */
  check(): void;
}

/**
 * Answers what `log` says at `path` (workspace/watch-hint.ts `hintSocketPath`), one request
 * a connection, when the watcher follows every folder the request names. The answer waits
 * one turn of the event loop, so that file events queued before the request are in the log.
 *
 * The socket itself is this process's own (`<path>.<pid>`, 0600, in the 0700 folder) and
 * `path` a symlink to it, renamed into place at once: a process that starts answering later
 * for the same folder (a `forge watch` after a `forge mcp`) takes the name over, and when
 * this one stops, closing its server removes only its own socket (Node removes a socket's
 * file when its server closes, whoever the name is given to by then).
 */
export function serveHints(path: string, log: ChangeLog, watched: Watched, hooks?: HookHandler): Server {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  removeDeadSockets(path);
  const own = ownSocketPath(path, process.pid);
  rmSync(own, { force: true });
  const mine = JSON.stringify(watched.ignore);
  const server = createServer((socket: Socket) => {
    let text = "";
    socket.setEncoding("utf8");
    socket.on("error", () => socket.destroy());
    socket.on("data", (chunk: string) => {
      text += chunk;
      const nl = text.indexOf("\n");
      if (nl < 0) {
        if (text.length > MAX_REQUEST) socket.destroy();
        return;
      }
      const line = text.slice(0, nl);
      const hook = hookOf(line);
      if (hook !== undefined) {
        // A hook process handing its hook over (workspace/hook-serve.ts): run, or refused when nothing here runs hooks.
        const answered = hooks ? hooks(hook.request) : Promise.resolve({ v: HINT_VERSION, refused: "no hooks run here" });
        void answered.then((a) => socket.end(`${JSON.stringify(a)}\n`));
        return;
      }
      setImmediate(() => socket.end(`${JSON.stringify(answer(line))}\n`));
    });
  });
  const answer = (line: string): HintAnswer => {
    let req: Partial<HintRequest>;
    try {
      req = JSON.parse(line) as Partial<HintRequest>;
    } catch {
      return { v: HINT_VERSION, unknown: "not a request" };
    }
    if (req.v !== HINT_VERSION || typeof req.since !== "number") return { v: HINT_VERSION, unknown: "another version" };
    if (JSON.stringify(req.ignore) !== mine) return { v: HINT_VERSION, unknown: "other ignore settings" };
    if (!Array.isArray(req.dirs) || !req.dirs.every((d) => typeof d === "string" && watched.watches(d)))
      return { v: HINT_VERSION, unknown: "a folder not watched" };
    watched.check();
    const paths = log.since(req.since);
    return paths === undefined ? { v: HINT_VERSION, unknown: "not watching since then" } : { v: HINT_VERSION, paths };
  };
  server.on("error", () => server.close());
  server.listen(own, () => {
    try {
      chmodSync(own, 0o600);
      const link = `${own}.lnk`;
      rmSync(link, { force: true });
      symlinkSync(basename(own), link);
      renameSync(link, path);
    } catch {
      server.close();
    }
  });
  server.unref();
  return server;
}

/** The hook a request line hands over (`{"v":1,"hook":{…}}`), if it is one. */
function hookOf(line: string): { request: unknown } | undefined {
  if (!line.includes('"hook"')) return undefined;
  try {
    const req = JSON.parse(line) as { v?: unknown; hook?: unknown };
    return req.v === HINT_VERSION && req.hook !== undefined ? { request: req.hook } : undefined;
  } catch {
    return undefined;
  }
}

/** The socket a process answers on for the name `path`. */
const ownSocketPath = (path: string, pid: number) => `${path}.${pid}`;

/** Stops answering: the server's own socket goes with it, and the name too while it still leads there. */
export function stopServing(server: Server, path: string): void {
  server.close();
  try {
    if (readlinkSync(path) === basename(ownSocketPath(path, process.pid))) rmSync(path, { force: true });
  } catch {
    // Gone, or not a link of ours: another process answers there now.
  }
}

/** The sockets left by processes that were killed while answering for the name `path` (their pid gone). */
function removeDeadSockets(path: string): void {
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(name.slice(prefix.length));
    if (!name.startsWith(prefix) || !Number.isInteger(pid) || pid <= 0 || alive(pid)) continue;
    rmSync(join(dirname(path), name), { force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * A tree watcher's events kept in a `ChangeLog` and served (`serveHints`) for the statuses
 * and hooks of other processes: made once the watcher's first `sync` set its watches. The log
 * goes blind whenever changes may have gone unseen: an event reported unsure, a watch that
 * failed or a folder without one, folders a rescan had to add (`blind`), or so many events
 * within a second and the one before that the kernel's queue may have overflowed.
 */
export class WatchHints {
  readonly #tree: TreeWatcher;
  readonly #log = new ChangeLog();
  readonly #server: Server | undefined;
  readonly #path: string;
  /** Events in one window from which an inotify queue overflow (which Node cannot see) is possible. */
  readonly #eventLimit = Math.floor(inotifyQueueLimit() / 2);
  /** The tree watcher's failures and events when the log last looked, and the events of the second before. */
  #seen = { failures: 0, events: 0, before: 0, at: 0 };

  constructor(tree: TreeWatcher, root: string, ignore: readonly string[], hooks?: HookHandler) {
    this.#tree = tree;
    this.#path = hintSocketPath(root);
    this.#seen.failures = tree.failures;
    let server: Server | undefined;
    try {
      server = serveHints(this.#path, this.#log, { ignore, watches: (dir) => tree.watches(dir), check: () => this.#check() }, hooks);
    } catch {
      server = undefined; // statuses then lstat every file, as with no watcher
    }
    this.#server = server;
  }

  /** A file event of the tree watcher (its `onChange`). */
  event(path: string, sure: boolean): void {
    if (sure) this.#log.record(path);
    else this.#log.blind();
    this.#check();
  }

  /** Changes up to now may have gone unseen (a rescan added folders that had no watch). */
  blind(): void {
    this.#log.blind();
  }

  close(): void {
    if (this.#server) stopServing(this.#server, this.#path);
  }

  #check(): void {
    const tree = this.#tree;
    const seen = this.#seen;
    const now = Date.now();
    if (now - seen.at >= 1000) this.#seen = { ...seen, events: tree.events, before: tree.events - seen.events, at: now };
    if (tree.failures !== seen.failures || !tree.complete || tree.events - this.#seen.events + this.#seen.before >= this.#eventLimit) {
      this.#seen.failures = tree.failures;
      this.#log.blind(now);
    }
  }
}

/** A tree kept with more folders than this is not watched for hints by a process that takes no snapshot (one inotify watch each). */
const MAX_HINT_FOLDERS = 20000;

/**
 * Serves hints from a long-lived process that takes no snapshot itself (`forge mcp`): a tree
 * watcher of the workspace at `location` whose watches do not keep the process alive, when
 * the workspace keeps a tree with its walk's stats (snapshots are taken there: a hook, a
 * status), of at most 20,000 folders, and no other process answers for that folder yet (a
 * `forge watch` that starts later takes the socket over). With `hooks`, it runs the capture
 * hooks the workspace's hook processes hand it (workspace/hook-serve.ts) too. Undefined when
 * it does not start; `close` it when the process's work ends.
 */
export async function serveWorkspaceHints(location: WorkspaceLocation = {}, hooks?: HookHandler): Promise<{ close(): void } | undefined> {
  const root = workspaceRoot(location);
  const forgeRoot = findForgeRoot(root);
  const folders = forgeRoot === undefined ? undefined : keptFolders(join(root, ".forge", "tree-cache.bin"));
  if (forgeRoot === undefined || folders === undefined || folders > MAX_HINT_FOLDERS) return undefined;
  if (await answering(hintSocketPath(root))) return undefined;
  const ignore = readConfigFile(forgeRoot).workspace?.ignore ?? [];
  let hints: WatchHints | undefined;
  const tree = new TreeWatcher({ root, ignore, persistent: false, onChange: (path, sure) => hints?.event(path, sure), onError: () => {} });
  tree.sync();
  hints = new WatchHints(tree, root, ignore, hooks);
  const made = hints;
  return {
    close: () => {
      tree.close();
      made.close();
    },
  };
}

/** How many folders the tree cache at `path` holds, if it keeps its walk's stats ("FTC2", tree-cache.ts). */
function keptFolders(path: string): number | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const head = Buffer.alloc(8);
    if (readSync(fd, head, 0, 8, 0) !== 8 || head.toString("latin1", 0, 4) !== "FTC2") return undefined;
    return head.readUInt32LE(4);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Whether a process answers on the socket at `path`. */
function answering(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
