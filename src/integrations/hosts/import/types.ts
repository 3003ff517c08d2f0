// The contract between `forge agent import`'s driver and one module per host: where the host
// keeps the sessions it recorded on this machine, which of them ran in a project (by the
// working folder the host wrote down), and how one session's transcript is read on from a
// cursor — with the capture modules' own parsers, so an imported entry has the key live
// capture gives it and a session is never stored twice.
import type { CapturedMessage, HostId, TranscriptCursor } from "../types.js";

/** Whether a working folder is the project's root or a folder inside it (an exact path, never a name prefix). */
export interface ProjectMatch {
  (cwd: string): boolean;
  /** The project root, as given and as its real path. */
  readonly roots: readonly string[];
}

/** One session a host recorded for the project. */
export interface FoundSession {
  readonly host: HostId;
  /** The host's own session id: the one its hooks name, so live capture and import key the session alike. */
  readonly sessionId: string;
  /** The transcript file. */
  readonly path: string;
  /** The working folder the host recorded. */
  readonly cwd: string;
  /** When the file last changed. */
  readonly modified: Date;
  /** A sub-agent's session: the host session that started it. */
  readonly parent?: string;
}

/** What one read of a transcript gives. */
export interface ImportRead {
  /** The entries complete since the cursor, in order (a line still being written is not among them). */
  readonly messages: readonly CapturedMessage[];
  /** Where the next read starts. */
  readonly cursor: TranscriptCursor;
  /** The file no longer fitted the cursor (replaced, rewritten) and was read from its start. */
  readonly reset: boolean;
}

/** Where the sessions are looked for. */
export interface FindOptions {
  /** Only files changed at or after this time (null: every file). */
  readonly since: Date | null;
}

/** One host's importer. */
export interface HostHistory {
  readonly host: HostId;
  /** The host's name for people. */
  readonly label: string;
  /**
   * The transcript format this importer reads and its version, recorded on every session it
   * imports: a format that changes gets a new version, and what an older one wrote stays
   * readable (entries it did not know were kept whole as host records).
   */
  readonly format: string;
  readonly version: number;
  /** The folder the host keeps its sessions in on this machine. */
  where(): string;
  /** The sessions of the project, among the host's files (a file it cannot place is left out). */
  find(project: ProjectMatch, options: FindOptions): FoundSession[];
  /** The session's entries after `cursor` (null: from the start). */
  read(found: FoundSession, cursor: TranscriptCursor | null): ImportRead;
}
