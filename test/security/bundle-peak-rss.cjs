// Preloaded (node --require) into a forge child by test/security/bundle-cli.test.ts: when the
// process exits it writes its peak RSS (VmHWM from /proc/self/status, in kB) to the file
// FORGE_TEST_PEAK_RSS_FILE names — read at exit, so a short-lived peak is never missed.
const { readFileSync, writeFileSync } = require("node:fs");

process.on("exit", () => {
  const m = /VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"));
  writeFileSync(process.env.FORGE_TEST_PEAK_RSS_FILE, m ? m[1] : "");
});
