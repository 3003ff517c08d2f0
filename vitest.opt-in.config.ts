// The opt-in tests (test/opt-in/): they drive the agent hosts' real binaries, which need their
// own login. `npm run test:real-hosts`; never part of `npm test`.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { include: ["test/opt-in/**/*.test.ts"], testTimeout: 600_000 },
});
