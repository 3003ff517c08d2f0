#!/usr/bin/env node
// The `forge` command: runs the compiled CLI (npm install builds dist/ through `prepare`).
// `forge --version` answers from package.json without loading the CLI: version checks by
// scripts and agent hosts should cost Node's start and nothing more. Every other command
// runs the bundled CLI (scripts/bundle-cli.mjs: one script instead of ~100 modules) through
// V8's code cache (code-cache.js), or the compiled modules when the build made no bundle.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  // A reader that is gone (`forge --version | head -0`) is no error; main() does the same for every command.
  process.stdout.on("error", (e) => {
    if (e.code !== "EPIPE") throw e;
  });
  process.stdout.write(`${JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version}\n`);
} else {
  const bundled = fileURLToPath(new URL("../dist/cli-bundle/forge.cjs", import.meta.url));
  // FORGE_NO_BUNDLE=1: the compiled modules one by one (tests that watch which modules a command loads).
  if (existsSync(bundled) && process.env.FORGE_NO_BUNDLE !== "1") {
    const { loadBundle } = await import("./code-cache.js");
    const { exports, save } = loadBundle(bundled);
    process.exitCode = await exports.main(process.argv);
    save();
  } else {
    const { main } = await import("../dist/cli/main.js");
    process.exitCode = await main(process.argv);
  }
}
