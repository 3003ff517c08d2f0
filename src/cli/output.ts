// How the CLI speaks: JSON for scripts (--json), short aligned lines for people, colour
// only on a terminal and never under NO_COLOR; and a reader that stops reading
// (`forge … | head -1`) ends the command quietly, as it does git's.
//
// Node makes its stdout stream on first use of process.stdout (~2.5 ms: the net and stream
// modules behind it). A command whose standard output is a pipe or a file — a hook, a script,
// an agent's shell — writes it with fs.writeSync and never makes the stream, unless the
// pipe cannot take the text at once (EAGAIN): from then on, the stream.
import { fstatSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { jsonText } from "../core/json-text.js";
import { envFlag } from "../core/config.js";
import { formatDuration } from "../core/time.js";
import type { Checkpoint, CheckpointJson } from "../timeline/types.js";

type Paint = (text: string | number) => string;
type Palette = Readonly<Record<"bold" | "dim" | "red" | "green" | "yellow" | "cyan" | "magenta", Paint>>;

/** Linux's memory devices (/dev/null, /dev/zero, /dev/full): character devices of major number 1, never a terminal. */
const MEMORY_DEVICES = 1;

/**
 * Whether standard input (0), output (1) or error (2) is a terminal, asked of Node's stream
 * only where it may be: a character device, but on Linux not /dev/null (asking makes the
 * stream, ~2.5 ms, for output thrown away: `forge … >/dev/null`).
 */
export function isTerminal(fd: 0 | 1 | 2): boolean {
  try {
    const st = fstatSync(fd);
    if (!st.isCharacterDevice()) return false;
    if (process.platform === "linux" && ((st.rdev >> 8) & 0xfff) === MEMORY_DEVICES) return false;
  } catch {
    return false;
  }
  return (fd === 0 ? process.stdin : fd === 1 ? process.stdout : process.stderr).isTTY === true;
}

const plain: Paint = (text) => String(text);
/** The colours: picocolors' on a terminal (it looks at process.stdout as it loads), the text as it is elsewhere. */
export const c: Palette =
  !envFlag("NO_COLOR") && isTerminal(1)
    ? (createRequire(import.meta.url)("picocolors") as { createColors(enabled: boolean): Palette }).createColors(true)
    : { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain, magenta: plain };

/** Set once standard output's reader has gone: nothing more is written to it. */
let stdoutClosed = false;
/** What long-running commands do when the reader goes (stop as on a signal); none: exit now. */
const onClose = new Set<() => void>();

/**
 * Installs, once, what a closed standard output means: EPIPE (ECONNRESET on a socket) ends the command quietly (exit
 * status as set so far, else 0; no message, no stack), since the reader has what it wanted.
 * A command that registered with {@link whenStdoutCloses} is told instead, to stop cleanly.
 * Any other error writing standard output is reported in one line, exit 1.
 */
export function guardStdout(): void {
  if (guarded) return;
  guarded = true;
  // Installed on the stream when something first asks for it, so that asking is left to whoever needs it.
  const own = Object.getOwnPropertyDescriptor(process, "stdout");
  const get = own?.get;
  if (own === undefined || get === undefined || !own.configurable) {
    process.stdout.on("error", onStdoutError);
    return;
  }
  Object.defineProperty(process, "stdout", {
    configurable: true,
    enumerable: own.enumerable ?? true,
    get() {
      const stream = get.call(process) as NodeJS.WriteStream;
      Object.defineProperty(process, "stdout", own);
      if (!stream.listeners("error").includes(onStdoutError)) stream.on("error", onStdoutError);
      return stream;
    },
  });
}

let guarded = false;
/** Written with fs.writeSync until the pipe once could not take it all (EAGAIN): the stream from then on, in order. */
let direct = true;

function onStdoutError(e: NodeJS.ErrnoException): void {
  if (stdoutClosed) return; // later writes to the closed stream fail too: already handled
  stdoutClosed = true;
  // A pipe's reader gone: EPIPE; a socket's (Node's own child-process pipes are socket pairs): ECONNRESET when it left data unread.
  if (e.code !== "EPIPE" && e.code !== "ECONNRESET") {
    process.stderr.write(`forge: cannot write to standard output: ${e.message}\n`);
    process.exit(1);
  }
  if (onClose.size === 0) process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
  for (const stop of onClose) stop();
}

/** For a command that runs until stopped: `stop` is called if standard output's reader goes. Returns the undo. */
export function whenStdoutCloses(stop: () => void): () => void {
  onClose.add(stop);
  return () => onClose.delete(stop);
}

/** Writes to standard output unless its reader has gone. */
export function writeOut(text: string | Uint8Array): void {
  if (stdoutClosed) return;
  if (direct) {
    let rest: Uint8Array = typeof text === "string" ? Buffer.from(text, "utf8") : text;
    try {
      while (rest.length > 0) rest = rest.subarray(writeSync(1, rest));
      return;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "EAGAIN") {
        onStdoutError(e as NodeJS.ErrnoException);
        return;
      }
      direct = false;
      text = rest;
    }
  }
  process.stdout.write(text);
}

export function printJson(value: unknown): void {
  writeOut(jsonText(value, 2) + "\n");
}

export function println(line = ""): void {
  writeOut(line + "\n");
}

/** "3m ago", "in 2h 5m" — relative to now. */
export function ago(d: Date | string, now = Date.now()): string {
  const ms = now - (typeof d === "string" ? Date.parse(d) : d.getTime());
  if (Math.abs(ms) < 1000) return "just now";
  return ms >= 0 ? `${formatDuration(ms)} ago` : `in ${formatDuration(-ms)}`;
}

export function localTime(t: Date | string): string {
  const d = typeof t === "string" ? new Date(t) : t;
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

/** Ids are long; 10 characters are unique in practice and accepted as a prefix. */
export function shortId(id: string): string {
  return id.slice(0, 10);
}

/** One line about a checkpoint: `#3  01JD8X2K4M  main  2m ago  message  [tags]`. */
export function checkpointLine(cp: Checkpoint | CheckpointJson, opts: { head?: boolean; now?: number } = {}): string {
  const parts = [
    (opts.head ? c.green("* ") : "  ") + c.bold(`#${cp.seq}`.padEnd(5)),
    c.yellow(shortId(cp.id)),
    c.cyan(cp.branch),
    c.dim(ago(cp.createdAt, opts.now)),
    cp.message || c.dim("(no message)"),
  ];
  if (cp.tags.length > 0) parts.push(c.magenta(`[${cp.tags.join(", ")}]`));
  if (cp.trigger !== "manual") parts.push(c.dim(`(${cp.trigger})`));
  return parts.join("  ");
}
