// Where a benchmark's report goes: standard output always, bench/results/NAME.md unless it
// was a --quick run (reduced counts are for trying the harness, not for numbers).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export function publish(name: string, markdown: string, options: { quick: boolean; log: (msg: string) => void }): void {
  process.stdout.write(markdown);
  if (options.quick) {
    options.log(`quick mode: bench/results/${name}.md left as it was`);
    return;
  }
  // build/bench/lib/report.js → bench/results/NAME.md in the source tree.
  const resultsDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "bench", "results");
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, `${name}.md`), markdown);
  options.log(`wrote ${join(resultsDir, `${name}.md`)}`);
}

/** Runs a benchmark's main: a failure prints its stack and sets a failing exit code. */
export function runMain(main: () => Promise<void>): void {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  });
}
