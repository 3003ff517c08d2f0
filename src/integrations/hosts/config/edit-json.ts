// Forge's entries in a host's JSON (or JSONC) settings file, added and taken out with
// jsonc-parser. Every byte of the user's outside what Forge inserts is kept (comments,
// formatting, key order); what Forge inserts is indented like the rest of the file.
import {
  applyEdits,
  type FormattingOptions,
  findNodeAtLocation,
  format,
  getNodeValue,
  modify,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";
import { ForgeError } from "../../../core/errors.js";
import type { HostId, JsonOp } from "../types.js";
import { deepEqual, isForgeEntry, sameCommands } from "./entries.js";
import { applyWithUndo, diffEdit, lineColumn, lineEnding, type TextEdit } from "./text-edits.js";

/** What applying a host's ops to one JSON file gives. */
export interface JsonEditResult {
  readonly text: string;
  /** One undo per change made, in order: `undoSteps(text, undo)` gives the file back. */
  readonly undo: readonly (readonly TextEdit[])[];
  /** The ops that changed the file. */
  readonly added: readonly JsonOp[];
  /** The objects and lists Forge created (their paths), removed by disable when they are empty again. */
  readonly created: readonly (readonly string[])[];
  /** What was left alone and why. */
  readonly warnings: readonly string[];
}

/** Whether Forge's entries are in the file (`installed`), and exactly as these ops write them (`current`). */
export interface EntriesState {
  readonly installed: boolean;
  readonly current: boolean;
}

const NOTHING_CHANGED = "fix the file (nothing was changed), then run the command again";

/** The file's syntax tree; a file that is not a JSON object is an error naming the file and the place. */
function parseObject(file: string, text: string): Node {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first !== undefined) {
    const { line, column } = lineColumn(text, first.offset);
    throw new ForgeError("INVALID_ARGUMENT", `${file} is not valid JSON: ${printParseErrorCode(first.error)} at line ${line}, column ${column}`, {
      hint: NOTHING_CHANGED,
      data: { path: file, line, column },
    });
  }
  if (root?.type !== "object") throw new ForgeError("INVALID_ARGUMENT", `${file} does not hold a JSON object`, { hint: NOTHING_CHANGED, data: { path: file } });
  return root;
}

/** How the file indents (the first indented line's indentation) and ends its lines. */
function formattingOf(text: string): FormattingOptions {
  const eol = lineEnding(text);
  const indent = /^([ \t]+)\S/m.exec(text)?.[1];
  if (indent?.startsWith("\t")) return { insertSpaces: false, tabSize: 4, eol };
  return { insertSpaces: true, tabSize: indent ? Math.min(indent.length, 8) : 2, eol };
}

/** The deepest object on `path` that exists (the root at worst), checking that every one on the way is an object. */
function deepestExisting(file: string, tree: Node, path: readonly string[]): { readonly path: readonly string[]; readonly node: Node } {
  let found = { path: [] as readonly string[], node: tree };
  for (let i = 1; i <= path.length; i++) {
    const node = findNodeAtLocation(tree, path.slice(0, i));
    if (node === undefined) break;
    found = { path: path.slice(0, i), node };
    if (i < path.length && node.type !== "object") {
      throw new ForgeError(
        "INVALID_ARGUMENT",
        `${file}: "${path.slice(0, i).join(".")}" is ${node.type === "array" ? "a list" : `a ${node.type}`}, where an object was expected`,
        {
          hint: NOTHING_CHANGED,
          data: { path: file, key: path.slice(0, i).join(".") },
        },
      );
    }
  }
  return found;
}

/** The deepest node on `path` that exists (the root at worst), with its path. */
function deepestNode(tree: Node, path: readonly (string | number)[]): { readonly path: readonly (string | number)[]; readonly node: Node } {
  for (let i = path.length; i > 0; i--) {
    const node = findNodeAtLocation(tree, path.slice(0, i));
    if (node !== undefined) return { path: path.slice(0, i), node };
  }
  return { path: [], node: tree };
}

/**
 * Sets `value` at `path` (or inserts it at the end of the list at `path` when `append`),
 * formatting only what is inserted: the user's bytes around it stay as they are. Into an
 * empty object or list (nothing of the user's inside), the container is formatted whole.
 */
function insert(text: string, tree: Node, path: readonly (string | number)[], value: unknown, append: boolean): string {
  const container = deepestNode(tree, path.slice(0, -1));
  const wasEmpty = (container.node.children?.length ?? 0) === 0;
  const raw = modify(text, [...path], value, { isArrayInsertion: append });
  const applied = applyEdits(text, raw);
  const first = raw[0];
  if (raw.length !== 1 || first === undefined) return applied;
  let range = { offset: first.offset, length: first.content.length };
  if (wasEmpty) {
    const grown = findNodeAtLocation(parseTree(applied) as Node, [...container.path]);
    if (grown) range = { offset: grown.offset, length: grown.length };
  }
  return applyEdits(applied, format(applied, range, formattingOf(text)));
}

/** Removes the value at `path` (a property, or a list element by index), leaving everything else as it is. */
function remove(text: string, path: readonly (string | number)[]): string {
  return applyEdits(text, modify(text, [...path], undefined, {}));
}

/**
 * Applies Forge's ops to a JSON file's text (null: the file does not exist). An append adds
 * its value unless an equal one is there, and replaces an entry of Forge's running the same
 * commands (an older version's); a set adds a missing key, and changes one only when it is
 * Forge's already (`owned`: what an earlier enable added). Nothing of the user's is changed.
 */
export function applyJsonOps(file: string, text: string | null, ops: readonly JsonOp[], owned: readonly JsonOp[]): JsonEditResult {
  const undo: (readonly TextEdit[])[] = [];
  const added: JsonOp[] = [];
  const created: (readonly string[])[] = [];
  const warnings: string[] = [];
  let cur = text ?? "";
  if (cur.trim() === "") {
    // An absent or blank file starts as an empty object.
    const seeded = `{}${lineEnding(cur)}`;
    if (text !== null) undo.push(applyWithUndo(cur, [{ offset: 0, length: cur.length, content: seeded }]).undo);
    cur = seeded;
  }
  for (const op of ops) {
    const tree = parseObject(file, cur);
    const existing = deepestExisting(file, tree, op.path);
    const node = existing.path.length === op.path.length ? existing.node : undefined;
    let next: string;
    if (op.op === "append") {
      if (node !== undefined && node.type !== "array") {
        throw new ForgeError("INVALID_ARGUMENT", `${file}: "${op.path.join(".")}" is not a list`, {
          hint: NOTHING_CHANGED,
          data: { path: file, key: op.path.join(".") },
        });
      }
      const values = (node?.children ?? []).map((c) => getNodeValue(c) as unknown);
      if (values.some((v) => deepEqual(v, op.value))) continue;
      const twin = values.findIndex((v) => sameCommands(v, op.value));
      if (node === undefined) next = insert(cur, tree, op.path, [op.value], false);
      else if (twin >= 0) next = insert(cur, tree, [...op.path, twin], op.value, false);
      else next = insert(cur, tree, [...op.path, -1], op.value, true);
      for (let i = existing.path.length + 1; i <= op.path.length; i++) created.push(op.path.slice(0, i));
    } else {
      if (node !== undefined) {
        if (deepEqual(getNodeValue(node), op.value)) continue;
        if (!owned.some((o) => o.op === "set" && deepEqual(o.path, op.path))) {
          warnings.push(`left "${op.path.join(".")}" in ${file} as it is: it is not Forge's`);
          continue;
        }
      }
      next = insert(cur, tree, op.path, op.value, false);
      for (let i = existing.path.length + 1; i < op.path.length; i++) created.push(op.path.slice(0, i));
    }
    if (text !== null) undo.push(applyWithUndo(cur, [diffEdit(cur, next)]).undo);
    added.push(op);
    cur = next;
  }
  if (text === null && !cur.endsWith("\n")) cur += "\n";
  return { text: cur, undo, added, created, warnings };
}

/**
 * Takes Forge's entries out of a file the user changed since enable: the values `added`
 * put in (or, in a list, any entry whose commands are all `forge … hook … --host <host>`),
 * then the objects and lists Forge `created` that are empty again. The rest stays as it is.
 */
export function removeJsonEntries(file: string, text: string, added: readonly JsonOp[], created: readonly (readonly string[])[], host: HostId): string {
  let cur = text;
  for (const op of [...added].reverse()) {
    const node = findNodeAtLocation(parseObject(file, cur), [...op.path]);
    if (node === undefined) continue;
    if (op.op === "set") {
      cur = remove(cur, op.path);
      continue;
    }
    if (node.type !== "array") continue;
    const values = (node.children ?? []).map((c) => getNodeValue(c) as unknown);
    for (let i = values.length - 1; i >= 0; i--) if (deepEqual(values[i], op.value) || isForgeEntry(values[i], host)) cur = remove(cur, [...op.path, i]);
  }
  for (const path of [...created].sort((a, b) => b.length - a.length)) {
    const node = findNodeAtLocation(parseObject(file, cur), [...path]);
    if (node && (node.type === "object" || node.type === "array") && (node.children?.length ?? 0) === 0) cur = remove(cur, path);
  }
  return cur;
}

/** Whether the text is an object with nothing in it (what is left of a file Forge created). */
export function isEmptyJsonObject(file: string, text: string): boolean {
  return (parseObject(file, text).children?.length ?? 0) === 0;
}

/** Whether the ops' entries are in the file: each list holds its entry (or one running the same commands), each key is set. */
export function jsonEntriesState(file: string, text: string | null, ops: readonly JsonOp[]): EntriesState {
  if (text === null) return { installed: false, current: false };
  const tree = text.trim() === "" ? undefined : parseObject(file, text);
  let installed = true;
  let current = true;
  for (const op of ops) {
    const node = tree && findNodeAtLocation(tree, [...op.path]);
    if (node === undefined) {
      installed = current = false;
      continue;
    }
    if (op.op === "set") {
      if (!deepEqual(getNodeValue(node), op.value)) current = false;
      continue;
    }
    const values = node.type === "array" ? (node.children ?? []).map((c) => getNodeValue(c) as unknown) : [];
    if (!values.some((v) => deepEqual(v, op.value))) current = false;
    if (!values.some((v) => deepEqual(v, op.value) || sameCommands(v, op.value))) installed = false;
  }
  return { installed, current };
}
