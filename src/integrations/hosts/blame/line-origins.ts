// Where each line of a file's last version came from, as git blame finds it: the versions are
// diffed one after the other (jsdiff's Myers diff over lines), a line kept by a step keeps the
// origin it had, and a line a step inserted or changed takes that step's. Pure.
import { createRequire } from "node:module";
import type * as Diff from "diff";

/** Above this many inserted plus deleted lines between two versions the step counts as a rewrite of the part that differs. */
const MAX_EDIT = 4000;

let diffModule: typeof Diff | undefined;
function jsdiff(): typeof Diff {
  // Loaded on first use, as the workspace's patches do: most commands never diff.
  diffModule ??= createRequire(import.meta.url)("diff") as typeof Diff;
  return diffModule;
}

/** A file's text as lines: split at "\n" (a "\r" before it stays with its line); a last newline ends the last line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * For each line of the last of `versions` (each a file's lines, oldest first), the index of the
 * version whose step from the one before it brought the line in (the first version's lines are
 * its own). [] when there are no versions.
 */
export function lineOrigins(versions: readonly (readonly string[])[]): number[] {
  let before: readonly string[] = [];
  let origins: number[] = [];
  versions.forEach((lines, step) => {
    origins = carry(before, origins, lines, step);
    before = lines;
  });
  return origins;
}

/** The origins of `after`'s lines: those kept from `before` carry `origins`, the rest are `step`'s. */
export function carry(before: readonly string[], origins: readonly number[], after: readonly string[], step: number): number[] {
  // The common start and end cost nothing to match; the diff runs on what lies between.
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const out: number[] = origins.slice(0, head);
  const oldMid = before.slice(head, before.length - tail);
  const newMid = after.slice(head, after.length - tail);
  if (oldMid.length === 0 || newMid.length === 0) for (let i = 0; i < newMid.length; i++) out.push(step);
  else {
    const changes = jsdiff().diffArrays(oldMid, newMid, { maxEditLength: MAX_EDIT });
    if (changes === undefined) for (let i = 0; i < newMid.length; i++) out.push(step);
    else {
      let o = head;
      for (const ch of changes) {
        const n = ch.count ?? ch.value.length;
        if (ch.removed) o += n;
        else if (ch.added) for (let i = 0; i < n; i++) out.push(step);
        else for (let i = 0; i < n; i++) out.push(origins[o++] as number);
      }
    }
  }
  for (let i = origins.length - tail; i < origins.length; i++) out.push(origins[i] as number);
  return out;
}
