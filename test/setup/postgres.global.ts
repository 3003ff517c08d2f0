// Vitest global setup: one throwaway PostgreSQL cluster for the whole run (see
// test/support/postgres-server.ts). If it cannot start, the reason is provided instead of a
// URL and every postgres test fails with it — nothing is skipped.
import type { TestProject } from "vitest/node";
import { startPostgres } from "../support/postgres-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    pgUrl: string;
    pgError: string;
  }
}

export default function setup(project: TestProject): () => void {
  try {
    const server = startPostgres();
    project.provide("pgUrl", server.url);
    project.provide("pgError", "");
    return () => server.stop();
  } catch (e) {
    project.provide("pgUrl", "");
    project.provide("pgError", (e as Error).message);
    return () => undefined;
  }
}
