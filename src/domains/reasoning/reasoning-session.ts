// A reasoning session: the debugging state of an agent (hypotheses, evidence, beliefs,
// gaps, verifications, notes, commands, code state, metrics) kept as a session's working
// state, so every process sees it, with the checkpoint manager of the forge-reasoning
// design over it: manual checkpoints, automatic ones on the eight triggers, restore,
// time travel, typed compare, briefs and recovery points.
import { isDeepStrictEqual } from "node:util";
import { ForgeError } from "../../core/errors.js";
import { DEFAULT_SESSION } from "../../core/config.js";
import { parseTime, type TimeInput } from "../../core/time.js";
import type { Session } from "../../timeline/session.js";
import type { PruneOptions, PruneReport, SetWorkingResult } from "../../timeline/types.js";
import type { Store } from "../../timeline/store.js";
import type { Checkpoint, CheckpointOptions, RestoreOptions } from "../../timeline/types.js";
import { BeliefGraph, findContradictions, type Contradiction } from "./beliefs.js";
import { captureCodeState, codeChanged, type CaptureOptions } from "./code-state.js";
import { compareStates, type ReasoningComparison } from "./compare.js";
import { GapTracker } from "./gaps.js";
import { HypothesisBoard } from "./hypotheses.js";
import { CommandHistory, NoteBook, VerificationLog } from "./journal.js";
import { emptyState, REASONING_KIND, STATE_KEYS, toReasoningState, type CodeState, type CommandRun, type ReasoningState, type Verification } from "./model.js";
import { autoCheckpointOptions, Counters, type PartContext, type TriggerEvent } from "./part.js";
import { renderBrief, type BriefInput } from "./brief.js";
import { recoveryPoint, type RecoveryPoint } from "./recovery.js";
import { REASONING_RETENTION } from "./retention.js";
import { runCommand, type RunOptions, type RunResult } from "./runner.js";
import type { UnchangedHint } from "../../objects/value-encoder.js";

export interface ReasoningOptions {
  /** A change this long after the last checkpoint triggers a "time" checkpoint (default 5 minutes). */
  readonly significantTimeMs?: number;
  /** Make automatic checkpoints on the triggers (default true). */
  readonly autoCheckpoints?: boolean;
}

export interface SaveResult {
  readonly version: number;
  readonly changed: boolean;
  /** The automatic checkpoint this save made, if a trigger fired. */
  readonly checkpoint: Checkpoint | null;
  readonly events: readonly TriggerEvent[];
}

export const SIGNIFICANT_TIME_MS = 5 * 60_000;
const MAX_UPDATE_ATTEMPTS = 12;

export class ReasoningSession {
  readonly session: Session;
  readonly hypotheses: HypothesisBoard;
  readonly beliefs: BeliefGraph;
  readonly gaps: GapTracker;
  readonly notes: NoteBook;
  readonly commands: CommandHistory;
  readonly verifications: VerificationLog;
  readonly #store: Store;
  readonly #options: Required<ReasoningOptions>;
  readonly #counters = new Counters();
  #task: string | null = null;
  #code: CodeState | null = null;
  #startedAt: string;
  /** The working-state version this object was loaded from (0: none stored yet). */
  #version = 0;
  /** Contradiction keys present when the state was loaded or last saved. */
  #knownContradictions = new Set<string>();
  #pending: TriggerEvent[] = [];
  /** The root of the state the parts hold apart from `#touched` (loaded or last saved); null if none. */
  #root: string | null = null;
  /** Top-level keys changed since `#root`. */
  readonly #touched = new Set<keyof ReasoningState>();

  private constructor(store: Store, session: Session, options: ReasoningOptions) {
    this.#store = store;
    this.session = session;
    this.#options = { significantTimeMs: options.significantTimeMs ?? SIGNIFICANT_TIME_MS, autoCheckpoints: options.autoCheckpoints ?? true };
    this.#startedAt = this.#now();
    const ctx: PartContext = {
      clock: store.clock,
      nextId: (prefix) => (this.#touched.add("counters"), this.#counters.next(prefix)),
      now: () => this.#now(),
      emit: (e) => this.#pending.push(e),
      touch: (key) => this.#touched.add(key),
    };
    this.hypotheses = new HypothesisBoard(ctx);
    this.beliefs = new BeliefGraph(ctx, (id) => this.hypotheses.has(id));
    this.gaps = new GapTracker(ctx);
    this.notes = new NoteBook(ctx);
    this.commands = new CommandHistory(ctx);
    this.verifications = new VerificationLog(ctx);
  }

  /** Opens (or starts) the reasoning session `name` and loads its working state. */
  static async open(store: Store, name: string = DEFAULT_SESSION, options: ReasoningOptions = {}): Promise<ReasoningSession> {
    const session = await store.session(name, { kind: "reasoning" });
    const rs = new ReasoningSession(store, session, options);
    await rs.reload();
    return rs;
  }

  get name(): string {
    return this.session.name;
  }

  #now(): string {
    return new Date(this.#store.clock.now()).toISOString();
  }

  /** Loads the working state again, dropping unsaved changes. */
  async reload(): Promise<void> {
    const working = await this.session.working();
    this.#load(working ? toReasoningState(working.state, this.name) : undefined, working?.root ?? null);
    // A session without a working state is at version 0: the first save still compares.
    this.#version = working?.version ?? (await this.session.workVersion());
  }

  #load(state: ReasoningState | undefined, root: string | null): void {
    const s = state ?? emptyState(this.#now());
    this.#root = root;
    this.#touched.clear();
    this.#task = s.task;
    this.#code = s.code;
    this.#startedAt = s.metrics.startedAt;
    this.#counters.restore(s.counters);
    this.hypotheses.restore({ hypotheses: s.hypotheses, evidence: s.evidence });
    this.beliefs.restore(s.beliefs);
    this.gaps.restore(s.gaps);
    this.notes.restore(s.notes);
    this.commands.restore(s.commands);
    this.verifications.restore(s.verifications);
    this.#pending = [];
    this.#knownContradictions = new Set(findContradictions(s.beliefs, s.hypotheses).map((c) => c.key));
  }

  /** The parts' own data with fresh metrics; consumed at once by the encoder, never handed out. */
  #capture(): ReasoningState {
    const { hypotheses, evidence } = this.hypotheses.capture();
    const gaps = this.gaps.capture();
    const verifications = this.verifications.capture();
    const commands = this.commands.capture();
    return {
      kind: REASONING_KIND,
      version: 1,
      task: this.#task,
      hypotheses,
      evidence,
      beliefs: this.beliefs.capture(),
      gaps,
      verifications,
      notes: this.notes.capture(),
      commands,
      code: this.#code,
      metrics: {
        startedAt: this.#startedAt,
        hypothesesTested: hypotheses.filter((h) => h.status !== "proposed").length,
        verificationsRun: verifications.length,
        gapsFilled: gaps.filter((g) => g.status === "filled").length,
        commandsRun: commands.length,
      },
      counters: this.#counters.capture(),
    };
  }

  /** A copy of the whole state, as a checkpoint would hold it. */
  state(): ReasoningState {
    return structuredClone(this.#capture());
  }

  get task(): string | null {
    return this.#task;
  }

  setTask(task: string | null): void {
    this.#touched.add("task");
    this.#task = task === null ? null : task.trim() || null;
  }

  /**
   * What the encoder may take from its memo without a walk: every top-level key no part
   * changed since the state at `#root` (metrics are recomputed, so always walked).
   */
  #hint(): UnchangedHint | undefined {
    if (this.#root === null) return undefined;
    const keys = new Set<string>(STATE_KEYS.filter((k) => k !== "metrics" && !this.#touched.has(k)));
    return { since: this.#root, keys };
  }

  /** After a write: the parts now match `root` exactly. */
  #saved(result: { root: string; version: number }): void {
    this.#root = result.root;
    this.#touched.clear();
    this.#version = result.version;
  }

  get code(): CodeState | null {
    return this.#code === null ? null : structuredClone(this.#code);
  }

  /** Every contradiction among the held beliefs. */
  contradictions(): Contradiction[] {
    return this.beliefs.contradictions(this.hypotheses.capture().hypotheses);
  }

  /**
   * Persists the state as the session's working state. If a trigger fired since the last
   * save — or the state changed and significant time has passed since the last
   * checkpoint — it is also an automatic checkpoint, tagged `auto` and the trigger, made
   * in the same transaction. CONFLICT if another process saved meanwhile (see `update`).
   */
  async save(): Promise<SaveResult> {
    const state = this.#capture();
    const contradictions = findContradictions(state.beliefs, state.hypotheses);
    for (const c of contradictions) {
      if (!this.#knownContradictions.has(c.key)) this.#pending.push({ trigger: "contradiction", what: c.description, significant: true });
    }
    const events = [...this.#pending];
    const auto = this.#options.autoCheckpoints;
    const significantTimeMs = this.#options.significantTimeMs;
    const now = this.#store.clock.now();
    const result: SetWorkingResult = await this.session.setWorking(state, {
      expectedVersion: this.#version,
      ...withHint(this.#hint()),
      checkpoint: ({ changed, unsaved, lastCheckpointAt }) => {
        if (!auto) return undefined;
        const fired = events.filter((e) => unsaved || !e.onlyIfUnsaved);
        const since = lastCheckpointAt ?? Date.parse(this.#startedAt);
        if (changed && fired.length === 0 && now - since >= significantTimeMs) {
          fired.push({ trigger: "time", what: `${Math.round((now - since) / 60_000)} minutes of work`, significant: false });
        }
        if (fired.length === 0) return undefined;
        events.splice(0, events.length, ...fired);
        return autoCheckpointOptions(fired);
      },
    });
    this.#saved(result);
    this.#pending = [];
    this.#knownContradictions = new Set(contradictions.map((c) => c.key));
    return { version: result.version, changed: result.changed, checkpoint: result.checkpoint, events: result.checkpoint ? events : [] };
  }

  /**
   * Applies `fn` to the latest state and saves — and if another process saved in between,
   * does it all again from that state. The state is reloaded only when another process
   * saved since this object last loaded or saved (changes made on this object and not yet
   * saved are then saved with `fn`'s). `fn` may run more than once, so it should only
   * change this session (and read the world).
   */
  async update<T>(fn: (rs: this) => T | Promise<T>): Promise<{ result: T; saved: SaveResult }> {
    for (let attempt = 1; ; attempt++) {
      // Reload only if someone else saved since this object last loaded or saved.
      if (attempt > 1 || (await this.session.workVersion()) !== this.#version) await this.reload();
      const result = await fn(this);
      try {
        return { result, saved: await this.save() };
      } catch (e) {
        if (!(e instanceof ForgeError && e.code === "CONFLICT") || attempt >= MAX_UPDATE_ATTEMPTS) throw e;
        // Back off a random while, growing, so two writers stop colliding in lockstep.
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(200, 5 * 2 ** attempt)));
      }
    }
  }

  /** A manual checkpoint of the current state (saved first). */
  async checkpoint(message = "", options: Omit<CheckpointOptions, "message" | "trigger"> = {}): Promise<Checkpoint> {
    const state = this.#capture();
    const result = await this.session.setWorking(state, {
      expectedVersion: this.#version,
      ...withHint(this.#hint()),
      checkpoint: () => ({ ...options, message, trigger: "manual" }),
    });
    this.#saved(result);
    this.#pending = [];
    this.#knownContradictions = new Set(findContradictions(state.beliefs, state.hypotheses).map((c) => c.key));
    return result.checkpoint as Checkpoint;
  }

  /** The agent's context is about to be compacted: checkpoint now, changed or not. */
  async compactionWarning(): Promise<Checkpoint> {
    this.#pending.push({ trigger: "compaction-warning", what: "context compaction warning", significant: false });
    const state = this.#capture();
    const events = [...this.#pending];
    const result = await this.session.setWorking(state, {
      expectedVersion: this.#version,
      ...withHint(this.#hint()),
      checkpoint: () => autoCheckpointOptions(events),
    });
    this.#saved(result);
    this.#pending = [];
    return result.checkpoint as Checkpoint;
  }

  /** Runs a named check; records pass/fail, exit code, duration and output, and attaches it as evidence when asked. */
  async verify(
    name: string,
    argv: readonly string[],
    options: Partial<RunOptions> & { hypothesisId?: string } = {},
  ): Promise<{ verification: Verification; evidenceId: string | null }> {
    if (options.hypothesisId !== undefined) this.hypotheses.get(options.hypothesisId); // an unknown id fails before anything runs
    const cwd = options.cwd ?? process.cwd();
    const run = await runCommand(argv, { ...options, cwd });
    return this.recordVerification(name, argv, cwd, run, options.hypothesisId);
  }

  /**
   * Records a check that has run (see `verify`): its result, and evidence for the
   * hypothesis if one is named — supporting when it passed, refuting when it failed.
   */
  recordVerification(
    name: string,
    argv: readonly string[],
    cwd: string,
    run: RunResult,
    hypothesisId?: string,
  ): { verification: Verification; evidenceId: string | null } {
    const hid = hypothesisId === undefined ? null : this.hypotheses.get(hypothesisId).id;
    const passed = run.error === null && run.exitCode === 0;
    const verification = this.verifications.record({
      name: name.trim() || argv.join(" "),
      command: [...argv],
      cwd,
      ...run,
      at: this.#now(),
      passed,
      hypothesisId: hid,
      evidenceId: null,
    });
    let evidenceId: string | null = null;
    if (hid !== null) {
      const why = run.error ?? (run.signal ? `killed by ${run.signal}` : `exit ${run.exitCode}`);
      const { evidence } = this.hypotheses.addEvidence(hid, {
        kind: passed ? "supports" : "refutes",
        content: `verification "${verification.name}" ${passed ? "passed" : `failed (${why})`}: ${argv.join(" ")}`,
        source: `verification ${verification.id}`,
        verificationId: verification.id,
      });
      this.verifications.linkEvidence(verification.id, evidence.id);
      evidenceId = evidence.id;
    }
    return { verification: { ...verification, evidenceId }, evidenceId };
  }

  /** Runs a command and records it in the command history. */
  async run(argv: readonly string[], options: Partial<RunOptions> = {}): Promise<CommandRun> {
    const cwd = options.cwd ?? process.cwd();
    return this.recordCommand(argv, cwd, await runCommand(argv, { ...options, cwd }));
  }

  /** Records a command that has run (see `run`). */
  recordCommand(argv: readonly string[], cwd: string, run: RunResult): CommandRun {
    return this.commands.record({ command: [...argv], cwd, ...run, at: this.#now() });
  }

  /** Records the code state (git commit, uncommitted patch, chosen env vars); a change is a trigger. */
  captureCode(options: Omit<CaptureOptions, "now">): CodeState {
    const next = captureCodeState({ ...options, now: this.#now() });
    if (codeChanged(this.#code, next)) {
      this.#pending.push({ trigger: "code-modified", what: `code modified${next.commit ? ` at ${next.commit.slice(0, 8)}` : ""}`, significant: false });
    }
    this.#touched.add("code");
    this.#code = next;
    return structuredClone(next);
  }

  /**
   * Restores every part from a checkpoint (HEAD moves; see Session.restore) and reloads.
   * Unsaved changes are dropped.
   */
  async restore(ref: string, options: RestoreOptions = {}): Promise<{ checkpoint: Checkpoint; discarded: readonly Checkpoint[] }> {
    const r = await this.session.restore(ref, options);
    this.#load(toReasoningState(r.state, this.name), r.checkpoint.stateRoot);
    this.#version = r.workVersion;
    return { checkpoint: r.checkpoint, discarded: r.discarded };
  }

  /** Whether the working state differs from HEAD's checkpoint (work since the last checkpoint). */
  async dirty(): Promise<boolean> {
    const [working, head] = await Promise.all([this.session.working(), this.session.head()]);
    return working !== undefined && working.root !== head.checkpoint?.stateRoot;
  }

  /**
   * Starts an experiment branch at HEAD (or `from`) and, by default, moves onto it. Work
   * since the last checkpoint is checkpointed first (a branch-switch trigger) so it is
   * neither lost nor carried off.
   */
  async branch(name: string, options: { from?: string; switch?: boolean } = {}): Promise<{ branch: string; saved: Checkpoint | null }> {
    const saved = await this.#checkpointIfDirty(`before branching to ${name}`);
    await this.session.branch(name, options.from === undefined ? {} : { from: options.from });
    if (options.switch !== false) {
      const r = await this.session.switch(name);
      this.#load(toReasoningState(r.state, this.name), r.checkpoint.stateRoot);
      this.#version = r.workVersion;
    }
    return { branch: name, saved };
  }

  /** Moves onto another experiment branch; its head's state becomes the working state. */
  async switch(name: string): Promise<{ checkpoint: Checkpoint; saved: Checkpoint | null }> {
    const saved = await this.#checkpointIfDirty(`before switching to ${name}`);
    const r = await this.session.switch(name);
    this.#load(toReasoningState(r.state, this.name), r.checkpoint.stateRoot);
    this.#version = r.workVersion;
    return { checkpoint: r.checkpoint, saved };
  }

  /** Saves, and checkpoints first if there is work since HEAD's checkpoint (the branch-switch trigger). */
  async #checkpointIfDirty(why: string): Promise<Checkpoint | null> {
    this.#pending.push({ trigger: "branch-switch", what: why, significant: false, onlyIfUnsaved: true });
    return (await this.save()).checkpoint;
  }

  /** What the agent believed at a moment: the checkpoint then and its state. */
  async at(when: TimeInput): Promise<{ checkpoint: Checkpoint; state: ReasoningState } | undefined> {
    const cp = await this.session.at(parseTime(when, new Date(this.#store.clock.now())));
    if (!cp) return undefined;
    return { checkpoint: cp, state: toReasoningState(await this.session.state(cp.id), this.name) };
  }

  /** The reasoning state a checkpoint holds. */
  async stateAt(ref: string): Promise<{ checkpoint: Checkpoint; state: ReasoningState }> {
    const cp = await this.session.get(ref);
    return { checkpoint: cp, state: toReasoningState(await this.session.state(cp.id), this.name) };
  }

  /** Typed changes between two checkpoints ("working" names the unsaved state). */
  async compare(a: string, b: string): Promise<ReasoningComparison> {
    const [from, to] = await Promise.all([this.#resolveForCompare(a), this.#resolveForCompare(b)]);
    return compareStates(from, to);
  }

  async #resolveForCompare(ref: string): Promise<{ label: string; at: string; state: ReasoningState; checkpoint: Checkpoint | null }> {
    if (ref === "working") return { label: "working state", at: this.#now(), state: this.#capture(), checkpoint: null };
    const { checkpoint, state } = await this.stateAt(ref);
    return { label: `#${checkpoint.seq}`, at: checkpoint.createdAt.toISOString(), state, checkpoint };
  }

  /** The brief of the working state, or of a checkpoint when `ref` names one. */
  async brief(ref?: string): Promise<{ markdown: string; input: BriefInput }> {
    const head = await this.session.head();
    let state: ReasoningState;
    let checkpoint: Checkpoint | null;
    let unsaved = false;
    if (ref === undefined) {
      state = this.#capture();
      checkpoint = head.checkpoint;
      // Work since the checkpoint: saved or not (the brief shows this object's state).
      unsaved = checkpoint === null || !isDeepStrictEqual(await this.session.state(checkpoint.id), state);
    } else {
      ({ state, checkpoint } = await this.stateAt(ref));
    }
    const input: BriefInput = {
      session: this.name,
      state,
      contradictions: findContradictions(state.beliefs, state.hypotheses),
      branch: ref === undefined ? head.branch : (checkpoint?.branch ?? null),
      checkpoint,
      unsaved,
      checkpoints: await this.session.count(),
      now: this.#store.clock.now(),
    };
    return { markdown: renderBrief(input), input };
  }

  /** The latest checkpoint and the steps to resume from it. */
  async recover(): Promise<RecoveryPoint> {
    const head = await this.session.head();
    if (!head.checkpoint) {
      throw new ForgeError("NO_CHECKPOINT", `session "${this.name}" has no checkpoint to recover from`, { hint: "`forge checkpoint create` makes one" });
    }
    const state = toReasoningState(await this.session.state(head.checkpoint.id), this.name);
    return recoveryPoint(head.checkpoint, state, this.name);
  }

  /** Prunes with the design's retention unless rules are given (see retention.ts). */
  prune(options: PruneOptions = {}): Promise<PruneReport> {
    const { dryRun, ...rules } = options;
    const policy = Object.keys(rules).length === 0 ? REASONING_RETENTION : rules;
    return this.session.prune({ ...policy, ...(dryRun !== undefined && { dryRun }) });
  }
}

function withHint(hint: UnchangedHint | undefined): { unchanged?: UnchangedHint } {
  return hint === undefined ? {} : { unchanged: hint };
}
