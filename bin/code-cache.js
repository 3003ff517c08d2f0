// Runs the bundled CLI (dist/cli-bundle/forge.cjs, scripts/bundle-cli.mjs) with V8's code
// cache: the bytecode V8 compiled for it in an earlier run is handed back, so a run parses
// and compiles next to nothing before it starts working (Node 20 has no compile cache of its
// own for modules: module.enableCompileCache came in Node 22).
//
// The cache is the user's own: $TMPDIR/forge-<uid>/code-cache (beside forge watch's locks),
// folders made private (0700) and used only while they are owned by this user and writable by
// nobody else — bytecode from a file someone else could write would be code run as this user. V8
// itself refuses a cache made by another V8, other flags or another source
// (cachedDataRejected); the file is then written again. It is written after the command ran,
// so it holds the functions that command compiled, and only when it was missing or refused.
// FORGE_NO_CODE_CACHE=1 turns it off. Every failure to read or write it only costs time.
import { createHash } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Script, constants as vmConstants } from "node:vm";

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

/** Loads the CommonJS bundle at `file` through the code cache and returns its exports. */
export function loadBundle(file) {
  const source = readFileSync(file, "utf8");
  const dir = cacheDir();
  // Named by the bundle file and the runtime: a rebuilt bundle or another Node gets a file of its own.
  const st = statSync(file);
  const key = createHash("sha256")
    .update(`${file}\0${st.size}\0${st.mtimeMs}\0${st.ino}\0${process.version}\0${process.arch}\0${process.execArgv.join(" ")}`)
    .digest("hex");
  const cacheFile = dir === null ? null : join(dir, `${key.slice(0, 32)}.bin`);
  let cachedData;
  if (cacheFile !== null) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
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
  const save =
    cacheFile !== null && (cachedData === undefined || script.cachedDataRejected)
      ? () => {
          const tmp = `${cacheFile}.${process.pid}.tmp`;
          try {
            writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
            renameSync(tmp, cacheFile);
          } catch {
            try {
              unlinkSync(tmp);
            } catch {}
          }
        }
      : () => {};
  return { exports: module.exports, save };
}
