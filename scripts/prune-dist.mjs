// Removes what an earlier build left in dist/ and this one did not write: compiled files
// whose source is gone (they would be published, and importable), and source maps (the
// build emits none: see tsconfig.build.json). Run by `npm run build` after tsc, so dist/
// is never missing while other processes use it, as a clean-first build would leave it.
import { readdirSync, rmSync, rmdirSync, existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
// scripts/build-ui.mjs writes this folder whole, with names of its own (app.js, app.css).
const ui = join(dist, "ui", "page");
// scripts/bundle-cli.mjs writes this one whole too (its chunks have no source of their own).
const bundle = join(dist, "cli-bundle");

/** The source file tsc compiles into `file` (dist/x/y.js or .d.ts → src/x/y.ts or .tsx). */
const hasSource = (file) => {
  const stem = relative(dist, file).replace(/(\.d\.ts|\.js)$/, "");
  return existsSync(join(root, "src", `${stem}.ts`)) || existsSync(join(root, "src", `${stem}.tsx`));
};

let removed = 0;
const prune = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (path === ui || path === bundle || path.startsWith(`${bundle}.`)) continue;
    if (entry.isDirectory()) {
      prune(path);
      if (readdirSync(path).length === 0) rmdirSync(path);
    } else if (entry.name.endsWith(".map") || (/\.(d\.ts|js)$/.test(entry.name) && !hasSource(path))) {
      rmSync(path);
      removed++;
    }
  }
};
prune(dist);
if (removed > 0) console.log(`prune-dist: removed ${removed} stale file(s) from dist/`);
