#!/usr/bin/env node
// The `forge` command: runs the compiled CLI (npm install builds dist/ through `prepare`).
// `forge --version` answers from package.json without loading the CLI: version checks by
// scripts and agent hosts should cost Node's start and nothing more.
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  // A reader that is gone (`forge --version | head -0`) is no error; main() does the same for every command.
  process.stdout.on("error", (e) => {
    if (e.code !== "EPIPE") throw e;
  });
  process.stdout.write(`${JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version}\n`);
} else {
  const { main } = await import("../dist/cli/main.js");
  process.exitCode = await main(process.argv);
}
