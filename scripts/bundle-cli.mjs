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
// The worker scripts are ES modules of their own beside it, so that
// `new URL("./x.js", import.meta.url)` in the bundle finds them. `import.meta.url` is the
// bundle's own URL, two levels under the package root like dist/cli/…, so the sources' other
// relative URLs (package.json, the web page's folder) hold.
import { build } from "esbuild";
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
// Swapped in whole: a forge process starting meanwhile finds the old bundle or, for an
// instant, none (and then loads dist/cli/main.js).
if (existsSync(out)) rmSync(out, { recursive: true, force: true });
renameSync(tmp, out);
