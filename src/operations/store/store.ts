// The store as a whole: what it holds (du), garbage collection, fsck, and its sessions.
import type { FsckReport } from "../../timeline/fsck.js";
import type { GcReport } from "../../timeline/gc.js";
import { defineOperation } from "../operation.js";

export interface SessionSummaryJson {
  readonly id: string;
  readonly name: string;
  readonly kind: string;
  readonly createdAt: string;
  readonly metadata: Record<string, unknown>;
  readonly checkpoints: number;
  /** When its last checkpoint was made (its creation, before the first). */
  readonly updatedAt: string;
}

export const sessionListOperation = defineOperation({
  name: "session_list",
  title: "List sessions",
  description: "The sessions in the store, with their kind and number of checkpoints.",
  effect: "read",
  input: () => ({}),
  run: async (ctx): Promise<{ readonly store: string; readonly sessions: readonly SessionSummaryJson[] }> => {
    const store = await ctx.store();
    const sessions = [];
    for (const s of await store.listSessions()) {
      const last = s.checkpoints > 0 ? (await (await store.getSession(s.name)).list({ order: "desc", limit: 1 }))[0] : undefined;
      sessions.push({ ...s, createdAt: s.createdAt.toISOString(), updatedAt: (last?.createdAt ?? s.createdAt).toISOString() });
    }
    return { store: store.url, sessions };
  },
});

export const sessionCreateOperation = defineOperation({
  name: "session_create",
  title: "Create a session",
  description: "Creates a session of a kind (generic by default).",
  effect: "write",
  input: (z) => ({ name: z.string().min(1), kind: z.string().min(1).default("generic") }),
  run: async (ctx, input): Promise<{ readonly id: string; readonly name: string; readonly kind: string; readonly createdAt: string }> => {
    const info = await (await (await ctx.store()).createSession(input.name, { kind: input.kind })).info();
    return { id: info.id, name: info.name, kind: info.kind, createdAt: info.createdAt.toISOString() };
  },
});

export const sessionDeleteOperation = defineOperation({
  name: "session_delete",
  title: "Delete a session",
  description: "DELETES A SESSION and all its checkpoints (`forge gc` frees the space).",
  effect: "destructive",
  input: (z) => ({ name: z.string().min(1) }),
  run: async (ctx, input): Promise<{ readonly deleted: string }> => {
    await (await ctx.store()).deleteSession(input.name);
    return { deleted: input.name };
  },
});

export interface UsageJson {
  readonly store: string;
  readonly objects: number;
  readonly bytes: number;
  readonly sessions: readonly { readonly name: string; readonly kind: string; readonly checkpoints: number; readonly bytesAdded: number }[];
  readonly gcWouldFree: { readonly objects: number; readonly bytes: number };
}

export const usageOperation = defineOperation({
  name: "store_usage",
  title: "What the store holds",
  description: "Objects and bytes in the store, what each session's checkpoints added, and what gc would free.",
  effect: "read",
  input: () => ({}),
  run: async (ctx): Promise<UsageJson> => {
    const store = await ctx.store();
    const { objects, bytes } = await store.usage();
    const sessions = [];
    for (const s of await store.listSessions()) {
      const list = await (await store.getSession(s.name)).list();
      const added = list.reduce(
        (n, cp) => n + cp.sizes.newBytes + (typeof cp.metadata["fileBytesAdded"] === "number" ? (cp.metadata["fileBytesAdded"] as number) : 0),
        0,
      );
      sessions.push({ name: s.name, kind: s.kind, checkpoints: list.length, bytesAdded: added });
    }
    const gc = await store.gc({ dryRun: true, graceMs: 0 });
    return { store: store.url, objects, bytes, sessions, gcWouldFree: { objects: gc.deleted, bytes: gc.bytesFreed } };
  },
});

export const gcOperation = defineOperation({
  name: "store_gc",
  title: "Collect garbage",
  description: "Deletes stored objects no checkpoint uses any more, except those written in the last `graceMinutes` (writers in flight may need them).",
  effect: "destructive",
  input: (z) => ({ graceMinutes: z.number().min(0).default(10), dryRun: z.boolean().default(false) }),
  run: async (ctx, input): Promise<GcReport> =>
    (await ctx.store()).gc({ graceMs: input.graceMinutes * 60_000, dryRun: input.dryRun, ...(ctx.onProgress && { onProgress: ctx.onProgress }) }),
});

export const fsckOperation = defineOperation({
  name: "store_fsck",
  title: "Check the store",
  description: "Re-hashes every object and checks every reference; `ok` is false if anything is damaged.",
  effect: "read",
  input: () => ({}),
  run: async (ctx): Promise<FsckReport> => (await ctx.store()).fsck(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
});
