// fsck: re-hash every stored object, then check that every checkpoint's trees are whole and
// every parent, branch, HEAD and milestone points at a checkpoint that exists. Memory stays
// bounded whatever the store holds: an object too large to inflate in memory (written
// before the limits) is verified by streaming, and reported fine when its hash holds.
import { CorruptObjectError, isForgeError } from "../core/errors.js";
import type { ProgressListener } from "../core/progress.js";
import { storedKind, unpack, verifyStreaming } from "../objects/codec.js";
import type { Hash } from "../objects/hash.js";
import { formatBytes, MAX_LIST_BYTES, maxRawBytes, nodeLimitProblem, ObjectTooLargeError } from "../objects/limits.js";
import { checkJsonNode, childHashes, parseNode } from "../objects/node.js";
import type { StoreContext } from "./store-context.js";

export interface FsckReport {
  readonly ok: boolean;
  readonly objects: number;
  readonly bytes: number;
  readonly checkpoints: number;
  /** Objects whose bytes do not match their hash or do not parse. */
  readonly corrupt: readonly { readonly hash: Hash; readonly error: string; readonly checkpoints: readonly string[] }[];
  /** Objects a checkpoint needs that are not stored. */
  readonly missing: readonly { readonly hash: Hash; readonly checkpoints: readonly string[] }[];
  /** Broken links in the metadata: parents, branches, HEADs or milestones pointing at nothing. */
  readonly problems: readonly string[];
}

const BATCH = 500;

export interface FsckOptions {
  readonly onProgress?: ProgressListener;
}

/**
 * Verifies one stored object and returns the hashes it points at. An object larger than its
 * kind may be now is streamed; a `j` node's references must lead to placeholders in its body
 * (checked when the body is small enough to parse).
 */
async function verifiedChildren(hash: Hash, stored: Uint8Array): Promise<Hash[]> {
  let raw: Buffer;
  try {
    raw = unpack(hash, stored, maxRawBytes(storedKind(stored)));
  } catch (e) {
    if (!(e instanceof ObjectTooLargeError)) throw e;
    const { head } = await verifyStreaming(hash, stored, MAX_LIST_BYTES + 1);
    if (head[0] === 0x62) return []; // b: a file's bytes
    if (head[head.length - 1] !== 0x0a)
      throw new CorruptObjectError(hash, `its child list is longer than ${formatBytes(MAX_LIST_BYTES)}, more than fsck reads`);
    return childHashes(parseNode(hash, head));
  }
  const node = parseNode(hash, raw);
  if (node.kind === "j" && nodeLimitProblem(raw) === null) checkJsonNode(hash, node);
  return childHashes(node);
}

export async function checkStore(ctx: StoreContext, options: FsckOptions = {}): Promise<FsckReport> {
  const { backend } = ctx;
  const total = options.onProgress ? await backend.countObjects() : 0;
  let done = 0;
  const children = new Map<Hash, Hash[]>();
  const corruptErrors = new Map<Hash, string>();
  let bytes = 0;
  let batch: Hash[] = [];
  const verify = async () => {
    const got = await backend.getObjects(batch);
    for (const h of batch) {
      const stored = got.get(h);
      if (!stored) continue; // deleted by a gc since it was listed
      try {
        children.set(h, await verifiedChildren(h, stored));
      } catch (e) {
        if (!isForgeError(e)) throw e;
        corruptErrors.set(h, e.message);
      }
    }
    done += batch.length;
    options.onProgress?.({ phase: "verifying objects", done, total: Math.max(total, done) });
    batch = [];
  };
  for await (const o of backend.listObjects()) {
    bytes += o.size;
    batch.push(o.hash);
    if (batch.length >= BATCH) await verify();
  }
  await verify();

  const problems: string[] = [];
  const corrupt = new Map<Hash, string[]>();
  const missing = new Map<Hash, string[]>();
  let checkpoints = 0;
  // Which damaged objects each tree root leads to, computed once per shared sub-tree.
  const damageBelow = new Map<Hash, Hash[]>();
  const damageOf = (root: Hash): Hash[] => {
    const stack: { hash: Hash; kids: Hash[]; i: number; found: Set<Hash> }[] = [];
    const enter = (hash: Hash) => stack.push({ hash, kids: children.get(hash) ?? [], i: 0, found: new Set() });
    const known = damageBelow.get(root);
    if (known) return known;
    enter(root);
    let result: Hash[] = [];
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as (typeof stack)[number];
      if (!children.has(top.hash)) top.found.add(top.hash);
      if (top.i < top.kids.length) {
        const kid = top.kids[top.i++] as Hash;
        const done = damageBelow.get(kid);
        if (done) for (const d of done) top.found.add(d);
        else enter(kid);
        continue;
      }
      stack.pop();
      result = [...top.found];
      damageBelow.set(top.hash, result);
      const parent = stack[stack.length - 1];
      if (parent) for (const d of result) parent.found.add(d);
    }
    return result;
  };

  for (const session of await backend.meta.listSessions()) {
    const rows = await backend.meta.listCheckpoints({ sessionId: session.id });
    const ids = new Set(rows.map((r) => r.id));
    checkpoints += rows.length;
    for (const r of rows) {
      for (const root of [r.stateRoot, r.filesRoot]) {
        if (root === null) continue;
        for (const h of damageOf(root)) {
          const map = corruptErrors.has(h) ? corrupt : missing;
          const list = map.get(h) ?? [];
          if (!list.includes(r.id)) list.push(r.id);
          map.set(h, list);
        }
      }
      if (r.parentId !== null && !ids.has(r.parentId)) {
        problems.push(`checkpoint ${r.id} (#${r.seq} in "${session.name}") has a parent ${r.parentId} that does not exist`);
      }
    }
    if (session.workRoot !== null) {
      for (const h of damageOf(session.workRoot)) {
        const map = corruptErrors.has(h) ? corrupt : missing;
        const label = `working state of "${session.name}"`;
        const list = map.get(h) ?? [];
        if (!list.includes(label)) list.push(label);
        map.set(h, list);
      }
    }
    const refs = await backend.meta.listRefs(session.id);
    for (const ref of refs) {
      if (!ids.has(ref.checkpointId)) problems.push(`branch "${ref.name}" of "${session.name}" points at ${ref.checkpointId}, which does not exist`);
    }
    if (session.headBranch === null) {
      if (session.headCheckpoint !== null && !ids.has(session.headCheckpoint)) {
        problems.push(`HEAD of "${session.name}" points at ${session.headCheckpoint}, which does not exist`);
      }
    } else if (rows.length > 0 && !refs.some((r) => r.name === session.headBranch)) {
      problems.push(`HEAD of "${session.name}" is on branch "${session.headBranch}", which does not exist`);
    }
    const parentOf = new Map(rows.map((r) => [r.id, r.parentId]));
    for (const m of await backend.meta.listMilestones(session.id)) {
      const gone = [m.fromId, m.toId].filter((id) => !ids.has(id));
      if (gone.length > 0) {
        problems.push(`milestone "${m.name}" of "${session.name}" points at ${gone.join(" and ")}, which does not exist`);
        continue;
      }
      let id: string | null | undefined = m.toId;
      const seen = new Set<string>();
      while (id != null && id !== m.fromId && !seen.has(id)) seen.add(id), (id = parentOf.get(id));
      if (id !== m.fromId || m.fromId === m.toId)
        problems.push(`milestone "${m.name}" of "${session.name}" does not run from ${m.fromId} to a later checkpoint on its history (${m.toId})`);
    }
  }
  // Damaged objects no checkpoint uses are still damage.
  for (const h of corruptErrors.keys()) if (!corrupt.has(h)) corrupt.set(h, []);
  return {
    ok: corrupt.size === 0 && missing.size === 0 && problems.length === 0,
    objects: children.size + corruptErrors.size,
    bytes,
    checkpoints,
    corrupt: [...corrupt].map(([hash, cps]) => ({ hash, error: corruptErrors.get(hash) ?? "", checkpoints: cps })),
    missing: [...missing].map(([hash, cps]) => ({ hash, checkpoints: cps })),
    problems,
  };
}
