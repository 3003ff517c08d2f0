// What every command gets: the global options, and the store and session they name,
// opened on first use and closed when the command ends.
import { readFileSync } from "node:fs";
import { resolveSessionName } from "../core/config.js";
import { ForgeError } from "../core/errors.js";
import type { Store } from "../timeline/store.js";
import type { Session } from "../timeline/session.js";
import type { ReasoningSession } from "../domains/reasoning/reasoning-session.js";

export interface GlobalOptions {
  readonly store?: string;
  readonly session?: string;
  readonly json?: boolean;
}

export class CliContext {
  readonly options: GlobalOptions;
  #store: Store | undefined;

  constructor(options: GlobalOptions) {
    this.options = options;
  }

  get json(): boolean {
    return this.options.json === true;
  }

  async store(): Promise<Store> {
    // Loaded on first use, not at start: `--version`, `--help` and usage errors never need a store.
    const { openStore } = await import("../timeline/store.js");
    this.#store ??= await openStore(this.options.store);
    return this.#store;
  }

  async session(): Promise<Session> {
    return (await this.store()).session(resolveSessionName(this.options.session));
  }

  /** The session as a reasoning session (its working state loaded). */
  async reasoning(): Promise<ReasoningSession> {
    const { ReasoningSession } = await import("../domains/reasoning/reasoning-session.js");
    return ReasoningSession.open(await this.store(), resolveSessionName(this.options.session));
  }

  async close(): Promise<void> {
    await this.#store?.close();
  }
}

/** Usage errors exit 2: the command line itself is wrong. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Reads a JSON document from a file, or from standard input for "-". */
export function readJsonInput(source: string): unknown {
  const label = source === "-" ? "standard input" : source;
  let text: string;
  try {
    text = readFileSync(source === "-" ? 0 : source, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ForgeError("INVALID_ARGUMENT", `cannot read ${label}: ${code === "ENOENT" ? "no such file" : (e as Error).message}`, {
      hint: "pass a JSON file with --state FILE, or - to read standard input",
      cause: e,
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ForgeError("INVALID_STATE", `${label} is not JSON: ${(e as Error).message}`, {
      hint: "a state must be one JSON document; nothing was saved",
      cause: e,
    });
  }
}
