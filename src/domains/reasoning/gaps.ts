// Knowledge gaps: what the agent does not know yet, how much it matters, and what answered it.
import { InvalidArgumentError, NotFoundError } from "../../core/errors.js";
import { GAP_PRIORITIES, type Gap, type GapPriority } from "./model.js";
import type { PartContext, Snapshotable } from "./part.js";

export function checkPriority(value: string): GapPriority {
  if (!(GAP_PRIORITIES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`"${value}" is not a gap priority`, `use one of ${GAP_PRIORITIES.join(", ")}`);
  }
  return value as GapPriority;
}

const RANK: Record<GapPriority, number> = { critical: 0, high: 1, medium: 2, low: 3 };

export class GapTracker implements Snapshotable<Gap[]> {
  readonly #ctx: PartContext;
  #gaps: Gap[] = [];

  constructor(ctx: PartContext) {
    this.#ctx = ctx;
  }

  capture(): Gap[] {
    return this.#gaps;
  }

  restore(snapshot: Gap[]): void {
    this.#gaps = snapshot;
  }

  add(question: string, options: { priority?: GapPriority } = {}): Gap {
    const q = question.trim();
    if (q === "") throw new InvalidArgumentError("a gap's question is empty");
    this.#ctx.touch("gaps");
    const g: Gap = {
      id: this.#ctx.nextId("G"),
      question: q,
      priority: checkPriority(options.priority ?? "medium"),
      status: "open",
      answer: null,
      filledBy: null,
      createdAt: this.#ctx.now(),
      filledAt: null,
    };
    this.#gaps.push(g);
    return { ...g };
  }

  /** Fills a gap with its answer; filling is a checkpoint trigger. */
  fill(id: string, answer: string, options: { filledBy?: string | null } = {}): Gap {
    const g = this.#find(id);
    const a = answer.trim();
    if (a === "") throw new InvalidArgumentError(`the answer to ${g.id} is empty`);
    if (g.status === "filled") throw new InvalidArgumentError(`gap ${g.id} is already filled ("${g.answer}")`, "add a new gap for a new question");
    this.#ctx.touch("gaps");
    g.status = "filled";
    g.answer = a;
    g.filledBy = options.filledBy ?? null;
    g.filledAt = this.#ctx.now();
    this.#ctx.emit({ trigger: "gap-filled", what: `${g.id} filled`, significant: false });
    return { ...g };
  }

  get(id: string): Gap {
    return { ...this.#find(id) };
  }

  /** Open gaps first, by priority; then filled ones. */
  list(filter: { status?: Gap["status"] } = {}): Gap[] {
    return this.#gaps
      .filter((g) => filter.status === undefined || g.status === filter.status)
      .map((g) => ({ ...g }))
      .sort((a, b) => (a.status === b.status ? RANK[a.priority] - RANK[b.priority] : a.status === "open" ? -1 : 1));
  }

  #find(id: string): Gap {
    const g = this.#gaps.find((x) => x.id === id.trim().toUpperCase());
    if (!g) throw new NotFoundError("gap", id, "`forge gap list` shows the gaps");
    return g;
  }
}
