// Runs a command for `forge run` and `forge verify`: no shell, output captured with a
// bounded preview (its head and its tail), optionally passed through as it arrives. A
// command that cannot start is a result with an error, not an exception.
import { spawn } from "node:child_process";
import type { Output } from "./model.js";

export interface RunOptions {
  readonly cwd: string;
  /** Kill the command after this long (default: no limit). */
  readonly timeoutMs?: number;
  /** Bytes of each stream kept: half from the start, half from the end (default 4,096). */
  readonly previewBytes?: number;
  /** Copy the command's output to these as it arrives. */
  readonly tee?: { readonly stdout: NodeJS.WritableStream; readonly stderr: NodeJS.WritableStream };
  /** Extra environment for the command. */
  readonly env?: NodeJS.ProcessEnv;
}

export interface RunResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly error: string | null;
  readonly durationMs: number;
  readonly stdout: Output;
  readonly stderr: Output;
}

export const DEFAULT_PREVIEW_BYTES = 4096;

/** Keeps the first and last `limit / 2` bytes of a stream, counting the rest. */
class Preview {
  readonly #half: number;
  #head: Buffer[] = [];
  #headBytes = 0;
  #tail: Buffer = Buffer.alloc(0);
  bytes = 0;

  constructor(limit: number) {
    this.#half = Math.max(1, Math.floor(limit / 2));
  }

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.#headBytes < this.#half) {
      const take = chunk.subarray(0, this.#half - this.#headBytes);
      this.#head.push(take);
      this.#headBytes += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length > 0) {
      const joined = Buffer.concat([this.#tail, chunk]);
      this.#tail = joined.subarray(Math.max(0, joined.length - this.#half));
    }
  }

  result(): Output {
    const head = Buffer.concat(this.#head);
    const kept = this.#headBytes + this.#tail.length;
    const truncated = this.bytes > kept;
    // Whole output: decode it in one piece, so a character across the halves stays whole.
    if (!truncated) return { preview: Buffer.concat([head, this.#tail]).toString("utf8"), bytes: this.bytes, truncated };
    const h = wholeChars(head, "end");
    const t = wholeChars(this.#tail, "start");
    const omitted = this.bytes - h.length - t.length;
    return { preview: `${h.toString("utf8")}\n… [${omitted} bytes omitted] …\n${t.toString("utf8")}`, bytes: this.bytes, truncated };
  }
}

/** `buf` without a UTF-8 character cut in two at its `end` (or `start`). */
function wholeChars(buf: Buffer, side: "start" | "end"): Buffer {
  if (side === "start") {
    let i = 0;
    while (i < buf.length && i < 4 && ((buf[i] as number) & 0xc0) === 0x80) i++; // continuation bytes
    return buf.subarray(i);
  }
  // Walk back to the last lead byte; drop it if its character is incomplete.
  for (let back = 1; back <= Math.min(4, buf.length); back++) {
    const b = buf[buf.length - back] as number;
    if ((b & 0xc0) === 0x80) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? buf.subarray(0, buf.length - back) : buf;
  }
  return buf;
}

export function runCommand(argv: readonly string[], options: RunOptions): Promise<RunResult> {
  const [file, ...args] = argv;
  const limit = options.previewBytes ?? DEFAULT_PREVIEW_BYTES;
  const out = new Preview(limit);
  const err = new Preview(limit);
  const started = performance.now();
  return new Promise((resolve) => {
    if (file === undefined || file === "") {
      resolve({ exitCode: null, signal: null, error: "no command given", durationMs: 0, stdout: out.result(), stderr: err.result() });
      return;
    }
    let settled = false;
    let timedOut = false;
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env ? { ...process.env, ...options.env } : process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => ((timedOut = true), child.kill("SIGKILL")), options.timeoutMs);
    child.stdout.on("data", (d: Buffer) => {
      out.push(d);
      options.tee?.stdout.write(d);
    });
    child.stderr.on("data", (d: Buffer) => {
      err.push(d);
      options.tee?.stderr.write(d);
    });
    const finish = (exitCode: number | null, signal: string | null, error: string | null) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      resolve({
        exitCode,
        signal,
        error: timedOut ? `timed out after ${options.timeoutMs} ms` : error,
        durationMs: Math.round(performance.now() - started),
        stdout: out.result(),
        stderr: err.result(),
      });
    };
    child.on("error", (e: NodeJS.ErrnoException) => {
      finish(null, null, e.code === "ENOENT" ? `command not found: ${file}` : e.code === "EACCES" ? `permission denied: ${file}` : e.message);
    });
    child.on("close", (code, signal) => finish(code, signal, null));
  });
}
