// Text edits as the config editors make them (an offset, a length, what replaces it), and
// their undo: what `forge disable` applies to put a file back byte for byte while it is
// still the one `forge enable` wrote.

/** Replaces `length` characters at `offset` with `content`. */
export interface TextEdit {
  readonly offset: number;
  readonly length: number;
  readonly content: string;
}

/**
 * Applies edits (offsets into `text`, not overlapping) and returns the new text with the
 * edits that take it back to `text` (offsets into the new text).
 */
export function applyWithUndo(text: string, edits: readonly TextEdit[]): { readonly text: string; readonly undo: readonly TextEdit[] } {
  const sorted = [...edits].sort((a, b) => a.offset - b.offset);
  let out = "";
  let at = 0;
  let shift = 0;
  const undo: TextEdit[] = [];
  for (const e of sorted) {
    if (e.offset < at) throw new Error(`overlapping text edits at ${e.offset}`);
    out += text.slice(at, e.offset) + e.content;
    undo.push({ offset: e.offset + shift, length: e.content.length, content: text.slice(e.offset, e.offset + e.length) });
    shift += e.content.length - e.length;
    at = e.offset + e.length;
  }
  return { text: out + text.slice(at), undo };
}

/** Applies edits without keeping their undo. */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  return applyWithUndo(text, edits).text;
}

/** Undoes a sequence of edit steps (each the undo of one step, in the order they were made): the last first. */
export function undoSteps(text: string, steps: readonly (readonly TextEdit[])[]): string {
  let out = text;
  for (let i = steps.length - 1; i >= 0; i--) out = applyTextEdits(out, steps[i] ?? []);
  return out;
}

/** 1-based line and column of `offset` in `text`, for messages. */
export function lineColumn(text: string, offset: number): { readonly line: number; readonly column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const line = before.split("\n").length;
  return { line, column: offset - (before.lastIndexOf("\n") + 1) + 1 };
}

/** The line ending the file uses ("\r\n" when any line ends so, else "\n"). */
export function lineEnding(text: string): "\n" | "\r\n" {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

/** One edit that turns `before` into `after` (what lies between their common start and end). */
export function diffEdit(before: string, after: string): TextEdit {
  let start = 0;
  const max = Math.min(before.length, after.length);
  while (start < max && before[start] === after[start]) start++;
  let end = 0;
  while (end < max - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end++;
  return { offset: start, length: before.length - start - end, content: after.slice(start, after.length - end) };
}
