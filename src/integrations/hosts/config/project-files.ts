// The project's files as `forge enable` and `forge disable` are about to leave them: every
// change is planned on this view first (each file read, parsed and edited in memory, so a
// malformed file stops the command before anything is written), then written in one go.
import { dirname, join } from "node:path";
import { deleteFile, makeFolder, missingFolders, readTextFile, removeEmptyFolders, writeTextFile } from "./file-io.js";

/** A project's files with the changes planned so far laid over them; `commit` writes them. */
export class ProjectFiles {
  /** The project root (the folder holding .forge). */
  readonly root: string;
  readonly #planned = new Map<string, string | null>();
  readonly #folders = new Set<string>();
  readonly #emptied = new Set<string>();

  constructor(root: string) {
    this.root = root;
  }

  /** A file's text as planned so far (null: absent), by its path relative to the root. */
  read(file: string): string | null {
    return this.#planned.has(file) ? (this.#planned.get(file) ?? null) : readTextFile(join(this.root, file));
  }

  /** Plans a file's new text (null: delete it). Returns the folders that must be created for it. */
  write(file: string, text: string | null): string[] {
    this.#planned.set(file, text);
    if (text === null) return [];
    const missing = missingFolders(this.root, dirname(file));
    for (const d of missing) this.#folders.add(d);
    return missing;
  }

  /** Plans removing these folders once the files are written, those that are empty then. */
  removeIfEmpty(folders: readonly string[]): void {
    for (const d of folders) this.#emptied.add(d);
  }

  /** Writes what was planned: folders, then files, then the folders to remove that are empty. */
  commit(): void {
    for (const d of [...this.#folders].sort()) makeFolder(this.root, d);
    for (const [file, text] of this.#planned) {
      const abs = join(this.root, file);
      if (text === null) deleteFile(abs);
      else if (readTextFile(abs) !== text) writeTextFile(abs, text);
    }
    removeEmptyFolders(this.root, [...this.#emptied]);
    this.#planned.clear();
    this.#folders.clear();
    this.#emptied.clear();
  }
}
