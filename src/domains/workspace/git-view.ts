// What git says about a workspace that lies in a git work tree: which files it tracks (read
// from its index: ~4 ms on 10,000 files in a fresh process, where spawning `git ls-files`
// costs ~15 ms) and its ignore files outside the tree (info/exclude, core.excludesFile), so
// that a snapshot holds every tracked file and leaves out what git ignores. Outside a work
// tree: null, and nothing changes. Read again only when the files it comes from change
// (their stat says so).
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { FORGE_DIR, readEnv } from "../../core/config.js";
import { ForgeError } from "../../core/errors.js";

export interface GitView {
  /** The work tree's root (absolute). */
  readonly top: string;
  /** The workspace root relative to `top`: "" or "a/b/". */
  readonly prefix: string;
  /** Whether git tracks file `path` (relative to the workspace root). */
  tracks(path: string): boolean;
  /** Whether git tracks a file anywhere under folder `dir` (relative to the workspace root). */
  tracksUnder(dir: string): boolean;
  /** The texts of git's ignore files outside the tree, lowest precedence first (core.excludesFile, info/exclude). */
  readonly excludes: readonly string[];
  /** Changes whenever what this view says may change: the index or an excludes file was rewritten. */
  readonly key: string;
  /** The part of `key` that is the index's, and the excludes files' part. */
  readonly indexKey: string;
  readonly excludesKey: string;
  /** Whether anything was asked of the index (`tracks`, `tracksUnder`) so far: a walk that never asked took nothing from it. */
  readonly asked: boolean;
}

interface Repo {
  readonly top: string;
  /** The work tree's own git folder (a linked worktree's lies under the main one's). */
  readonly gitDir: string;
  /** Where config and info/ live (the main git folder for a linked worktree). */
  readonly commonDir: string;
}

/**
 * The git work tree holding `root`, found as git finds it — a `.git` folder or `gitdir:` file
 * in it or a folder above (GIT_DIR, ceilings and file-system boundaries aside); null outside one.
 */
function findRepo(root: string): Repo | null {
  for (let dir = root; ; dir = dirname(dir)) {
    const dotGit = join(dir, ".git");
    const st = lstatSync(dotGit, { throwIfNoEntry: false });
    let gitDir: string | null = null;
    if (st?.isDirectory()) gitDir = dotGit;
    else if (st?.isFile()) {
      // A linked worktree or a submodule: ".git" is a file saying where the git folder is.
      const m = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"));
      if (m) gitDir = resolve(dir, (m[1] as string).trim());
    }
    if (gitDir !== null) {
      const commonDir = commonDirOf(gitDir);
      // As git: a folder that is not a repository (no HEAD, objects/ and refs/) does not count.
      if (commonDir !== null) return { top: dir, gitDir, commonDir };
    }
    if (dirname(dir) === dir) return null;
  }
}

function commonDirOf(gitDir: string): string | null {
  let common = gitDir;
  try {
    common = resolve(gitDir, readFileSync(join(gitDir, "commondir"), "utf8").trim());
  } catch (e) {
    if (!isMissing(e)) throw e;
  }
  const isDir = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
  if (statSync(join(gitDir, "HEAD"), { throwIfNoEntry: false }) === undefined || !isDir(join(common, "objects")) || !isDir(join(common, "refs"))) return null;
  return common;
}

const isMissing = (e: unknown): boolean => {
  const code = (e as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
};

/** A file's stat, or undefined when it is not there or cannot be looked at (git cannot read it either). */
function statIfAny(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (isMissing(e) || code === "EACCES" || code === "EPERM" || code === "ELOOP") return undefined;
    throw e;
  }
}

const statKey = (st: Stats | undefined): string => (st === undefined ? "-" : `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`);

/** The tracked paths of one index, as read; the sets a workspace asks about, made when first asked. */
interface IndexEntry {
  readonly key: string;
  /** Read when first asked: a walk that ignores nothing never needs them (nor does a status that checks stats alone). */
  paths(): readonly string[];
  readonly byPrefix: Map<string, { files?: Set<string>; dirs?: Set<string> }>;
}

interface ExcludesEntry {
  readonly key: string;
  readonly texts: readonly string[];
}

// One entry per git folder: every walk asks again (the watcher builds rules per folder), and
// a stat of the files it comes from says whether the last answer still holds.
const indexes = new Map<string, IndexEntry>();
const excludesCache = new Map<string, ExcludesEntry>();
const excludesFileCache = new Map<string, { key: string; file: string }>();

/** What git says about the work tree holding `root` (absolute, no trailing separator); null outside one. */
export function gitView(root: string): GitView | null {
  const repo = findRepo(root);
  if (repo === null) return null;
  const rel =
    root === repo.top
      ? ""
      : root
          .slice(repo.top.length + 1)
          .split("\\")
          .join("/");
  const prefix = rel === "" ? "" : `${rel}/`;
  const index = readIndex(repo);
  const excludes = readExcludes(repo, join(root, FORGE_DIR));
  let sets = index.byPrefix.get(prefix);
  if (sets === undefined) index.byPrefix.set(prefix, (sets = {}));
  const s = sets;
  const files = (): Set<string> =>
    (s.files ??= new Set(
      prefix === ""
        ? index.paths()
        : index
            .paths()
            .filter((p) => p.startsWith(prefix))
            .map((p) => p.slice(prefix.length)),
    ));
  const dirs = (): Set<string> => {
    if (s.dirs) return s.dirs;
    const out = new Set<string>();
    let parent = "";
    for (const p of files()) {
      const slash = p.lastIndexOf("/");
      // The index is sorted: most paths are in the folder of the one before.
      if (slash <= 0 || (slash === parent.length && p.startsWith(parent))) continue;
      parent = p.slice(0, slash);
      for (let d = parent; !out.has(d); ) {
        out.add(d);
        const up = d.lastIndexOf("/");
        if (up <= 0) break;
        d = d.slice(0, up);
      }
    }
    return (s.dirs = out);
  };
  let asked = false;
  return {
    top: repo.top,
    prefix,
    tracks: (path) => {
      asked = true;
      return files().has(path);
    },
    tracksUnder: (dir) => {
      asked = true;
      return dirs().has(dir);
    },
    excludes: excludes.texts,
    key: `${index.key}|${excludes.key}`,
    indexKey: index.key,
    excludesKey: excludes.key,
    get asked() {
      return asked;
    },
  };
}

function readIndex(repo: Repo): IndexEntry {
  const file = join(repo.gitDir, "index");
  const st = statSync(file, { throwIfNoEntry: false });
  const key = statKey(st);
  const known = indexes.get(repo.gitDir);
  if (known?.key === key) return known;
  let paths: readonly string[] | undefined;
  // No index yet (nothing added since `git init`): nothing is tracked.
  const read = () => (st === undefined ? [] : (!usesSha256(repo) && parseIndex(readFileSync(file), file)) || lsFiles(repo));
  const entry = { key, paths: () => (paths ??= read()), byPrefix: new Map() };
  indexes.set(repo.gitDir, entry);
  return entry;
}

/** A repository whose object names are SHA-256 (its index entries are longer): git reads its index. */
function usesSha256(repo: Repo): boolean {
  try {
    return /^\s*objectformat\s*=\s*"?sha256/im.test(readFileSync(join(repo.commonDir, "config"), "utf8"));
  } catch (e) {
    if (isMissing(e)) return false;
    throw e;
  }
}

/**
 * The paths of the index's entries (versions 2 to 4, SHA-1), submodules (gitlinks) left out:
 * their files are another repository's. Undefined when the index needs what this reader does
 * not do — a split or sparse index (a required extension), another version, SHA-256 — and
 * git must be asked.
 */
function parseIndex(buf: Buffer, file: string): string[] | undefined {
  const bad = (why: string) =>
    new ForgeError("INVALID_ARGUMENT", `cannot read git's index ${file}: ${why}`, { hint: "run `git status` in the repository: git rewrites a damaged index" });
  const HASH = 20;
  if (buf.length < 12 + HASH || buf.toString("latin1", 0, 4) !== "DIRC") throw bad("not an index file");
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = buf.readUInt32BE(8);
  const end = buf.length - HASH;
  // The paths are copied byte by byte into one buffer, NUL after each, and decoded at once:
  // in a fresh process (a CLI command) this is ~3× faster than Buffer's methods per entry.
  let names = Buffer.allocUnsafe(Math.max(end - 12, 0) + count);
  let used = 0;
  let last = -1; // where the last path kept starts in `names`
  // Version 4: each path is the previous one's minus some bytes, plus its own.
  let previous = Buffer.allocUnsafe(version === 4 ? 4096 : 0);
  let previousLength = 0;
  let off = 12;
  for (let i = 0; i < count; i++) {
    if (off + 62 > end) throw bad("it ends inside an entry");
    const gitlink = ((buf[off + 26] as number) & 0xf0) === 0xe0; // mode 0160000: a submodule, another repository's files
    let p = off + 62 + (((buf[off + 60] as number) & 0x40) !== 0 ? 2 : 0); // extended flags (version 3 and later)
    if (version === 4) {
      let byte = buf[p++] as number;
      let drop = byte & 0x7f;
      while (byte & 0x80) {
        byte = buf[p++] as number;
        drop = ((drop + 1) << 7) | (byte & 0x7f);
      }
      if (drop > previousLength) throw bad("a path drops more than the one before it holds");
      previousLength -= drop;
    }
    const from = p;
    while (p < end && buf[p] !== 0) p++;
    if (p >= end) throw bad("a path runs past its end");
    const length = (version === 4 ? previousLength : 0) + p - from;
    if (used + length + 1 > names.length) names = Buffer.concat([names.subarray(0, used)], 2 * (used + length + 1)); // version 4's paths can outgrow its entries
    const start = used;
    if (version === 4) {
      if (length > previous.length) previous = Buffer.concat([previous.subarray(0, previousLength)], 2 * length);
      for (let k = from; k < p; k++) previous[previousLength++] = buf[k] as number;
      for (let k = 0; k < length; k++) names[used++] = previous[k] as number;
      off = p + 1;
    } else {
      for (let k = from; k < p; k++) names[used++] = buf[k] as number;
      off += (p - off + 8) & ~7; // 1 to 8 NULs pad the entry to a multiple of 8 bytes
    }
    // A conflicted path is listed once per stage: kept once.
    let same = !gitlink && last >= 0 && start - 1 - last === length;
    for (let k = 0; same && k < length; k++) same = names[last + k] === names[start + k];
    if (gitlink || same) {
      used = start;
      continue;
    }
    last = start;
    names[used++] = 0;
  }
  // Extensions: one whose signature starts with a lower-case letter must be understood to read the entries.
  while (off + 8 <= end) {
    const first = buf[off] as number;
    if (first >= 0x61 && first <= 0x7a) return undefined;
    off += 8 + buf.readUInt32BE(off + 4);
  }
  return used === 0 ? [] : names.toString("utf8", 0, used - 1).split("\0");
}

/** The tracked paths by `git ls-files`, for an index this module does not read. */
function lsFiles(repo: Repo): string[] {
  const r = spawnSync("git", [`--git-dir=${repo.gitDir}`, `--work-tree=${repo.top}`, "ls-files", "--stage", "-z"], {
    cwd: repo.top,
    maxBuffer: 1 << 30,
  });
  if (r.error || r.status !== 0) {
    const why = r.error ? ((r.error as NodeJS.ErrnoException).code ?? r.error.message) : r.stderr.toString("utf8").trim();
    throw new ForgeError("COMMAND_FAILED", `cannot list the files git tracks in ${repo.top}: git ls-files: ${why}`, {
      hint: "this index needs git itself to read it (a split or sparse index): make `git` runnable here",
    });
  }
  const out: string[] = [];
  for (const line of r.stdout.toString("utf8").split("\0")) {
    const tab = line.indexOf("\t");
    if (tab < 0 || line.startsWith("160000 ")) continue;
    const path = line.slice(tab + 1);
    if (out[out.length - 1] !== path) out.push(path);
  }
  return out;
}

/** info/exclude and core.excludesFile, read again when either file changes. */
function readExcludes(repo: Repo, forgeDir: string): ExcludesEntry {
  const files = [excludesFile(repo, forgeDir), join(repo.commonDir, "info", "exclude")];
  const stats = files.map(statIfAny);
  const key = files.map((f, i) => `${f}=${statKey(stats[i])}`).join(";");
  const known = excludesCache.get(repo.gitDir);
  if (known?.key === key) return known;
  const texts: string[] = [];
  for (const [i, f] of files.entries()) {
    if (stats[i]?.isFile() !== true) continue;
    try {
      texts.push(readFileSync(f, "utf8"));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (!isMissing(e) && code !== "EACCES" && code !== "EPERM") throw e; // as git: an excludes file it cannot read is skipped
    }
  }
  const entry = { key, texts };
  excludesCache.set(repo.gitDir, entry);
  return entry;
}

/**
 * core.excludesFile as git resolves it (system, global, repository and worktree config,
 * includes), else git's default, $XDG_CONFIG_HOME/git/ignore. Git is asked only when a config
 * file it reads or an environment variable that moves them changed since it was last asked:
 * spawning it costs ~5 ms, paid by every hook when only this process remembered the answer.
 * So the answer is also kept in the workspace's .forge folder (when there is one), under the
 * same key. A file named by an `include.path` is not in the key: editing only that file is
 * seen once one of the others changes.
 */
function excludesFile(repo: Repo, forgeDir: string): string {
  // GIT_CONFIG_GLOBAL, _SYSTEM, _NOSYSTEM, _COUNT/_KEY_n/_VALUE_n: all can move or set it.
  const env = readEnv([
    "XDG_CONFIG_HOME",
    "HOME",
    ...Object.keys(process.env)
      .filter((k) => k.startsWith("GIT_CONFIG"))
      .sort(),
  ]);
  const xdg = env["XDG_CONFIG_HOME"] ? (env["XDG_CONFIG_HOME"] as string) : join(homedir(), ".config");
  const configs = [
    join(repo.commonDir, "config"),
    join(repo.gitDir, "config.worktree"),
    join(homedir(), ".gitconfig"),
    join(xdg, "git", "config"),
    env["GIT_CONFIG_GLOBAL"] || "-",
    env["GIT_CONFIG_SYSTEM"] || "/etc/gitconfig",
  ];
  const key = `${JSON.stringify(env)};${configs.map((f) => `${f}=${statKey(f === "-" ? undefined : statIfAny(f))}`).join(";")}`;
  const known = excludesFileCache.get(repo.gitDir);
  if (known?.key === key) return known.file;
  const keptPath = join(forgeDir, "git-excludes.json");
  const kept = readKept(keptPath);
  if (kept?.gitDir === repo.gitDir && kept.key === key) {
    excludesFileCache.set(repo.gitDir, { key, file: kept.file });
    return kept.file;
  }
  const fallback = join(xdg, "git", "ignore");
  // --git-dir: git's ownership check (safe.directory) is for repositories it discovers; the index is read whoever owns it, so is this.
  const r = spawnSync("git", [`--git-dir=${repo.gitDir}`, "config", "-z", "--path", "--get", "core.excludesFile"], { cwd: repo.top, encoding: "utf8" });
  let file: string;
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT")
    file = fallback; // no git here: nobody set it for this machine
  else if (r.error || (r.status !== 0 && r.status !== 1)) {
    throw new ForgeError("COMMAND_FAILED", `cannot read core.excludesFile for ${repo.top}: git config: ${r.error?.message ?? r.stderr.trim()}`, {
      hint: "fix the git configuration (`git config --list` shows the problem)",
    });
  } else if (r.status === 1) file = fallback;
  else {
    const value = r.stdout.replace(/\0$/, "");
    file = isAbsolute(value) ? value : resolve(repo.top, value);
  }
  excludesFileCache.set(repo.gitDir, { key, file });
  keep(keptPath, { gitDir: repo.gitDir, key, file });
  return file;
}

interface KeptExcludesFile {
  readonly gitDir: string;
  readonly key: string;
  readonly file: string;
}

function readKept(path: string): KeptExcludesFile | undefined {
  try {
    const doc = JSON.parse(readFileSync(path, "utf8")) as Partial<KeptExcludesFile>;
    return typeof doc.gitDir === "string" && typeof doc.key === "string" && typeof doc.file === "string" ? (doc as KeptExcludesFile) : undefined;
  } catch {
    return undefined; // missing or damaged: git is asked again
  }
}

/** Written whole under a temporary name, then renamed: a reader sees the old answer or the new one. Only into an existing .forge folder. */
function keep(path: string, doc: KeptExcludesFile): void {
  if (!existsSync(dirname(path))) return;
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify(doc));
    renameSync(tmp, path);
  } catch {
    // Only a cache: a read-only .forge costs the next process a spawn of git.
    rmSync(tmp, { force: true });
  }
}
