// What a watcher's file events named, and when, for the statuses and hooks of other
// processes (workspace/watch-hint.ts asks): they then lstat only the files named since the
// last snapshot's walk began. The log says nothing for a time it may have missed a change
// in: before its watches were set, or before the last time it went blind — a path reported
// unsure, a watch that failed or a folder without one, folders found by a rescan that had
// none, a flood of events that may have overflowed the kernel's queue (libuv drops the
// overflow event: only the flood can be seen), too many paths to keep.
import { chmodSync, mkdirSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { dirname } from "node:path";
import { HINT_VERSION, type HintAnswer, type HintRequest } from "../workspace/watch-hint.js";

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
 * Answers what `log` says on the socket at `path` (made 0600 in a 0700 folder), one request
 * a connection, when the watcher follows every folder the request names. The answer waits
 * one turn of the event loop, so that file events queued before the request are in the log.
 */
export function serveHints(path: string, log: ChangeLog, watched: Watched): Server {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  rmSync(path, { force: true }); // a socket left by a watcher that was killed (this one holds the folder's lock)
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
  server.listen(path, () => {
    try {
      chmodSync(path, 0o600);
    } catch {
      server.close();
    }
  });
  server.unref();
  return server;
}

/** Stops answering and removes the socket. */
export function stopServing(server: Server, path: string): void {
  server.close();
  rmSync(path, { force: true });
}
