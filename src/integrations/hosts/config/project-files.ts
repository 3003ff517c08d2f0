// The project's files as `forge enable` and `forge disable` are about to leave them: every
// change is planned on this view first (each file read, parsed and edited in memory, so a
// malformed file stops the command before anything is written), then written in one go.
import { dirname, join } from "node:path";
import type { ProjectView } from "../types.js";
import { deleteFile, fileMode, filesIn, makeFolder, missingFolders, readTextFile, removeEmptyFolders, writeTextFile } from "./file-io.js";

/** A project's files with the changes planned so far laid over them; `commit` writes them. */
export class ProjectFiles implements ProjectView {
  /** The project root (the folder holding .forge). */
  readonly root: string;
  readonly #planned = new Map<string, string | null>();
  /** Modes planned for files written (set whether the file exists or not). */
  readonly #modes = new Map<string, number>();
  readonly #folders = new Set<string>();
  readonly #emptied = new Set<string>();

  constructor(root: string) {
    this.root = root;
  }

  /** A file's text as planned so far (null: absent), by its path relative to the root. */
  read(file: string): string | null {
    return this.#planned.has(file) ? (this.#planned.get(file) ?? null) : readTextFile(join(this.root, file));
  }

  /** A file's mode as planned so far (null: absent). */
  mode(file: string): number | null {
    if (this.#planned.has(file)) return this.#planned.get(file) === null ? null : (this.#modes.get(file) ?? fileMode(join(this.root, file)) ?? 0o644);
    return fileMode(join(this.root, file));
  }

  /** The files in a folder (relative to the root), sorted: those on disk and those planned, less those planned away. */
  list(folder: string): string[] {
    const names = new Set(filesIn(join(this.root, folder)));
    for (const [file, text] of this.#planned) {
      if (dirname(file) !== folder) continue;
      const name = file.slice(file.lastIndexOf("/") + 1);
      if (text === null) names.delete(name);
      else names.add(name);
    }
    return [...names].sort();
  }

  /**
   * Plans a file's new text (null: delete it), with `mode` its permission bits (else an
   * existing file keeps its own, a new one gets 644). Returns the folders that must be created for it.
   */
  write(file: string, text: string | null, mode?: number): string[] {
    this.#planned.set(file, text);
    if (mode === undefined) this.#modes.delete(file);
    else this.#modes.set(file, mode);
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
      const mode = this.#modes.get(file);
      if (text === null) deleteFile(abs);
      else if (mode !== undefined) {
        if (readTextFile(abs) !== text || fileMode(abs) !== mode) writeTextFile(abs, text, mode, true);
      } else if (readTextFile(abs) !== text) writeTextFile(abs, text);
    }
    removeEmptyFolders(this.root, [...this.#emptied]);
    this.#planned.clear();
    this.#modes.clear();
    this.#folders.clear();
    this.#emptied.clear();
  }
}
