// Writing a file a user named: whole or not at all, with an error that names the path.
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { ForgeError } from "./errors.js";

/** Writes `path` so that a crash leaves the old file or the new one, never a torn one. */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT"
        ? "its folder does not exist"
        : code === "EACCES" || code === "EPERM"
          ? "permission denied"
          : code === "EISDIR"
            ? "it is a folder"
            : (e as Error).message;
    throw new ForgeError("INVALID_ARGUMENT", `cannot write ${path}: ${why}`, { hint: "name a file in a folder that exists and you can write to", cause: e });
  }
}
