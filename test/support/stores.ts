// Opening real stores of each kind for the shared contract: SQLite files and file-store
// folders live in fresh temp folders, removed on cleanup.
import { type OpenOptions, openStore } from "../../src/index.js";
import type { StoreUnderTest } from "../contract/backend-contract.js";
import { dropSchema, pgStoreUrl } from "./postgres.js";
import { makeTempDir } from "./temp.js";

export async function memoryStore(options: OpenOptions = {}): Promise<StoreUnderTest> {
  const store = await openStore("memory:", options);
  return { store, cleanup: () => store.close() };
}

export async function fileStore(options: OpenOptions = {}): Promise<StoreUnderTest> {
  const dir = makeTempDir("file");
  const store = await openStore(`file:${dir.path}/store`, options);
  return {
    store,
    cleanup: async () => {
      await store.close();
      dir.remove();
    },
  };
}

export async function sqliteStore(options: OpenOptions = {}): Promise<StoreUnderTest> {
  const dir = makeTempDir("sqlite");
  const store = await openStore(`sqlite:${dir.path}/forge.db`, options);
  return {
    store,
    cleanup: async () => {
      await store.close();
      dir.remove();
    },
  };
}

/** A store on the run's PostgreSQL server, in a schema of its own (dropped on cleanup). */
export async function postgresStore(): Promise<StoreUnderTest> {
  const url = pgStoreUrl("contract");
  const store = await openStore(url);
  return {
    store,
    cleanup: async () => {
      await store.close();
      await dropSchema(url);
    },
  };
}
