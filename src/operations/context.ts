// What every operation gets, whichever interface called it: the store (opened on first use,
// so a server starts and answers even before its store can be opened, and a failed open is
// tried again on the next call), the session a call names or the caller's default, and the
// workspace. The CLI makes one per command, the MCP server one per process, the web page one
// over the store it serves.
import { resolveSessionName } from "../core/config.js";
import type { ProgressListener } from "../core/progress.js";
import type { ReasoningSession } from "../domains/reasoning/reasoning-session.js";
import type { Workspace } from "../domains/workspace/workspace.js";
import type { Session } from "../timeline/session.js";
import type { Store } from "../timeline/store.js";

export interface ContextOptions {
  /** The store URL (default: FORGE_STORE, else the nearest .forge), or a store already open (which the context never closes). */
  readonly store?: string | Store;
  /** The session of calls that name none (default: FORGE_SESSION, else "default"). */
  readonly session?: string;
  /** The workspace folder of calls that name none (default: the folder holding .forge, else the current one). */
  readonly root?: string;
  /** The session holding workspace snapshots (default "workspace"). */
  readonly filesSession?: string;
  /** Told how long work goes (a progress bar on a terminal). */
  readonly onProgress?: ProgressListener;
}

export class OperationContext {
  readonly options: ContextOptions;
  #store: Promise<Store> | undefined;

  constructor(options: ContextOptions = {}) {
    this.options = options;
  }

  get onProgress(): ProgressListener | undefined {
    return this.options.onProgress;
  }

  store(): Promise<Store> {
    const given = this.options.store;
    if (given !== undefined && typeof given !== "string") return Promise.resolve(given);
    if (!this.#store) {
      // Loaded on first use: `--version`, `--help` and usage errors never need a store.
      // Only `forge init` creates a store: every other call finds one, or says where it looked.
      const opening = import("../timeline/store.js").then(({ openStore }) => openStore(given, { create: false }));
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

  /** The session, created if it does not exist (for calls that write). */
  async session(explicit?: string): Promise<Session> {
    return (await this.store()).session(this.sessionName(explicit));
  }

  /** An existing session: a read never creates one (SESSION_NOT_FOUND otherwise). */
  async existingSession(explicit?: string): Promise<Session> {
    return (await this.store()).getSession(this.sessionName(explicit));
  }

  /** The session as a reasoning session, its working state loaded. */
  async reasoning(explicit?: string): Promise<ReasoningSession> {
    const { ReasoningSession } = await import("../domains/reasoning/reasoning-session.js");
    return ReasoningSession.open(await this.store(), this.sessionName(explicit));
  }

  /** The workspace at `root` (default: the context's), with its folder's configuration. */
  async workspace(location: { root?: string | undefined; filesSession?: string | undefined } = {}): Promise<Workspace> {
    const { openConfiguredWorkspace } = await import("../domains/workspace/configured.js");
    const root = location.root ?? this.options.root;
    const filesSession = location.filesSession ?? this.options.filesSession;
    return openConfiguredWorkspace(await this.store(), { ...(root !== undefined && { root }), ...(filesSession !== undefined && { filesSession }) });
  }

  /** Closes the store if this context opened it. */
  async close(): Promise<void> {
    const store = this.#store;
    this.#store = undefined;
    if (store) await (await store.catch(() => undefined))?.close();
  }
}
