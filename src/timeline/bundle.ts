// Export and import: checkpoints with every object they need, in one portable file.
//
//   "FORGE-BUNDLE 1\n", then records: kind (1 byte) · length (u32 BE) · payload
//     M  the manifest (JSON: sessions, their checkpoints, branches and milestones)
//     O  an object: 32-byte hash, then its stored bytes (codec byte + body)
//     E  the end: SHA-256 of every byte before this record
// A manifest is at most 32 MiB, every object within the limits of objects/limits.ts.
//
// The manifest carries its own version: 1 had no milestones; 2 gives every session a
// `milestones` list. Export writes 2; import reads both and refuses any other, naming it, so
// a reader that knows only 1 refuses a 2 (its schema wants version 1) instead of dropping
// the milestones it cannot see.
//
// Every bundle is untrusted. Import checks the whole file before it writes anything, reading
// it in records, never whole (bundle-records.ts): the structure and end hash, every object
// (hash through a bounded inflate, size limits, format), the manifest (size, shape, schema,
// names, links), and that every checkpoint's trees are whole and well typed from their roots
// (bundle-trees.ts), in the bundle or already in the store. Then it writes the objects, read
// back in batches, then all metadata (milestones included) in one transaction: all or
// nothing. Export refuses to write what import would refuse.
import { createHash } from "node:crypto";
import { ForgeError, InvalidBundleError } from "../core/errors.js";
import { checkName, newId } from "../core/ids.js";
import type { CheckpointRow, MetaReader, MetaWriter, SessionRow } from "../backends/backend.js";
import type { Hash } from "../objects/hash.js";
import { formatBytes, MAX_BLOB_BYTES, nodeLimitProblem } from "../objects/limits.js";
import { arrayNodeText, dirNodeText, fileChunksText, jsonNodeText, type TreeNode } from "../objects/node.js";
import type { ByteSource } from "./bundle-source.js";
import { MAGIC, scanBundle, storedObjects } from "./bundle-records.js";
import { BundleRedaction } from "./bundle-redact.js";
import { DIR, factsOf, loadedGraph, refuseMismatch, STATE, walkTrees, type OutsideRef, type TreeRoot } from "./bundle-trees.js";
import { chainBetween } from "./milestones.js";
import { MAIN_BRANCH } from "./types.js";
import type { StoreContext } from "./store-context.js";

import { VERSION, manifestProblem, parseManifest, type Manifest, type BundleSession, type BundleMilestone } from "./bundle-manifest.js";

export interface ExportSelection {
  /** Sessions to export whole. */
  readonly sessions?: readonly SessionRow[];
  /** Single checkpoints to export (with their sessions' names, branches pointing at them, nothing else). */
  readonly checkpoints?: readonly CheckpointRow[];
}

/** A milestone of an exported session that the bundle does not carry, and why. */
export interface LeftOutMilestone {
  readonly session: string;
  readonly name: string;
  /** "its start #2 is not in the bundle", "#3, between its ends, is not in the bundle", ... */
  readonly reason: string;
}

export interface ExportResult {
  readonly bytes: Buffer;
  readonly sessions: number;
  readonly checkpoints: number;
  /** Milestones the bundle carries: those whose whole stretch, both ends included, is in it. */
  readonly milestones: number;
  /** The exported sessions' other milestones. */
  readonly milestonesLeftOut: readonly LeftOutMilestone[];
  readonly objects: number;
}

export async function exportBundle(ctx: StoreContext, selection: ExportSelection): Promise<ExportResult> {
  const meta = ctx.backend.meta;
  const bySession = new Map<string, { row: SessionRow; checkpoints: Map<string, CheckpointRow> }>();
  const entry = async (sessionId: string) => {
    let e = bySession.get(sessionId);
    if (!e) {
      const row = await meta.getSessionById(sessionId);
      if (!row) throw new ForgeError("SESSION_NOT_FOUND", `no session with id ${sessionId}`);
      bySession.set(sessionId, (e = { row, checkpoints: new Map() }));
    }
    return e;
  };
  for (const s of selection.sessions ?? []) {
    const e = await entry(s.id);
    for (const c of await meta.listCheckpoints({ sessionId: s.id })) e.checkpoints.set(c.id, c);
  }
  for (const c of selection.checkpoints ?? []) (await entry(c.sessionId)).checkpoints.set(c.id, c);

  const sessions: BundleSession[] = [];
  const roots: Hash[] = [];
  let checkpointCount = 0;
  let milestoneCount = 0;
  const leftOut: LeftOutMilestone[] = [];
  for (const { row, checkpoints } of bySession.values()) {
    const refs = (await meta.listRefs(row.id)).filter((r) => checkpoints.has(r.checkpointId));
    const list = [...checkpoints.values()].sort((a, b) => a.seq - b.seq);
    checkpointCount += list.length;
    for (const c of list) {
      roots.push(c.stateRoot);
      if (c.filesRoot !== null) roots.push(c.filesRoot);
    }
    const milestones: BundleMilestone[] = [];
    for (const m of await meta.listMilestones(row.id)) {
      const reason = await whyLeftOut(meta, checkpoints, m.fromId, m.toId);
      if (reason !== null) {
        leftOut.push({ session: row.name, name: m.name, reason });
        continue;
      }
      milestones.push({ name: m.name, from: m.fromId, to: m.toId, description: m.description, createdAt: m.createdAt });
    }
    milestoneCount += milestones.length;
    const headOk = row.headBranch !== null ? refs.some((r) => r.name === row.headBranch) : row.headCheckpoint !== null && checkpoints.has(row.headCheckpoint);
    sessions.push({
      id: row.id,
      name: row.name,
      kind: row.kind,
      createdAt: row.createdAt,
      metadata: row.metadata,
      headBranch: headOk ? row.headBranch : null,
      headCheckpoint: headOk ? row.headCheckpoint : null,
      branches: refs.map((r) => ({ name: r.name, checkpointId: r.checkpointId })),
      checkpoints: list.map(({ sessionId: _s, ...c }) => ({ ...c, tags: [...c.tags] })),
      milestones,
    });
  }
  const manifest: Manifest = { format: "forge-bundle", version: VERSION, createdAt: new Date(ctx.clock.now()).toISOString(), sessions };
  const manifestBytes = Buffer.from(JSON.stringify(manifest));
  const shape = manifestProblem(manifestBytes);
  if (shape !== null) {
    throw new ForgeError("INVALID_ARGUMENT", `cannot export ${checkpointCount} checkpoints in one bundle: its manifest ${shape}`, {
      hint: "export fewer checkpoints at a time (forge checkpoint export REFS...)",
    });
  }
  const nodes = await ctx.objects.loadTrees(roots);
  refuseUnimportable(nodes, treeRoots(sessions));
  const hashes = [...nodes.keys()];
  const parts: Buffer[] = [MAGIC, record("M", manifestBytes)];
  for (let i = 0; i < hashes.length; i += 500) {
    const batch = hashes.slice(i, i + 500);
    const got = await ctx.backend.getObjects(batch);
    for (const h of batch) {
      const stored = got.get(h) as Uint8Array; // loadTrees just read and verified it
      parts.push(record("O", Buffer.concat([Buffer.from(h, "hex"), stored])));
    }
  }
  const body = Buffer.concat(parts);
  const end = record("E", createHash("sha256").update(body).digest());
  return {
    bytes: Buffer.concat([body, end]),
    sessions: sessions.length,
    checkpoints: checkpointCount,
    milestones: milestoneCount,
    milestonesLeftOut: leftOut,
    objects: hashes.length,
  };
}

/**
 * Why a milestone cannot go into a bundle holding `exported` of its session, or null when it
 * can: both ends must be in it, and so must every checkpoint between them, since import cuts
 * the history at a parent the bundle lacks and the milestone would no longer span a stretch.
 */
async function whyLeftOut(meta: MetaReader, exported: ReadonlyMap<string, CheckpointRow>, fromId: string, toId: string): Promise<string | null> {
  const label = async (id: string) => {
    const row = exported.get(id) ?? (await meta.getCheckpoint(id));
    return row ? `#${row.seq}` : id;
  };
  const fromIn = exported.has(fromId);
  const toIn = exported.has(toId);
  if (!fromIn && !toIn) return `its ends ${await label(fromId)} and ${await label(toId)} are not in the bundle`;
  if (!fromIn) return `its start ${await label(fromId)} is not in the bundle`;
  if (!toIn) return `its end ${await label(toId)} is not in the bundle`;
  const missing: string[] = [];
  let id = (exported.get(toId) as CheckpointRow).parentId;
  const seen = new Set<string>();
  while (id !== null && id !== fromId && !seen.has(id)) {
    seen.add(id);
    const row: CheckpointRow | undefined = exported.get(id) ?? (await meta.getCheckpoint(id));
    if (!row) break;
    if (!exported.has(id)) missing.push(`#${row.seq}`);
    id = row.parentId;
  }
  if (id !== fromId) return `its start ${await label(fromId)} is not on the history of its end ${await label(toId)}`;
  if (missing.length === 0) return null;
  return `${missing.reverse().join(", ")}, between its ends, ${missing.length === 1 ? "is" : "are"} not in the bundle`;
}

function record(kind: "M" | "O" | "E", payload: Buffer): Buffer {
  const head = Buffer.allocUnsafe(5);
  head[0] = kind.charCodeAt(0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/**
 * Throws if import would refuse what export is about to write: a node past a limit, or a tree
 * that is not well typed (both only possible in a store written before the checks, or by a
 * caller that gave a checkpoint a files root that is not a folder).
 */
function refuseUnimportable(nodes: ReadonlyMap<Hash, TreeNode>, roots: readonly TreeRoot[]): void {
  for (const [hash, node] of nodes) {
    const problem = limitProblemOf(node);
    if (problem !== null) {
      throw new ForgeError("INVALID_STATE", `cannot export object ${hash}: ${problem}, so no Forge would import the bundle`, {
        hint: "it was stored by an older Forge; leave the checkpoints that use it out of the export",
        data: { hash },
      });
    }
  }
  try {
    walkTrees(loadedGraph(nodes), roots);
  } catch (e) {
    if (!(e instanceof InvalidBundleError)) throw e;
    throw new ForgeError("INVALID_STATE", `cannot export: ${e.message.replace(/^not a valid Forge bundle: /, "")}, so no Forge would import the bundle`, {
      cause: e,
    });
  }
}

/** `nodeLimitProblem` of a loaded node, without copying a blob's bytes. */
function limitProblemOf(node: TreeNode): string | null {
  switch (node.kind) {
    case "b":
      return node.data.length + 1 > MAX_BLOB_BYTES
        ? `it is ${formatBytes(node.data.length + 1)}, more than the ${formatBytes(MAX_BLOB_BYTES)} a file's bytes or chunk may hold`
        : null;
    case "j":
      return nodeLimitProblem(Buffer.from(jsonNodeText(node.refs, node.body)));
    case "a":
      return nodeLimitProblem(Buffer.from(arrayNodeText(node.entries)));
    case "f":
      return nodeLimitProblem(Buffer.from(fileChunksText(node.entries)));
    case "d":
      return nodeLimitProblem(Buffer.from(dirNodeText(node.entries)));
  }
}

/** Every checkpoint's state root (a JSON value) and files root (a folder), named for messages. */
function treeRoots(sessions: readonly BundleSession[]): TreeRoot[] {
  const roots: TreeRoot[] = [];
  for (const s of sessions) {
    for (const c of s.checkpoints) {
      const label = `checkpoint ${c.id} (#${c.seq} of session "${s.name}")`;
      roots.push({ hash: c.stateRoot, role: STATE, label });
      if (c.filesRoot !== null) roots.push({ hash: c.filesRoot, role: DIR, label });
    }
  }
  return roots;
}

export interface ImportOptions {
  /** Import a bundle holding one session under this name instead of its own. */
  readonly as?: string;
}

export interface ImportReport {
  readonly sessions: readonly {
    readonly name: string;
    readonly created: boolean;
    /** Checkpoints written. */
    readonly checkpoints: number;
    /** Checkpoints the session already had. */
    readonly skipped: number;
    /** Milestones written. */
    readonly milestones: number;
    /** Milestones the session already had, by the same name and with the same two ends. */
    readonly milestonesSkipped: number;
  }[];
  readonly objects: number;
  readonly newBytes: number;
  /** States that held a secret: encoded again with it redacted (their checkpoints point at the new root). */
  readonly redactedStates: number;
}

/** Imports a bundle read from `source` (which the caller closes): checked whole first, then written all or nothing. */
export async function importBundle(ctx: StoreContext, source: ByteSource, options: ImportOptions = {}): Promise<ImportReport> {
  const scanned = await scanBundle(source);
  const { sessions } = parseManifest(scanned.manifest, scanned.manifestAt);
  if (options.as !== undefined) {
    checkName("session", options.as);
    if (sessions.length !== 1) throw new ForgeError("INVALID_ARGUMENT", `--as names one session, but the bundle holds ${sessions.length}`);
  }
  // Every tree must be whole and well typed: each object it needs in the bundle or already stored.
  await checkOutside(ctx, walkTrees(scanned.objects, treeRoots(sessions)));
  let newBytes = 0;
  // Secrets are redacted on the way in (bundle-redact.ts): a JSON node holding one is not written.
  const redaction = new BundleRedaction(ctx);
  for await (const batch of redaction.filter(storedObjects(source, scanned.objects))) newBytes += await ctx.backend.putObjects(batch);
  const redacted = await redaction.apply(sessions);
  const report = await ctx.backend.transaction(async (tx) => {
    const out: ImportReport["sessions"][number][] = [];
    for (const s of redacted.sessions) out.push(await importSession(tx, s, options.as));
    return out;
  });
  return { sessions: report, objects: scanned.objects.size, newBytes, redactedStates: redacted.states };
}

/** The objects trees lead to outside the bundle must be in the store, and be what they are expected to be. */
async function checkOutside(ctx: StoreContext, outside: readonly OutsideRef[]): Promise<void> {
  if (outside.length === 0) return;
  const hashes = [...new Set(outside.map((r) => r.to))];
  const stored = await ctx.objects.hasMany(hashes);
  const lacking = outside.filter((r) => !stored.has(r.to));
  if (lacking.length > 0) {
    const first = lacking[0] as OutsideRef;
    const count = new Set(lacking.map((r) => r.to)).size;
    throw new InvalidBundleError(`${count} object(s) its checkpoints need are neither in it nor in this store, e.g. ${first.to} (listed by ${first.from})`);
  }
  for (let i = 0; i < hashes.length; i += 500) {
    const nodes = await ctx.objects.getNodes(hashes.slice(i, i + 500));
    for (const r of outside) {
      const node = nodes.get(r.to);
      if (node) refuseMismatch(r.to, r.role, r.size, r.from, factsOf(node));
    }
  }
}

/**
 * Imports one session. Without `as`, a session this store already has (same id) gains the
 * checkpoints it lacks. With `as` naming another session than that, the bundle's session
 * becomes a new one under new ids: a copy beside the original. Milestones come after the
 * checkpoints; one whose name the session already uses is skipped when it has the same two
 * ends, and refused (IMPORT_CONFLICT, the whole import undone) when it has others.
 */
async function importSession(tx: MetaWriter, bundled: BundleSession, as: string | undefined): Promise<ImportReport["sessions"][number]> {
  const name = as ?? bundled.name;
  const sameId = await tx.getSessionById(bundled.id);
  const s = sameId && as !== undefined && sameId.name !== as ? withNewIds(bundled) : bundled;
  let session = s === bundled ? sameId : undefined;
  const byName = await tx.getSessionByName(name);
  let created = false;
  if (!session && byName) {
    throw new ForgeError("IMPORT_CONFLICT", `this store already has a different session named "${name}"`, {
      hint: "import it under another name with --as NAME",
    });
  }
  if (!session) {
    session = {
      id: s.id,
      name,
      kind: s.kind,
      createdAt: s.createdAt,
      metadata: s.metadata,
      nextSeq: 1,
      ...headOf(s),
      workRoot: null,
      workVersion: 0,
    };
    await tx.insertSession(session);
    created = true;
  }
  const present = new Set(s.checkpoints.map((c) => c.id));
  let added = 0;
  let skipped = 0;
  for (const c of s.checkpoints) {
    const existing = await tx.getCheckpoint(c.id);
    if (existing) {
      if (existing.sessionId !== s.id || existing.stateRoot !== c.stateRoot) {
        throw new ForgeError("IMPORT_CONFLICT", `checkpoint ${c.id} exists in this store with different content`);
      }
      skipped++;
      continue;
    }
    const taken = await tx.getCheckpointBySeq(s.id, c.seq);
    if (taken) {
      throw new ForgeError("IMPORT_CONFLICT", `session "${name}" already has a different checkpoint #${c.seq} (${taken.id})`, {
        hint: "import it as a new session with --as NAME",
      });
    }
    await tx.insertCheckpoint({
      ...c,
      sessionId: s.id,
      // A parent left out of the bundle (and not here already, in this session) cuts the ancestry there.
      parentId: c.parentId !== null && (present.has(c.parentId) || (await tx.getCheckpoint(c.parentId))?.sessionId === s.id) ? c.parentId : null,
    });
    added++;
  }
  for (const b of s.branches) if (created || !(await tx.getRef(s.id, b.name))) await tx.setRef(s.id, b.name, b.checkpointId);
  if (created) {
    // A new session starts out holding the state at its HEAD.
    const headId = session.headBranch !== null ? (s.branches.find((b) => b.name === session?.headBranch)?.checkpointId ?? null) : session.headCheckpoint;
    const head = headId === null ? undefined : await tx.getCheckpoint(headId);
    if (head) await tx.updateSession(s.id, { workRoot: head.stateRoot, workVersion: 1 });
  }
  const seqOf = async (id: string) => `#${(s.checkpoints.find((c) => c.id === id) ?? (await tx.getCheckpoint(id)))?.seq ?? id}`;
  let milestones = 0;
  let milestonesSkipped = 0;
  for (const m of s.milestones) {
    const existing = await tx.getMilestone(s.id, m.name);
    if (existing) {
      if (existing.fromId === m.from && existing.toId === m.to) {
        milestonesSkipped++;
        continue;
      }
      throw new ForgeError(
        "IMPORT_CONFLICT",
        `session "${name}" already has a milestone "${m.name}" from ${await seqOf(existing.fromId)} to ${await seqOf(existing.toId)}; the bundle's runs from ${await seqOf(m.from)} to ${await seqOf(m.to)}`,
        {
          hint: `delete this store's milestone first (forge milestone delete ${m.name}), or import the bundle as a new session with --as NAME`,
          data: { session: name, milestone: m.name },
        },
      );
    }
    // The bundle's own links make `from` an ancestor of `to`; a checkpoint this store already
    // had keeps its own parent, so check the store's history too.
    if (!(await chainBetween(tx, m.from, m.to))) {
      throw new ForgeError(
        "IMPORT_CONFLICT",
        `milestone "${m.name}" cannot be imported into session "${name}": here ${await seqOf(m.from)} is not an ancestor of ${await seqOf(m.to)}`,
        { hint: "import the bundle as a new session with --as NAME", data: { session: name, milestone: m.name } },
      );
    }
    await tx.setMilestone({ sessionId: s.id, name: m.name, fromId: m.from, toId: m.to, description: m.description, createdAt: m.createdAt });
    milestones++;
  }
  return { name, created, checkpoints: added, skipped, milestones, milestonesSkipped };
}

/**
 * Where a new session's HEAD goes: where the bundle says, else (an export of single
 * checkpoints leaves it out when HEAD was elsewhere) on its branch "main" if it has one, else
 * detached at its newest checkpoint — never on a branch that does not exist.
 */
function headOf(s: BundleSession): Pick<SessionRow, "headBranch" | "headCheckpoint"> {
  if (s.headBranch !== null) return { headBranch: s.headBranch, headCheckpoint: null };
  if (s.headCheckpoint !== null) return { headBranch: null, headCheckpoint: s.headCheckpoint };
  const newest = s.checkpoints.reduce<BundleSession["checkpoints"][number] | undefined>((a, c) => (a === undefined || c.seq > a.seq ? c : a), undefined);
  if (newest === undefined || s.branches.some((b) => b.name === MAIN_BRANCH)) return { headBranch: MAIN_BRANCH, headCheckpoint: null };
  return { headBranch: null, headCheckpoint: newest.id };
}

/** The same session under fresh session and checkpoint ids, every link between them kept. */
function withNewIds(s: BundleSession): BundleSession {
  const ids = new Map(s.checkpoints.map((c) => [c.id, newId(c.createdAt)]));
  const map = (id: string | null) => (id === null ? null : (ids.get(id) ?? null));
  return {
    ...s,
    id: newId(s.createdAt),
    headCheckpoint: map(s.headCheckpoint),
    branches: s.branches.map((b) => ({ name: b.name, checkpointId: ids.get(b.checkpointId) ?? b.checkpointId })),
    checkpoints: s.checkpoints.map((c) => ({ ...c, id: ids.get(c.id) as string, parentId: map(c.parentId) })),
    // parseManifest made sure both ends are among the checkpoints.
    milestones: s.milestones.map((m) => ({ ...m, from: ids.get(m.from) as string, to: ids.get(m.to) as string })),
  };
}
