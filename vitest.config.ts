import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The CLI checks every input it builds against its operation's schema (see CliContext.call).
    env: { FORGE_CHECK_INPUTS: "1" },
    include: ["test/**/*.test.ts"],
    // Tests that need what CI has not (the agent hosts' own binaries, logged in): run on purpose.
    exclude: ["test/opt-in/**", "**/node_modules/**"],
    globalSetup: ["test/setup/postgres.global.ts"],
    testTimeout: 60_000,
    // LangGraph's checkpoint validation suite (test/langgraph) calls describe/it/expect as globals.
    globals: true,
    hookTimeout: 120_000,
    // Crash and concurrency tests start child processes; keep files from fighting over 2 cores.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
