// What the hosts' transcript cuts share: the prompt number checked, the new session's file
// written whole (never over an existing one), and a session id rewritten in a record's text
// without re-encoding the rest of it.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { ForgeError } from "../../../core/errors.js";
import { writeFileAtomic } from "../../../core/files.js";
import { isObject } from "./fields.js";

/** Fails unless `prompt` is a whole number ≥ 1. */
export function checkPromptNumber(prompt: number): void {
  if (!Number.isInteger(prompt) || prompt < 1) {
    throw new ForgeError("INVALID_ARGUMENT", `cannot cut a transcript before prompt ${prompt}: prompts are numbered 1, 2, …`, {
      hint: "give the number of the prompt to go back to",
      data: { prompt },
    });
  }
}

/** The error for a prompt the transcript does not have. */
export function noSuchPrompt(path: string, prompt: number, count: number): ForgeError {
  return new ForgeError(
    "INVALID_ARGUMENT",
    `the transcript ${path} has ${count} prompt${count === 1 ? "" : "s"}, so it cannot be cut before prompt ${prompt}`,
    {
      hint: "choose a prompt the session has",
      data: { path, prompt, count },
    },
  );
}

/** Writes a new transcript file (its folder made when missing); fails if `path` exists already. */
export function writeNewTranscript(path: string, text: string): void {
  if (existsSync(path)) {
    throw new ForgeError("CONFLICT", `cannot write the cut transcript ${path}: a file is there already`, {
      hint: "run the rewind again: it picks a new session id",
      data: { path },
    });
  }
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (e) {
    throw new ForgeError("INVALID_ARGUMENT", `cannot create the folder of ${path}: ${(e as Error).message}`, { data: { path }, cause: e });
  }
  writeFileAtomic(path, text);
}

/** The lines joined as a JSONL file (each line ended by a newline). */
export function jsonlText(lines: readonly string[]): string {
  return lines.map((l) => `${l}\n`).join("");
}

/**
 * `line` with the string field `key` of the object `at(record)` set to `next`. The text is
 * edited in place (`"key":"old"` → `"key":"next"`) so everything else stays byte for byte as the
 * host wrote it; when that is not possible (other spacing), the record is encoded again.
 */
export function setIdInLine(line: string, key: string, old: string, next: string, at: (record: unknown) => unknown = (r) => r): string {
  const from = `${JSON.stringify(key)}:${JSON.stringify(old)}`;
  const edited = line.split(from).join(`${JSON.stringify(key)}:${JSON.stringify(next)}`);
  if (edited !== line && holds(edited, key, next, at)) return edited;
  const record = JSON.parse(line) as unknown;
  const target = at(record);
  if (isObject(target)) Object.defineProperty(target, key, { value: next, enumerable: true, writable: true, configurable: true });
  return JSON.stringify(record);
}

function holds(line: string, key: string, value: string, at: (record: unknown) => unknown): boolean {
  try {
    const target = at(JSON.parse(line) as unknown);
    return isObject(target) && Object.hasOwn(target, key) && target[key] === value;
  } catch {
    return false; // the edit broke the line: the caller encodes the record again
  }
}

/** A new UUID version 7 (time-ordered, as Codex's thread ids are). */
export function uuidV7(now = Date.now()): string {
  const b = randomBytes(16);
  const ms = BigInt(now);
  for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x70;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** `date` in local time as YYYY-MM-DDThh-mm-ss, as Codex names rollout files. */
export function localStamp(date: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())}T${p(date.getHours())}-${p(date.getMinutes())}-${p(date.getSeconds())}`;
}
