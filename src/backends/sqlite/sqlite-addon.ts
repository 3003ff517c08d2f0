// better-sqlite3's native addon, named for it. better-sqlite3 looks for it through the
// `bindings` package, which tries a dozen paths (and loads two more packages) in every
// process that opens a store, starting from the file that called it — which, once the CLI and
// the library bundle better-sqlite3's JavaScript with their own (scripts/bundle-cli.mjs), is
// the bundle, nowhere near the addon. So every `new Database` passes `sqliteAddon()`: the
// file where better-sqlite3's install builds it (build/Release), or, in another layout (a
// prebuilt binary elsewhere), the addon as `bindings` finds it from better-sqlite3's own
// folder.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The file, or the addon `bindings` loaded (better-sqlite3 takes either as `nativeBinding`). */
let addon: string | object | undefined;

/** better-sqlite3's `nativeBinding` option for this install; looked up once. */
export function sqliteAddon(): { nativeBinding?: string } {
  if (addon === undefined) {
    const packageJson = createRequire(import.meta.url).resolve("better-sqlite3/package.json");
    const root = dirname(packageJson);
    const built = join(root, "build", "Release", "better_sqlite3.node");
    if (existsSync(built)) addon = built;
    else {
      const bindings = createRequire(packageJson)("bindings") as (options: { bindings: string; module_root: string }) => object;
      addon = bindings({ bindings: "better_sqlite3.node", module_root: root });
    }
  }
  // Typed as a path only; better-sqlite3 takes the loaded addon too (lib/database.js).
  return { nativeBinding: addon as string };
}
