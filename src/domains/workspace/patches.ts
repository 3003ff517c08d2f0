// File changes as a person reads them: a unified diff for text, a one-line note for binary
// files, pure renames and mode-only changes. Shared by `forge files diff`, the MCP server
// and the web page.
import { createRequire } from "node:module";
import type * as Diff from "diff";
import type { FileInfo } from "../../objects/file-tree.js";
import type { FileChange } from "./workspace.js";

export interface FilePatch {
  readonly path: string;
  readonly kind: FileChange["kind"];
  readonly from?: string;
  /** A unified diff (git's a/ b/ names, 3 lines of context); null when `note` says why not. */
  readonly patch: string | null;
  readonly note: string | null;
}

type Reader = (f: FileInfo, side: "before" | "after", path: string) => Promise<Buffer>;

/** Whether bytes look like text (no NUL in the first 8 KB, as git decides). */
export function isText(data: Buffer): boolean {
  return !data.subarray(0, 8192).includes(0);
}

let diffModule: typeof Diff | undefined;
function diff(): typeof Diff {
  // Loaded on first use: most commands never diff.
  diffModule ??= createRequire(import.meta.url)("diff") as typeof Diff;
  return diffModule;
}

async function content(f: FileInfo | null, side: "before" | "after", path: string, read: Reader): Promise<Buffer> {
  if (f?.type === "f") return read(f, side, path);
  if (f?.type === "l") return Buffer.from(`→ ${f.target ?? ""}\n`);
  return Buffer.alloc(0);
}

/** The patch of one change; `read` gives a file's bytes on either side (Workspace.diff's reader). */
export async function filePatch(ch: FileChange, read: Reader): Promise<FilePatch> {
  const base = { path: ch.path, kind: ch.kind, ...(ch.from !== undefined && { from: ch.from }) };
  if (ch.kind === "renamed" && ch.before?.hash === ch.after?.hash) return { ...base, patch: null, note: `renamed from ${ch.from}, content unchanged` };
  const before = await content(ch.before, "before", ch.from ?? ch.path, read);
  const after = await content(ch.after, "after", ch.path, read);
  if (!isText(before) || !isText(after)) return { ...base, patch: null, note: `binary file ${ch.kind} (${before.length} → ${after.length} bytes)` };
  if (before.equals(after)) {
    const note =
      ch.before && ch.after && ch.before.mode !== ch.after.mode ? `mode ${ch.before.mode.toString(8)} → ${ch.after.mode.toString(8)}` : "no content change";
    return { ...base, patch: null, note };
  }
  const patch = diff().createTwoFilesPatch(
    ch.kind === "created" ? "/dev/null" : `a/${ch.from ?? ch.path}`,
    ch.kind === "deleted" ? "/dev/null" : `b/${ch.path}`,
    before.toString("utf8"),
    after.toString("utf8"),
    undefined,
    undefined,
    { context: 3 },
  );
  return { ...base, patch, note: null };
}
