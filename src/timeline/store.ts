// The door to Forge: `openStore(url?)` opens a store; sessions hold timelines of checkpoints.
import { systemClock, type Clock } from "../core/clock.js";
import { resolve } from "node:path";
import { DEFAULT_SESSION, defaultStoreUrl, redactionConfig, resolveStoreUrl } from "../core/config.js";
import { ForgeError } from "../core/errors.js";
import { checkName, newId } from "../core/ids.js";
import { Redactor, type RedactionOptions } from "../core/redact/redactor.js";
import type { Backend, CheckpointRow, SessionRow } from "../backends/backend.js";
import { openBackend } from "../backends/open-backend.js";
import { ObjectStore } from "../objects/object-store.js";
import type { TreeParams } from "../objects/value-encoder.js";
import type { ExportResult, ImportOptions, ImportReport } from "./bundle.js";
import type { FsckOptions, FsckReport } from "./fsck.js";
import type { ImportedHistory } from "./history-import.js";
import type { SecretScanReport } from "./secret-scan.js";
import type { RedactOptions, RedactReport } from "./secret-redact.js";
import type { GcOptions, GcReport } from "./gc.js";
import { resolveRef } from "./refs.js";
import type { SearchOptions, SearchResult } from "./search.js";
import type { IndexStats } from "../backends/search/search-index.js";
import type { ProgressListener } from "../core/progress.js";
import { Session } from "./session.js";
import type { StoreContext } from "./store-context.js";
import { registerBackend } from "./store-internals.js";
import { keepsSideRecords } from "./side-records.js";
import { MAIN_BRANCH, toSessionInfo, type SessionInfo } from "./types.js";

export interface OpenOptions {
  /** Folder relative store paths and .forge discovery start from (default: process.cwd()). */
  readonly cwd?: string;
  readonly clock?: Clock;
  readonly treeParams?: TreeParams;
  /**
   * Whether opening may create the store (default true: a library caller naming a store gets
   * one). The CLI, the MCP server and the web page pass false — only `forge init` creates a
   * store — so a mistyped URL or the wrong folder is an error (NO_STORE), not a new store.
   */
  readonly create?: boolean;
  /**
   * How strings are redacted before they are stored (default: `redact` of the nearest
   * .forge/config.json from `cwd`, else on with no allow-list).
   */
  readonly redaction?: RedactionOptions;
}

export interface SessionOptions {
  /** What the session holds; "generic" by default. */
  readonly kind?: string;
  readonly metadata?: Record<string, unknown>;
}

export class Store {
  readonly url: string;
  readonly #ctx: StoreContext;
  #knownEpoch = -1;
  #closed = false;

  private constructor(backend: Backend, clock: Clock, params: TreeParams | undefined, redaction: RedactionOptions | undefined) {
    this.url = backend.url;
    registerBackend(this, backend);
    const objects = new ObjectStore(backend, params, new Redactor(redaction));
    this.#ctx = {
      backend,
      objects,
      clock,
      syncGcEpoch: async () => {
        const epoch = await backend.meta.getGcEpoch();
        if (epoch !== this.#knownEpoch) {
          objects.forgetKnown();
          this.#knownEpoch = epoch;
        }
        return epoch;
      },
      knownGcEpoch: () => (this.#knownEpoch < 0 ? undefined : this.#knownEpoch),
    };
  }

  /** Opens the store at `url` (default: FORGE_STORE, else the nearest .forge/forge.db). */
  static async open(url?: string, options: OpenOptions = {}): Promise<Store> {
    const cwd = options.cwd ?? process.cwd();
    const create = options.create ?? true;
    const resolved = resolveStoreUrl(url, cwd) ?? (create ? defaultStoreUrl(cwd) : undefined);
    if (resolved === undefined) {
      throw new ForgeError("NO_STORE", `no Forge store in ${resolve(cwd)} or any folder above it`, {
        hint: "run `forge init` in the project's folder, or name one with --store URL or FORGE_STORE",
        data: { cwd: resolve(cwd) },
      });
    }
    const backend = await openBackend(resolved, cwd, { create });
    return new Store(backend, options.clock ?? systemClock, options.treeParams, options.redaction ?? redactionConfig(cwd));
  }

  /** Wraps an already open backend (tests, embedding). */
  static fromBackend(backend: Backend, options: Omit<OpenOptions, "cwd"> = {}): Store {
    return new Store(backend, options.clock ?? systemClock, options.treeParams, options.redaction);
  }

  /** What redacts secrets from everything this store is given (docs/ARCHITECTURE.md, Secrets). */
  get redactor(): Redactor {
    return this.#ctx.objects.redactor;
  }

  /** The object layer, for domains that store trees of their own (workspace files). */
  get objects(): ObjectStore {
    return this.#ctx.objects;
  }

  /** Whether the store keeps side records beside its sessions (Session.putSideRecords): SQLite and PostgreSQL do; memory and file do not. */
  get keepsSideRecords(): boolean {
    return keepsSideRecords(this.#ctx);
  }

  /**
   * The store's gc epoch, read now (forgetting which objects this process believed stored
   * if a gc ran since). A domain that chooses objects to reuse passes it as
   * `CheckpointOptions.gcEpoch`, so its checkpoint is refused if a gc ran in between.
   */
  gcEpoch(): Promise<number> {
    return this.#open().syncGcEpoch();
  }

  /**
   * The write protocol of a domain that stores objects of its own (files trees) and then a
   * checkpoint pointing at them: `write(epoch)` writes the objects and commits the checkpoint
   * with `gcEpoch: epoch`. If a gc ran in between, the checkpoint is refused (the objects it
   * reused may be gone) and `write` runs again from the top with the new epoch — up to three
   * times. Other errors, and other conflicts, are the caller's.
   */
  async withGcEpoch<T>(write: (epoch: number, attempt: number) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write(await this.gcEpoch(), attempt);
      } catch (e) {
        if (!(e instanceof ForgeError && e.code === "CONFLICT" && e.data["gcRace"] === true) || attempt >= 3) throw e;
      }
    }
  }

  /** The store's source of time (a ManualClock in tests that span days). */
  get clock(): Clock {
    return this.#ctx.clock;
  }

  #open(): StoreContext {
    if (this.#closed) throw new ForgeError("CLOSED", "the store is closed");
    return this.#ctx;
  }

  /**
   * The session named `name` ("default" when omitted), created on first use. A session's
   * kind is fixed when it is created.
   */
  async session(name: string = DEFAULT_SESSION, options: SessionOptions = {}): Promise<Session> {
    const ctx = this.#open();
    const existing = await ctx.backend.meta.getSessionByName(name);
    if (existing) return new Session(ctx, existing);
    try {
      return await this.createSession(name, options);
    } catch (e) {
      // Another process created it between our read and our write.
      const raced = e instanceof ForgeError && e.code === "SESSION_EXISTS" ? await ctx.backend.meta.getSessionByName(name) : undefined;
      if (raced) return new Session(ctx, raced);
      throw e;
    }
  }

  async createSession(name: string, options: SessionOptions = {}): Promise<Session> {
    const ctx = this.#open();
    checkName("session", name);
    const redactor = ctx.objects.redactor;
    if ((await redactor.redactText(name)) !== name) {
      throw new ForgeError("INVALID_ARGUMENT", "a session name cannot hold a secret (a rule of the redaction recognised one in it)", {
        hint: "name the session otherwise, or allow the rule or value in redact.allow of .forge/config.json",
      });
    }
    const row: SessionRow = {
      id: newId(),
      name,
      kind: options.kind ?? "generic",
      createdAt: ctx.clock.now(),
      metadata: await redactor.redactJson(options.metadata ?? {}),
      nextSeq: 1,
      headBranch: MAIN_BRANCH,
      headCheckpoint: null,
      workRoot: null,
      workVersion: 0,
    };
    await ctx.backend.transaction((tx) => tx.insertSession(row));
    return new Session(ctx, row);
  }

  /** An existing session; SESSION_NOT_FOUND if there is none by that name. */
  async getSession(name: string): Promise<Session> {
    const ctx = this.#open();
    const row = await ctx.backend.meta.getSessionByName(name);
    if (!row) {
      throw new ForgeError("SESSION_NOT_FOUND", `no session named "${name}"`, { hint: "run `forge session list` to see the sessions" });
    }
    return new Session(ctx, row);
  }

  async listSessions(): Promise<(SessionInfo & { checkpoints: number })[]> {
    const ctx = this.#open();
    const rows = await ctx.backend.meta.listSessions();
    return Promise.all(rows.map(async (r) => ({ ...toSessionInfo(r), checkpoints: await ctx.backend.meta.countCheckpoints(r.id) })));
  }

  /** Deletes a session and its checkpoints; their objects become garbage for gc. */
  async deleteSession(name: string): Promise<void> {
    const ctx = this.#open();
    await ctx.backend.transaction(async (tx) => {
      const row = await tx.getSessionByName(name);
      if (!row) throw new ForgeError("SESSION_NOT_FOUND", `no session named "${name}"`);
      await tx.deleteSession(row.id);
    });
  }

  /** How many objects the store holds and their stored bytes. */
  async usage(): Promise<{ objects: number; bytes: number }> {
    const ctx = this.#open();
    let objects = 0;
    let bytes = 0;
    for await (const o of ctx.backend.listObjects()) {
      objects++;
      bytes += o.size;
    }
    return { objects, bytes };
  }

  /** Removes objects no checkpoint uses (older than a grace period, so writers in flight are safe). */
  async gc(options?: GcOptions): Promise<GcReport> {
    const ctx = this.#open();
    const { collectGarbage } = await import("./gc.js");
    return collectGarbage(ctx, options);
  }

  /**
   * Every secret a redaction rule recognises in the store's history — states, file text,
   * checkpoint messages and metadata, working states — by session, checkpoints, path and
   * rule, never the secret itself. `onSession` is told each session as it starts.
   */
  async scanSecrets(onSession?: (name: string, done: number, total: number) => void): Promise<SecretScanReport> {
    const ctx = this.#open();
    const { scanHistory } = await import("./secret-scan.js");
    return scanHistory(ctx, onSession);
  }

  /**
   * Full-text search over every checkpoint's state, files and message (docs/ARCHITECTURE.md,
   * Search): words ANDed, a word of 3+ characters matching the words it starts, "quoted
   * phrases" in order. Checkpoints not indexed yet are indexed first.
   */
  async search(query: string, options?: SearchOptions): Promise<SearchResult> {
    const ctx = this.#open();
    const { searchStore } = await import("./search.js");
    return searchStore(ctx, query, options);
  }

  /** Empties the search index and indexes every checkpoint again; returns the index's size. */
  async reindex(options: { onProgress?: ProgressListener } = {}): Promise<IndexStats> {
    const ctx = this.#open();
    const { rebuild } = await import("./search-indexer.js");
    return rebuild(ctx, options.onProgress);
  }

  /** How big the search index is (documents, postings, checkpoints indexed). */
  searchIndexStats(): Promise<IndexStats> {
    return this.#open().backend.search.stats();
  }

  /**
   * Rewrites the secrets `scanSecrets` finds out of history: states encoded again redacted,
   * checkpoints and working states re-pointed, rows redacted, the old objects collected (a gc
   * with no grace period) and the search index rebuilt. Files are kept exact and reported.
   */
  async redactSecrets(options: RedactOptions = {}): Promise<RedactReport> {
    const ctx = this.#open();
    const { redactHistory } = await import("./secret-redact.js");
    const report = await redactHistory(ctx, options);
    // The index holds the text of the old states: build it again from what is stored now.
    if (report.gc !== null) await this.reindex();
    return report;
  }

  /** Re-hashes every object and checks every reference. */
  async fsck(options?: FsckOptions): Promise<FsckReport> {
    const ctx = this.#open();
    const { checkStore } = await import("./fsck.js");
    return checkStore(ctx, options);
  }

  /** A bundle of whole sessions, or of single checkpoints named by ref in `session`. */
  async export(selection: { sessions?: readonly string[]; session?: string; refs?: readonly string[] } = {}): Promise<ExportResult> {
    const ctx = this.#open();
    const sessions: SessionRow[] = [];
    for (const name of selection.sessions ?? []) sessions.push(await this.#sessionRow(name));
    const checkpoints: CheckpointRow[] = [];
    if (selection.refs && selection.refs.length > 0) {
      const row = await this.#sessionRow(selection.session ?? DEFAULT_SESSION);
      for (const ref of selection.refs) checkpoints.push(await resolveRef(ctx.backend.meta, row, ref));
    } else if (sessions.length === 0) {
      sessions.push(await this.#sessionRow(selection.session ?? DEFAULT_SESSION));
    }
    // Loaded on demand: bundles need zod, which most commands do not.
    const { exportBundle } = await import("./bundle.js");
    return exportBundle(ctx, { sessions, checkpoints });
  }

  async #sessionRow(name: string): Promise<SessionRow> {
    const row = await this.#open().backend.meta.getSessionByName(name);
    if (!row) throw new ForgeError("SESSION_NOT_FOUND", `no session named "${name}"`, { hint: "run `forge session list` to see the sessions" });
    return row;
  }

  /** Imports a bundle held in memory: checked whole first, then written all or nothing. */
  async import(bytes: Uint8Array, options?: ImportOptions): Promise<ImportReport> {
    const ctx = this.#open();
    const [{ importBundle }, { bufferSource }] = await Promise.all([import("./bundle.js"), import("./bundle-source.js")]);
    return importBundle(ctx, bufferSource(bytes), options);
  }

  /**
   * Imports the bundle in the file at `path`, read in pieces (never whole, whatever its size):
   * checked whole first, then written all or nothing. INVALID_ARGUMENT if it cannot be read.
   */
  async importFile(path: string, options?: ImportOptions): Promise<ImportReport> {
    const ctx = this.#open();
    const [{ importBundle }, { fileSource }] = await Promise.all([import("./bundle.js"), import("./bundle-source.js")]);
    const source = await fileSource(path);
    try {
      return await importBundle(ctx, source, options);
    } finally {
      await source.close();
    }
  }

  /**
   * Writes a history made elsewhere (another format's export) as a new session, all or
   * nothing: every state, then the session, its checkpoints with their own seqs, times,
   * parents and branches (under new ids), the branches, HEAD and the working state in one
   * transaction, redone if a gc ran meanwhile. IMPORT_CONFLICT if the name is taken.
   */
  async importHistory(history: ImportedHistory): Promise<Session> {
    const ctx = this.#open();
    const { importHistory } = await import("./history-import.js");
    return importHistory(ctx, history);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#ctx.backend.close();
  }
}

/** Opens a store: `memory:`, `file:DIR`, `sqlite:PATH`; by default the nearest .forge/forge.db. */
export function openStore(url?: string, options?: OpenOptions): Promise<Store> {
  return Store.open(url, options);
}
