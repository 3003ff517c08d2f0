// Forge's keys in a host's TOML config (Codex's .codex/config.toml). toml-eslint-parser
// locates every table and key in the text without rewriting it; a key goes in as one line
// after the last key of its table (a missing table is appended at the end), and the result
// is parsed again with smol-toml to check it holds what was meant before anything is written.
import { parse as parseToml } from "smol-toml";
import { type AST, ParseError, parseTOML } from "toml-eslint-parser";
import { ForgeError } from "../../../core/errors.js";
import type { TomlOp } from "../types.js";
import { deepEqual } from "./entries.js";
import type { EntriesState } from "./edit-json.js";
import { applyTextEdits, applyWithUndo, lineEnding, type TextEdit } from "./text-edits.js";

/** What applying a host's ops to one TOML file gives. */
export interface TomlEditResult {
  readonly text: string;
  /** One undo per change made, in order. */
  readonly undo: readonly (readonly TextEdit[])[];
  /** The keys Forge set. */
  readonly added: readonly TomlOp[];
  /** The tables Forge created ("mcp_servers.forge"), removed by disable when they are empty again. */
  readonly created: readonly string[];
  readonly warnings: readonly string[];
}

const NOTHING_CHANGED = "fix the file (nothing was changed), then run the command again";

/** The file's syntax tree; a file that is not valid TOML is an error naming the file and the place. */
function syntax(file: string, text: string): AST.TOMLProgram {
  try {
    return parseTOML(text);
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    const place = `line ${e.lineNumber}, column ${e.column + 1}`;
    throw new ForgeError("INVALID_ARGUMENT", `${file} is not valid TOML: ${e.message} at ${place}`, {
      hint: NOTHING_CHANGED,
      data: { path: file, line: e.lineNumber, column: e.column + 1 },
      cause: e,
    });
  }
}

/** The parsed document (smol-toml), for the values. */
function values(file: string, text: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (e) {
    throw new ForgeError("INVALID_ARGUMENT", `${file} is not valid TOML: ${(e as Error).message.split("\n")[0]}`, {
      hint: NOTHING_CHANGED,
      data: { path: file },
      cause: e,
    });
  }
}

/** The value of `key` in `table` ("a.b"), undefined when either is missing. */
function valueAt(doc: Record<string, unknown>, table: string, key: string): unknown {
  let at: unknown = doc;
  for (const part of [...table.split("."), key]) {
    if (typeof at !== "object" || at === null || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

const keyPath = (key: AST.TOMLKey): string[] => key.keys.map((k) => (k.type === "TOMLBare" ? k.name : k.value));

/** The `[table]` header section of a table, when the file has one. */
function findTable(program: AST.TOMLProgram, table: string): AST.TOMLTable | undefined {
  const parts = table.split(".");
  for (const node of program.body[0].body) if (node.type === "TOMLTable" && node.kind === "standard" && deepEqual(keyPath(node.key), parts)) return node;
  return undefined;
}

const bareKey = (k: string): string => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k));

/** A value as TOML text (basic strings, arrays on one line). */
function tomlValue(v: TomlOp["value"]): string {
  if (typeof v === "string") return JSON.stringify(v).replace(/\u007f/g, "\\u007F");
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return `[${v.map((x) => tomlValue(x)).join(", ")}]`;
}

/** Where the line holding `offset` ends (after its line break), or -1 when it is the last line and has none. */
function afterLine(text: string, offset: number): number {
  const nl = text.indexOf("\n", offset);
  return nl < 0 ? -1 : nl + 1;
}

/** The edit that adds `key = value` to `table`: after its last key, or as a new table at the end. */
function addKey(text: string, program: AST.TOMLProgram, op: TomlOp): { readonly edit: TextEdit; readonly createdTable: boolean } {
  const eol = lineEnding(text);
  const line = `${bareKey(op.key)} = ${tomlValue(op.value)}`;
  const table = findTable(program, op.table);
  if (table) {
    const at = afterLine(text, table.body.at(-1)?.range[1] ?? table.key.range[1]);
    return {
      edit: at < 0 ? { offset: text.length, length: 0, content: `${eol}${line}` } : { offset: at, length: 0, content: `${line}${eol}` },
      createdTable: false,
    };
  }
  let prefix = "";
  if (text.length > 0) {
    if (!text.endsWith("\n")) prefix += eol;
    if (!/\n[ \t]*\r?\n$/.test(text + prefix) && (text + prefix).trim() !== "") prefix += eol;
  }
  const header = `[${op.table.split(".").map(bareKey).join(".")}]`;
  return { edit: { offset: text.length, length: 0, content: `${prefix}${header}${eol}${line}${eol}` }, createdTable: true };
}

/**
 * Applies Forge's ops to a TOML file's text (null: the file does not exist). A key the user
 * set already is left as it is (a warning says so when its value differs); one an earlier
 * enable added (`owned`) is brought up to date.
 */
export function applyTomlOps(file: string, text: string | null, ops: readonly TomlOp[], owned: readonly TomlOp[]): TomlEditResult {
  const undo: (readonly TextEdit[])[] = [];
  const added: TomlOp[] = [];
  const created: string[] = [];
  const warnings: string[] = [];
  let cur = text ?? "";
  for (const op of ops) {
    if (op.table === "") throw new Error(`a TOML op needs a table (${op.key})`);
    const program = syntax(file, cur);
    const existing = valueAt(values(file, cur), op.table, op.key);
    let edit: TextEdit;
    if (existing !== undefined) {
      if (deepEqual(existing, op.value)) continue;
      const kv = findTable(program, op.table)?.body.find((n) => deepEqual(keyPath(n.key), [op.key]));
      if (!owned.some((o) => o.table === op.table && o.key === op.key) || kv === undefined) {
        warnings.push(`left ${op.key} in [${op.table}] of ${file} as it is`);
        continue;
      }
      edit = { offset: kv.value.range[0], length: kv.value.range[1] - kv.value.range[0], content: tomlValue(op.value) };
    } else {
      const add = addKey(cur, program, op);
      edit = add.edit;
      if (add.createdTable) created.push(op.table);
    }
    const step = applyWithUndo(cur, [edit]);
    // Parsed again: an insertion the file's layout makes invalid (a table defined inline, or by dotted keys) is refused here.
    let check: unknown;
    try {
      check = valueAt(parseToml(step.text) as Record<string, unknown>, op.table, op.key);
    } catch (e) {
      check = e;
    }
    if (!deepEqual(check, op.value)) {
      throw new ForgeError("INVALID_ARGUMENT", `cannot add ${op.key} to [${op.table}] in ${file}: the table is written in a form Forge does not edit`, {
        hint: `add \`${op.key} = ${tomlValue(op.value)}\` to [${op.table}] yourself, then run the command again (nothing was changed)`,
        data: { path: file, table: op.table, key: op.key },
      });
    }
    if (text !== null) undo.push(step.undo);
    added.push(op);
    cur = step.text;
  }
  return { text: cur, undo, added, created, warnings };
}

/** The span of the line(s) holding a node, with its line break, when nothing else is on them; else the node alone. */
function lineSpan(text: string, range: readonly [number, number]): { readonly offset: number; readonly length: number } {
  const start = text.lastIndexOf("\n", range[0] - 1) + 1;
  const end = afterLine(text, range[1]);
  const rest = text.slice(range[1], end < 0 ? text.length : end);
  if (text.slice(start, range[0]).trim() !== "" || !/^[ \t]*(#.*)?\r?\n?$/.test(rest)) return { offset: range[0], length: range[1] - range[0] };
  return { offset: start, length: (end < 0 ? text.length : end) - start };
}

/** Takes out of a file the user changed since enable the keys Forge `added`, then the tables it `created` that are empty again. */
export function removeTomlEntries(file: string, text: string, added: readonly TomlOp[], created: readonly string[]): string {
  let cur = text;
  for (const op of [...added].reverse()) {
    const kv = findTable(syntax(file, cur), op.table)?.body.find((n) => deepEqual(keyPath(n.key), [op.key]));
    if (kv === undefined) continue;
    cur = applyTextEdits(cur, [{ ...lineSpan(cur, kv.range), content: "" }]);
  }
  for (const name of created) {
    const program = syntax(file, cur);
    const table = findTable(program, name);
    if (table === undefined || table.body.length > 0) continue;
    const nodes = program.body[0].body;
    const next = nodes[nodes.indexOf(table) + 1];
    const headerEnd = afterLine(cur, table.range[1]);
    const end = next ? next.range[0] : cur.length;
    if (headerEnd >= 0 && cur.slice(headerEnd, end).trim() !== "") continue;
    let start = cur.lastIndexOf("\n", table.range[0] - 1) + 1;
    // The blank line enable put before the table goes with it.
    if (/\n[ \t]*\r?\n$/.test(cur.slice(0, start))) start = cur.lastIndexOf("\n", start - 2) + 1;
    cur = cur.slice(0, start) + cur.slice(headerEnd < 0 ? cur.length : Math.min(headerEnd, end));
  }
  values(file, cur);
  return cur;
}

/** Whether the ops' keys are set (`installed`), and to these values (`current`). */
export function tomlEntriesState(file: string, text: string | null, ops: readonly TomlOp[]): EntriesState {
  if (text === null) return { installed: false, current: false };
  syntax(file, text);
  const doc = values(file, text);
  const found = ops.map((op) => valueAt(doc, op.table, op.key));
  return { installed: found.every((v) => v !== undefined), current: found.every((v, i) => deepEqual(v, ops[i]?.value)) };
}
