// What the importers share when they look for sessions: whether a recorded working folder is
// the project's (its root or a folder inside it, by path — `shop-api-legacy` is not in
// `shop-api`), the entries of a host's folders (a folder that is not there is no error), and
// the first records of a transcript, which say where and as which session it ran.
import { closeSync, type Dirent, openSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, resolve, sep } from "node:path";
import { lineKey, parseLine } from "../capture/jsonl.js";
import { hostRecord } from "../capture/messages.js";
import type { CapturedMessage, HostCapture, HostId, TranscriptCursor } from "../types.js";
import type { FoundSession, ImportRead, ProjectMatch } from "./types.js";
import { readZstd } from "./zstd.js";

/** How much of a transcript's start is read to place it: a first look, then more while no record says. */
const FIRST_LOOK = 16 * 1024;
const MOST = 1024 * 1024;

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path; // a folder that no longer exists: its path as recorded
  }
}

/** The matcher for the project at `root`: its path as given and as its real path (a recorded cwd may be either). */
export function projectMatch(root: string): ProjectMatch {
  const roots = [...new Set([resolve(root), realOr(resolve(root))])];
  const inside = (p: string) => roots.some((r) => p === r || p.startsWith(r.endsWith(sep) ? r : `${r}${sep}`));
  const known = new Map<string, boolean>();
  const match = (cwd: string): boolean => {
    if (typeof cwd !== "string" || !isAbsolute(cwd)) return false;
    let hit = known.get(cwd);
    if (hit === undefined) {
      const p = resolve(cwd);
      hit = inside(p) || inside(realOr(p));
      known.set(cwd, hit);
    }
    return hit;
  };
  return Object.assign(match, { roots });
}

/** The entries of `dir`; none when it does not exist (or is not a folder). */
export function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw e;
  }
}

/** The folders in `dir`, by name. */
export function folders(dir: string): string[] {
  return entries(dir)
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
}

/** When `path` last changed, if it is a file changed at or after `since` (null: any time); undefined otherwise. */
export function changedSince(path: string, since: Date | null): Date | undefined {
  let mtime: Date;
  try {
    const st = statSync(path);
    if (!st.isFile()) return undefined;
    mtime = st.mtime;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined; // gone since it was listed
    throw e;
  }
  return since === null || mtime.getTime() >= since.getTime() ? mtime : undefined;
}

/**
 * The first record of a JSONL transcript (`.zst`: decompressed) that `wanted` accepts, among
 * the complete lines of its first megabyte; undefined when none is there (yet).
 */
export function firstRecord(path: string, label: string, wanted: (record: unknown) => boolean): unknown {
  for (let size = FIRST_LOOK; ; size *= 4) {
    const head = path.endsWith(".zst") ? readZstd(path, label, size).data.subarray(0, size) : readHead(path, size);
    const end = head.lastIndexOf(0x0a);
    for (const line of end < 0 ? [] : head.subarray(0, end).toString("utf8").split("\n")) {
      const parsed = line.trim() === "" ? undefined : parseLine(line);
      if (parsed?.ok && wanted(parsed.value)) return parsed.value;
    }
    if (head.length < size || size >= MOST) return undefined;
  }
}

function readHead(path: string, size: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(size);
    return buf.subarray(0, readSync(fd, buf, 0, size, 0));
  } finally {
    closeSync(fd);
  }
}

/** `dir/name` for each file in `dir` whose name passes `keep`. */
export function filesIn(dir: string, keep: (name: string) => boolean): string[] {
  return entries(dir)
    .filter((e) => e.isFile() && keep(e.name))
    .map((e) => join(dir, e.name));
}

/** A found session read from `cursor` on by its host's live transcript reader: what live capture reads, import reads. */
export function readWithCapture(capture: HostCapture, found: FoundSession, cursor: TranscriptCursor | null): ImportRead {
  if (capture.transcript === undefined) throw new Error(`${found.host} keeps no transcript a hook can read`);
  const r = capture.transcript.read(found.path, cursor);
  return { messages: r.messages, cursor: r.cursor, reset: r.reset === true };
}

/** The messages of JSONL lines read apart from the live reader, keyed as it keys them; a line that is not JSON kept whole. */
export function linesToMessages(
  host: HostId,
  lines: readonly { readonly offset: number; readonly text: string }[],
  toMessages: (value: unknown, key: string) => CapturedMessage[],
): CapturedMessage[] {
  return lines.flatMap((line) => {
    const key = lineKey(line.offset, line.text);
    const parsed = parseLine(line.text);
    return parsed.ok ? toMessages(parsed.value, key) : [hostRecord(host, key, line.text, undefined, "not JSON")];
  });
}
