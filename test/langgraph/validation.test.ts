// LangGraph's own conformance suite for checkpoint savers, run against ForgeSaver on a
// SQLite store (a file in a temp folder), on the run's PostgreSQL server — each
// checkpointer the suite asks for gets a fresh store, removed when the suite destroys it —
// and on a memory store, which keeps no side records (pending writes then go into entries).
// Also the suite's opt-in getDeltaChannelHistory group, which ForgeSaver implements itself.
import { deltaChannelHistoryTests, validate, type CheckpointSaverTestInitializer } from "@langchain/langgraph-checkpoint-validation";
import { ForgeSaver } from "../../src/integrations/langgraph/index.js";
import { dropSchema, pgStoreUrl } from "../support/postgres.js";
import { makeTempDir } from "../support/temp.js";

function initializer(checkpointerName: string, open: () => Promise<{ url: string; cleanup: () => Promise<void> }>): CheckpointSaverTestInitializer<ForgeSaver> {
  const cleanups = new Map<ForgeSaver, () => Promise<void>>();
  return {
    checkpointerName,
    async createCheckpointer() {
      const { url, cleanup } = await open();
      const saver = await ForgeSaver.open(url);
      cleanups.set(saver, cleanup);
      return saver;
    },
    async destroyCheckpointer(saver) {
      await saver.close();
      await cleanups.get(saver)?.();
      cleanups.delete(saver);
    },
  };
}

const sqlite = initializer("forge-reasoning-sqlite", async () => {
  const dir = makeTempDir("langgraph");
  return { url: `sqlite:${dir.path}/forge.db`, cleanup: async () => dir.remove() };
});

// A store that keeps no side records: pending writes go into entries (ForgeSaver's fallback).
const memory = initializer("forge-reasoning-memory", async () => ({ url: "memory:", cleanup: async () => undefined }));

const postgres = initializer("forge-reasoning-postgres", async () => {
  const url = pgStoreUrl("langgraph");
  return { url, cleanup: () => dropSchema(url) };
});

validate(sqlite);
deltaChannelHistoryTests(sqlite);
validate(postgres);
deltaChannelHistoryTests(postgres);
validate(memory);
deltaChannelHistoryTests(memory);
