// One host's config edits, enabled and disabled file by file on a ProjectFiles view. Enable
// starts again from the user's original while a file is still what an earlier enable wrote
// (so enabling twice changes nothing and an upgrade rewrites Forge's entries cleanly);
// disable undoes enable's edits byte for byte while the file is still what enable wrote,
// and otherwise takes Forge's own entries out and leaves the user's later edits alone.
import { ForgeError } from "../../../core/errors.js";
import type { ConfigEdit, HostConfigSpec, HostId } from "../types.js";
import { applyJsonOps, type EntriesState, isEmptyJsonObject, jsonEntriesState, removeJsonEntries } from "./edit-json.js";
import { applyTomlOps, removeTomlEntries, tomlEntriesState } from "./edit-toml.js";
import { deepEqual } from "./entries.js";
import { textHash } from "./file-io.js";
import type { FileRecord, HostRecord } from "./manifest.js";
import type { ProjectFiles } from "./project-files.js";
import { disableScript, enableScript, scriptState } from "./script-edit.js";
import { undoSteps } from "./text-edits.js";

/** What a command did to one file. */
export interface FileChange {
  /** Relative to the project root. */
  readonly file: string;
  /**
   * created / updated: enable wrote it; unchanged: it was as it should be; restored: disable
   * put the user's original back, byte for byte; cleaned: disable took Forge's entries out of
   * a file the user changed since; deleted: disable removed a file enable had created;
   * missing: the file was gone; kept: disable left a file it could not tell was Forge's.
   */
  readonly action: "created" | "updated" | "unchanged" | "restored" | "cleaned" | "deleted" | "missing" | "kept";
  readonly warnings: readonly string[];
}

/** One file's part of a host's state. */
export interface FileState extends EntriesState {
  readonly file: string;
  /** Why the file could not be read (malformed): it then counts as neither installed nor current. */
  readonly problem?: string;
}

/** A spec's edits, one per file (two edits of one file are applied one after the other). */
function byFile(edits: readonly ConfigEdit[]): ConfigEdit[] {
  const out = new Map<string, ConfigEdit>();
  for (const e of edits) {
    const before = out.get(e.file);
    if (before === undefined) out.set(e.file, e);
    else if (before.format === "json" && e.format === "json") out.set(e.file, { ...before, ops: [...before.ops, ...e.ops] });
    else if (before.format === "toml" && e.format === "toml") out.set(e.file, { ...before, ops: [...before.ops, ...e.ops] });
    else throw new Error(`${e.file} is edited in two formats`);
  }
  return [...out.values()];
}

const union = <T>(a: readonly T[], b: readonly T[]): T[] => [...a, ...b.filter((x) => !a.some((y) => deepEqual(x, y)))];

/** The text to start enabling from, and what is known about it. */
function startingPoint(before: string | null, prev: FileRecord | undefined): { base: string | null; exact: boolean; existed: boolean; originalHash: string } {
  if (prev === undefined || before === null) return { base: before, exact: true, existed: before !== null, originalHash: textHash(before) };
  if (textHash(before) !== prev.writtenHash) return { base: before, exact: false, existed: prev.existed, originalHash: prev.originalHash };
  // Still what enable wrote: start again from what it was before.
  if (!prev.existed) return { base: null, exact: true, existed: false, originalHash: "" };
  const base = undoSteps(before, prev.undo);
  return { base, exact: prev.exact && textHash(base) === prev.originalHash, existed: true, originalHash: prev.originalHash };
}

/** Plans one file's edit; returns its new record (undefined: enable added nothing there) and what it did. */
function enableFile(files: ProjectFiles, edit: ConfigEdit, prev: FileRecord | undefined): { record: FileRecord | undefined; change: FileChange } {
  if (edit.format === "script") {
    const { record, change } = enableScript(files, edit, prev);
    return { record, change: { file: edit.file, ...change } };
  }
  const before = files.read(edit.file);
  const start = startingPoint(before, prev);
  const unchanged = { record: prev, change: { file: edit.file, action: "unchanged", warnings: [] } as FileChange };
  let text: string;
  let record: FileRecord;
  let warnings: readonly string[] = [];
  if (edit.format === "owned") {
    if (before === edit.text) return unchanged;
    if (before !== null && (prev === undefined || textHash(before) !== prev.writtenHash)) {
      throw new ForgeError("INVALID_ARGUMENT", `${edit.file} exists and is not Forge's`, {
        hint: "move it away, then run forge enable again (nothing was changed)",
        data: { path: edit.file },
      });
    }
    text = edit.text;
    record = { format: "owned", existed: false, originalHash: "", writtenHash: textHash(text), undo: [], exact: true, createdDirs: prev?.createdDirs ?? [] };
  } else {
    const createdDirs = prev?.createdDirs ?? [];
    const base = (r: { readonly text: string; readonly undo: FileRecord["undo"] }) => ({
      existed: start.existed,
      originalHash: start.originalHash,
      writtenHash: textHash(r.text),
      undo: start.existed ? r.undo : [],
      exact: start.exact,
      createdDirs,
    });
    if (edit.format === "json") {
      const owned = prev?.format === "json" ? prev : undefined;
      const r = applyJsonOps(edit.file, start.base, edit.ops, owned?.added ?? []);
      warnings = r.warnings;
      text = r.text;
      record = { ...base(r), format: "json", added: union(owned?.added ?? [], r.added), created: union(owned?.created ?? [], r.created) };
    } else {
      const owned = prev?.format === "toml" ? prev : undefined;
      const r = applyTomlOps(edit.file, start.base, edit.ops, owned?.added ?? []);
      warnings = r.warnings;
      text = r.text;
      record = { ...base(r), format: "toml", added: union(owned?.added ?? [], r.added), created: union(owned?.created ?? [], r.created) };
    }
    if (text === before) return { ...unchanged, change: { ...unchanged.change, warnings } };
  }
  const made = files.write(edit.file, text);
  if (made.length > 0) record = { ...record, createdDirs: union(record.createdDirs, made) };
  return { record, change: { file: edit.file, action: before === null ? "created" : "updated", warnings } };
}

/**
 * Plans enabling a host: its edits, with `forge` the command its hooks run. `prev` is what
 * an earlier enable recorded. Returns the host's new record and what happens to each file.
 */
export function planEnableHost(
  files: ProjectFiles,
  spec: HostConfigSpec,
  forge: string,
  prev: HostRecord | undefined,
): { record: HostRecord; changes: FileChange[] } {
  const records: Record<string, FileRecord> = { ...(prev?.files ?? {}) };
  const changes: FileChange[] = [];
  for (const edit of byFile(spec.edits(forge, files))) {
    const { record, change } = enableFile(files, edit, prev?.files[edit.file]);
    if (record) records[edit.file] = record;
    changes.push(change);
  }
  return { record: { enabledAt: prev?.enabledAt ?? new Date().toISOString(), command: forge, files: records }, changes };
}

/** Plans taking one file back to what it was before enable. */
function disableFile(files: ProjectFiles, host: HostId, file: string, rec: FileRecord): FileChange {
  if (rec.format === "script") return { file, ...disableScript(files, file, rec) };
  const cur = files.read(file);
  files.removeIfEmpty(rec.createdDirs);
  if (cur === null) return { file, action: "missing", warnings: [] };
  const asWritten = textHash(cur) === rec.writtenHash;
  if (asWritten && !rec.existed) {
    files.write(file, null);
    return { file, action: "deleted", warnings: [] };
  }
  if (rec.format === "owned") return { file, action: "kept", warnings: [`left ${file}: it changed since forge enable wrote it`] };
  let text = asWritten ? undoSteps(cur, rec.undo) : cur;
  if (asWritten && rec.exact && textHash(text) === rec.originalHash) {
    files.write(file, text);
    return { file, action: "restored", warnings: [] };
  }
  text = rec.format === "json" ? removeJsonEntries(file, text, rec.added, rec.created, host) : removeTomlEntries(file, text, rec.added, rec.created);
  const empty = rec.format === "json" ? isEmptyJsonObject(file, text) : text.trim() === "";
  if (!rec.existed && empty) {
    files.write(file, null);
    return { file, action: "deleted", warnings: [] };
  }
  files.write(file, text);
  return { file, action: text === cur ? "unchanged" : "cleaned", warnings: [] };
}

/** Plans disabling a host: every file its record names. */
export function planDisableHost(files: ProjectFiles, host: HostId, record: HostRecord): FileChange[] {
  return Object.entries(record.files).map(([file, rec]) => disableFile(files, host, file, rec));
}

/** Whether each of the host's files holds Forge's entries (installed), exactly as this version writes them (current). */
export function hostFileStates(files: ProjectFiles, spec: HostConfigSpec, forge: string): FileState[] {
  let edits: readonly ConfigEdit[];
  try {
    edits = spec.edits(forge, files);
  } catch (e) {
    // The project is in a state the host cannot be wired in (Cline's .clinerules a file): said, not thrown.
    if (!(e instanceof ForgeError)) throw e;
    return [{ file: String(e.data["path"] ?? "."), installed: false, current: false, problem: e.message }];
  }
  return byFile(edits).map((edit) => {
    try {
      if (edit.format === "script") return { file: edit.file, ...scriptState(files, edit) };
      const text = files.read(edit.file);
      if (edit.format === "owned") return { file: edit.file, installed: text !== null, current: text === edit.text };
      return { file: edit.file, ...(edit.format === "json" ? jsonEntriesState(edit.file, text, edit.ops) : tomlEntriesState(edit.file, text, edit.ops)) };
    } catch (e) {
      return { file: edit.file, installed: false, current: false, problem: (e as Error).message };
    }
  });
}
