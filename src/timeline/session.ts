// One session's timeline: checkpoints, HEAD, branches, tags, time travel, compare, prune.
// Write order (DESIGN §3): a state's objects are stored first; the checkpoint row, the
// branch ref and HEAD then change in one transaction, so a crash at any moment leaves at
// worst unreferenced objects, never a checkpoint that points at nothing.
import { CheckpointNotFoundError, ForgeError, InvalidArgumentError } from "../core/errors.js";
import { checkName, newId } from "../core/ids.js";
import { parseTime, type TimeInput } from "../core/time.js";
import type { CheckpointRow, MetaReader, MetaWriter, MilestoneRow, RefRow, SessionRow } from "../backends/backend.js";
import { compareCheckpoints } from "./compare.js";
import {
  chainBetween,
  insertMilestone,
  milestoneEnds,
  milestoneNotFound,
  refuseMilestoneEnds,
  type Milestone,
  type MilestoneOptions,
  type MilestoneSpan,
} from "./milestones.js";
import { headId, resolveRef } from "./refs.js";
import { DEFAULT_RETENTION, isEmptyPolicy, planRetention, type KeepReason, type RetentionPolicy } from "./retention.js";
import { squashRange, type SquashOptions, type SquashReport } from "./squash.js";
import type { WrittenTree } from "../objects/object-store.js";
import type { UnchangedHint } from "../objects/value-encoder.js";
import type { StoreContext } from "./store-context.js";
import {
  toCheckpoint,
  toSessionInfo,
  type Branch,
  type Checkpoint,
  type CheckpointOptions,
  type Comparison,
  type Head,
  type ListFilter,
  type RestoreOptions,
  type RestoreResult,
  type SessionInfo,
  type Timeline,
} from "./types.js";

export const MAIN_BRANCH = "main";
const MAX_WRITE_ATTEMPTS = 5;

export interface SetWorkingOptions {
  /** Write only if the working state is still at this version (else CONFLICT). */
  readonly expectedVersion?: number;
  /** Top-level keys the caller knows are unchanged since the state with a given root (see UnchangedHint). */
  readonly unchanged?: UnchangedHint;
  /** Decides, inside the write's transaction, whether it is also a checkpoint. */
  readonly checkpoint?: (facts: WriteFacts) => CheckpointOptions | undefined;
}

/** What a working-state write knows inside its transaction. */
export interface WriteFacts {
  /** The state differs from the working state before. */
  readonly changed: boolean;
  /** The state differs from the one HEAD's checkpoint holds (there is work since it). */
  readonly unsaved: boolean;
  /** When HEAD's checkpoint was made; null without one. */
  readonly lastCheckpointAt: number | null;
  /** The seq a checkpoint made by this write gets (so its message may name it). */
  readonly nextSeq: number;
}

export interface SetWorkingResult {
  readonly version: number;
  readonly root: string;
  /** Whether the state differed from the working state before. */
  readonly changed: boolean;
  /** The checkpoint made with it, if `checkpoint` asked for one. */
  readonly checkpoint: Checkpoint | null;
}

interface CheckedOptions {
  readonly gcEpoch?: number;
  readonly message: string;
  readonly tags: string[];
  readonly trigger: string;
  readonly metadata: Record<string, unknown>;
  readonly filesRoot: string | null;
}

/** Validates checkpoint options before anything is written. */
function checkCheckpointOptions(options: CheckpointOptions): CheckedOptions {
  const tags = normalizeTags(options.tags ?? []);
  const trigger = options.trigger ?? "manual";
  if (!/^[a-z][a-z0-9_-]{0,63}$/.test(trigger)) {
    throw new InvalidArgumentError(`invalid trigger "${trigger}"`, "use lower-case letters, digits, _ and -");
  }
  const metadata = options.metadata ?? {};
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    throw new InvalidArgumentError("checkpoint metadata must be a JSON object");
  }
  JSON.stringify(metadata); // throws early on cycles, before anything is written
  return {
    message: options.message ?? "",
    tags,
    trigger,
    metadata,
    filesRoot: options.filesRoot ?? null,
    ...(options.gcEpoch !== undefined && { gcEpoch: options.gcEpoch }),
  };
}

export interface PruneOptions extends RetentionPolicy {
  /** Report what would go without deleting anything. */
  readonly dryRun?: boolean;
}

export interface PruneReport {
  readonly dryRun: boolean;
  readonly policy: RetentionPolicy;
  readonly kept: readonly { readonly checkpoint: Checkpoint; readonly reason: KeepReason }[];
  readonly deleted: readonly Checkpoint[];
  /** Where HEAD went, when the checkpoint it was detached at was pruned. */
  readonly headMoved: { readonly from: string; readonly to: Head["branch"] | string } | null;
}

export class Session {
  readonly #ctx: StoreContext;
  readonly id: string;
  readonly name: string;

  constructor(ctx: StoreContext, row: SessionRow) {
    this.#ctx = ctx;
    this.id = row.id;
    this.name = row.name;
  }

  get #meta(): MetaReader {
    return this.#ctx.backend.meta;
  }

  async #row(reader: MetaReader = this.#meta): Promise<SessionRow> {
    const row = await reader.getSessionById(this.id);
    if (!row) throw new ForgeError("SESSION_NOT_FOUND", `session "${this.name}" no longer exists`);
    return row;
  }

  #info(row: CheckpointRow): Checkpoint {
    return toCheckpoint(row, this.name);
  }

  async info(): Promise<SessionInfo> {
    return toSessionInfo(await this.#row());
  }

  /** Saves `state` as a new checkpoint on HEAD's branch (or a new branch when HEAD is detached). */
  async checkpoint(state: unknown, options: CheckpointOptions = {}): Promise<Checkpoint> {
    const checked = checkCheckpointOptions(options);
    const row = await this.#write(state, async (tx, session, tree) => this.#append(tx, session, tree, checked));
    return this.#info(row);
  }

  /**
   * Writes `state`'s objects, then runs `commit` in a metadata transaction — again from the
   * top if a gc ran in between (the objects this tree reuses may be gone).
   */
  async #write<T>(state: unknown, commit: (tx: MetaWriter, session: SessionRow, tree: WrittenTree) => Promise<T>, hint?: UnchangedHint): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const epoch = await this.#ctx.syncGcEpoch();
      const tree = await this.#ctx.objects.writeValue(state, this.id, hint);
      const done = await this.#ctx.backend.transaction(async (tx) => {
        if ((await tx.getGcEpoch()) !== epoch) return { retry: true as const };
        return { retry: false as const, value: await commit(tx, await this.#row(tx), tree) };
      });
      if (!done.retry) return done.value;
      if (attempt >= MAX_WRITE_ATTEMPTS) {
        throw new ForgeError("CONFLICT", `could not save session "${this.name}": garbage collection kept running during ${attempt} attempts`, {
          hint: "try again when no `forge gc` is running",
        });
      }
    }
  }

  /** Inserts a checkpoint of `tree` on HEAD's branch and makes it the working state (inside a transaction). */
  async #append(tx: MetaWriter, session: SessionRow, tree: WrittenTree, options: CheckedOptions): Promise<CheckpointRow> {
    if (options.gcEpoch !== undefined && (await tx.getGcEpoch()) !== options.gcEpoch) {
      throw new ForgeError("CONFLICT", "a garbage collection ran while the checkpoint's objects were being chosen", {
        hint: "take it again",
        data: { gcRace: true },
      });
    }
    const seq = await tx.allocateSeq(this.id);
    let branch: string;
    let parentId: string | null;
    if (session.headBranch !== null) {
      branch = session.headBranch;
      parentId = (await tx.getRef(this.id, branch))?.checkpointId ?? null;
    } else {
      parentId = session.headCheckpoint;
      const parent = parentId === null ? undefined : await tx.getCheckpoint(parentId);
      branch = await freeBranchName(tx, this.id, `${parent?.branch ?? MAIN_BRANCH}-from-${parent?.seq ?? 0}`);
    }
    const row: CheckpointRow = {
      id: newId(),
      sessionId: this.id,
      seq,
      parentId,
      branch,
      createdAt: this.#ctx.clock.now(),
      message: options.message,
      tags: options.tags,
      trigger: options.trigger,
      metadata: options.metadata,
      stateRoot: tree.root,
      filesRoot: options.filesRoot,
      logicalBytes: tree.logicalBytes,
      newBytes: tree.newBytes,
    };
    await tx.insertCheckpoint(row);
    await tx.setRef(this.id, branch, row.id);
    // What was just saved is what the session holds now.
    await tx.updateSession(this.id, { headBranch: branch, headCheckpoint: null, ...workPatch(session, tree.root) });
    return row;
  }

  /**
   * Saves the session's working state as a checkpoint (see `setWorking`); an error if the
   * session has none.
   */
  async checkpointWorking(options: CheckpointOptions = {}): Promise<Checkpoint> {
    const working = await this.working();
    if (!working) {
      throw new ForgeError("NO_CHECKPOINT", `session "${this.name}" has no working state to checkpoint`, {
        hint: "pass a state (forge checkpoint create --state FILE)",
      });
    }
    return this.checkpoint(working.state, options);
  }

  /**
   * The session's working state: what it holds now, between checkpoints. Domains (the
   * reasoning board, a conversation) keep their live state here so every process sees it;
   * checkpoint, restore and switch keep it in step with HEAD.
   */
  async working(): Promise<{ state: unknown; version: number; root: string } | undefined> {
    const row = await this.#row();
    if (row.workRoot === null) return undefined;
    return { state: await this.#ctx.objects.readValue(row.workRoot), version: row.workVersion, root: row.workRoot };
  }

  /** The working state's version (0 before it was ever set): a cheap way to see whether it changed. */
  async workVersion(): Promise<number> {
    return (await this.#row()).workVersion;
  }

  /** The working state's root hash (null before it was ever set), without reading the state. */
  async workRoot(): Promise<string | null> {
    return (await this.#row()).workRoot;
  }

  /** How many checkpoints the session has (one count, no rows read). */
  async count(): Promise<number> {
    return this.#meta.countCheckpoints(this.id);
  }

  /** A checkpoint of this session by its full id, or undefined if there is none (no ref resolving). */
  async byId(id: string): Promise<Checkpoint | undefined> {
    const row = await this.#meta.getCheckpoint(id);
    return row && row.sessionId === this.id ? this.#info(row) : undefined;
  }

  /**
   * Replaces the working state. With `expectedVersion`, the write happens only if no other
   * writer changed the working state since that version was read (CONFLICT otherwise), so
   * read-modify-write cycles from several processes never lose an update.
   *
   * `checkpoint`, if given, is asked — inside the same transaction — whether this write
   * should also be a checkpoint (told whether the state changed and when HEAD's checkpoint
   * was made); the working state and that checkpoint then commit together.
   */
  async setWorking(state: unknown, options: SetWorkingOptions = {}): Promise<SetWorkingResult> {
    return this.#write(
      state,
      async (tx, session, tree) => {
        if (options.expectedVersion !== undefined && session.workVersion !== options.expectedVersion) {
          throw new ForgeError(
            "CONFLICT",
            `the working state of session "${this.name}" changed meanwhile (version ${session.workVersion}, expected ${options.expectedVersion})`,
            {
              hint: "read it again and reapply the change",
            },
          );
        }
        const changed = session.workRoot !== tree.root;
        let checkpoint: Checkpoint | null = null;
        if (options.checkpoint) {
          const headCheckpoint = await headId(tx, session).then((id) => (id === null ? undefined : tx.getCheckpoint(id)));
          const wanted = options.checkpoint({
            changed,
            unsaved: headCheckpoint?.stateRoot !== tree.root,
            lastCheckpointAt: headCheckpoint?.createdAt ?? null,
            nextSeq: session.nextSeq,
          });
          if (wanted) checkpoint = this.#info(await this.#append(tx, session, tree, checkCheckpointOptions(wanted)));
        }
        if (checkpoint === null && changed) await tx.updateSession(this.id, workPatch(session, tree.root));
        return { version: changed ? session.workVersion + 1 : session.workVersion, root: tree.root, changed, checkpoint };
      },
      options.unchanged,
    );
  }

  /** The checkpoint a ref names (see refs.ts for the grammar). */
  async get(ref: string): Promise<Checkpoint> {
    return this.#info(await this.#resolve(ref));
  }

  async #resolve(ref: string, reader: MetaReader = this.#meta): Promise<CheckpointRow> {
    return resolveRef(reader, await this.#row(reader), ref);
  }

  /** Resolves a ref and insists the checkpoint belongs to this session. */
  async #resolveOwn(ref: string, reader: MetaReader = this.#meta): Promise<CheckpointRow> {
    const row = await this.#resolve(ref, reader);
    if (row.sessionId !== this.id) {
      const other = await reader.getSessionById(row.sessionId);
      throw new ForgeError("INVALID_REF", `checkpoint ${row.id} belongs to session "${other?.name ?? row.sessionId}", not "${this.name}"`, {
        hint: `pass --session ${other?.name ?? row.sessionId}`,
      });
    }
    return row;
  }

  async list(filter: ListFilter = {}): Promise<Checkpoint[]> {
    if (filter.limit !== undefined && (!Number.isInteger(filter.limit) || filter.limit < 0)) {
      throw new InvalidArgumentError(`limit must be a whole number ≥ 0, not ${filter.limit}`);
    }
    const now = new Date(this.#ctx.clock.now());
    const rows = await this.#meta.listCheckpoints({
      sessionId: this.id,
      ...(filter.tag !== undefined && { tag: filter.tag }),
      ...(filter.branch !== undefined && { branch: filter.branch }),
      ...(filter.trigger !== undefined && { trigger: filter.trigger }),
      ...(filter.since !== undefined && { since: parseTime(filter.since, now).getTime() }),
      ...(filter.until !== undefined && { until: parseTime(filter.until, now).getTime() }),
      ...(filter.limit !== undefined && { limit: filter.limit }),
      order: filter.order ?? "asc",
    });
    return rows.map((r) => this.#info(r));
  }

  async head(): Promise<Head> {
    const row = await this.#row();
    const id = await headId(this.#meta, row);
    const cp = id === null ? undefined : await this.#meta.getCheckpoint(id);
    return { branch: row.headBranch, checkpoint: cp ? this.#info(cp) : null };
  }

  /** The state saved in a checkpoint, without moving HEAD. */
  async state(ref = "HEAD"): Promise<unknown> {
    const row = await this.#resolve(ref);
    return this.#ctx.objects.readValue(row.stateRoot);
  }

  /**
   * Makes a checkpoint current again and returns its state. By default nothing is lost:
   * HEAD moves, and the next checkpoint forks a new branch while the old future stays on
   * its own. With `discardFuture` (the linear model) later checkpoints on the branch go.
   */
  /**
   * What `restore(ref, options)` would do, without doing it: where HEAD would go and which
   * checkpoints a linear restore would delete (for a confirmation that says so).
   */
  async restorePlan(ref: string, options: RestoreOptions = {}): Promise<{ checkpoint: Checkpoint; head: RestoreResult["head"]; discarded: Checkpoint[] }> {
    const meta = this.#meta;
    const cp = await this.#resolveOwn(ref, meta);
    const session = await this.#row(meta);
    const heads = await meta.listRefs(this.id);
    if (options.discardFuture) {
      const branch = await branchForLinearRestore(meta, session, cp, heads);
      const discarded = (await planDiscard(meta, branch, cp, heads)).reverse();
      return { checkpoint: this.#info(cp), head: { branch, checkpointId: cp.id }, discarded: discarded.map((r) => this.#info(r)) };
    }
    const onHead =
      heads.find((h) => h.name === session.headBranch && h.checkpointId === cp.id) ??
      heads.find((h) => h.name === cp.branch && h.checkpointId === cp.id) ??
      heads.find((h) => h.checkpointId === cp.id);
    return { checkpoint: this.#info(cp), head: { branch: onHead?.name ?? null, checkpointId: cp.id }, discarded: [] };
  }

  async restore(ref: string, options: RestoreOptions = {}): Promise<RestoreResult> {
    const target = await this.#resolveOwn(ref);
    // Read first: a damaged state fails the restore before HEAD moves.
    const state = await this.#ctx.objects.readValue(target.stateRoot);
    const { head, discarded, workVersion } = await this.#ctx.backend.transaction(async (tx) => {
      const session = await this.#row(tx);
      const heads = await tx.listRefs(this.id);
      const cp = await tx.getCheckpoint(target.id);
      if (!cp) throw new CheckpointNotFoundError(ref, "it was deleted while restoring");
      if (options.discardFuture) {
        const branch = await branchForLinearRestore(tx, session, cp, heads);
        await refuseMilestoneEnds(tx, this.id, await planDiscard(tx, branch, cp, heads), `restore #${cp.seq} discarding the future`);
        const discarded = await discardAfter(tx, branch, cp, heads);
        await tx.setRef(this.id, branch, cp.id);
        await tx.updateSession(this.id, { headBranch: branch, headCheckpoint: null, ...workPatch(session, cp.stateRoot) });
        return { head: { branch, checkpointId: cp.id }, discarded, workVersion: versionAfter(session, cp.stateRoot) };
      }
      // Stay on a branch when the target is its head: the current one first, then the target's own.
      const onHead =
        heads.find((h) => h.name === session.headBranch && h.checkpointId === cp.id) ??
        heads.find((h) => h.name === cp.branch && h.checkpointId === cp.id) ??
        heads.find((h) => h.checkpointId === cp.id);
      if (onHead) {
        await tx.updateSession(this.id, { headBranch: onHead.name, headCheckpoint: null, ...workPatch(session, cp.stateRoot) });
        return { head: { branch: onHead.name, checkpointId: cp.id }, discarded: [] as CheckpointRow[], workVersion: versionAfter(session, cp.stateRoot) };
      }
      await tx.updateSession(this.id, { headBranch: null, headCheckpoint: cp.id, ...workPatch(session, cp.stateRoot) });
      return { head: { branch: null, checkpointId: cp.id }, discarded: [] as CheckpointRow[], workVersion: versionAfter(session, cp.stateRoot) };
    });
    return { checkpoint: this.#info(target), state, head, discarded: discarded.map((r) => this.#info(r)), workVersion };
  }

  /** Creates a branch at a checkpoint (HEAD by default) without switching to it. */
  async branch(name: string, options: { from?: string } = {}): Promise<Branch> {
    checkName("branch", name);
    return this.#ctx.backend.transaction(async (tx) => {
      if (await tx.getRef(this.id, name)) {
        throw new ForgeError("BRANCH_EXISTS", `branch "${name}" already exists in session "${this.name}"`, {
          hint: "pick another name or delete the old branch first",
        });
      }
      const from = await this.#resolveOwn(options.from ?? "HEAD", tx);
      await tx.setRef(this.id, name, from.id);
      const session = await this.#row(tx);
      return { name, head: this.#info(from), current: session.headBranch === name };
    });
  }

  /** Moves HEAD onto a branch and returns the state at its head. */
  async switch(name: string): Promise<RestoreResult> {
    const ref = await this.#meta.getRef(this.id, name);
    if (!ref) throw this.#noBranch(name);
    const cp = await this.#meta.getCheckpoint(ref.checkpointId);
    if (!cp) throw new CheckpointNotFoundError(name, `branch ${name} points at ${ref.checkpointId}, which is gone; run \`forge fsck\``);
    const state = await this.#ctx.objects.readValue(cp.stateRoot);
    const workVersion = await this.#ctx.backend.transaction(async (tx) => {
      if (!(await tx.getRef(this.id, name))) throw this.#noBranch(name);
      const session = await this.#row(tx);
      await tx.updateSession(this.id, { headBranch: name, headCheckpoint: null, ...workPatch(session, cp.stateRoot) });
      return versionAfter(session, cp.stateRoot);
    });
    return { checkpoint: this.#info(cp), state, head: { branch: name, checkpointId: cp.id }, discarded: [], workVersion };
  }

  #noBranch(name: string): ForgeError {
    return new ForgeError("BRANCH_NOT_FOUND", `session "${this.name}" has no branch "${name}"`, {
      hint: "run `forge checkpoint branches` to see them",
    });
  }

  async branches(): Promise<Branch[]> {
    const session = await this.#row();
    const out: Branch[] = [];
    for (const r of await this.#meta.listRefs(this.id)) {
      const cp = await this.#meta.getCheckpoint(r.checkpointId);
      if (cp) out.push({ name: r.name, head: this.#info(cp), current: session.headBranch === r.name });
    }
    return out;
  }

  /**
   * Deletes a branch name. Its checkpoints stay until a prune removes them; the branch
   * HEAD is on cannot be deleted.
   */
  async deleteBranch(name: string): Promise<void> {
    await this.#ctx.backend.transaction(async (tx) => {
      if (!(await tx.getRef(this.id, name))) throw this.#noBranch(name);
      const session = await this.#row(tx);
      if (session.headBranch === name) {
        throw new ForgeError("INVALID_ARGUMENT", `cannot delete branch "${name}": HEAD is on it`, {
          hint: "switch to another branch first",
        });
      }
      await tx.deleteRef(this.id, name);
    });
  }

  async tag(ref: string, ...tags: string[]): Promise<Checkpoint> {
    return this.#retag(ref, (old) => normalizeTags([...old, ...tags]));
  }

  async untag(ref: string, ...tags: string[]): Promise<Checkpoint> {
    return this.#retag(ref, (old) => old.filter((t) => !tags.includes(t)));
  }

  async #retag(ref: string, change: (old: readonly string[]) => string[]): Promise<Checkpoint> {
    return this.#ctx.backend.transaction(async (tx) => {
      const row = await this.#resolveOwn(ref, tx);
      const tags = change(row.tags);
      await tx.updateCheckpoint(row.id, { tags });
      return this.#info({ ...row, tags });
    });
  }

  /** The last checkpoint made at or before `when`; undefined if the session had none yet. */
  async at(when: TimeInput): Promise<Checkpoint | undefined> {
    const t = parseTime(when, new Date(this.#ctx.clock.now()));
    const [row] = await this.#meta.listCheckpoints({ sessionId: this.id, until: t.getTime(), order: "desc", limit: 1 });
    return row ? this.#info(row) : undefined;
  }

  async compare(a: string, b: string): Promise<Comparison> {
    const from = this.#info(await this.#resolve(a));
    const to = this.#info(await this.#resolve(b));
    return compareCheckpoints(this.#ctx.objects, from, to);
  }

  async timeline(): Promise<Timeline> {
    const session = await this.#row();
    const rows = await this.#meta.listCheckpoints({ sessionId: this.id });
    const refs = await this.#meta.listRefs(this.id);
    const milestones = await this.#meta.listMilestones(this.id);
    return {
      session: toSessionInfo(session),
      head: { branch: session.headBranch, checkpointId: await headId(this.#meta, session) },
      branches: refs.map((r) => ({ name: r.name, headId: r.checkpointId })),
      checkpoints: rows.map((r) => this.#info(r)),
      milestones: milestones.map((m) => ({ name: m.name, fromId: m.fromId, toId: m.toId, description: m.description })),
    };
  }

  /**
   * Deletes the given checkpoints (refs resolved in this session). A deleted checkpoint's
   * children are re-linked to its nearest remaining ancestor; a branch whose head goes moves
   * back to that ancestor, or is deleted when none is left; a HEAD detached at one moves the
   * same way. Their objects become garbage for gc. A milestone end is refused (PROTECTED):
   * delete the milestone first.
   */
  async deleteCheckpoints(refs: readonly string[]): Promise<Checkpoint[]> {
    if (refs.length === 0) return [];
    return this.#ctx.backend.transaction(async (tx) => {
      const targets = new Map<string, CheckpointRow>();
      for (const ref of refs) {
        const row = await this.#resolveOwn(ref, tx);
        targets.set(row.id, row);
      }
      await refuseMilestoneEnds(tx, this.id, [...targets.values()], `delete ${[...targets.values()].map((r) => `#${r.seq}`).join(" ")}`);
      const rows = await tx.listCheckpoints({ sessionId: this.id });
      await removeCheckpoints(tx, this.id, await this.#row(tx), rows, await tx.listRefs(this.id), (id) => !targets.has(id), true);
      return [...targets.values()].sort((a, b) => a.seq - b.seq).map((r) => this.#info(r));
    });
  }

  /**
   * Deletes the checkpoints no retention rule keeps (branch heads and milestone ends always
   * stay). Children of a deleted checkpoint are re-linked to its nearest kept ancestor. With
   * no rule given, the design's default retention applies. The objects they used become
   * garbage for gc.
   */
  async prune(options: PruneOptions = {}): Promise<PruneReport> {
    const { dryRun = false, ...rules } = options;
    const policy = isEmptyPolicy(rules) ? DEFAULT_RETENTION : rules;
    const run = async (tx: MetaReader & Partial<MetaWriter>, write: boolean): Promise<PruneReport> => {
      const rows = await tx.listCheckpoints({ sessionId: this.id });
      const refs = await tx.listRefs(this.id);
      const ends = new Set(milestoneEnds(await tx.listMilestones(this.id)).keys());
      const keep = planRetention(rows, new Set(refs.map((r) => r.checkpointId)), policy, this.#ctx.clock.now(), ends);
      const gone = rows.filter((r) => !keep.has(r.id));
      const session = await this.#row(tx);
      const headMoved = await removeCheckpoints(tx, this.id, session, rows, refs, (id) => keep.has(id), write);
      return {
        dryRun: !write,
        policy,
        kept: rows.filter((r) => keep.has(r.id)).map((r) => ({ checkpoint: this.#info(r), reason: keep.get(r.id) as KeepReason })),
        deleted: gone.map((r) => this.#info(r)),
        headMoved,
      };
    };
    if (dryRun) return run(this.#meta, false);
    return this.#ctx.backend.transaction((tx) => run(tx, true));
  }

  /**
   * Names the stretch of history from `options.from` to `options.to` (default HEAD), which
   * must be a later checkpoint on `from`'s line. Prune keeps both ends; deleting either is
   * refused while the milestone exists.
   */
  async createMilestone(name: string, options: MilestoneOptions): Promise<Milestone> {
    const description = options.description ?? "";
    if (typeof description !== "string") throw new InvalidArgumentError("a milestone's description must be a string");
    return this.#ctx.backend.transaction(async (tx) => {
      const from = await this.#resolveOwn(options.from, tx);
      const to = await this.#resolveOwn(options.to ?? "HEAD", tx);
      const row = await insertMilestone(tx, { id: this.id, name: this.name }, name, from, to, description, this.#ctx.clock.now());
      return this.#milestone(row, from, to);
    });
  }

  /** The session's milestones, oldest first. */
  async milestones(): Promise<Milestone[]> {
    const out: Milestone[] = [];
    for (const m of await this.#meta.listMilestones(this.id)) out.push(await this.#loadMilestone(m));
    return out;
  }

  async milestone(name: string): Promise<Milestone> {
    const row = await this.#meta.getMilestone(this.id, name);
    if (!row) throw milestoneNotFound(name, this.name);
    return this.#loadMilestone(row);
  }

  /** A milestone with every checkpoint it spans, from its start to its end. */
  async milestoneSpan(name: string): Promise<MilestoneSpan> {
    const milestone = await this.milestone(name);
    const chain = await chainBetween(this.#meta, milestone.from.id, milestone.to.id);
    if (!chain) {
      throw new ForgeError("CHECKPOINT_NOT_FOUND", `milestone "${name}" no longer runs from #${milestone.from.seq} to #${milestone.to.seq} along the history`, {
        hint: "run `forge fsck`",
      });
    }
    return { milestone, checkpoints: chain.map((r) => this.#info(r)) };
  }

  /** Deletes a milestone (its checkpoints stay); returns what it was. */
  async deleteMilestone(name: string): Promise<Milestone> {
    return this.#ctx.backend.transaction(async (tx) => {
      const row = await tx.getMilestone(this.id, name);
      if (!row) throw milestoneNotFound(name, this.name);
      const milestone = await this.#loadMilestone(row, tx);
      await tx.deleteMilestone(this.id, name);
      return milestone;
    });
  }

  async #loadMilestone(row: MilestoneRow, reader: MetaReader = this.#meta): Promise<Milestone> {
    const [from, to] = await Promise.all([reader.getCheckpoint(row.fromId), reader.getCheckpoint(row.toId)]);
    if (!from || !to) {
      throw new CheckpointNotFoundError(
        `milestone:${row.name}`,
        "run `forge fsck`",
        `milestone "${row.name}" points at ${!from ? row.fromId : row.toId}, which is gone`,
      );
    }
    return this.#milestone(row, from, to);
  }

  #milestone(row: MilestoneRow, from: CheckpointRow, to: CheckpointRow): Milestone {
    return { name: row.name, session: this.name, description: row.description, createdAt: new Date(row.createdAt), from: this.#info(from), to: this.#info(to) };
  }

  /**
   * Replaces the run of consecutive checkpoints `from`..`to` (along `to`'s parent links) with
   * one checkpoint holding `to`'s state and files exactly, in one transaction. Refuses, naming
   * them, when something stands on a checkpoint of the run (a branch head or detached HEAD
   * before `to`, tags before `to`, a milestone end, a branch forking inside the run) unless
   * `force`. The replaced checkpoints' objects become garbage for gc where nothing else uses them.
   */
  async squash(from: string, to: string, options: SquashOptions = {}): Promise<SquashReport> {
    return this.#ctx.backend.transaction(async (tx) =>
      squashRange(tx, await this.#row(tx), await this.#resolveOwn(from, tx), await this.#resolveOwn(to, tx), options, this.#ctx.clock.now()),
    );
  }
}

/**
 * Removes the checkpoints `kept` rejects from `rows` (all of one session): children are
 * re-linked to the nearest kept ancestor, branch heads move back (or the branch goes), a
 * detached HEAD moves too. With `write` false it only works out where HEAD would go.
 */
async function removeCheckpoints(
  tx: MetaReader & Partial<MetaWriter>,
  sessionId: string,
  session: SessionRow,
  rows: readonly CheckpointRow[],
  refs: readonly RefRow[],
  kept: (id: string) => boolean,
  write: boolean,
): Promise<PruneReport["headMoved"]> {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const keptAncestor = (id: string | null): string | null => {
    while (id !== null && !kept(id)) id = byId.get(id)?.parentId ?? null;
    return id;
  };
  const w = tx as MetaWriter;
  const liveRefs = refs.filter((r) => kept(r.checkpointId) || keptAncestor(r.checkpointId) !== null);
  let headMoved: PruneReport["headMoved"] = null;
  if (session.headBranch === null && session.headCheckpoint !== null && !kept(session.headCheckpoint)) {
    const to = keptAncestor(session.headCheckpoint);
    const fallback = liveRefs.find((r) => r.name === MAIN_BRANCH) ?? liveRefs[0];
    headMoved = { from: session.headCheckpoint, to: to ?? fallback?.name ?? null };
    if (write) {
      if (to !== null) await w.updateSession(sessionId, { headCheckpoint: to });
      else await w.updateSession(sessionId, { headBranch: fallback?.name ?? MAIN_BRANCH, headCheckpoint: null });
    }
  }
  if (!write || rows.every((r) => kept(r.id))) return headMoved;
  for (const ref of refs) {
    if (kept(ref.checkpointId)) continue;
    const to = keptAncestor(ref.checkpointId);
    if (to !== null) await w.setRef(sessionId, ref.name, to);
    else await w.deleteRef(sessionId, ref.name);
  }
  for (const r of rows) {
    if (kept(r.id) && r.parentId !== null && !kept(r.parentId)) await w.updateCheckpoint(r.id, { parentId: keptAncestor(r.parentId) });
  }
  await w.deleteCheckpoints(rows.filter((r) => !kept(r.id)).map((r) => r.id));
  return headMoved;
}

/** The working state's version once `root` is the working state. */
function versionAfter(session: SessionRow, root: string): number {
  return session.workRoot === root ? session.workVersion : session.workVersion + 1;
}

/** The session fields that make `root` its working state (nothing, if it already is). */
function workPatch(session: SessionRow, root: string): { workRoot?: string; workVersion?: number } {
  return session.workRoot === root ? {} : { workRoot: root, workVersion: session.workVersion + 1 };
}

/** The branch a linear restore rewinds: HEAD's, if the target is in its history, else the target's own. */
async function branchForLinearRestore(
  tx: MetaReader,
  session: SessionRow,
  target: CheckpointRow,
  heads: readonly { name: string; checkpointId: string }[],
): Promise<string> {
  if (session.headBranch !== null) {
    const head = heads.find((h) => h.name === session.headBranch);
    if (head && (await isAncestor(tx, target.id, head.checkpointId))) return session.headBranch;
  }
  if (heads.some((h) => h.name === target.branch)) return target.branch;
  return session.headBranch ?? MAIN_BRANCH;
}

/** Deletes the checkpoints between `target` (exclusive) and the branch's head, keeping those other branches stand on. */
async function discardAfter(
  tx: MetaWriter,
  branch: string,
  target: CheckpointRow,
  heads: readonly { name: string; checkpointId: string }[],
): Promise<CheckpointRow[]> {
  const doomed = await planDiscard(tx, branch, target, heads);
  if (doomed.length === 0) return [];
  // Checkpoints that stay but stood on a doomed one (a branch whose name was deleted, say)
  // move down to their nearest surviving ancestor, as prune does.
  const doomedParent = new Map(doomed.map((r) => [r.id, r.parentId]));
  for (const r of await tx.listCheckpoints({ sessionId: target.sessionId })) {
    if (doomedParent.has(r.id) || r.parentId === null || !doomedParent.has(r.parentId)) continue;
    let p: string | null = r.parentId;
    while (p !== null && doomedParent.has(p)) p = doomedParent.get(p) ?? null;
    await tx.updateCheckpoint(r.id, { parentId: p });
  }
  await tx.deleteCheckpoints(doomed.map((r) => r.id));
  return doomed.reverse();
}

/** The checkpoints after `target` on `branch` that no other branch stands on, newest first. */
async function planDiscard(
  reader: MetaReader,
  branch: string,
  target: CheckpointRow,
  heads: readonly { name: string; checkpointId: string }[],
): Promise<CheckpointRow[]> {
  const head = heads.find((h) => h.name === branch);
  if (!head) return [];
  const chain: CheckpointRow[] = [];
  let id: string | null = head.checkpointId;
  while (id !== null && id !== target.id) {
    const row: CheckpointRow | undefined = await reader.getCheckpoint(id);
    if (!row) break;
    chain.push(row);
    id = row.parentId;
  }
  if (id !== target.id) return []; // the target is not in this branch's history: nothing after it here
  const protectedIds = new Set<string>();
  for (const h of heads) {
    if (h.name === branch) continue;
    let a: string | null = h.checkpointId;
    while (a !== null && !protectedIds.has(a)) {
      protectedIds.add(a);
      a = (await reader.getCheckpoint(a))?.parentId ?? null;
    }
  }
  return chain.filter((r) => !protectedIds.has(r.id));
}

async function isAncestor(meta: MetaReader, ancestor: string, of: string): Promise<boolean> {
  let id: string | null = of;
  while (id !== null) {
    if (id === ancestor) return true;
    id = (await meta.getCheckpoint(id))?.parentId ?? null;
  }
  return false;
}

async function freeBranchName(meta: MetaReader, sessionId: string, base: string): Promise<string> {
  if (!(await meta.getRef(sessionId, base))) return base;
  for (let i = 2; ; i++) {
    const name = `${base}-${i}`;
    if (!(await meta.getRef(sessionId, name))) return name;
  }
}

function normalizeTags(tags: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of tags) {
    const t = raw.trim();
    if (t === "") continue;
    checkName("tag", t);
    if (!out.includes(t)) out.push(t);
  }
  return out;
}
