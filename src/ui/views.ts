// What the web page shows of a checkpoint and of a comparison, by the kind of session:
// a reasoning board, a conversation transcript, a file tree, or the JSON itself. The page
// renders these shapes; it never sees raw objects or store internals.
import { createRequire } from "node:module";
import type * as Diff from "diff";
import { compareStates, type ReasoningChange } from "../domains/reasoning/compare.js";
import type { ReasoningState } from "../domains/reasoning/model.js";
import { isReasoningState } from "../domains/reasoning/model.js";
import { compareTrees, type FileChange } from "../domains/workspace/workspace.js";
import { readFileObject, readTree, type FileInfo, type Tree } from "../domains/workspace/file-tree.js";
import type { Checkpoint, Change } from "../timeline/types.js";
import type { Session } from "../timeline/session.js";
import type { Store } from "../timeline/store.js";
import { conversationOf, compareConversations, type ConversationView, type ConversationComparison } from "./conversation-view.js";

const require = createRequire(import.meta.url);
let diffModule: typeof Diff | undefined;
const diff = (): typeof Diff => (diffModule ??= require("diff") as typeof Diff);

/** Text files larger than this are not diffed line by line on the page. */
const MAX_DIFF_BYTES = 256 * 1024;
/** At most this many file diffs in one comparison. */
const MAX_DIFFS = 200;

export interface FileEntry {
  readonly path: string;
  readonly type: FileInfo["type"];
  readonly size: number;
  readonly mode: string;
}

export type StateView =
  | { readonly kind: "reasoning"; readonly state: ReasoningState }
  | ({ readonly kind: "conversation" } & ConversationView)
  | { readonly kind: "json"; readonly state: unknown };

export interface CheckpointView {
  readonly checkpoint: CheckpointJson;
  readonly view: StateView;
  /** The checkpoint's files, when it carries a files tree. */
  readonly files: readonly FileEntry[] | null;
}

export interface CheckpointJson {
  readonly id: string;
  readonly seq: number;
  readonly parentId: string | null;
  readonly branch: string;
  readonly createdAt: string;
  readonly message: string;
  readonly tags: readonly string[];
  readonly trigger: string;
  readonly metadata: Record<string, unknown>;
  readonly hasFiles: boolean;
  readonly sizes: Checkpoint["sizes"];
}

export function checkpointJson(cp: Checkpoint): CheckpointJson {
  return {
    id: cp.id,
    seq: cp.seq,
    parentId: cp.parentId,
    branch: cp.branch,
    createdAt: cp.createdAt.toISOString(),
    message: cp.message,
    tags: cp.tags,
    trigger: cp.trigger,
    metadata: cp.metadata,
    hasFiles: cp.filesRoot !== null,
    sizes: cp.sizes,
  };
}

/** How a session's states are shown: by its kind, else by what the state looks like. */
export function stateView(kind: string, state: unknown): StateView {
  if ((kind === "reasoning" || kind === "generic") && isReasoningState(state)) return { kind: "reasoning", state: state as ReasoningState };
  const conversation = kind === "conversation" ? conversationOf(state) : null;
  if (conversation) return { kind: "conversation", ...conversation };
  return { kind: "json", state };
}

export async function checkpointView(store: Store, session: Session, kind: string, ref: string): Promise<CheckpointView> {
  const cp = await session.get(ref);
  const state = await session.state(cp.id);
  const files = cp.filesRoot === null ? null : fileList(await readTree(store.objects, cp.filesRoot));
  return { checkpoint: checkpointJson(cp), view: stateView(kind, state), files };
}

function fileList(tree: Tree): FileEntry[] {
  return [...tree.files]
    .map(([path, f]) => ({ path, type: f.type, size: f.size, mode: f.mode.toString(8) }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export interface FileDiff {
  readonly path: string;
  readonly kind: FileChange["kind"];
  readonly from?: string;
  /** A unified diff, or null when a side is binary, too large or not stored. */
  readonly patch: string | null;
  readonly note?: string;
}

export type ComparisonView =
  | { readonly kind: "reasoning"; readonly changes: readonly ReasoningChange[]; readonly summary: string }
  | ({ readonly kind: "conversation" } & ConversationComparison)
  | { readonly kind: "json"; readonly changes: readonly Change[]; readonly summary: string }
  /** Workspace snapshots: their state is a summary of the files, so the files say it all. */
  | { readonly kind: "files"; readonly summary: string };

export interface CompareResult {
  readonly from: CheckpointJson;
  readonly to: CheckpointJson;
  readonly state: ComparisonView;
  /** File changes when either side carries files. */
  readonly files: readonly FileDiff[] | null;
}

export async function compareView(store: Store, session: Session, kind: string, fromRef: string, toRef: string): Promise<CompareResult> {
  const [a, b] = [await session.get(fromRef), await session.get(toRef)];
  const [sa, sb] = [await session.state(a.id), await session.state(b.id)];
  const va = stateView(kind, sa);
  const vb = stateView(kind, sb);
  let state: ComparisonView;
  const files = a.filesRoot === null && b.filesRoot === null ? null : await fileDiffs(store, a, b);
  if (kind === "workspace" && files) {
    const counts = new Map<string, number>();
    for (const f of files) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
    const parts = [...counts].map(([k, n]) => `${n} ${k}`);
    state = { kind: "files", summary: files.length ? `${files.length} file${files.length === 1 ? "" : "s"} changed: ${parts.join(", ")}` : "no file changed" };
  } else if (va.kind === "reasoning" && vb.kind === "reasoning") {
    const r = compareStates({ label: `#${a.seq}`, at: a.createdAt.toISOString(), state: va.state }, { label: `#${b.seq}`, at: b.createdAt.toISOString(), state: vb.state });
    state = { kind: "reasoning", changes: r.changes, summary: r.summary };
  } else if (va.kind === "conversation" && vb.kind === "conversation") {
    state = { kind: "conversation", ...compareConversations(va, vb) };
  } else {
    const r = await session.compare(a.id, b.id);
    state = { kind: "json", changes: r.changes, summary: r.summary };
  }
  return { from: checkpointJson(a), to: checkpointJson(b), state, files };
}

async function fileDiffs(store: Store, a: Checkpoint, b: Checkpoint): Promise<FileDiff[]> {
  const empty: Tree = { files: new Map(), dirs: new Map([["", { mode: 0o755 }]]) };
  const ta = a.filesRoot === null ? empty : await readTree(store.objects, a.filesRoot);
  const tb = b.filesRoot === null ? empty : await readTree(store.objects, b.filesRoot);
  const out: FileDiff[] = [];
  for (const ch of compareTrees(ta, tb)) {
    const base = { path: ch.path, kind: ch.kind, ...(ch.from !== undefined && { from: ch.from }) };
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
    const patch = diff().createTwoFilesPatch(ch.from ?? ch.path, ch.path, before, after, `#${a.seq}`, `#${b.seq}`, { context: 3 });
    out.push({ ...base, patch });
  }
  return out;
}

/** A stored file as text, or null if it is not a small UTF-8 text file. */
async function readText(store: Store, f: FileInfo): Promise<string | null> {
  if (f.type === "l") return `symlink → ${f.target ?? ""}\n`;
  if (f.type !== "f" || f.hash === "" || f.size > MAX_DIFF_BYTES) return null;
  const bytes = await readFileObject(store.objects, f.hash);
  if (bytes.includes(0)) return null;
  const text = bytes.toString("utf8");
  return text.includes("\uFFFD") ? null : text;
}
