// Time expressions: a Date, epoch milliseconds, an ISO time, "2025-01-20 14:30:00", or
// natural language such as "2 hours ago" or "yesterday 5pm" (chrono-node).
import { createRequire } from "node:module";
import type * as Chrono from "chrono-node/en";
import { ForgeError } from "./errors.js";

// chrono-node takes tens of milliseconds to load: only commands that read a natural time pay it.
let chrono: typeof Chrono | undefined;
const loadChrono = () => (chrono ??= createRequire(import.meta.url)("chrono-node/en") as typeof Chrono);

export type TimeInput = Date | number | string;

const TIME_EXAMPLES = 'an ISO time ("2025-01-20T14:30:00Z"), "2025-01-20 14:30:00", "2 hours ago" or "yesterday 5pm"';

export class InvalidTimeError extends ForgeError {
  constructor(input: string, why = "cannot read it as a time", options: { hint?: string; data?: Record<string, unknown> } = {}) {
    super("INVALID_TIME", `"${input}": ${why}`, {
      hint: options.hint ?? `try ${TIME_EXAMPLES}`,
      data: { input, ...options.data },
    });
  }
}

/** Parses a time expression relative to `now`; an expression that is not wholly a time is an error. */
export function parseTime(input: TimeInput, now: Date = new Date()): Date {
  if (input instanceof Date) {
    if (Number.isNaN(input.getTime())) throw new InvalidTimeError(String(input), "is an invalid Date");
    return input;
  }
  if (typeof input === "number") {
    if (!Number.isFinite(input)) throw new InvalidTimeError(String(input), "is not a finite epoch time");
    return new Date(input);
  }
  const text = input.trim();
  if (text === "") throw new InvalidTimeError(input, "is empty");
  if (/^\d{10,13}$/.test(text)) return new Date(text.length === 13 ? Number(text) : Number(text) * 1000);
  // ISO 8601 with a zone is exact; Date.parse handles it without chrono's guessing.
  if (/^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:?\d{2})$/i.test(text)) {
    const ms = Date.parse(text);
    if (!Number.isNaN(ms)) return new Date(ms);
  }
  const results = loadChrono().parse(text, now, { forwardDate: false });
  const first = results[0];
  // chrono finds times inside longer text; a time query must be nothing but a time.
  if (!first || results.length !== 1 || !coversWhole(text, first.index, first.text)) {
    throw new InvalidTimeError(input);
  }
  return first.start.date();
}

/** How far ahead of this machine's clock a "past" time may be. */
export const FUTURE_SKEW_MS = 60_000;

/**
 * Parses a time expression that names a moment already past — when a checkpoint was made,
 * when a run was last saved — and refuses one more than FUTURE_SKEW_MS after `now` (INVALID_TIME naming the
 * expression and the time it means): "tomorrow" or "5pm" before five is a mistake there,
 * not a question with an empty answer.
 */
export function parsePastTime(input: TimeInput, now: Date = new Date()): Date {
  const t = parseTime(input, now);
  // A few seconds ahead is a clock, not a mistake: machines sharing a store, or a time taken
  // on another one, differ by that much. "tomorrow" and "in 2 hours" are refused.
  if (t.getTime() > now.getTime() + FUTURE_SKEW_MS) {
    const text = input instanceof Date ? input.toISOString() : String(input);
    throw new InvalidTimeError(text, `means ${t.toISOString()}, which is in the future`, {
      hint: `name a moment in the past: ${TIME_EXAMPLES}`,
      data: { time: t.toISOString(), now: now.toISOString() },
    });
  }
  return t;
}

function coversWhole(text: string, index: number, matched: string): boolean {
  const rest = text.slice(0, index) + text.slice(index + matched.length);
  return /^[\s,.;]*(at|on)?[\s,.;]*$/i.test(rest);
}

/** "3m 12s", "2h 5m", "4d 3h": a span for people. */
export function formatDuration(ms: number): string {
  const sign = ms < 0 ? "-" : "";
  let s = Math.round(Math.abs(ms) / 1000);
  if (s < 60) return `${sign}${s}s`;
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (d > 0) return `${sign}${d}d ${h}h`;
  if (h > 0) return `${sign}${h}h ${m}m`;
  return `${sign}${m}m ${s}s`;
}

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A span written as a number and a unit — "500ms", "2s", "1.5m", "10m", "1h30m", "1d" — in
 * milliseconds. A bare number is refused: "10" could mean seconds or minutes. (Strict on
 * purpose: parse-duration, the library for this, reads "2s and more" as 2 s.)
 */
export function parseDuration(input: string): number {
  const text = input.trim().toLowerCase();
  const part = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)/y;
  let ms = 0;
  let at = 0;
  while (at < text.length) {
    part.lastIndex = at;
    const m = part.exec(text);
    if (!m) break;
    ms += Number(m[1]) * (DURATION_UNITS[m[2] as string] as number);
    at = part.lastIndex;
    while (text[at] === " ") at++;
  }
  if (text === "" || at !== text.length || !Number.isFinite(ms)) {
    throw new ForgeError("INVALID_TIME", `"${input}" is not a duration`, {
      hint: 'write a number and a unit: "500ms", "2s", "10m", "1h30m", "1d"',
      data: { input },
    });
  }
  return Math.round(ms);
}
