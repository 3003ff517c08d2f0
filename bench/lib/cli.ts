// For benchmarks that run the `forge` CLI as a whole process (bin/forge.js, which runs dist/):
// where the checkout is, whether dist/ is as new as src/, and a line describing the machine.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout: build/bench/lib/cli.js → three folders up. */
export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const FORGE_BIN = join(REPO, "bin", "forge.js");

/** The entry bin/forge.js loads for every command but --version: the bundle when the build made one. */
function cliEntry(): string {
  const bundled = join(REPO, "dist", "cli-bundle", "forge.cjs");
  return existsSync(bundled) ? bundled : join(REPO, "dist", "cli", "main.js");
}

/** The newest .ts under src/ and its mtime. */
function newestSource(): { path: string; mtimeMs: number } {
  let newest = { path: "", mtimeMs: 0 };
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts")) {
        const m = statSync(p).mtimeMs;
        if (m > newest.mtimeMs) newest = { path: p, mtimeMs: m };
      }
    }
  };
  walk(join(REPO, "src"));
  return newest;
}

/** Throws when dist/ is missing or older than a file of src/: bin/forge.js would run other code than the checkout's. */
export function checkDistFresh(): void {
  const entry = cliEntry();
  if (!existsSync(entry)) throw new Error("dist/ is missing: run `npm run build` first (bin/forge.js runs dist/)");
  const built = statSync(entry).mtimeMs;
  const src = newestSource();
  if (src.mtimeMs > built) throw new Error(`dist/ is older than ${src.path}: run \`npm run build\` first (bin/forge.js runs dist/)`);
}

/** The files of src/ newer than the CLI's entry in dist/ (relative paths): what a run with a stale dist/ does not measure. */
export function sourcesNewerThanDist(): string[] {
  const entry = cliEntry();
  const built = existsSync(entry) ? statSync(entry).mtimeMs : 0;
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts") && statSync(p).mtimeMs > built) out.push(p.slice(REPO.length + 1));
    }
  };
  walk(join(REPO, "src"));
  return out.sort();
}

/** What identifies the build the CLI runs (its entry's mtime): compared before and after a run, it says whether dist/ was rebuilt meanwhile. */
export function distStamp(): string {
  const entry = cliEntry();
  return existsSync(entry) ? `${entry.slice(REPO.length + 1)} @ ${new Date(statSync(entry).mtimeMs).toISOString()}` : "no dist/";
}

/** "Node v20…, git version …, CPU × cores, linux/x64". */
export function machine(options: { git?: boolean } = {}): string {
  const cpu = cpus();
  const git = options.git ? `, ${execFileSync("git", ["--version"], { encoding: "utf8" }).trim()}` : "";
  return `Node ${process.version}${git}, ${cpu[0]?.model.trim() ?? "unknown CPU"} × ${cpu.length}, ${process.platform}/${process.arch}`;
}

/** The 1-, 5- and 15-minute load averages, "2.21 / 2.57 / 2.13". */
export function load(): string {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(" / ");
}
