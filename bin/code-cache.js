// Runs the bundled CLI (dist/cli-bundle/forge.cjs, scripts/bundle-cli.mjs) with V8's code
// cache: the bytecode V8 compiled for it in an earlier run is handed back, so a run parses
// and compiles next to nothing before it starts working (Node 20 has no compile cache of its
// own for modules: module.enableCompileCache came in Node 22).
//
// The cache is the user's own: $TMPDIR/forge-<uid>/code-cache (beside forge watch's locks),
// folders made private (0700) and used only while they are owned by this user and writable by
// nobody else — bytecode from a file someone else could write would be code run as this user. V8
// itself refuses a cache made by another V8, other flags or another source
// (cachedDataRejected); the file is then written again.
//
// The cache is written after a command ran, so it holds the functions that command compiled
// (V8 compiles a function when it is first called). Each command has a cache of its own
// (<bundle key>-<command key>.bin): one cache for every command held what all of them
// compiled, and V8 rebuilds all of a cache's functions when it is read — ~1.6 MB after the
// ~45 commands a session runs, ~6 ms of every hook against ~3 ms for the ~0.6 MB a status
// needs. A command is found by its first words on the command line, before the CLI runs
// (`commandWords`), and its cache is written under as many of them as its name has (`forge
// why a.txt` and `forge why b.txt` share "why"; `forge cp ls`, an alias, has its own).
//
// A command goes different ways (a status by stats, or a walk; a hook in a tiny folder, or in
// a big one), and a cache holds only the functions of the runs it was written after: a hook
// whose cache was written in a test folder would compile its quick path on every run. So the
// ways a cache was written after are listed beside it (<cache>.ways; a way is the trace marks a
// run passed, core/trace.ts), and a run that went another way writes the cache again: it then
// holds the functions of both. A new cache file (a new command, a rebuilt bundle, another
// Node) removes those of an earlier build of the same bundle (a checkout rebuilt in place
// left ~15 MB a build behind, 659 MB on a developer's machine in a day), those nobody has
// written for a week, and past 300 files the oldest. FORGE_NO_CODE_CACHE=1 turns it off. Every failure to
// read or write it only costs time.
"use strict";
const { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } = require("node:fs");
const { createRequire } = require("node:module");
const { tmpdir } = require("node:os");
const { dirname, join } = require("node:path");
const { fileURLToPath } = require("node:url");
const { Script, constants: vmConstants } = require("node:vm");

/** The folder for the cache, if it can be trusted (made when missing); null otherwise. */
function cacheDir() {
  if (process.env.FORGE_NO_CODE_CACHE === "1" || typeof process.getuid !== "function") return null;
  const uid = process.getuid();
  const top = join(tmpdir(), `forge-${uid}`);
  const dir = join(top, "code-cache");
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const d of [top, dir]) {
      const st = lstatSync(d);
      if (!st.isDirectory() || st.uid !== uid) return null;
      if ((st.mode & 0o077) !== 0) chmodSync(d, 0o700); // ours, but made open (by a umask or by hand)
    }
    return dir;
  } catch {
    return null;
  }
}

/** 32 hex digits of `text`: four 32-bit FNV-1a hashes with different offsets. */
function nameHash(text) {
  let out = "";
  for (const seed of [0x811c9dc5, 0x01000193, 0x9e3779b9, 0x85ebca6b]) {
    let h = seed >>> 0;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
    out += h.toString(16).padStart(8, "0");
  }
  return out;
}

/** How many commands of one bundle get a cache of their own at most (a command past them runs without). */
const MAX_COMMANDS = 96;
/** How many ways of one command its cache is written again for at most. */
const MAX_WAYS = 16;
/** A cache file nobody has written for this long belongs to a bundle or a Node that is gone. */
const STALE_MS = 7 * 24 * 3600 * 1000;
/** At most this many cache files are kept in all (bundles at many paths: clones, installs); the oldest go first. */
const MAX_FILES = 300;

/** Writes `data` to `path` whole or not at all (a temporary file renamed over it). */
function writeWhole(path, data) {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, data, { mode: 0o600 });
    renameSync(tmp, path);
  } catch {
    try {
      unlinkSync(tmp);
    } catch {}
  }
}

/**
 * Removes from `dir` the cache files (and leftovers) of an earlier build of this bundle (same
 * `place`, another build: it was rebuilt where it is), those last written more than a week
 * ago, and past MAX_FILES in all the oldest — but never the current build's (`place`-`build`).
 */
function removeStale(dir, place, build) {
  try {
    const now = Date.now();
    const kept = [];
    for (const name of readdirSync(dir)) {
      if (name.startsWith(`${place}-${build}-`) || !/\.(?:bin|ways|cmds|tmp)$/.test(name)) continue; // .cmds: lists of an earlier version
      const path = join(dir, name);
      const mtime = lstatSync(path).mtimeMs;
      if (name.startsWith(`${place}-`) || now - mtime > STALE_MS) unlinkSync(path);
      else kept.push([mtime, path]);
    }
    if (kept.length <= MAX_FILES) return;
    kept.sort((a, b) => a[0] - b[0]);
    for (const [, path] of kept.slice(0, kept.length - MAX_FILES)) unlinkSync(path);
  } catch {}
}

/**
 * The words on a command line that may name its command, in order: those that look like a
 * command's name (file names, URLs, ids and options do not), at most two.
 */
function commandWords(args) {
  return args.filter((a) => /^[a-z][a-z0-9-]*$/.test(a)).slice(0, 2);
}

/**
 * Loads the CommonJS bundle at `file` through the code cache of the command `words` name
 * (`commandWords`: its first two, else its first). Returns its exports and `save(depth, way)`,
 * to call once the command ran, with how many words its name has ("files status": 2) and the
 * way it went: it writes the command's cache when there was none, V8 refused it, or it was
 * never written after a run that went this way.
 */
function loadBundle(file, words = []) {
  // The bundles are ASCII (esbuild escapes every other character: scripts/bundle-cli.mjs sets
  // charset "ascii"), which Latin-1 reads as is, and faster than UTF-8.
  const source = readFileSync(file, "latin1");
  const dir = cacheDir();
  // Named by where the bundle is and the runtime (`place`), and by its build (`build`): a
  // rebuilt bundle or another Node gets files of its own, and a rebuilt one's replace those of
  // the build before (removeStale).
  const st = statSync(file);
  // Not crypto's hash: loading node:crypto costs a command that needs nothing else of it ~3 ms.
  // A name shared by two bundles only costs a refused cache (V8 checks the source itself).
  const place = nameHash(`${file}\0${process.version}\0${process.arch}\0${process.execArgv.join(" ")}`).slice(0, 16);
  const build = nameHash(`${file}\0${st.size}\0${st.mtimeMs}\0${st.ino}`).slice(0, 16);
  const bundleKey = `${place}-${build}`;
  const fileOf = (w) => (dir === null ? null : join(dir, `${bundleKey}-${nameHash(w.join(" ")).slice(0, 16)}.bin`));
  let cachedData;
  let loadedFrom = null;
  for (const tried of words.length > 1 ? [words, words.slice(0, 1)] : [words]) {
    const path = fileOf(tried);
    if (path === null) break;
    try {
      cachedData = readFileSync(path);
      loadedFrom = path;
      break;
    } catch {
      // Not this one: the next, or none (then the command's cache is written after it ran).
    }
  }
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new Script(wrapper, {
    filename: file,
    cachedData,
    // The bundle's own dynamic imports (packages it leaves outside) go through Node's loader.
    importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  const save = (depth = words.length, way = "") => {
    const path = fileOf(words.slice(0, Math.max(0, Math.min(depth, words.length))));
    if (path === null) return;
    const fresh = cachedData === undefined || script.cachedDataRejected || loadedFrom !== path;
    let ways = [];
    if (!fresh) {
      try {
        ways = readFileSync(`${path}.ways`, "utf8").split("\n");
      } catch {
        // No list: the cache is written again, with this way listed.
      }
      if (ways.includes(way) || ways.length >= MAX_WAYS) return;
    } else if (ownCaches(dir, bundleKey) >= MAX_COMMANDS) return;
    writeWhole(path, script.createCachedData());
    writeWhole(`${path}.ways`, [...ways, way].join("\n"));
    if (fresh) removeStale(dir, place, build);
  };
  return { exports: module.exports, save };
}

/** How many commands of the bundle named `bundleKey` have a cache in `dir`. */
function ownCaches(dir, bundleKey) {
  try {
    return readdirSync(dir).filter((n) => n.startsWith(bundleKey) && n.endsWith(".bin")).length;
  } catch {
    return 0;
  }
}

let library;

/**
 * The library bundle (dist/cli-bundle/library.cjs) for the library's entries (dist/index.js and
 * forge-reasoning/langgraph), loaded once per process; its cache is written at exit.
 */
function loadLibrary(url) {
  if (library === undefined) {
    const { exports, save } = loadBundle(url instanceof URL ? fileURLToPath(url) : url, ["library"]);
    process.once("exit", () => save());
    library = exports;
  }
  return library;
}

module.exports = { commandWords, loadBundle, loadLibrary };
