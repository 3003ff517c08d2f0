// Keeps the search index up with the checkpoints: a checkpoint's postings are what it changed
// against its parent (search-diff.ts), and only documents the index lacks get their text read
// and cut into words. A checkpoint is indexed by its writer right after it commits, when that
// is cheap (a budget of nodes and file bytes); everything else — a big first snapshot,
// checkpoints written by bundles, imports, squash, a Forge before the index, a child re-linked
// by a prune — is found by `stale()` (no mark, or a mark against another parent) and indexed
// by the next search or by a rebuild, in batches, with progress.
import { ForgeError } from "../core/errors.js";
import type { ProgressListener } from "../core/progress.js";
import type { CheckpointRow, MetaWriter } from "../backends/backend.js";
import type { IndexStats, NewDoc, Posting } from "../backends/search/search-index.js";
import { wordsOf } from "../backends/search/tokenize.js";
import { readFileObject } from "../objects/file-tree.js";
import { diffRoots, OverBudget, type DocChange, type IndexedRoots } from "./search-diff.js";
import { FILE_TEXT_LIMIT, fileText, nodeText } from "./search-text.js";
import type { StoreContext } from "./store-context.js";

/** What indexing needs of a checkpoint (a `CheckpointRow` or a `Checkpoint`). */
export type IndexedCheckpoint = Pick<CheckpointRow, "id" | "parentId" | "stateRoot" | "filesRoot" | "message">;

/** A checkpoint's index work, done outside the write transaction. */
interface Prepared {
  readonly row: IndexedCheckpoint;
  readonly changes: readonly DocChange[];
  readonly docs: readonly NewDoc[];
}

/**
 * What the write path may spend indexing a checkpoint after its transaction: a few
 * milliseconds (a hook runs after every tool call). Reading back and cutting 512 KB of file
 * text into words costs ~10 ms; a bigger change — a first snapshot — is left to the next search.
 */
const WRITE_BUDGET = { nodes: 2000, fileBytes: 512 * 1024 };
/** Checkpoints per transaction when catching up. */
const BATCH = 50;

function rootsOf(row: IndexedCheckpoint): IndexedRoots {
  return { state: row.stateRoot, files: row.filesRoot, message: row.message };
}

/** The diff of `row` against `parent`, and the documents it adds that the index does not hold yet. */
async function prepare(ctx: StoreContext, row: IndexedCheckpoint, parent: IndexedCheckpoint | null, budget?: typeof WRITE_BUDGET): Promise<Prepared> {
  const changes = await diffRoots(ctx.objects, rootsOf(row), parent ? rootsOf(parent) : null, budget?.nodes);
  const gained = changes.filter((c) => c.delta > 0);
  const known = await ctx.backend.search.docIds(gained.map((c) => c.key));
  const docs: NewDoc[] = [];
  const todo = gained.filter((c) => !known.has(c.key) && c.place !== undefined && (c.kind !== "file" || c.size <= FILE_TEXT_LIMIT));
  // Over budget is known from the sizes before a file is read: the work is not begun to be thrown away.
  if (budget) {
    let fileBytes = 0;
    for (const c of todo) if (c.kind === "file") fileBytes += c.size;
    if (fileBytes > budget.fileBytes) throw new OverBudget(`more than ${budget.fileBytes} bytes of files to read`);
  }
  for (const c of todo) {
    if (c.place === undefined) continue;
    let text: string | null;
    if (c.kind === "node") text = c.node.kind === "j" ? nodeText(c.node.body) : null;
    else if (c.kind === "message") text = c.text;
    else text = fileText(await readFileObject(ctx.objects, c.key));
    const words = text === null ? "" : wordsOf(text);
    if (words !== "") docs.push({ key: c.key, source: c.kind === "node" ? "state" : c.kind === "file" ? "files" : "message", place: c.place, words });
  }
  return { row, changes, docs };
}

/** Writes a prepared checkpoint's documents, postings and mark (inside a transaction). */
async function apply(tx: MetaWriter, p: Prepared): Promise<void> {
  const ids = await tx.search.addDocs(p.docs);
  const missing = p.changes.filter((c) => !ids.has(c.key)).map((c) => c.key);
  if (missing.length > 0) for (const [k, id] of await tx.search.docIds(missing)) ids.set(k, id);
  const postings: Posting[] = [];
  for (const c of p.changes) {
    const doc = ids.get(c.key);
    if (doc !== undefined) postings.push({ doc, delta: c.delta > 0 ? 1 : -1 });
  }
  await tx.search.setPostings(p.row.id, p.row.parentId, postings);
}

/**
 * Indexes a checkpoint its writer has just committed, if that fits the write budget: the diff
 * and the words outside any lock, then one small transaction. Not inside the checkpoint's own
 * transaction: reading objects there would take a second pooled connection while the first
 * holds the store's lock (PostgreSQL: concurrent writers would exhaust the pool), and the lock
 * would be held for the work. A checkpoint this does not index — over budget, an object that
 * cannot be read, the store unreachable, a crash in between — stays unmarked, and the next
 * search indexes it (and reports an error that persists). The checkpoint has committed: it
 * never fails for the index's sake.
 */
export async function indexAfterCommit(ctx: StoreContext, row: IndexedCheckpoint): Promise<void> {
  try {
    const parent = row.parentId === null ? null : ((await ctx.backend.meta.getCheckpoint(row.parentId)) ?? null);
    const prepared = await prepare(ctx, row, parent, WRITE_BUDGET);
    await ctx.backend.transaction(async (tx) => {
      if (await tx.getCheckpoint(row.id)) await apply(tx, prepared);
    });
  } catch (e) {
    if (!(e instanceof ForgeError)) throw e; // a bug, not a state of the store: loud
  }
}

/** Indexes every stale checkpoint (see the file's head); returns how many. */
export async function catchUp(ctx: StoreContext, onProgress?: ProgressListener): Promise<number> {
  const stale = await ctx.backend.search.stale();
  const total = stale.length;
  const phase = "indexing checkpoints for search";
  if (total > 0) onProgress?.({ phase, done: 0, total });
  const parents = new Map<string, CheckpointRow | null>();
  for (let i = 0; i < total; i += BATCH) {
    const batch: Prepared[] = [];
    for (const row of stale.slice(i, i + BATCH)) {
      let parent: CheckpointRow | null = null;
      if (row.parentId !== null) {
        if (!parents.has(row.parentId)) parents.set(row.parentId, (await ctx.backend.meta.getCheckpoint(row.parentId)) ?? null);
        parent = parents.get(row.parentId) ?? null;
      }
      batch.push(await prepare(ctx, row, parent));
    }
    await ctx.backend.transaction(async (tx) => {
      // A checkpoint deleted meanwhile takes nothing with it; one re-linked meanwhile is stale again next time.
      for (const p of batch) if (await tx.getCheckpoint(p.row.id)) await apply(tx, p);
    });
    onProgress?.({ phase, done: Math.min(i + BATCH, total), total });
  }
  return total;
}

/** Empties the index and indexes every checkpoint again. */
export async function rebuild(ctx: StoreContext, onProgress?: ProgressListener): Promise<IndexStats> {
  await ctx.backend.transaction((tx) => tx.search.clear());
  await catchUp(ctx, onProgress);
  return ctx.backend.search.stats();
}
