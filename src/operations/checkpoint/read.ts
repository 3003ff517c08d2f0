// The reads of a session's timeline: list, show, at (time travel) and the timeline graph
// (full-text search is operations/search/). None creates a session.
import { parsePastTime, parseTime } from "../../core/time.js";
import { isForgeError } from "../../core/errors.js";
import type { Timeline } from "../../timeline/types.js";
import { defineOperation } from "../operation.js";
import { checkpointJson, noCheckpointAt, refField, sessionField, type CheckpointJson } from "../shared.js";

export interface MilestoneMark {
  readonly name: string;
  readonly fromId: string;
  readonly toId: string;
  readonly description: string;
}

export interface ListResult {
  readonly session: string;
  /** The checkpoint HEAD is at, and the branch it is on (null when detached). */
  readonly head: string | null;
  readonly branch: string | null;
  /** Oldest first. */
  readonly checkpoints: readonly CheckpointJson[];
  readonly milestones: readonly MilestoneMark[];
}

export const listOperation = defineOperation({
  name: "checkpoint_list",
  title: "List checkpoints",
  description:
    'A session\'s checkpoints, oldest first, optionally filtered by branch, tag, trigger or time (time expressions like "2 hours ago", "yesterday 5pm" or ISO); `limit` keeps the newest N.',
  effect: "read",
  input: (z) => ({
    branch: z.string().min(1).optional(),
    tag: z.string().min(1).optional(),
    trigger: z.string().min(1).optional().describe("manual, compaction, hypothesis-change, …"),
    since: z.string().min(1).optional().describe("only checkpoints at or after this time"),
    until: z.string().min(1).optional().describe("only checkpoints at or before this time"),
    limit: z.number().int().min(1).max(100_000).optional().describe("at most this many: the newest"),
    session: sessionField(z),
  }),
  run: async (ctx, input): Promise<ListResult> => {
    // A session nobody has written to yet has no checkpoints: listed as empty, not created.
    const session = await ctx.existingSession(input.session).catch((e: unknown) => {
      if (isForgeError(e) && e.code === "SESSION_NOT_FOUND") return null;
      throw e;
    });
    // Times read against the store's clock. A `since` after now can match nothing (every
    // checkpoint was made in the past): refused as the mistake it is. An `until` after now
    // only says "up to now", so it stays allowed.
    const now = new Date((await ctx.store()).clock.now());
    const since = input.since === undefined ? undefined : parsePastTime(input.since, now);
    const until = input.until === undefined ? undefined : parseTime(input.until, now);
    if (session === null) return { session: ctx.sessionName(input.session), head: null, branch: null, checkpoints: [], milestones: [] };
    const newestFirst = await session.list({
      order: "desc",
      ...(input.limit !== undefined && { limit: input.limit }),
      ...(input.branch !== undefined && { branch: input.branch }),
      ...(input.tag !== undefined && { tag: input.tag }),
      ...(input.trigger !== undefined && { trigger: input.trigger }),
      ...(since !== undefined && { since }),
      ...(until !== undefined && { until }),
    });
    const head = await session.head();
    const milestones = (await session.milestones()).map((m) => ({ name: m.name, fromId: m.from.id, toId: m.to.id, description: m.description }));
    return {
      session: session.name,
      head: head.checkpoint?.id ?? null,
      branch: head.branch,
      checkpoints: newestFirst.reverse().map(checkpointJson),
      milestones,
    };
  },
});

export interface ShowResult {
  readonly checkpoint: CheckpointJson;
  /** Its state, unless left out. */
  readonly state?: unknown;
}

export const showOperation = defineOperation({
  name: "checkpoint_show",
  title: "Show a checkpoint",
  description: "A checkpoint's details and, unless `includeState` is false, its saved state.",
  effect: "read",
  input: (z) => ({ ref: refField(z, "the checkpoint").default("HEAD"), includeState: z.boolean().default(true), session: sessionField(z) }),
  run: async (ctx, input): Promise<ShowResult> => {
    const session = await ctx.existingSession(input.session);
    const cp = await session.get(input.ref);
    return { checkpoint: checkpointJson(cp), ...(input.includeState && { state: await session.state(cp.id) }) };
  },
});

export interface AtResult extends ShowResult {
  /** The time asked about, as ISO text. */
  readonly time: string;
}

export const atOperation = defineOperation({
  name: "checkpoint_at",
  title: "Time travel: the checkpoint at a time",
  description:
    'The last checkpoint at or before a time ("2 hours ago", "yesterday 5pm", "2026-01-20 14:30", ISO) and, unless `includeState` is false, what it held.',
  effect: "read",
  input: (z) => ({ time: z.string().min(1), includeState: z.boolean().default(true), session: sessionField(z) }),
  run: async (ctx, input): Promise<AtResult> => {
    const session = await ctx.existingSession(input.session);
    // "The checkpoint at tomorrow" is a mistake, not HEAD: the time must be past (by the store's clock).
    const t = parsePastTime(input.time, new Date((await ctx.store()).clock.now()));
    const cp = await session.at(t);
    if (!cp) throw noCheckpointAt(session.name, t);
    return { time: t.toISOString(), checkpoint: checkpointJson(cp), ...(input.includeState && { state: await session.state(cp.id) }) };
  },
});

export interface TimelineResult {
  readonly session: {
    readonly id: string;
    readonly name: string;
    readonly kind: string;
    readonly createdAt: string;
    readonly metadata: Record<string, unknown>;
  };
  readonly head: { readonly branch: string | null; readonly checkpointId: string | null };
  readonly branches: readonly { readonly name: string; readonly headId: string }[];
  /** Oldest first, with their parents: the graph. */
  readonly checkpoints: readonly CheckpointJson[];
  readonly milestones: readonly MilestoneMark[];
}

export const timelineOperation = defineOperation({
  name: "timeline",
  title: "Timeline",
  description: "A session's checkpoints with their parents and the branch heads: the graph of its history.",
  effect: "read",
  input: (z) => ({ session: sessionField(z) }),
  run: async (ctx, input): Promise<TimelineResult> => timelineJson(await (await ctx.existingSession(input.session)).timeline()),
});

export function timelineJson(tl: Timeline): TimelineResult {
  return { ...tl, session: { ...tl.session, createdAt: tl.session.createdAt.toISOString() }, checkpoints: tl.checkpoints.map(checkpointJson) };
}
