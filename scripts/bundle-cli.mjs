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
// External (loaded from node_modules when used): the native addon (better-sqlite3), what
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
import { existsSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const out = join(dist, "cli-bundle");
const tmp = `${out}.${process.pid}.tmp`;

const external = [
  "better-sqlite3",
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
// worker, each a small CommonJS script of its own so that both start in a few milliseconds.
await build({
  ...common,
  entryPoints: {
    "walk-preload-start": join(dist, "domains", "workspace", "walk-preload-start.js"),
    "walk-preload-worker": join(dist, "domains", "workspace", "walk-preload-worker.js"),
  },
  outdir: tmp,
  outExtension: { ".js": ".cjs" },
  format: "cjs",
});
// Swapped in whole: a forge process starting meanwhile finds the old bundle or, for an
// instant, none (and then loads dist/cli/main.js).
if (existsSync(out)) rmSync(out, { recursive: true, force: true });
renameSync(tmp, out);
