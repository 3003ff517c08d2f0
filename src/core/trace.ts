// FORGE_TRACE=1: where a command's time goes. Each mark prints the milliseconds since the
// process started and what was just done to stderr, as git's GIT_TRACE_PERFORMANCE does, so a
// slow hook can be taken apart on the machine where it is slow. Off, a mark costs one test.
import { performance } from "node:perf_hooks";

const on = process.env["FORGE_TRACE"] === "1";

/** Prints "forge trace: <ms since start> <what>" when FORGE_TRACE=1. */
export function mark(what: string): void {
  if (on) process.stderr.write(`forge trace: ${performance.now().toFixed(1).padStart(7)} ms  ${what}\n`);
}
