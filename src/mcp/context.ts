// What every MCP tool gets: the store (opened on first use, so the server starts and
// answers even when the store cannot be opened yet), the session it names, the workspace.
import { resolveSessionName } from "../core/config.js";
import { ForgeError } from "../core/errors.js";
import { ReasoningSession } from "../domains/reasoning/reasoning-session.js";
import { openConfiguredWorkspace } from "../domains/workspace/configured.js";
import type { Workspace } from "../domains/workspace/workspace.js";
import type { Session } from "../timeline/session.js";
import { openStore, type Store } from "../timeline/store.js";

export interface McpOptions {
  /** The store URL (default: Forge's usual resolution from FORGE_STORE and .forge). */
  readonly store?: string;
  /** The default session of tools that take one (default: FORGE_SESSION, else "default"). */
  readonly session?: string;
  /** The workspace folder of the files tools (default: the folder holding .forge, else cwd). */
  readonly root?: string;
  /** The session holding workspace snapshots (default "workspace"). */
  readonly filesSession?: string;
}

export class McpContext {
  readonly options: McpOptions;
  #store: Promise<Store> | undefined;

  constructor(options: McpOptions = {}) {
    this.options = options;
  }

  store(): Promise<Store> {
    if (!this.#store) {
      const opening = openStore(this.options.store);
      // A store that failed to open is tried again on the next call (the server may be
      // started before `forge init`, or while a database server is down).
      opening.catch(() => {
        if (this.#store === opening) this.#store = undefined;
      });
      this.#store = opening;
    }
    return this.#store;
  }

  sessionName(explicit?: string): string {
    return resolveSessionName(explicit ?? this.options.session);
  }

  async session(explicit?: string): Promise<Session> {
    return (await this.store()).session(this.sessionName(explicit));
  }

  /** An existing session (no session is created by a read). */
  async existingSession(explicit?: string): Promise<Session> {
    return (await this.store()).getSession(this.sessionName(explicit));
  }

  async reasoning(explicit?: string): Promise<ReasoningSession> {
    return ReasoningSession.open(await this.store(), this.sessionName(explicit));
  }

  async workspace(): Promise<Workspace> {
    return openConfiguredWorkspace(await this.store(), {
      ...(this.options.root !== undefined && { root: this.options.root }),
      ...(this.options.filesSession !== undefined && { filesSession: this.options.filesSession }),
    });
  }

  async close(): Promise<void> {
    const store = this.#store;
    this.#store = undefined;
    if (store) await (await store.catch(() => undefined))?.close();
  }
}


/** Any value as plain JSON data: Dates become ISO strings, undefined fields go. */
export function plain<T>(value: T): unknown {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}

/** The error text a tool returns: Forge's message and hint. */
export function errorText(e: unknown): string {
  if (e instanceof ForgeError) return `forge: ${e.message}${e.hint ? `\nhint: ${e.hint}` : ""}`;
  return `forge: ${e instanceof Error ? e.message : String(e)}`;
}
