// When each of Forge's hook events last fired for a host in a project: one empty file per
// host and event under .forge/fired/, its mtime the time. A hook touches its file and
// nothing else (no lock, no read), so the cost is one syscall however often hosts fire.
import { mkdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CAPTURE_KINDS, type CaptureKind, type HostId } from "./types.js";

const firedDir = (forgeDir: string) => join(forgeDir, "fired");

/** Records that `host`'s `kind` hook fired now in the project whose .forge folder is `forgeDir`. */
export function markFired(forgeDir: string, host: HostId, kind: CaptureKind | "commit-msg"): void {
  const file = join(firedDir(forgeDir), `${host}.${kind}`);
  const now = new Date();
  try {
    utimesSync(file, now, now);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    mkdirSync(firedDir(forgeDir), { recursive: true });
    writeFileSync(file, "");
  }
}

/** When each of `host`'s hook events last fired in the project (events that never fired are left out). */
export function lastFired(forgeDir: string, host: HostId): Partial<Record<CaptureKind | "commit-msg", Date>> {
  const out: Partial<Record<CaptureKind | "commit-msg", Date>> = {};
  for (const kind of [...CAPTURE_KINDS, "commit-msg"] as const) {
    const st = statSync(join(firedDir(forgeDir), `${host}.${kind}`), { throwIfNoEntry: false });
    if (st) out[kind] = st.mtime;
  }
  return out;
}
