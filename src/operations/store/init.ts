// store_init: a Forge store for a folder — `.forge/` in it, the embedded SQLite store by
// default or the URL given, written into `.forge/config.json` only once it opened.
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { DEFAULT_DB, FORGE_DIR } from "../../core/config.js";
import { ForgeError } from "../../core/errors.js";
import { writeFileAtomic } from "../../core/files.js";
import { defineOperation } from "../operation.js";

export interface InitResult {
  /** The .forge folder. */
  readonly dir: string;
  readonly store: string;
  /** False when the folder had a store already. */
  readonly created: boolean;
  /** The git work tree the folder is in, if any: `.forge/` is kept out of it by `.forge/.gitignore`. */
  readonly gitWorkTree: string | null;
}

export const initOperation = defineOperation({
  name: "store_init",
  title: "Create a store",
  description: "Creates a Forge store in `.forge/` of a folder (SQLite by default, or the store URL given, which is written into .forge/config.json).",
  effect: "write",
  input: (z) => ({
    folder: z.string().min(1).default("."),
    store: z.string().min(1).optional().describe("the store URL (default: sqlite:.forge/forge.db)"),
    remember: z.boolean().default(true).describe("write `store` into .forge/config.json (false: it comes from the environment each time, as FORGE_STORE)"),
  }),
  run: async (_ctx, input): Promise<InitResult> => {
    const dir = resolve(input.folder, FORGE_DIR);
    const existed = existsSync(dir);
    mkdirSync(dir, { recursive: true });
    const url = input.store ?? `sqlite:${join(dir, DEFAULT_DB)}`;
    // Opening creates the database (or schema) and applies migrations. Only once that
    // worked is the URL written down, so a typo never becomes this folder's store.
    try {
      const { openStore } = await import("../../timeline/store.js");
      await (await openStore(url)).close();
    } catch (e) {
      if (!existed) rmSync(dir, { recursive: true, force: true });
      throw e;
    }
    if (input.store !== undefined && input.remember) writeStoreToConfig(dir, url);
    // The store and its caches are the machine's, not the project's history: never `git add`ed.
    const ignore = join(dir, ".gitignore");
    if (!existsSync(ignore)) writeFileAtomic(ignore, "# Forge's store and caches (forge init): not for version control.\n*\n");
    return { dir, store: url, created: !existed, gitWorkTree: gitWorkTree(resolve(input.folder)) };
  },
});

/** Sets "store" in .forge/config.json, keeping every other setting; written whole or not at all. */
function writeStoreToConfig(dir: string, url: string): void {
  const path = join(dir, "config.json");
  let config: Record<string, unknown> = {};
  if (existsSync(path)) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) config = parsed as Record<string, unknown>;
    } catch (e) {
      throw new ForgeError("INVALID_ARGUMENT", `cannot read ${path}: ${(e as Error).message}`, { hint: "fix or delete the file, then run forge init again" });
    }
  }
  writeFileAtomic(path, JSON.stringify({ ...config, store: url }, null, 2) + "\n");
}

/** The git work tree holding `folder` (the nearest folder at or above it with a .git), or null. */
function gitWorkTree(folder: string): string | null {
  for (let dir = folder; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return null;
  }
}
