// The edit journal (.forge/edits.json): per path the agent changed through its own tools
// since the last snapshot, the content it left there, or a marker that an edit is under
// way. A change the journal does not vouch for is "unknown": made outside the agent.
import { fileKey, type FileInfo } from "../../objects/file-tree.js";
import type { FileChange } from "./tree-compare.js";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileLock } from "../../core/file-lock.js";

/** The marker of a path the agent is changing now: any content there is its own. */
export const EDITING = "*";
/** What the journal records for a path the agent deleted. */
export const DELETED = "deleted";

export class EditJournal {
  readonly #dir: string;

  /** `dir`: the workspace's .forge folder. */
  constructor(dir: string) {
    this.#dir = dir;
  }

  get #path(): string {
    return join(this.#dir, "edits.json");
  }

  /** Path → the content key the agent left (or EDITING). Paths are keys of a Map: any file name is data. */
  read(): Map<string, string> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.#path, "utf8"));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT" || e instanceof SyntaxError) return new Map();
      throw e;
    }
    const out = new Map<string, string>();
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      for (const [k, v] of Object.entries(parsed)) if (typeof v === "string") out.set(k, v);
    }
    return out;
  }

  /** Whether the agent made `path`'s change: the journal holds the content there now (`now`: its key, or DELETED), or an edit is under way. */
  static vouches(journal: ReadonlyMap<string, string>, path: string, now: string): boolean {
    const j = journal.get(path);
    return j !== undefined && (j === EDITING || j === now);
  }

  /** Changes entries under the journal's lock (other processes of the agent write it too). */
  async update(entries: Iterable<readonly [string, string]>): Promise<void> {
    mkdirSync(this.#dir, { recursive: true });
    const lock = new FileLock(join(this.#dir, "edits.lock"));
    await lock.acquire();
    try {
      const j = this.read();
      for (const [path, key] of entries) j.set(path, key);
      const tmp = join(this.#dir, `edits.json.${process.pid}.tmp`);
      writeFileSync(tmp, JSON.stringify(Object.fromEntries(j)));
      renameSync(tmp, this.#path);
    } finally {
      lock.release();
    }
  }

  /** The changed paths the journal does not vouch for with their content now (`files`: the tree now, or at least its changed files). */
  unknown(changes: readonly FileChange[], files: ReadonlyMap<string, FileInfo>): string[] {
    const journal = this.read();
    const out: string[] = [];
    for (const c of changes) {
      for (const path of c.kind === "renamed" && c.from !== undefined ? [c.from, c.path] : [c.path]) {
        const now = files.get(path);
        if (!EditJournal.vouches(journal, path, now ? fileKey(now) : DELETED) && !out.includes(path)) out.push(path);
      }
    }
    return out;
  }

  /** Forgets every entry: a snapshot has just recorded the files as they are. */
  clear(): void {
    rmSync(this.#path, { force: true });
  }
}
