// Ids of checkpoints and sessions: 128 bits in 26 Crockford base-32 characters, made
// of a ULID's 80 random bits followed by its 48-bit millisecond time. A plain ULID
// starts with the time, so checkpoints made within a few hundred milliseconds share
// their first 8 characters and short prefixes are ambiguous; random bits first make an
// 8-character prefix unique in practice, as with git. Order comes from seq and createdAt.
import { randomFillSync } from "node:crypto";
import { ulid } from "ulid";
import { InvalidArgumentError } from "./errors.js";

// ulid's own generator asks the system for one random byte per character; drawing them
// from a pool refilled 4 KiB at a time gives the same randomness at a fraction of the cost.
const pool = new Uint8Array(4096);
let next = pool.length;
function randomUnit(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return (pool[next++] as number) / 256;
}

/** A new id; `timeMs` sets its time part (default: now). */
export function newId(timeMs?: number): string {
  const u = ulid(timeMs, randomUnit);
  return u.slice(10) + u.slice(0, 10);
}

const ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const PREFIX = /^[0-9A-HJKMNP-TV-Z]{4,26}$/;

export function isId(s: string): boolean {
  return ID.test(s);
}

/** Whether `s` (case-insensitive) could be the start of an id; ids are typed in lower case too. */
export function isIdPrefix(s: string): boolean {
  return PREFIX.test(s.toUpperCase());
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._\-/]{0,127}$/;

/**
 * Session, branch and tag names: letters, digits, `.`, `_`, `-`, `/`; no `..`, no
 * trailing `/`, and nothing the ref grammar gives a meaning to (`HEAD`, `~`, `#`, `:`).
 */
export function checkName(kind: string, name: string): string {
  if (!NAME.test(name) || name.includes("..") || name.endsWith("/") || name.endsWith(".") || name === "HEAD") {
    throw new InvalidArgumentError(
      `invalid ${kind} name "${name}"`,
      `use letters, digits, ".", "_", "-" and "/", at most 128 characters, starting with a letter or digit`,
    );
  }
  return name;
}
