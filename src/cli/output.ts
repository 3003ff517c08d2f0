// How the CLI speaks: JSON for scripts (--json), short aligned lines for people, colour
// only on a terminal and never under NO_COLOR.
import pc from "picocolors";
import { envFlag } from "../core/config.js";
import { formatDuration } from "../core/time.js";
import type { Checkpoint, CheckpointJson } from "../timeline/types.js";

const useColor = !envFlag("NO_COLOR") && process.stdout.isTTY === true;
export const c = pc.createColors(useColor);

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + "\n");
}

export function println(line = ""): void {
  process.stdout.write(line + "\n");
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
