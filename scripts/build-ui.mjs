// Builds the web page (src/ui/page, Preact + TSX) into dist/ui/page with esbuild: one
// bundled, minified app.js, its app.css and index.html. Run by `npm run build`.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src", "ui", "page");
const out = join(root, "dist", "ui", "page");
mkdirSync(out, { recursive: true });
await build({
  // main.tsx imports app.css, so esbuild writes app.css next to app.js.
  entryPoints: { app: join(src, "main.tsx") },
  outdir: out,
  entryNames: "[name]",
  bundle: true,
  minify: true,
  format: "esm",
  target: ["chrome110", "firefox110", "safari16"],
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "none",
  logLevel: "warning",
});
copyFileSync(join(src, "index.html"), join(out, "index.html"));
