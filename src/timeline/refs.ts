// The ref grammar: how a person or an agent names a checkpoint.
//
//   HEAD            where the session is now          HEAD~2, main~1, #7^   ancestors
//   #12             the checkpoint with seq 12         tag:verified          newest with that tag
//   main            a branch's head                    01JD8X…, 01jd8x       an id or a unique prefix (≥ 4)
import { AmbiguousRefError, CheckpointNotFoundError, ForgeError } from "../core/errors.js";
import { isIdPrefix } from "../core/ids.js";
import type { CheckpointRow, MetaReader, SessionRow } from "../backends/backend.js";

const ANCESTRY = /^(.*?)((?:~\d*|\^+)*)$/;

export async function resolveRef(meta: MetaReader, session: SessionRow, ref: string): Promise<CheckpointRow> {
  const text = ref.trim();
  if (text === "") throw new ForgeError("INVALID_REF", "an empty ref names no checkpoint", { hint: "use an id, HEAD, #SEQ, a branch or tag:NAME" });
  const m = ANCESTRY.exec(text) as RegExpExecArray;
  const base = m[1] as string;
  const steps = countSteps(m[2] as string);
  if (base === "") throw new ForgeError("INVALID_REF", `"${ref}" has no base before its ~ or ^`, { hint: "write it as HEAD~2 or main~1" });
  let row = await resolveBase(meta, session, base, ref);
  for (let i = 0; i < steps; i++) {
    if (row.parentId === null) {
      throw new CheckpointNotFoundError(ref, `${base} has only ${i} ancestor${i === 1 ? "" : "s"}`);
    }
    const parent = await meta.getCheckpoint(row.parentId);
    if (!parent) throw new CheckpointNotFoundError(ref, `the parent ${row.parentId} of #${row.seq} is gone; run \`forge fsck\``);
    row = parent;
  }
  return row;
}

function countSteps(suffix: string): number {
  let n = 0;
  for (const part of suffix.match(/~\d*|\^/g) ?? []) n += part === "^" || part === "~" ? 1 : Number(part.slice(1));
  return n;
}

async function resolveBase(meta: MetaReader, session: SessionRow, base: string, ref: string): Promise<CheckpointRow> {
  if (base === "HEAD" || base === "@") {
    const id = await headId(meta, session);
    if (id === null) throw new CheckpointNotFoundError(ref, `session "${session.name}" has no checkpoints yet`);
    return mustGet(meta, id, ref);
  }
  if (base.startsWith("#")) {
    const seq = Number(base.slice(1));
    if (!Number.isInteger(seq) || seq < 1) throw new ForgeError("INVALID_REF", `"${base}" is not a checkpoint number`, { hint: "write #1, #2, …" });
    const row = await meta.getCheckpointBySeq(session.id, seq);
    if (!row) throw new CheckpointNotFoundError(ref, `session "${session.name}" has no checkpoint #${seq}`);
    return row;
  }
  if (base.startsWith("tag:")) {
    const tag = base.slice(4);
    const [row] = await meta.listCheckpoints({ sessionId: session.id, tag, order: "desc", limit: 1 });
    if (!row) throw new CheckpointNotFoundError(ref, `no checkpoint in session "${session.name}" has the tag "${tag}"`);
    return row;
  }
  const branch = await meta.getRef(session.id, base);
  if (branch) return mustGet(meta, branch.checkpointId, ref);
  if (isIdPrefix(base)) {
    const prefix = base.toUpperCase();
    // Ids are unique across sessions; this session's own come first.
    let rows = await meta.findCheckpointsByPrefix(prefix, 11, session.id);
    if (rows.length === 0) rows = await meta.findCheckpointsByPrefix(prefix, 11);
    if (rows.length === 1) return rows[0] as CheckpointRow;
    if (rows.length > 1) {
      throw new AmbiguousRefError(
        ref,
        rows.slice(0, 10).map((r) => `${r.id} (#${r.seq} ${JSON.stringify(truncate(r.message, 40))})`),
      );
    }
  }
  throw new CheckpointNotFoundError(ref);
}

/** The checkpoint HEAD points at, or null when the session has none. */
export async function headId(meta: MetaReader, session: SessionRow): Promise<string | null> {
  if (session.headBranch === null) return session.headCheckpoint;
  const ref = await meta.getRef(session.id, session.headBranch);
  return ref ? ref.checkpointId : null;
}

async function mustGet(meta: MetaReader, id: string, ref: string): Promise<CheckpointRow> {
  const row = await meta.getCheckpoint(id);
  if (!row) throw new CheckpointNotFoundError(ref, `it points at ${id}, which is gone; run \`forge fsck\``);
  return row;
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, n - 1) + "…";
}
