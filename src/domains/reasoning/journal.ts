// The session's journal: notes, command history and verification runs — lists that only
// grow, so each addition costs one chunk in the next checkpoint.
import { InvalidArgumentError, NotFoundError } from "../../core/errors.js";
import type { CommandRun, Note, Verification } from "./model.js";
import type { PartContext, Snapshotable } from "./part.js";

export class NoteBook implements Snapshotable<Note[]> {
  readonly #ctx: PartContext;
  #notes: Note[] = [];

  constructor(ctx: PartContext) {
    this.#ctx = ctx;
  }

  capture(): Note[] {
    return this.#notes;
  }

  restore(snapshot: Note[]): void {
    this.#notes = snapshot;
  }

  add(text: string, tags: readonly string[] = []): Note {
    const t = text.trim();
    if (t === "") throw new InvalidArgumentError("a note is empty");
    this.#ctx.touch("notes");
    const n: Note = { id: this.#ctx.nextId("N"), text: t, tags: [...tags], at: this.#ctx.now() };
    this.#notes.push(n);
    return { ...n };
  }

  list(): Note[] {
    return this.#notes.map((n) => ({ ...n }));
  }
}

export class CommandHistory implements Snapshotable<CommandRun[]> {
  readonly #ctx: PartContext;
  #runs: CommandRun[] = [];

  constructor(ctx: PartContext) {
    this.#ctx = ctx;
  }

  capture(): CommandRun[] {
    return this.#runs;
  }

  restore(snapshot: CommandRun[]): void {
    this.#runs = snapshot;
  }

  record(run: Omit<CommandRun, "id">): CommandRun {
    this.#ctx.touch("commands");
    const r: CommandRun = { id: this.#ctx.nextId("C"), ...run };
    this.#runs.push(r);
    return { ...r };
  }

  list(): CommandRun[] {
    return this.#runs.map((r) => ({ ...r }));
  }
}

export class VerificationLog implements Snapshotable<Verification[]> {
  readonly #ctx: PartContext;
  #runs: Verification[] = [];

  constructor(ctx: PartContext) {
    this.#ctx = ctx;
  }

  capture(): Verification[] {
    return this.#runs;
  }

  restore(snapshot: Verification[]): void {
    this.#runs = snapshot;
  }

  /** Records a finished run; completing a verification is a checkpoint trigger. */
  record(run: Omit<Verification, "id">): Verification {
    this.#ctx.touch("verifications");
    const v: Verification = { id: this.#ctx.nextId("V"), ...run };
    this.#runs.push(v);
    this.#ctx.emit({ trigger: "verification", what: `${v.id} "${v.name}" ${v.passed ? "passed" : "failed"}`, significant: false });
    return { ...v };
  }

  /** Sets the evidence a run was recorded as (after the evidence got its id). */
  linkEvidence(id: string, evidenceId: string): void {
    const v = this.#runs.find((x) => x.id === id);
    if (!v) throw new NotFoundError("verification", id, "`forge brief` lists the last verifications");
    this.#ctx.touch("verifications");
    v.evidenceId = evidenceId;
  }

  list(): Verification[] {
    return this.#runs.map((v) => ({ ...v }));
  }
}
