// Hook scripts a host runs by their name (Cline's `.clinerules/hooks/<Hook>`): Forge's own
// script when there is none; when the user has one, it moves beside it as
// `<name>.forge-chained` (the same bytes and mode) and Forge's script runs Forge and then it,
// so the user's hook keeps running and its answer is the one the host reads. Disable puts
// the user's file back exactly (bytes and mode) while Forge's script is as enable wrote it.
import { ForgeError } from "../../../core/errors.js";
import type { ConfigEdit } from "../types.js";
import { textHash } from "./file-io.js";
import type { FileRecord } from "./manifest.js";
import type { ProjectFiles } from "./project-files.js";

type ScriptEdit = Extract<ConfigEdit, { format: "script" }>;
type ScriptRecord = Extract<FileRecord, { format: "script" }>;

/** What enabling or disabling did to one script (the actions of wiring.ts's FileChange). */
export interface ScriptChange {
  readonly action: "created" | "updated" | "unchanged" | "restored" | "deleted" | "missing" | "kept";
  readonly warnings: readonly string[];
}

/** Where the user's own script goes: beside it, under a name the host does not run. */
export const chainedName = (file: string): string => `${baseName(file)}.forge-chained`;

const baseName = (file: string): string => file.slice(file.lastIndexOf("/") + 1);
const chainedFile = (file: string): string => `${file}.forge-chained`;
const union = (a: readonly string[], b: readonly string[]): string[] => [...a, ...b.filter((x) => !a.includes(x))];

/** Plans enabling one script; `prev` is what an earlier enable recorded for the file. */
export function enableScript(files: ProjectFiles, edit: ScriptEdit, prev: FileRecord | undefined): { record: FileRecord | undefined; change: ScriptChange } {
  const before = files.read(edit.file);
  const mine = prev?.format === "script" ? prev : undefined;
  const createdDirs = prev?.createdDirs ?? [];
  if (mine !== undefined && before !== null && textHash(before) === mine.writtenHash) {
    // Forge's script as an earlier enable wrote it: rewritten when this version writes another.
    const text = edit.script(mine.chained ? baseName(mine.chained.file) : null);
    if (text === before) return { record: prev, change: { action: "unchanged", warnings: [] } };
    files.write(edit.file, text);
    return { record: { ...mine, writtenHash: textHash(text) }, change: { action: "updated", warnings: [] } };
  }
  const fresh = edit.script(null);
  if (before === null || before === fresh) {
    // No script there (or exactly Forge's, which an earlier enable left without a record).
    const made = before === null ? files.write(edit.file, fresh, 0o755) : [];
    const record: ScriptRecord = {
      format: "script",
      existed: false,
      originalHash: "",
      writtenHash: textHash(fresh),
      undo: [],
      exact: true,
      createdDirs: union(createdDirs, made),
    };
    return { record, change: { action: before === null ? "created" : "unchanged", warnings: [] } };
  }
  const aside = chainedFile(edit.file);
  if (files.read(aside) !== null) {
    throw new ForgeError("INVALID_ARGUMENT", `${aside} is in the way of your ${baseName(edit.file)} hook`, {
      hint: "move it away, then run forge enable again (nothing was changed)",
      data: { path: aside },
    });
  }
  const mode = files.mode(edit.file) ?? 0o755;
  files.write(aside, before, mode);
  const text = edit.script(chainedName(edit.file));
  // Forge's script must run; the user's keeps its own mode (one that is not executable the host never ran, nor does Forge's script).
  files.write(edit.file, text, mode | 0o111);
  const record: ScriptRecord = {
    format: "script",
    existed: true,
    originalHash: textHash(before),
    writtenHash: textHash(text),
    undo: [],
    exact: true,
    createdDirs,
    chained: { file: aside, mode },
  };
  return { record, change: { action: "updated", warnings: [`your ${baseName(edit.file)} hook runs after Forge's, as ${chainedName(edit.file)}`] } };
}

/** Plans taking one script back out, as `rec` says enable put it in. */
export function disableScript(files: ProjectFiles, file: string, rec: ScriptRecord): ScriptChange {
  const cur = files.read(file);
  files.removeIfEmpty(rec.createdDirs);
  const chained = rec.chained;
  const theirs = chained === undefined ? null : files.read(chained.file);
  if (cur !== null && textHash(cur) !== rec.writtenHash) {
    const yours = chained === undefined ? "" : `; your own script is ${chained.file}`;
    return { action: "kept", warnings: [`left ${file}: it changed since forge enable wrote it${yours}`] };
  }
  if (chained !== undefined && theirs !== null) {
    files.write(file, theirs, chained.mode);
    files.write(chained.file, null);
    return { action: "restored", warnings: [] };
  }
  if (cur === null) return { action: "missing", warnings: [] };
  if (chained !== undefined) return { action: "kept", warnings: [`left ${file}: your own script ${chained.file} is gone`] };
  files.write(file, null);
  return { action: "deleted", warnings: [] };
}

/** Whether the script is there and runs Forge (installed), exactly as this version writes it (current). */
export function scriptState(files: ProjectFiles, edit: ScriptEdit): { installed: boolean; current: boolean } {
  const text = files.read(edit.file);
  if (text === null) return { installed: false, current: false };
  const chained = files.read(chainedFile(edit.file)) !== null ? chainedName(edit.file) : null;
  const wanted = edit.script(chained);
  return { installed: text === wanted || text === edit.script(null) || text.includes("forge enable"), current: text === wanted };
}
