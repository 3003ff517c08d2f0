// Reconstruction fixture: a fresh process that knows nothing of the session but its store.
// Opens the store at argv[2], opens reasoning session argv[3], restores checkpoint argv[4]
// and prints rs.state() as one line of JSON. Any error goes to stderr with exit code 1.
import { openStore } from "../../dist/index.js";
import { ReasoningSession } from "../../dist/domains/reasoning/reasoning-session.js";

const [url, sessionName, checkpointId] = process.argv.slice(2);
if (!url || !sessionName || !checkpointId) {
  process.stderr.write("usage: reconstruct-state.mjs STORE_URL SESSION CHECKPOINT\n");
  process.exit(2);
}

try {
  const store = await openStore(url);
  try {
    const rs = await ReasoningSession.open(store, sessionName);
    await rs.restore(checkpointId);
    process.stdout.write(`${JSON.stringify(rs.state())}\n`);
  } finally {
    await store.close();
  }
} catch (e) {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
}
