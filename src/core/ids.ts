// Checkpoint and session ids: ULIDs (time-ordered, 26 Crockford base-32 characters).
import { monotonicFactory } from "ulid";
import { InvalidArgumentError } from "./errors.js";

const next = monotonicFactory();

/** A new ULID; ids made in one process sort in the order they were made. */
export function newId(timeMs?: number): string {
  return next(timeMs);
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const PREFIX = /^[0-9A-HJKMNP-TV-Z]{4,26}$/;

export function isId(s: string): boolean {
  return ULID.test(s);
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
