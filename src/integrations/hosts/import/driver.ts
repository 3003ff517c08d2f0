// `forge agent import`: the sessions each host recorded for a project before Forge captured
// them, found in the host's own folders on this machine, read on from where the last import or
// live capture left off, and written as the sessions live capture writes (write.ts).
//
// Where reading got to is the hook state's cursor (.forge/agents/<host>/<session>.json: byte
// offset, inode and a hash of the file's head), the one live capture keeps, taken under the
// same per-session lock: an import and a hook of the same session never interleave, and each
// goes on from the other's place. A file that no longer fits its cursor (replaced, rewritten)
// is read again from its start; entries the session holds are skipped by key, so a lost or
// stale cursor costs a re-read, never a duplicate.
import type { ProgressListener } from "../../../core/progress.js";
import type { Store } from "../../../timeline/store.js";
import { readAgentStates, withAgentState } from "../agent-state.js";
import { HOST_IDS, type HostId } from "../types.js";
import { projectMatch } from "./files.js";
import type { FoundSession, HostHistory } from "./types.js";
import { writeImported } from "./write.js";

const LOADERS: Partial<Record<HostId, () => Promise<{ history: HostHistory }>>> = {
  "claude-code": () => import("./claude-code.js"),
  codex: () => import("./codex.js"),
  "gemini-cli": () => import("./gemini-cli.js"),
  copilot: () => import("./copilot.js"),
  cursor: () => import("./cursor.js"),
  opencode: () => import("./opencode.js"),
};

/** The hosts whose transcripts Forge can import, in HOST_IDS order. */
export const IMPORT_HOSTS: readonly HostId[] = HOST_IDS.filter((h) => LOADERS[h] !== undefined);

/** The importers of `hosts` (none given: every one). */
export async function histories(hosts: readonly HostId[] = []): Promise<HostHistory[]> {
  const wanted = hosts.length === 0 ? IMPORT_HOSTS : IMPORT_HOSTS.filter((h) => hosts.includes(h));
  return Promise.all(wanted.map(async (h) => (await (LOADERS[h] as () => Promise<{ history: HostHistory }>)()).history));
}

/** What one host has for the project. */
export interface HostFinding {
  readonly history: HostHistory;
  /** One file per host session (the most recently changed, should a session have two). */
  readonly sessions: readonly FoundSession[];
}

/** The sessions each importer finds for the project at `root`, among files changed at or after `since`. */
export async function findHistory(root: string, hosts: readonly HostId[], since: Date | null): Promise<HostFinding[]> {
  const project = projectMatch(root);
  return (await histories(hosts)).map((history) => {
    const newest = new Map<string, FoundSession>();
    for (const s of history.find(project, { since })) {
      const had = newest.get(s.sessionId);
      if (had === undefined || s.modified > had.modified) newest.set(s.sessionId, s);
    }
    return { history, sessions: [...newest.values()].sort((a, b) => a.modified.getTime() - b.modified.getTime()) };
  });
}

/** Found sessions whose file no import or hook has read yet (for `forge enable`'s offer). */
export function notYetRead(forgeDir: string, found: readonly HostFinding[]): FoundSession[] {
  const read = new Set(readAgentStates(forgeDir, HOST_IDS).flatMap((s) => (s.transcript === null ? [] : [s.transcript])));
  return found.flatMap((f) => f.sessions.filter((s) => !read.has(s.path)));
}

export interface ImportOptions {
  readonly hosts: readonly HostId[];
  readonly since: Date | null;
  readonly onProgress?: ProgressListener;
}

/** What happened to one host session. */
export interface ImportedSession {
  readonly host: HostId;
  /** The host's session id (its secrets redacted). */
  readonly sessionId: string;
  /** The Forge session. */
  readonly session: string;
  readonly file: string;
  readonly parent: string | null;
  /** new: the session is new to the store; added: entries were added to it; unchanged: nothing new; empty: nothing to start a session with yet; failed: the file could not be read. */
  readonly status: "new" | "added" | "unchanged" | "empty" | "failed";
  /** Entries and prompts stored by this import. */
  readonly added: number;
  readonly prompts: number;
  /** Why it failed (status "failed"). */
  readonly error?: string;
}

export interface ImportReport {
  readonly hosts: readonly { readonly host: HostId; readonly label: string; readonly where: string; readonly found: number }[];
  readonly sessions: readonly ImportedSession[];
}

/** Imports the project's sessions of `options.hosts` (none: every host Forge can import). */
export async function importAgentHistory(store: Store, root: string, forgeDir: string, options: ImportOptions): Promise<ImportReport> {
  const found = await findHistory(root, options.hosts, options.since);
  const all = found.flatMap((f) => f.sessions.map((s) => ({ history: f.history, found: s })));
  const phase = "importing agent sessions";
  options.onProgress?.({ phase, done: 0, total: all.length });
  const sessions: ImportedSession[] = [];
  for (const [i, { history, found: s }] of all.entries()) {
    sessions.push(await importOne(store, forgeDir, history, s));
    options.onProgress?.({ phase, done: i + 1, total: all.length });
  }
  return {
    hosts: found.map((f) => ({ host: f.history.host, label: f.history.label, where: f.history.where(), found: f.sessions.length })),
    sessions,
  };
}

async function importOne(store: Store, forgeDir: string, history: HostHistory, found: FoundSession): Promise<ImportedSession> {
  // The host's id is kept (state file, metadata, session name) only with its secrets redacted.
  const shownId = await store.redactor.redactText(found.sessionId);
  const parent = found.parent === undefined ? null : await store.redactor.redactText(found.parent);
  return withAgentState(
    forgeDir,
    found.host,
    found.sessionId,
    async (state) => {
      const base = { host: found.host, sessionId: shownId, session: state.session, file: found.path, parent };
      const fresh = state.cursor === null && state.transcript === null && state.prompts === 0 && state.lastEvent === "";
      let read: ReturnType<HostHistory["read"]>;
      try {
        read = history.read(found, state.transcript === found.path ? state.cursor : null);
      } catch (e) {
        return { ...base, status: "failed", added: 0, prompts: 0, error: (e as Error).message };
      }
      const written = await writeImported(store, {
        host: found.host,
        label: history.label,
        shownId,
        session: state.session,
        file: found.path,
        entries: read.messages,
        promptsBefore: state.prompts,
        stamp: { format: history.format, version: history.version },
        ...(parent !== null && { parent }),
      });
      // Nothing to start a session with yet: the file is read again next time, from its start.
      if (!written.held) return { ...base, status: "empty", added: 0, prompts: 0 };
      state.transcript = found.path;
      state.cursor = read.cursor;
      state.prompts = Math.max(state.prompts, written.lastPrompt);
      if (fresh && written.first !== null) state.started = written.first;
      if (written.last !== null && (fresh || Date.parse(written.last) > Date.parse(state.lastActivity))) state.lastActivity = written.last;
      if (written.added > 0) {
        state.lastEvent = "import";
        state.imported = { format: history.format, version: history.version, at: new Date().toISOString() };
      }
      if (parent !== null) state.parent = parent;
      const status = written.created ? "new" : written.added > 0 ? "added" : "unchanged";
      return { ...base, status, added: written.added, prompts: written.prompts };
    },
    shownId,
  );
}
