// better-sqlite3's native addon, found where its install builds it. better-sqlite3 looks for
// it through the `bindings` package, which tries a dozen paths (and loads two more packages)
// in every process that opens a store; the CLI and the library bundle better-sqlite3's
// JavaScript with their own (scripts/bundle-cli.mjs) and name the addon's file instead. Where
// the addon is not at build/Release (another install layout), better-sqlite3 looks itself.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

let addon: string | null | undefined;

/** better-sqlite3's `nativeBinding` option: the addon's file, looked up once; none to let better-sqlite3 find it. */
export function sqliteAddon(): { nativeBinding?: string } {
  if (addon === undefined) {
    addon = null;
    try {
      const file = join(dirname(createRequire(import.meta.url).resolve("better-sqlite3/package.json")), "build", "Release", "better_sqlite3.node");
      if (existsSync(file)) addon = file;
    } catch {
      addon = null;
    }
  }
  return addon === null ? {} : { nativeBinding: addon };
}
