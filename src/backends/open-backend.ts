// Store URLs → backends: `memory:`, `file:DIR`, `sqlite:PATH`, `postgres://…`.
import { isAbsolute, resolve } from "node:path";
import { ForgeError } from "../core/errors.js";
import { mark } from "../core/trace.js";
import type { Backend } from "./backend.js";
import { SqliteBackend } from "./sqlite/sqlite-backend.js";

export const STORE_URL_FORMS = "memory:, file:DIR, sqlite:PATH, postgres://USER@HOST:PORT/DB[?schema=NAME]";

export interface OpenBackendOptions {
  /** Whether a store that does not exist yet is created (else NO_STORE naming where it was looked for). */
  readonly create?: boolean;
}

export async function openBackend(url: string, cwd: string = process.cwd(), options: OpenBackendOptions = {}): Promise<Backend> {
  mark("store: opening");
  const create = options.create ?? true;
  const colon = url.indexOf(":");
  const scheme = colon < 0 ? "" : url.slice(0, colon);
  const rest = colon < 0 ? url : url.slice(colon + 1).replace(/^\/\/(?=\/)/, "");
  const path = () => {
    if (rest === "") throw invalid(url, "it names no path");
    return isAbsolute(rest) ? rest : resolve(cwd, rest);
  };
  switch (scheme) {
    // The other kinds are loaded on demand: a CLI command on the embedded default loads only SQLite's.
    case "memory": {
      const { MemoryBackend } = await import("./memory/memory-backend.js");
      return new MemoryBackend();
    }
    case "file": {
      const { FileBackend } = await import("./file/file-backend.js");
      return FileBackend.open(path(), { create });
    }
    case "sqlite":
      return SqliteBackend.open(path(), { create });
    case "postgres":
    case "postgresql": {
      // Loaded on demand: pg is not needed on the embedded default's path.
      const { PostgresBackend } = await import("./postgres/postgres-backend.js");
      return PostgresBackend.open(url, { create });
    }
    default:
      throw invalid(url, scheme === "" ? "it has no scheme" : `"${scheme}:" is not a store kind this Forge knows`);
  }
}

function invalid(url: string, why: string): ForgeError {
  return new ForgeError("INVALID_STORE_URL", `invalid store URL "${url}": ${why}`, { hint: `use one of ${STORE_URL_FORMS}` });
}
