// A whole history written as a new session at once: every checkpoint's state first, then the
// session, the checkpoints (their own seqs, times, parents and branches, under new ids), the
// branches, HEAD and the working state in one metadata transaction, under the gc-epoch
// protocol of Session's writes — so a failure or a crash leaves no session at all, never
// half of one. Session's API commits checkpoint by checkpoint and gives each the next seq
// and the time of now, so an importer of another format's history (a conversation export)
// cannot use it.
import { ForgeError, InvalidArgumentError } from "../core/errors.js";
import { checkName, newId } from "../core/ids.js";
import type { CheckpointRow } from "../backends/backend.js";
import type { WrittenTree } from "../objects/object-store.js";
import { Session } from "./session.js";
import { writeUnderEpoch } from "./epoch-write.js";
import type { StoreContext } from "./store-context.js";

/** One checkpoint of an imported history. */
export interface HistoryCheckpoint {
  /** What the history calls it: parents, branches and HEAD name checkpoints by it. The store gives it a new id. */
  readonly key: string;
  readonly seq: number;
  /** The parent's key; null for a root. */
  readonly parent: string | null;
  /** The branch it was made on. */
  readonly branch: string;
  /** When it was made (epoch ms). */
  readonly createdAt: number;
  readonly message: string;
  readonly tags: readonly string[];
  readonly trigger: string;
  readonly metadata: Record<string, unknown>;
  /** The state it holds (JSON). */
  readonly state: unknown;
}

/** A history to write as a new session (`Store.importHistory`). */
export interface ImportedHistory {
  /** The new session's name; IMPORT_CONFLICT if the store has a session by that name. */
  readonly name: string;
  readonly kind: string;
  readonly metadata?: Record<string, unknown>;
  /** Parents before their children (the order states are encoded in, so neighbours share objects). */
  readonly checkpoints: readonly HistoryCheckpoint[];
  /** Branch heads, by checkpoint key. */
  readonly branches: readonly { readonly name: string; readonly checkpoint: string }[];
  /** HEAD: on a branch (which may have no checkpoint yet), or detached at a checkpoint key. */
  readonly head: { readonly branch: string } | { readonly checkpoint: string };
  /** The working state (default: the state HEAD's checkpoint holds; none without one). */
  readonly working?: unknown;
}

/** Writes `history` as a new session, all or nothing, and returns it. */
export async function importHistory(ctx: StoreContext, given: ImportedHistory): Promise<Session> {
  checkHistory(given);
  // The states are redacted as they are encoded; what the rows carry is redacted here.
  const redactor = ctx.objects.redactor;
  const history: ImportedHistory = {
    ...given,
    ...(given.metadata !== undefined && { metadata: await redactor.redactJson(given.metadata) }),
    checkpoints: await Promise.all(
      given.checkpoints.map(async (c) => ({
        ...c,
        message: await redactor.redactText(c.message),
        tags: await redactor.redactJson(c.tags),
        metadata: await redactor.redactJson(c.metadata),
      })),
    ),
  };
  // Checked again in the transaction; here too so a taken name writes no objects either.
  if (await ctx.backend.meta.getSessionByName(history.name)) throw taken(history.name);
  const headKey = headKeyOf(history);
  const sessionId = newId();
  const ids = new Map(history.checkpoints.map((c) => [c.key, newId(c.createdAt)]));
  const idOf = (key: string): string => ids.get(key) as string;
  // Every state first (again if a gc ran before the metadata commits: it may have removed
  // objects a state reused), then the session, its checkpoints, refs, HEAD and working state.
  const writeStates = async () => {
    const trees = new Map<string, WrittenTree>();
    for (const c of history.checkpoints) trees.set(c.key, await ctx.objects.writeValue(c.state, sessionId));
    const work =
      history.working !== undefined ? await ctx.objects.writeValue(history.working, sessionId) : headKey === undefined ? undefined : trees.get(headKey);
    return { trees, work };
  };
  const row = await writeUnderEpoch(ctx, `import session "${history.name}"`, writeStates, async (tx, { trees, work }) => {
    if (await tx.getSessionByName(history.name)) throw taken(history.name);
    const session = {
      id: sessionId,
      name: history.name,
      kind: history.kind,
      createdAt: ctx.clock.now(),
      metadata: history.metadata ?? {},
      nextSeq: 1,
      headBranch: "branch" in history.head ? history.head.branch : null,
      headCheckpoint: "checkpoint" in history.head ? idOf(history.head.checkpoint) : null,
      workRoot: work?.root ?? null,
      workVersion: work ? 1 : 0,
    };
    await tx.insertSession(session);
    for (const c of history.checkpoints) {
      const tree = trees.get(c.key) as WrittenTree;
      const cp: CheckpointRow = {
        id: idOf(c.key),
        sessionId,
        seq: c.seq,
        parentId: c.parent === null ? null : idOf(c.parent),
        branch: c.branch,
        createdAt: c.createdAt,
        message: c.message,
        tags: [...c.tags],
        trigger: c.trigger,
        metadata: c.metadata,
        stateRoot: tree.root,
        filesRoot: null,
        logicalBytes: tree.logicalBytes,
        newBytes: tree.newBytes,
      };
      await tx.insertCheckpoint(cp);
    }
    for (const b of history.branches) await tx.setRef(sessionId, b.name, idOf(b.checkpoint));
    return session;
  });
  return new Session(ctx, row);
}

/** The links hold: keys and seqs unique, parents earlier, branches and HEAD on checkpoints of the history. */
function checkHistory(h: ImportedHistory): void {
  checkName("session", h.name);
  const keys = new Set<string>();
  const seqs = new Set<number>();
  for (const c of h.checkpoints) {
    if (keys.has(c.key)) throw new InvalidArgumentError(`the history has two checkpoints called ${c.key}`);
    if (!Number.isInteger(c.seq) || c.seq < 1 || seqs.has(c.seq))
      throw new InvalidArgumentError(`checkpoint ${c.key}: seq ${c.seq} is not a whole number ≥ 1 of its own`);
    if (c.parent !== null && !keys.has(c.parent))
      throw new InvalidArgumentError(`checkpoint ${c.key}: its parent ${c.parent} is not an earlier checkpoint of the history`);
    checkName("branch", c.branch);
    keys.add(c.key);
    seqs.add(c.seq);
  }
  const branches = new Set<string>();
  for (const b of h.branches) {
    checkName("branch", b.name);
    if (branches.has(b.name)) throw new InvalidArgumentError(`branch "${b.name}" is listed twice`);
    branches.add(b.name);
    if (!keys.has(b.checkpoint)) throw new InvalidArgumentError(`branch "${b.name}" points at ${b.checkpoint}, which is not a checkpoint of the history`);
  }
  if ("checkpoint" in h.head && !keys.has(h.head.checkpoint))
    throw new InvalidArgumentError(`HEAD is detached at ${h.head.checkpoint}, which is not a checkpoint of the history`);
  if ("branch" in h.head) checkName("branch", h.head.branch);
}

/** The checkpoint HEAD is at: the detached one, or its branch's head (none on a branch with no checkpoint yet). */
function headKeyOf(h: ImportedHistory): string | undefined {
  const head = h.head;
  return "checkpoint" in head ? head.checkpoint : h.branches.find((b) => b.name === head.branch)?.checkpoint;
}

function taken(name: string): ForgeError {
  return new ForgeError("IMPORT_CONFLICT", `this store already has a session named "${name}"`, {
    hint: "import it under another name with --as NAME, or delete that session first; nothing was imported",
  });
}
