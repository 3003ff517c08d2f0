#!/usr/bin/env node
// The `forge` command: runs the compiled CLI (npm install builds dist/ through `prepare`).
// `forge --version` answers from package.json without loading the CLI: version checks by
// scripts and agent hosts should cost Node's start and nothing more. Every other command
// runs the bundled CLI (scripts/bundle-cli.mjs: one script instead of ~100 modules) through
// V8's code cache (code-cache.js), or the compiled modules when the build made no bundle.
// CommonJS (bin/package.json): Node's ES module loader is loaded only when a command needs it.
"use strict";
const { existsSync, readFileSync } = require("node:fs");
const { join } = require("node:path");

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  // A reader that is gone (`forge --version | head -0`) is no error; main() does the same for every command.
  process.stdout.on("error", (e) => {
    if (e.code !== "EPIPE" && e.code !== "ECONNRESET") throw e;
  });
  process.stdout.write(`${JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")).version}\n`);
} else {
  const bundled = join(__dirname, "..", "dist", "cli-bundle", "forge.cjs");
  // FORGE_NO_BUNDLE=1: the compiled modules one by one (tests that watch which modules a command loads).
  const run =
    existsSync(bundled) && process.env.FORGE_NO_BUNDLE !== "1"
      ? async () => {
          const bundleDir = join(__dirname, "..", "dist", "cli-bundle");
          // A capture hook (`hook <kind> --host <id>`) is offered to a long-lived Forge process of its workspace first (forge mcp): served, it is done.
          let hookInput;
          if (args[0] === "hook" && args[2] === "--host") {
            const offered = await require(join(bundleDir, "hook-client.cjs")).handHookOver(args, bundled);
            if (offered.served) return;
            hookInput = offered.stdin;
          }
          // A command that walks the work tree has its folders listed on the other core while the CLI loads.
          // Else, where the last snapshot kept its stats, GNU find lstat's the files there (stat-preload.ts).
          let preload;
          let statPreload;
          if (process.env.FORGE_NO_PRELOAD !== "1" && require(join(bundleDir, "walk-preload-start.cjs")).walksWorkTree(args)) {
            const start = require(join(bundleDir, "walk-preload-start.cjs"));
            preload = start.startWalkPreload(process.cwd(), join(bundleDir, "walk-preload-worker.cjs"));
            if (preload === undefined) statPreload = start.startStatPreloadIn(process.cwd());
          }
          const { commandWords, loadBundle } = require("./code-cache.js");
          const { exports, save } = loadBundle(bundled, commandWords(args));
          exports.adoptWalkPreload?.(preload);
          exports.adoptStatPreload?.(statPreload);
          exports.adoptHookInput?.(hookInput);
          process.exitCode = await exports.main(process.argv);
          // Each command's code cache is named by as many words as its name has ("forge files status": 2),
          // and written again after a run that went a way it was not written after.
          const ran = exports.lastCommand?.() ?? "";
          save(ran === "" ? undefined : ran.split(" ").length - 1, exports.waysTaken?.() ?? "");
        }
      : async () => {
          const { main } = await import("../dist/cli/main.js");
          process.exitCode = await main(process.argv);
        };
  run().catch((e) => {
    // main() reports every error itself; this is a failure to load the CLI at all.
    process.stderr.write(`forge: ${e?.stack ?? e}\n`);
    process.exitCode = 1;
  });
}
