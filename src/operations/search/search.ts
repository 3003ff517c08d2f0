// Full-text search over the store's history: one operation for the CLI (`forge search`), the
// MCP server (the `search` tool, and lean `checkpoint_list` with a query) and the web page.
import { InvalidArgumentError } from "../../core/errors.js";
import type { IndexStats } from "../../backends/search/search-index.js";
import type { HitCheckpoint, SearchHit, SearchOrder } from "../../timeline/search.js";
import { defineOperation } from "../operation.js";

/** A checkpoint as a hit names it, in JSON. */
export interface HitCheckpointJson {
  readonly id: string;
  readonly seq: number;
  readonly session: string;
  readonly time: string;
}

/** One hit, in JSON: the checkpoint it stands for, the first and last that held the text, where, and a snippet. */
export interface SearchHitJson extends Omit<SearchHit, "checkpoint" | "first" | "last"> {
  readonly checkpoint: HitCheckpointJson;
  readonly first: HitCheckpointJson;
  readonly last: HitCheckpointJson;
}

/** The search's result as every interface gives it (`forge search --json`, the MCP tool, /api/search). */
export interface SearchJson {
  /** The query, or null for a rebuild alone. */
  readonly query: string | null;
  readonly order: SearchOrder;
  /** Best first; with `first`, earliest first; with `last`, latest first. */
  readonly results: readonly SearchHitJson[];
  /** Checkpoints indexed before searching (new since the last search, or all of them after `reindex`). */
  readonly indexed: number;
  /** After `reindex`: the index's size. */
  readonly index?: IndexStats;
}

const cp = (c: HitCheckpoint): HitCheckpointJson => ({ id: c.id, seq: c.seq, session: c.session, time: c.time.toISOString() });

/** `search`: full-text search of every checkpoint, optionally after rebuilding the index. */
export const searchOperation = defineOperation({
  name: "search",
  title: "Search history",
  description:
    'Full-text search over every checkpoint: reasoning, conversations, run values, checkpoint messages and text files of snapshots. Words are ANDed (3+ letters also match longer words they start); "quoted phrases" match in order. Each hit gives the checkpoint, where in its state or files, and a snippet; `first` orders by where the text first appeared, `last` by where it was last.',
  effect: "read",
  input: (z) => ({
    query: z.string().min(1).optional().describe('words and "quoted phrases"'),
    first: z.boolean().default(false).describe("earliest first appearance first: the answer to 'when did this first come up?'"),
    last: z.boolean().default(false).describe("latest presence first"),
    session: z.string().min(1).optional().describe("only this session (default: every session)"),
    kind: z.string().min(1).optional().describe("only hits of these kinds, comma-separated: reasoning, conversation, files, runs, messages, …"),
    since: z.string().min(1).optional().describe('only checkpoints at or after this time ("2 hours ago", ISO, …)'),
    until: z.string().min(1).optional().describe("only checkpoints at or before this time"),
    limit: z.number().int().min(1).max(1000).default(20),
    reindex: z.boolean().default(false).describe("rebuild the index from scratch first"),
  }),
  run: async (ctx, input): Promise<SearchJson> => {
    if (input.first && input.last) throw new InvalidArgumentError("first and last cannot both be asked for", "pick one order");
    const store = await ctx.store();
    const progress = ctx.onProgress ? { onProgress: ctx.onProgress } : {};
    const index = input.reindex ? await store.reindex(progress) : undefined;
    const order: SearchOrder = input.first ? "first" : input.last ? "last" : "relevance";
    if (input.query === undefined) {
      if (!index) throw new InvalidArgumentError("nothing to search for", 'give a query (words or a "quoted phrase"), or reindex');
      return { query: null, order, results: [], indexed: index.checkpoints, index };
    }
    const kinds = input.kind
      ?.split(",")
      .map((k) => k.trim())
      .filter((k) => k !== "");
    const r = await store.search(input.query, {
      order,
      limit: input.limit,
      ...(input.session !== undefined && { session: input.session }),
      ...(kinds !== undefined && kinds.length > 0 && { kind: kinds }),
      ...(input.since !== undefined && { since: input.since }),
      ...(input.until !== undefined && { until: input.until }),
      ...progress,
    });
    return {
      query: r.query,
      order: r.order,
      results: r.results.map((h) => ({ ...h, checkpoint: cp(h.checkpoint), first: cp(h.first), last: cp(h.last) })),
      indexed: index?.checkpoints ?? r.indexed,
      ...(index && { index }),
    };
  },
});
