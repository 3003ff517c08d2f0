// Temporary folders for stores under test, removed when the caller is done with them.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TempDir {
  readonly path: string;
  remove(): void;
}

export function makeTempDir(label: string): TempDir {
  const path = mkdtempSync(join(tmpdir(), `forge-${label}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
