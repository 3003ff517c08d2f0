// Appenders at once on one conversation lose nothing: two objects in one process (their
// writes interleave and retry on CONFLICT), and two processes on one SQLite file (real
// concurrency). Every message arrives exactly once, each writer's in its own order, and
// every save is named after its own seq.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { ConversationSession, type Message } from "../../src/index.js";
import { requireBuiltLibrary } from "../support/processes.js";
import { conversationBench } from "./support.js";

const WRITER = fileURLToPath(new URL("./append-writer.mjs", import.meta.url));

/** The texts of `messages` that `writer` wrote, in order. */
function by(writer: string, messages: readonly Message[]): string[] {
  return messages.map((m) => m.content as string).filter((t) => t.startsWith(`${writer}:`));
}

describe("concurrent appends", () => {
  it("two session objects appending at once in one process lose nothing", async () => {
    const { cs, store } = await conversationBench();
    const other = await ConversationSession.open(store, cs.name);
    const writer = async (s: ConversationSession, name: string) => {
      for (let n = 0; n < 25; n++) await s.append({ role: "user", content: `${name}:${n}` });
    };
    await Promise.all([writer(cs, "a"), writer(other, "b")]);
    const messages = await cs.messages();
    expect(messages).toHaveLength(50);
    expect(by("a", messages)).toEqual(Array.from({ length: 25 }, (_, n) => `a:${n}`));
    expect(by("b", messages)).toEqual(Array.from({ length: 25 }, (_, n) => `b:${n}`));
  });

  describe("two processes on one SQLite file", () => {
    beforeAll(() => requireBuiltLibrary());

    it("append 30 messages each at once; every message arrives once, in each writer's order", async () => {
      const { url, cs } = await conversationBench("shared");
      const children = ["p", "q"].map((name) => {
        const child = spawn(process.execPath, [WRITER, url, "shared", name, "30"], { stdio: ["pipe", "pipe", "pipe"] });
        let stderr = "";
        child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
        const ready = new Promise<void>((resolve) => createInterface({ input: child.stdout }).once("line", () => resolve()));
        const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
        return { name, child, ready, exited, stderr: () => stderr };
      });
      await Promise.all(children.map((c) => c.ready));
      for (const c of children) c.child.stdin.end("go\n");
      for (const c of children) expect(await c.exited, c.stderr()).toBe(0);

      const messages = await cs.messages();
      expect(messages).toHaveLength(60);
      expect(by("p", messages)).toEqual(Array.from({ length: 30 }, (_, n) => `p:${n}`));
      expect(by("q", messages)).toEqual(Array.from({ length: 30 }, (_, n) => `q:${n}`));
      const saves = await cs.list();
      expect(saves).toHaveLength(12);
      for (const cp of saves) expect(cp.name).toBe(`Checkpoint ${cp.seq}`);
    });
  });
});
