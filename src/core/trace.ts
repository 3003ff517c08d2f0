// FORGE_TRACE=1: where a command's time goes. Each mark prints the milliseconds since the
// process started and what was just done to stderr, as git's GIT_TRACE_PERFORMANCE does, so a
// slow hook can be taken apart on the machine where it is slow. Off, a mark costs one test
// and is remembered: the marks a run passed name the way it went (`waysTaken`), which the
// code cache keys its rewrites on (bin/code-cache.js).
import { performance } from "node:perf_hooks";

const on = process.env["FORGE_TRACE"] === "1";

const passed = new Set<string>();

/** Prints "forge trace: <ms since start> <what>" when FORGE_TRACE=1. */
export function mark(what: string): void {
  passed.add(what);
  if (on) process.stderr.write(`forge trace: ${performance.now().toFixed(1).padStart(7)} ms  ${what}\n`);
}

/** The marks passed so far, in the order first passed: which way this run went (a quick status, a walk, …). */
export function waysTaken(): string {
  return [...passed].join("|");
}
