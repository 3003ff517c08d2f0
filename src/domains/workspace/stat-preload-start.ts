// Starts the stat preload (stat-preload.ts) for bin/forge.js, before the CLI is loaded: GNU
// find, given the tree cache's file paths, lists those whose inode changed since the kept
// stats were taken. Bundled into walk-preload-start.cjs, so starting it costs bin/forge.js
// a read of the tree cache's header, types and text, two files written and one spawn (~5 ms on
// 10,000 files).
import { closeSync, existsSync, openSync, readSync, statfsSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { CHUNK, type StatPreloadHandle } from "./stat-preload.js";

/** Fewer files than this are lstat'ed by the main thread sooner than find would start. */
const MIN_FILES = 2000;
/** Kept stats this close before the walk that took them are racy (quick-status.ts RACY_MS). */
const RACY_MS = 1000;

// The tree cache's layout (tree-cache.ts, not imported: it would bring its hashing into this
// starter, which runs before the CLI loads): the header, the root hash, then the columns.
const HEADER = 48;
const ROOT_BYTES = 32;
const TYPE_LINK = 0x6c; // "l"

/** What bin/forge.js's process_wrap handle offers (Node's own ChildProcess is built on it). */
interface ProcessWrap {
  spawn(options: object): number;
  kill(signal: number): number;
  close(): void;
  unref(): void;
  onexit: (code: number, signal: string) => void;
}

/**
 * Starts find on the workspace `root` when its tree cache keeps stats (FTC2) for at least
 * MIN_FILES files; undefined otherwise, and whenever anything fails (the comparison then
 * lstat's every file itself). Linux only: elsewhere find is not GNU's.
 */
export function startStatPreload(root: string, minFiles = MIN_FILES): StatPreloadHandle | undefined {
  if (process.platform !== "linux" || !localClock(root)) return undefined;
  const startedAt = Date.now();
  const forgeDir = join(root, ".forge");
  let plan: ReturnType<typeof pathsOf>;
  try {
    const fd = openSync(join(forgeDir, "tree-cache.bin"), "r");
    try {
      plan = pathsOf(fd, minFiles);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (plan === undefined) return undefined;
  const wrap = processWrap();
  if (wrap === undefined) return undefined;
  const fds: number[] = [];
  try {
    const [input, output] = ["in", "out"].map((name) => {
      // Unlinked at once: nothing is left behind however the command ends.
      const path = join(forgeDir, `stat-preload-${process.pid}-${name}`);
      const fd = openSync(path, "wx+", 0o600);
      fds.push(fd);
      unlinkSync(path);
      return fd;
    }) as [number, number];
    writeSync(input, plan.list, 0, plan.list.length, 0);
    // Listed: a file whose ctime is after `since` (the kept stats' racy bound, less a millisecond).
    const since = plan.takenAt - RACY_MS - 1;
    const p = new wrap();
    let running = false;
    p.onexit = () => {
      running = false;
      p.close();
    };
    const args = ["find", "-files0-from", "-", "-maxdepth", "0", "(", "-path", ".", "-printf", "/\\0", ")"];
    args.push("-o", "(", "-newerct", `@${(since / 1000).toFixed(3)}`, "-printf", "%p\\0", ")");
    const failed = p.spawn({
      // The system's own where it is (a search of PATH tries each folder in turn), else PATH's.
      file: existsSync("/usr/bin/find") ? "/usr/bin/find" : "find",
      args,
      cwd: root,
      envPairs: [`PATH=${process.env["PATH"] ?? "/usr/bin:/bin"}`, "LC_ALL=C"],
      stdio: [{ type: "fd", fd: input }, { type: "fd", fd: output }, { type: "ignore" }],
      detached: false,
      windowsHide: true,
    });
    closeSync(input);
    fds.shift();
    if (failed !== 0) {
      p.close();
      throw new Error(`find: ${failed}`);
    }
    running = true;
    p.unref();
    const stop = () => {
      if (!running) return;
      running = false;
      p.kill(15);
      p.close();
    };
    return { kind: "stat", root, startedAt, treeRoot: plan.treeRoot, nFiles: plan.nFiles, since, outFd: output, stop };
  } catch {
    for (const fd of fds) closeSync(fd);
    return undefined;
  }
}

/**
 * The file systems whose ctimes come from this machine's clock (`statfs` magic numbers): ext2–4,
 * XFS, Btrfs, tmpfs, overlayfs, ZFS, F2FS. On a network file system the server's clock sets
 * them, and one behind ours would date a change before the racy bound.
 */
const LOCAL_FILE_SYSTEMS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0x2fc12fc1, 0xf2f52010]);

function localClock(root: string): boolean {
  try {
    return LOCAL_FILE_SYSTEMS.has(statfsSync(root).type);
  } catch {
    return false;
  }
}

/**
 * find's input from the tree cache open as `fd`: its file paths, each + NUL, with "." after
 * every CHUNK of them and after the last; undefined for a cache without stats or with too
 * few files. Reads only the header, the types and the text (~15 % of the file).
 */
function pathsOf(fd: number, minFiles: number): { list: Buffer; treeRoot: string; nFiles: number; takenAt: number } | undefined {
  const head = Buffer.alloc(HEADER + ROOT_BYTES);
  if (readSync(fd, head, 0, head.length, 0) !== head.length || head.toString("latin1", 0, 4) !== "FTC2") return undefined;
  const nDirs = head.readUInt32LE(4);
  const nFiles = head.readUInt32LE(8);
  const textBytes = head.readUInt32LE(12);
  if (nFiles < minFiles) return undefined;
  const typesAt = HEADER + ROOT_BYTES + 8 * (nDirs + 2 * nFiles) + 32 * (nDirs + nFiles);
  // The types, the text (folders' paths, files' paths, then symlinks' targets, each + NUL) and the time the stats were taken.
  const tail = Buffer.alloc(nFiles + textBytes + 8);
  if (readSync(fd, tail, 0, tail.length, typesAt) !== tail.length) return undefined;
  // Searched as a Latin-1 string: one character a byte, and String#indexOf costs far less a call than Buffer#indexOf.
  const text = tail.toString("latin1", nFiles, nFiles + textBytes);
  let at = 0;
  for (let i = 0; i < nDirs; i++) {
    at = text.indexOf("\0", at) + 1;
    if (at === 0) return undefined;
  }
  const parts: Buffer[] = [];
  const marker = Buffer.from(".\0", "latin1");
  for (let j = 0; j < nFiles; j += CHUNK) {
    const from = at;
    for (let k = Math.min(j + CHUNK, nFiles) - j; k > 0; k--) {
      at = text.indexOf("\0", at) + 1;
      if (at === 0) return undefined;
    }
    parts.push(tail.subarray(nFiles + from, nFiles + at), marker);
  }
  // Symlinks' targets follow the paths; their count says the paths ended where they should.
  let links = 0;
  for (let t = tail.indexOf(TYPE_LINK); t !== -1 && t < nFiles; t = tail.indexOf(TYPE_LINK, t + 1)) links++;
  for (let k = 0; k < links; k++) at = text.indexOf("\0", at) + 1;
  if (at !== textBytes) return undefined;
  return { list: Buffer.concat(parts), treeRoot: head.toString("hex", HEADER), nFiles, takenAt: tail.readDoubleLE(nFiles + textBytes) };
}

/**
 * Node's process handle, as child_process drives it: spawning through it costs ~1.5 ms where
 * loading child_process first costs ~3.5 ms more. Not a public API (process.binding is
 * deprecated for userland), so used only when it has the shape child_process uses and Node is
 * not asked to warn about pending deprecations; otherwise no preload starts.
 */
function processWrap(): (new () => ProcessWrap) | undefined {
  const flags = [...process.execArgv, ...(process.env["NODE_OPTIONS"] ?? "").split(/\s+/)];
  if (flags.some((f) => f.endsWith("-deprecation")) || process.env["NODE_PENDING_DEPRECATION"] === "1") return undefined;
  try {
    const binding = (process as unknown as { binding?: (name: string) => unknown }).binding;
    const Process = typeof binding === "function" ? (binding.call(process, "process_wrap") as { Process?: unknown }).Process : undefined;
    if (typeof Process !== "function") return undefined;
    const proto = (Process as { prototype: Record<string, unknown> }).prototype;
    return ["spawn", "kill", "close", "unref"].every((m) => typeof proto[m] === "function") ? (Process as new () => ProcessWrap) : undefined;
  } catch {
    return undefined;
  }
}
