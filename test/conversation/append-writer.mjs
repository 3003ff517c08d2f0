// Concurrency-test appender on the built library (dist/): opens the store at argv[2],
// prints "ready", waits for a line on stdin (so every appender starts at once), then
// appends argv[5] user messages "<writer>:<n>" one by one to conversation argv[3], and
// a save after every fifth. Any error goes to stderr with exit code 1.
import { createInterface } from "node:readline";
import { ConversationSession, openStore } from "../../dist/index.js";

const [url, session, writer, countArg] = process.argv.slice(2);
try {
  const store = await openStore(url);
  const cs = await ConversationSession.open(store, session);
  process.stdout.write("ready\n");
  const lines = createInterface({ input: process.stdin });
  await new Promise((resolve) => lines.once("line", resolve));
  lines.close();
  for (let n = 0; n < Number(countArg); n++) {
    await cs.append({ role: "user", content: `${writer}:${n}` });
    if (n % 5 === 4) await cs.save();
  }
  await store.close();
} catch (e) {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
}
