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
// (V8 compiles a function when it is first called). A command whose functions the cache does
// not hold yet (`files status` after only `forge init` ran) would compile them on every run,
// so the commands a cache was written after are listed beside it (<key>.cmds), and a command
// not in the list writes the cache again: it then holds what both compiled. A new cache file
// (a rebuilt bundle, another Node) removes the ones nobody has written for a week.
// FORGE_NO_CODE_CACHE=1 turns it off. Every failure to read or write it only costs time.
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

/** How many commands one cache lists at most (then it is no longer written for a new one). */
const MAX_COMMANDS = 64;
/** A cache file nobody has written for this long belongs to a bundle or a Node that is gone. */
const STALE_MS = 7 * 24 * 3600 * 1000;

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

/** Removes the cache files (and leftovers) of `dir` last written more than a week ago, but `keep`. */
function removeStale(dir, keep) {
  try {
    const now = Date.now();
    for (const name of readdirSync(dir)) {
      if (name.startsWith(keep) || !/\.(?:bin|cmds|tmp)$/.test(name)) continue;
      const path = join(dir, name);
      if (now - lstatSync(path).mtimeMs > STALE_MS) unlinkSync(path);
    }
  } catch {}
}

/**
 * Loads the CommonJS bundle at `file` through the code cache. Returns its exports and
 * `save(command)`, to call once the command ran, with the words that name it ("forge files
 * status"): it writes the cache when there was none or V8 refused it, or when the cache was
 * never written after that command (see above).
 */
function loadBundle(file) {
  // The bundles are ASCII (esbuild escapes every other character: scripts/bundle-cli.mjs sets
  // charset "ascii"), which Latin-1 reads as is, and faster than UTF-8.
  const source = readFileSync(file, "latin1");
  const dir = cacheDir();
  // Named by the bundle file and the runtime: a rebuilt bundle or another Node gets a file of its own.
  const st = statSync(file);
  // Not crypto's hash: loading node:crypto costs a command that needs nothing else of it ~3 ms.
  // A name shared by two bundles only costs a refused cache (V8 checks the source itself).
  const key = nameHash(`${file}\0${st.size}\0${st.mtimeMs}\0${st.ino}\0${process.version}\0${process.arch}\0${process.execArgv.join(" ")}`);
  const name = key.slice(0, 32);
  const cacheFile = dir === null ? null : join(dir, `${name}.bin`);
  const listFile = dir === null ? null : join(dir, `${name}.cmds`);
  let cachedData;
  let commands = [];
  if (cacheFile !== null) {
    try {
      cachedData = readFileSync(cacheFile);
      commands = readFileSync(listFile, "utf8").split("\n");
    } catch {
      // No cache, or no list: the cache is written after this command.
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
  const fresh = cachedData === undefined || script.cachedDataRejected;
  const save = (command = "") => {
    if (cacheFile === null || !(fresh || (!commands.includes(command) && commands.length < MAX_COMMANDS))) return;
    writeWhole(cacheFile, script.createCachedData());
    writeWhole(listFile, (fresh ? [command] : [...commands, command]).join("\n"));
    if (cachedData === undefined) removeStale(dir, name);
  };
  return { exports: module.exports, save };
}

let library;

/**
 * The library bundle (dist/cli-bundle/library.cjs) for the library's entries (dist/index.js and
 * forge-reasoning/langgraph), loaded once per process; its cache is written at exit.
 */
function loadLibrary(url) {
  if (library === undefined) {
    const { exports, save } = loadBundle(url instanceof URL ? fileURLToPath(url) : url);
    process.once("exit", () => save("library"));
    library = exports;
  }
  return library;
}

module.exports = { loadBundle, loadLibrary };
