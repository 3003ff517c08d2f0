// Error classes with a stable `code`, so the CLI, the MCP server and callers can react
// without parsing messages. Every message names the bad input and says what to do.

export type ForgeErrorCode =
  | "CHECKPOINT_NOT_FOUND"
  | "AMBIGUOUS_REF"
  | "INVALID_REF"
  | "SESSION_NOT_FOUND"
  | "SESSION_EXISTS"
  | "BRANCH_NOT_FOUND"
  | "BRANCH_EXISTS"
  | "MILESTONE_NOT_FOUND"
  | "MILESTONE_EXISTS"
  | "PROTECTED"
  | "INVALID_NAME"
  | "INVALID_STATE"
  | "INVALID_TIME"
  | "INVALID_ARGUMENT"
  | "INVALID_STORE_URL"
  | "STORE_UNAVAILABLE"
  | "STORE_LOCKED"
  | "NOT_A_STORE"
  | "NO_STORE"
  /** The host or the format cannot do what was asked (a host that keeps no transcript file to cut). */
  | "UNSUPPORTED"
  | "CORRUPT_OBJECT"
  | "MISSING_OBJECT"
  | "INVALID_BUNDLE"
  | "IMPORT_CONFLICT"
  | "CONFLICT"
  | "NO_CHECKPOINT"
  | "NOT_FOUND"
  | "PATH_OUTSIDE_WORKSPACE"
  | "UNKNOWN_CHANGES"
  | "ALREADY_RUNNING"
  | "COMMAND_FAILED"
  | "CLOSED";

export class ForgeError extends Error {
  readonly code: ForgeErrorCode;
  /** A short hint shown after the message: what the user can do about it. */
  readonly hint: string | undefined;
  readonly data: Readonly<Record<string, unknown>>;

  constructor(code: ForgeErrorCode, message: string, options: { hint?: string; data?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options.hint;
    this.data = Object.freeze({ ...(options.data ?? {}) });
  }
}

export class CheckpointNotFoundError extends ForgeError {
  constructor(ref: string, hint = "run `forge checkpoint list` to see the checkpoints", message = `no checkpoint matches "${ref}"`) {
    super("CHECKPOINT_NOT_FOUND", message, { hint, data: { ref } });
  }
}

export class AmbiguousRefError extends ForgeError {
  readonly candidates: readonly string[];
  constructor(ref: string, candidates: readonly string[]) {
    super("AMBIGUOUS_REF", `"${ref}" matches ${candidates.length} checkpoints: ${candidates.join(", ")}`, {
      hint: "type more characters of the id",
      data: { ref, candidates },
    });
    this.candidates = candidates;
  }
}

export class CorruptObjectError extends ForgeError {
  constructor(hash: string, why: string, cause?: unknown) {
    super("CORRUPT_OBJECT", `object ${hash} is corrupt: ${why}`, {
      hint: "run `forge fsck` to list every damaged object; restore it from an export bundle or another store",
      data: { hash },
      cause,
    });
  }
}

export class MissingObjectError extends ForgeError {
  constructor(hash: string) {
    super("MISSING_OBJECT", `object ${hash} is missing from the store`, {
      hint: "run `forge fsck` to see which checkpoints are affected",
      data: { hash },
    });
  }
}

export class InvalidStateError extends ForgeError {
  constructor(path: string, why: string) {
    super("INVALID_STATE", `state at ${path} ${why}`, {
      hint: "a checkpoint state must be plain JSON: objects, arrays, strings, finite numbers, booleans and null",
      data: { path },
    });
  }
}

export class InvalidBundleError extends ForgeError {
  constructor(why: string, cause?: unknown) {
    super("INVALID_BUNDLE", `not a valid Forge bundle: ${why}`, {
      hint: "the file is damaged or not a bundle; nothing was imported",
      cause,
    });
  }
}

export class InvalidArgumentError extends ForgeError {
  constructor(message: string, hint?: string) {
    super("INVALID_ARGUMENT", message, hint === undefined ? {} : { hint });
  }
}

/** A hypothesis, belief, gap or other reasoning item that does not exist. */
export class NotFoundError extends ForgeError {
  constructor(kind: string, id: string, hint: string) {
    super("NOT_FOUND", `no ${kind} "${id}"`, { hint, data: { kind, id } });
  }
}

export function isForgeError(e: unknown): e is ForgeError {
  return e instanceof ForgeError;
}

/** A rejection handler that turns the one expected "not found" into undefined and passes every other error on. */
export const unlessCode =
  (code: ForgeError["code"]) =>
  (e: unknown): undefined => {
    if (e instanceof ForgeError && e.code === code) return undefined;
    throw e;
  };
