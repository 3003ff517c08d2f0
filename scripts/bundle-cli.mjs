// Bundles the compiled CLI (dist/cli/main.js and everything it imports, at once or later)
// into one CommonJS file, dist/cli-bundle/forge.cjs, that bin/forge.js runs through V8's
// code cache (bin/code-cache.js). Every hook and CLI call is a fresh process, so module
// loading is paid on every tool call of every agent: ~100 ES modules resolved, read,
// compiled and linked one by one cost ~50–60 ms of a `forge files status`; one script whose
// compiled code comes from the cache costs ~15 ms (BENCHMARKS.md, "Cold paths"). Modules
// reached only by a dynamic import() stay lazy: esbuild evaluates them at their first use.
//
// Run by `npm run build` after tsc. bin/forge.js loads dist/cli/main.js instead when there
// is no bundle (a tsc-only build). The library (dist/index.js) is not bundled.
//
// External (loaded from node_modules when used): the native addon, what
// only some commands load and is big (the PostgreSQL driver, the MCP SDK, Hono, zod, chrono,
// jsdiff, cli-progress, Preact) and LangChain. Small pure-JavaScript packages every command
// needs (commander, ulid, …) are inside, so their compiled code is cached too.
//
// Node's own modules other than fs and path are loaded on first use (`lazyBuiltins`): the
// bundle's modules all run their imports when it loads, and ~70 of Node's internal modules
// behind child_process, worker_threads, readline, streams, crypto… cost a `files status`
// ~10 ms though it uses few of them.
//
// The worker scripts are ES modules of their own beside it, so that
// `new URL("./x.js", import.meta.url)` in the bundle finds them. `import.meta.url` is the
// bundle's own URL, two levels under the package root like dist/cli/…, so the sources' other
// relative URLs (package.json, the web page's folder) hold.
import { build } from "esbuild";
import { createRequire } from "node:module";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const out = join(dist, "cli-bundle");
const tmp = `${out}.${process.pid}.tmp`;

const external = [
  // better-sqlite3's JavaScript is bundled (its code cached like ours); its addon is loaded
  // by backends/sqlite/sqlite-addon.ts, or by the `bindings` package it falls back to.
  "bindings",
  "pg",
  "pg-native",
  "@modelcontextprotocol/sdk",
  "@modelcontextprotocol/sdk/*",
  "hono",
  "hono/*",
  "@hono/node-server",
  "zod",
  "chrono-node",
  "chrono-node/*",
  "diff",
  "cli-progress",
  // Its UMD build requires its own parts by computed paths a bundler cannot follow.
  "jsonc-parser",
  "preact",
  "preact/*",
  "@langchain/*",
];
/** Node's modules that every command needs at once (and that Node has loaded before any script runs). */
const EAGER = new Set(["fs", "path"]);
const requireHere = createRequire(import.meta.url);

/**
 * Each `node:X` import (X not in EAGER) becomes a module of getters that loads X on the first
 * property read. Its names are X's at build time: the build runs on the Node the package
 * supports, and a name read that X lacks is undefined either way.
 */
const lazyBuiltins = {
  name: "lazy-builtins",
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) => {
      const name = args.path.slice(5);
      if (args.namespace === "lazy-builtin" || EAGER.has(name)) return { path: args.path, external: true };
      return { path: name, namespace: "lazy-builtin" };
    });
    b.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => {
      const keys = Object.keys(requireHere(`node:${args.path}`)).filter((k) => k !== "default" && k !== "__esModule");
      return {
        loader: "js",
        contents: `let m;
const load = () => (m ??= require(${JSON.stringify(`node:${args.path}`)}));
const out = { __esModule: undefined };
for (const k of ${JSON.stringify(keys)}) Object.defineProperty(out, k, { enumerable: true, get: () => load()[k] });
Object.defineProperty(out, "default", { enumerable: false, get: load });
module.exports = out;
`,
      };
    });
  },
};

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  // Whitespace and syntax only: names are kept for stack traces (FORGE_DEBUG=1).
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  // bin/code-cache.js reads the bundles as Latin-1: every other character escaped.
  charset: "ascii",
  external,
  logLevel: "warning",
};

rmSync(tmp, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: [join(dist, "cli", "main.js")],
  outfile: join(tmp, "forge.cjs"),
  format: "cjs",
  plugins: [lazyBuiltins],
  define: { "import.meta.url": "__forgeBundleUrl" },
  banner: { js: 'const __forgeBundleUrl = require("node:url").pathToFileURL(__filename).href;' },
});
await build({
  ...common,
  entryPoints: {
    "compress-worker": join(dist, "objects", "compress-worker.js"),
    "sqlite-writer-worker": join(dist, "backends", "sqlite", "sqlite-writer-worker.js"),
  },
  outdir: tmp,
  format: "esm",
  banner: { js: "import { createRequire as __forgeRequire } from 'node:module'; const require = __forgeRequire(import.meta.url);" },
});
// The walk preload: its starter (required by bin/forge.js before the CLI loads) and its
// worker, and the hook client, each a small CommonJS script of its own so that each starts
// in a few milliseconds.
await build({
  ...common,
  entryPoints: {
    "walk-preload-start": join(dist, "domains", "workspace", "walk-preload-start.js"),
    "walk-preload-worker": join(dist, "domains", "workspace", "walk-preload-worker.js"),
    // A capture hook's offer to a long-lived Forge process, made before the CLI loads.
    "hook-client": join(dist, "domains", "workspace", "hook-client.js"),
  },
  outdir: tmp,
  outExtension: { ".js": ".cjs" },
  format: "cjs",
  // worker_threads is loaded only when a preload starts (~3 ms otherwise paid by every walking command).
  plugins: [lazyBuiltins],
});
// The library (`forge-reasoning` and `forge-reasoning/langgraph`) as one more script,
// dist/cli-bundle/library.cjs, behind a loader written over each entry's compiled module:
// a process that imports the library and reads one state loaded ~100 modules (~40 ms of a
// 3.4 MB state's ~100 ms fresh-process read). Both entries share the one script, so there is
// one copy of every class (a Store from one entry is the other's). tsc's compiled entries are
// kept beside their loaders as index-modules.js (the loaders import them under
// FORGE_NO_BUNDLE=1). The saver module, which needs the optional @langchain peers, is
// evaluated only when forge-reasoning/langgraph is imported.
const SHIM_MARK = "// forge-reasoning: the library's loader (written by scripts/bundle-cli.mjs)";
const entries = [
  { dir: dist, names: null },
  { dir: join(dist, "integrations", "langgraph"), names: ["ForgeSaver", "threadSessionName"] },
];
for (const e of entries) {
  const compiled = readFileSync(join(e.dir, "index.js"), "utf8");
  // Written by tsc (the build just ran), or already a loader (this script run again).
  if (!compiled.startsWith(SHIM_MARK)) writeFileSync(join(e.dir, "index-modules.js"), compiled);
}
await build({
  ...common,
  stdin: {
    contents: [
      'export * from "./index-modules.js";',
      'export { threadSessionName } from "./integrations/langgraph/thread-log.js";',
      'import { loadWithPeers } from "./integrations/langgraph/peers.js";',
      'export const loadForgeSaver = () => loadWithPeers(() => import("./integrations/langgraph/forge-saver.js"));',
    ].join("\n"),
    resolveDir: dist,
    sourcefile: "library-entry.js",
    loader: "js",
  },
  outfile: join(tmp, "library.cjs"),
  format: "cjs",
  plugins: [lazyBuiltins],
  define: { "import.meta.url": "__forgeBundleUrl" },
  banner: { js: 'const __forgeBundleUrl = require("node:url").pathToFileURL(__filename).href;' },
});
const libraryNames = Object.keys(await import(pathToFileURL(join(dist, "index-modules.js")).href));
const loader = (up, names, body) => `${SHIM_MARK}
// The library as one script (dist/cli-bundle/library.cjs) run through V8's code cache
// (bin/code-cache.js); FORGE_NO_BUNDLE=1 imports the compiled modules (index-modules.js).
import { createRequire } from "node:module";
const lib =
  process.env.FORGE_NO_BUNDLE === "1"
    ? null
    : createRequire(import.meta.url)("${up}../bin/code-cache.js").loadLibrary(new URL("${up}cli-bundle/library.cjs", import.meta.url));
${body}
export const { ${names.join(", ")} } = m;
`;
writeFileSync(join(dist, "index.js"), loader("./", libraryNames, 'const m = lib ?? (await import("./index-modules.js"));').replace('"./../bin', '"../bin'));
writeFileSync(
  join(dist, "integrations", "langgraph", "index.js"),
  loader(
    "../../",
    entries[1].names,
    'const m = lib === null ? await import("./index-modules.js") : { ForgeSaver: (await lib.loadForgeSaver()).ForgeSaver, threadSessionName: lib.threadSessionName };',
  ),
);

// Swapped in whole: a forge process starting meanwhile finds the old bundle or, for an
// instant, none (and then loads dist/cli/main.js).
if (existsSync(out)) rmSync(out, { recursive: true, force: true });
renameSync(tmp, out);
