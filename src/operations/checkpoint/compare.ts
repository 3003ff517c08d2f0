// checkpoint_compare: what changed between two checkpoints of a session — the state by its
// kind (typed reasoning changes, a conversation's messages, JSON paths, or for workspace
// snapshots their files) and the files when either carries a snapshot. The one compare the
// CLI (`checkpoint diff`, `milestone show`), the MCP server and the web page all show.
import { createRequire } from "node:module";
import type * as Diff from "diff";
import { sessionKind, type StateComparison } from "../../domains/kinds.js";
import { readFileObject, readTree, type FileInfo } from "../../objects/file-tree.js";
import { compareTrees, emptyTree } from "../../domains/workspace/tree-compare.js";
import type { Session } from "../../timeline/session.js";
import type { Store } from "../../timeline/store.js";
import type { Checkpoint } from "../../timeline/types.js";
import { defineOperation } from "../operation.js";
import { checkpointJson, fileChangeJson, refField, sessionField, type CheckpointJson, type FileChangeJson } from "../shared.js";

/** The change between two checkpoints: the state's comparison (by kind) with both checkpoints, and the files. */
export type CompareResult = StateComparison & {
  readonly from: CheckpointJson;
  readonly to: CheckpointJson;
  /** What changed in the files when either checkpoint carries a snapshot; else null. */
  readonly files: readonly FileChangeJson[] | null;
};

export interface CompareOptions {
  /** JSON paths whatever the kind. */
  readonly raw?: boolean;
  /** A unified diff for each changed text file (the web page's view). */
  readonly patches?: boolean;
}

export const compareOperation = defineOperation({
  name: "checkpoint_compare",
  title: "Compare two checkpoints",
  description:
    "What changed between two checkpoints: typed changes (hypotheses, evidence, beliefs, gaps, …) for a reasoning session, messages for a conversation, JSON paths otherwise; and the files when either carries a snapshot.",
  effect: "read",
  input: (z) => ({
    from: refField(z, "the earlier checkpoint"),
    to: refField(z, "the later checkpoint").default("HEAD"),
    raw: z.boolean().default(false).describe("JSON paths even for a reasoning session"),
    patches: z.boolean().default(false).describe("a unified diff for each changed text file"),
    session: sessionField(z),
  }),
  run: async (ctx, input) => compareCheckpoints(await ctx.store(), await ctx.existingSession(input.session), input.from, input.to, input),
});

/** The change from checkpoint `from` to `to` (refs of `session`). */
export async function compareCheckpoints(store: Store, session: Session, from: string, to: string, options: CompareOptions = {}): Promise<CompareResult> {
  const [a, b] = await Promise.all([session.get(from), session.get(to)]);
  const files = a.filesRoot === null && b.filesRoot === null ? null : await fileChanges(store, a, b, options.patches === true);
  let state: StateComparison | null = null;
  if (!options.raw) {
    const info = await session.info();
    const [kind, sa, sb] = await Promise.all([sessionKind(info.kind), session.state(a.id), session.state(b.id)]);
    const counts = files === null ? null : countKinds(files);
    state = kind.compare(
      { label: `#${a.seq}`, at: a.createdAt.toISOString(), state: sa },
      { label: `#${b.seq}`, at: b.createdAt.toISOString(), state: sb },
      info.name,
      counts,
    );
  }
  if (state === null) {
    const c = await session.compare(a.id, b.id);
    state = { kind: "json", summary: c.summary, changes: c.changes, counts: c.counts };
  }
  return { ...state, from: checkpointJson(a), to: checkpointJson(b), files };
}

function countKinds(files: readonly FileChangeJson[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of files) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
  return counts;
}

/** Text files larger than this are not diffed line by line. */
const MAX_DIFF_BYTES = 256 * 1024;
/** At most this many file diffs in one comparison. */
const MAX_DIFFS = 200;

async function fileChanges(store: Store, a: Checkpoint, b: Checkpoint, patches: boolean): Promise<FileChangeJson[]> {
  const ta = a.filesRoot === null ? emptyTree() : await readTree(store.objects, a.filesRoot);
  const tb = b.filesRoot === null ? emptyTree() : await readTree(store.objects, b.filesRoot);
  const out: FileChangeJson[] = [];
  for (const ch of compareTrees(ta, tb)) {
    const base = fileChangeJson(ch);
    if (!patches) {
      out.push(base);
      continue;
    }
    if (out.length >= MAX_DIFFS) {
      out.push({ ...base, patch: null, note: "not diffed: too many changed files" });
      continue;
    }
    const before = ch.before ? await readText(store, ch.before) : "";
    const after = ch.after ? await readText(store, ch.after) : "";
    if (before === null || after === null) {
      out.push({ ...base, patch: null, note: "binary, too large or not stored" });
      continue;
    }
    out.push({ ...base, patch: diff().createTwoFilesPatch(ch.from ?? ch.path, ch.path, before, after, `#${a.seq}`, `#${b.seq}`, { context: 3 }) });
  }
  return out;
}

const require = createRequire(import.meta.url);
let diffModule: typeof Diff | undefined;
const diff = (): typeof Diff => (diffModule ??= require("diff") as typeof Diff);

/** A stored file as text, or null if it is not a small UTF-8 text file. */
async function readText(store: Store, f: FileInfo): Promise<string | null> {
  if (f.type === "l") return `symlink → ${f.target ?? ""}\n`;
  if (f.type !== "f" || f.hash === "" || f.size > MAX_DIFF_BYTES) return null;
  const bytes = await readFileObject(store.objects, f.hash);
  if (bytes.includes(0)) return null;
  const text = bytes.toString("utf8");
  return text.includes("\uFFFD") ? null : text;
}
