// One session's timeline: checkpoints, HEAD, branches, tags, time travel, compare, prune.
// Write order (DESIGN §3): a state's objects are stored first; the checkpoint row, the
// branch ref and HEAD then change in one transaction, so a crash at any moment leaves at
// worst unreferenced objects, never a checkpoint that points at nothing. (On SQLite a small
// change's objects are written at the start of that same transaction: epoch-write.ts.)
import { CheckpointNotFoundError, ForgeError, InvalidArgumentError } from "../core/errors.js";
import { checkName, newId } from "../core/ids.js";
import { parseTime, type TimeInput } from "../core/time.js";
import type { CheckpointRow, MetaReader, MetaWriter, SessionRow } from "../backends/backend.js";
import * as milestones from "./milestones.js";
import type { Milestone, MilestoneOptions, MilestoneSpan } from "./milestones.js";
import { headId, resolveRef } from "./refs.js";
import type { SquashOptions, SquashReport } from "./squash.js";
import type { WrittenTree } from "../objects/object-store.js";
import type { UnchangedHint } from "../objects/value-encoder.js";
import * as edits from "./history-edits.js";
import type { CheckedOptions } from "./history-edits.js";
import type { RestorePlan } from "./restore.js";
import type { SessionScope } from "./session-scope.js";
import { writeStateUnderEpoch } from "./epoch-write.js";
import { keepsSideRecords, listSideRecords, putSideRecords, type SideRecordValue } from "./side-records.js";
import type { StoreContext } from "./store-context.js";
import { toCheckpoint, toSessionInfo, MAIN_BRANCH } from "./types.js";
import type { Branch, Checkpoint, CheckpointOptions, Comparison, Head, ListFilter, PruneOptions } from "./types.js";
import type { PruneReport, RestoreOptions, RestoreResult, SessionInfo, SetWorkingOptions, SetWorkingResult, Timeline } from "./types.js";

// Loaded at first use, not with the session: compare, squash, restore and the search index
// (after a checkpoint) are not what a process that only reads a state needs.
const indexAfterCommit: typeof import("./search-indexer.js")["indexAfterCommit"] = async (ctx, row) =>
  (await import("./search-indexer.js")).indexAfterCommit(ctx, row);

export class Session {
  readonly #ctx: StoreContext;
  readonly id: string;
  readonly name: string;
  /** The session as read to make this object (info, working-state version): for a caller that just opened it, instead of reading it again. */
  readonly opened: SessionInfo & { readonly workVersion: number };

  constructor(ctx: StoreContext, row: SessionRow) {
    this.#ctx = ctx;
    this.id = row.id;
    this.name = row.name;
    this.opened = { ...toSessionInfo(row), workVersion: row.workVersion };
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
    const checked = edits.checkCheckpointOptions(options);
    const row = await this.#write(state, async (tx, session, tree) => this.#append(tx, session, tree, checked));
    if (options.searchIndex !== "later") await indexAfterCommit(this.#ctx, row);
    return this.#info(row);
  }

  /**
   * Writes `state`'s objects, then runs `commit` in a metadata transaction — again from the
   * top if a gc ran in between (the objects this tree reuses may be gone).
   */
  #write<T>(state: unknown, commit: (tx: MetaWriter, session: SessionRow, tree: WrittenTree) => Promise<T>, hint?: UnchangedHint): Promise<T> {
    return writeStateUnderEpoch(this.#ctx, `save session "${this.name}"`, state, this.id, hint, async (tx, tree) => commit(tx, await this.#row(tx), tree));
  }

  /** Inserts a checkpoint of `tree` on HEAD's branch and makes it the working state (inside a transaction). */
  async #append(tx: MetaWriter, session: SessionRow, tree: WrittenTree, options: CheckedOptions): Promise<CheckpointRow> {
    if (options.gcEpoch !== undefined && (await tx.getGcEpoch()) !== options.gcEpoch) {
      throw new ForgeError("CONFLICT", "a garbage collection ran while the checkpoint's objects were being chosen", {
        hint: "take it again",
        data: { gcRace: true },
      });
    }
    // What a checkpoint row carries besides its state is agent data too: a prompt as its
    // message, a hook's payload facts as metadata. Redacted like the state, before it is stored.
    const redactor = this.#ctx.objects.redactor;
    const message = await redactor.redactText(options.message);
    const metadata = await redactor.redactJson(options.metadata);
    const tags = await redactor.redactJson(options.tags);
    const seq = await tx.allocateSeq(this.id);
    let branch: string;
    let parentId: string | null;
    if (session.headBranch !== null) {
      branch = session.headBranch;
      parentId = (await tx.getRef(this.id, branch))?.checkpointId ?? null;
    } else {
      parentId = session.headCheckpoint;
      const parent = parentId === null ? undefined : await tx.getCheckpoint(parentId);
      branch = await edits.freeBranchName(tx, this.id, `${parent?.branch ?? MAIN_BRANCH}-from-${parent?.seq ?? 0}`);
    }
    const row: CheckpointRow = {
      id: newId(),
      sessionId: this.id,
      seq,
      parentId,
      branch,
      createdAt: this.#ctx.clock.now(),
      message,
      tags,
      trigger: options.trigger,
      metadata,
      stateRoot: tree.root,
      filesRoot: options.filesRoot,
      logicalBytes: tree.logicalBytes,
      newBytes: tree.newBytes,
    };
    await tx.insertCheckpoint(row);
    await tx.setRef(this.id, branch, row.id);
    // What was just saved is what the session holds now.
    await tx.updateSession(this.id, { headBranch: branch, headCheckpoint: null, ...edits.workPatch(session, tree.root) });
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
    let indexNow = true;
    const result = await this.#write(
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
        const decide = options.checkpoint;
        if (decide) {
          // Options given as they are need no facts: HEAD's checkpoint is read only for a function.
          const head = typeof decide === "function" ? await headId(tx, session).then((id) => (id === null ? undefined : tx.getCheckpoint(id))) : undefined;
          const wanted =
            typeof decide === "function"
              ? decide({ changed, unsaved: head?.stateRoot !== tree.root, lastCheckpointAt: head?.createdAt ?? null, nextSeq: session.nextSeq })
              : decide;
          if (wanted) {
            indexNow = wanted.searchIndex !== "later";
            checkpoint = this.#info(await this.#append(tx, session, tree, edits.checkCheckpointOptions(wanted)));
          }
        }
        if (checkpoint === null && changed) await tx.updateSession(this.id, edits.workPatch(session, tree.root));
        return { version: changed ? session.workVersion + 1 : session.workVersion, root: tree.root, changed, checkpoint };
      },
      options.unchanged,
    );
    if (result.checkpoint && indexNow) await indexAfterCommit(this.#ctx, result.checkpoint);
    return result;
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
   * What `restore(ref, options)` would do, without doing it: where HEAD would go and which
   * checkpoints a linear restore would delete (for a confirmation that says so).
   */
  async restorePlan(ref: string, options: RestoreOptions = {}): Promise<RestorePlan> {
    const { planRestore } = await import("./restore.js");
    return planRestore(this.#scope(), ref, options);
  }

  /**
   * Makes a checkpoint current again and returns its state. By default nothing is lost:
   * HEAD moves, and the next checkpoint forks a new branch while the old future stays on
   * its own. With `discardFuture` (the linear model) later checkpoints on the branch go.
   */
  async restore(ref: string, options: RestoreOptions = {}): Promise<RestoreResult> {
    const { restoreTo } = await import("./restore.js");
    return restoreTo(this.#scope(), ref, options);
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
      await tx.updateSession(this.id, { headBranch: name, headCheckpoint: null, ...edits.workPatch(session, cp.stateRoot) });
      return edits.versionAfter(session, cp.stateRoot);
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
    return this.#retag(ref, (old) => edits.normalizeTags([...old, ...tags]));
  }

  async untag(ref: string, ...tags: string[]): Promise<Checkpoint> {
    return this.#retag(ref, (old) => old.filter((t) => !tags.includes(t)));
  }

  async #retag(ref: string, change: (old: readonly string[]) => string[]): Promise<Checkpoint> {
    return this.#ctx.backend.transaction(async (tx) => {
      const row = await this.#resolveOwn(ref, tx);
      const tags = await this.#ctx.objects.redactor.redactJson(change(row.tags));
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
    const { compareCheckpoints } = await import("./compare.js");
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
   * Deletes checkpoints of this session (children are re-linked to the nearest kept ancestor,
   * branch heads move back); refused, naming them, when one is a milestone end.
   */
  deleteCheckpoints(refs: readonly string[]): Promise<Checkpoint[]> {
    return edits.deleteCheckpoints(this.#scope(), refs);
  }

  /**
   * Deletes the checkpoints no retention rule keeps (branch heads and milestone ends always
   * stay). Children of a deleted checkpoint are re-linked to its nearest kept ancestor. With
   * no rule given, the design's default retention applies. The objects they used become
   * garbage for gc.
   */
  prune(options: PruneOptions = {}): Promise<PruneReport> {
    return edits.prune(this.#scope(), options);
  }

  /**
   * Names the stretch of history from `options.from` to `options.to` (default HEAD), which
   * must be a later checkpoint on `from`'s line. Prune keeps both ends; deleting either is
   * refused while the milestone exists.
   */
  createMilestone(name: string, options: MilestoneOptions): Promise<Milestone> {
    return milestones.createMilestone(this.#scope(), name, options);
  }

  /** The session's milestones, oldest first. */
  milestones(): Promise<Milestone[]> {
    return milestones.listMilestones(this.#scope());
  }

  milestone(name: string): Promise<Milestone> {
    return milestones.getMilestone(this.#scope(), name);
  }

  /** A milestone with every checkpoint it spans, from its start to its end. */
  milestoneSpan(name: string): Promise<MilestoneSpan> {
    return milestones.milestoneSpan(this.#scope(), name);
  }

  /** Deletes a milestone (its checkpoints stay); returns what it was. */
  deleteMilestone(name: string): Promise<Milestone> {
    return milestones.deleteMilestone(this.#scope(), name);
  }

  /** Whether the store keeps side records (SQLite and PostgreSQL stores do; memory and file do not). */
  get keepsSideRecords(): boolean {
    return keepsSideRecords(this.#ctx);
  }

  /**
   * Writes side records — small JSON values kept beside the checkpoints, part of no state,
   * deleted with the session (backend.ts: SideRecord) — in one transaction, each redacted as
   * a state is. One with `replace` overwrites the record of its scope and key; any other
   * leaves a stored one as it is. SESSION_NOT_FOUND if the session is gone; UNSUPPORTED where
   * the store keeps none.
   */
  putSideRecords(records: readonly (SideRecordValue & { readonly replace?: boolean })[]): Promise<void> {
    return putSideRecords(this.#ctx, this.id, records);
  }

  /** The session's side records, of one scope or all, by scope then key. */
  sideRecords(scope?: string): Promise<SideRecordValue[]> {
    return listSideRecords(this.#ctx, this.id, scope);
  }

  /** What the functions that work on this session from outside the class reach of it. */
  #scope(): SessionScope {
    return {
      ctx: this.#ctx,
      id: this.id,
      name: this.name,
      meta: this.#meta,
      row: (reader) => this.#row(reader),
      resolveOwn: (ref, reader) => this.#resolveOwn(ref, reader),
      info: (row) => this.#info(row),
    };
  }

  /**
   * Replaces the run of consecutive checkpoints `from`..`to` (along `to`'s parent links) with
   * one checkpoint holding `to`'s state and files exactly, in one transaction. Refuses, naming
   * them, when something stands on a checkpoint of the run (a branch head or detached HEAD
   * before `to`, tags before `to`, a milestone end, a branch forking inside the run) unless
   * `force`. The replaced checkpoints' objects become garbage for gc where nothing else uses them.
   */
  async squash(from: string, to: string, options: SquashOptions = {}): Promise<SquashReport> {
    const { squashRange } = await import("./squash.js");
    return this.#ctx.backend.transaction(async (tx) =>
      squashRange(tx, await this.#row(tx), await this.#resolveOwn(from, tx), await this.#resolveOwn(to, tx), options, this.#ctx.clock.now()),
    );
  }
}
