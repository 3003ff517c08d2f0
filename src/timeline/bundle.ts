// Export and import: checkpoints with every object they need, in one portable file.
//
//   "FORGE-BUNDLE 1\n", then records: kind (1 byte) · length (u32 BE) · payload
//     M  the manifest (JSON: sessions, their checkpoints, branches and milestones)
//     O  an object: 32-byte hash, then its stored bytes (codec byte + body)
//     E  the end: SHA-256 of every byte before this record
//
// The manifest carries its own version: 1 had no milestones; 2 gives every session a
// `milestones` list. Export writes 2; import reads both and refuses any other, naming it, so
// a reader that knows only 1 refuses a 2 (its schema wants version 1) instead of dropping
// the milestones it cannot see.
//
// Import checks the whole file before it writes anything — the end hash, every object's
// hash, the manifest's schema, that every checkpoint's trees are complete, and that every
// milestone runs between two of its session's checkpoints in the bundle — then writes
// objects, then all metadata (milestones included) in one transaction: all or nothing.
import { createHash } from "node:crypto";
import { z } from "zod";
import { ForgeError, InvalidBundleError } from "../core/errors.js";
import { checkName, isId, newId } from "../core/ids.js";
import type { CheckpointRow, MetaReader, MetaWriter, SessionRow } from "../backends/backend.js";
import { unpack } from "../objects/codec.js";
import { isHash, type Hash } from "../objects/hash.js";
import { childHashes, parseNode } from "../objects/node.js";
import { chainBetween } from "./milestones.js";
import type { StoreContext } from "./store-context.js";

const MAGIC = Buffer.from("FORGE-BUNDLE 1\n");

const hashSchema = z.string().refine(isHash, "not a SHA-256 hex hash");
const idSchema = z.string().refine(isId, "not a checkpoint id");
const nameSchema = z.string().min(1).max(128);

const checkpointSchema = z.object({
  id: idSchema,
  seq: z.number().int().min(1),
  parentId: idSchema.nullable(),
  branch: nameSchema,
  createdAt: z.number().int().nonnegative(),
  message: z.string(),
  tags: z.array(z.string()),
  trigger: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  stateRoot: hashSchema,
  filesRoot: hashSchema.nullable(),
  logicalBytes: z.number().int().nonnegative(),
  newBytes: z.number().int().nonnegative(),
});

/** A milestone in a version-2 manifest: `from` and `to` are ids of its session's checkpoints in the bundle. */
const milestoneSchema = z.object({
  name: nameSchema,
  from: idSchema,
  to: idSchema,
  description: z.string(),
  createdAt: z.number().int().nonnegative(),
});

const sessionSchemaV1 = z.object({
  id: idSchema,
  name: nameSchema,
  kind: z.string().min(1),
  createdAt: z.number().int().nonnegative(),
  metadata: z.record(z.string(), z.unknown()),
  headBranch: nameSchema.nullable(),
  headCheckpoint: idSchema.nullable(),
  branches: z.array(z.object({ name: nameSchema, checkpointId: idSchema })),
  checkpoints: z.array(checkpointSchema),
});

const sessionSchema = sessionSchemaV1.extend({ milestones: z.array(milestoneSchema) });

/** The manifest versions this code reads; it writes the last. */
const VERSIONS = [1, 2] as const;
const VERSION = 2;

const manifestSchema = z.discriminatedUnion("version", [
  z.object({ format: z.literal("forge-bundle"), version: z.literal(1), createdAt: z.string(), sessions: z.array(sessionSchemaV1) }),
  z.object({ format: z.literal("forge-bundle"), version: z.literal(2), createdAt: z.string(), sessions: z.array(sessionSchema) }),
]);

/** A manifest as this code works with it: any version read, with milestones (none for version 1). */
interface Manifest {
  readonly format: "forge-bundle";
  readonly version: (typeof VERSIONS)[number];
  readonly createdAt: string;
  readonly sessions: BundleSession[];
}
type BundleSession = z.infer<typeof sessionSchema>;
type BundleMilestone = z.infer<typeof milestoneSchema>;

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
  const hashes = [...(await ctx.objects.loadTrees(roots)).keys()];
  const parts: Buffer[] = [MAGIC, record("M", Buffer.from(JSON.stringify(manifest)))];
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

interface ParsedBundle {
  readonly manifest: Manifest;
  /** hash → stored bytes (verified) */
  readonly objects: Map<Hash, Uint8Array>;
  /** hash → children (from the verified, parsed objects) */
  readonly children: Map<Hash, Hash[]>;
}

/** Reads and checks a whole bundle; throws InvalidBundleError on the first thing wrong. */
export function parseBundle(bytes: Uint8Array): ParsedBundle {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (buf.length < MAGIC.length || !buf.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new InvalidBundleError("it does not start with the Forge bundle header");
  }
  let pos = MAGIC.length;
  let manifestBytes: Buffer | undefined;
  const objects = new Map<Hash, Uint8Array>();
  let ended = false;
  while (pos < buf.length) {
    if (pos + 5 > buf.length) throw new InvalidBundleError(`it is truncated at byte ${pos}`);
    const kind = String.fromCharCode(buf[pos] as number);
    const len = buf.readUInt32BE(pos + 1);
    const start = pos + 5;
    if (start + len > buf.length) throw new InvalidBundleError(`it is truncated: a record at byte ${pos} runs past the end`);
    const payload = buf.subarray(start, start + len);
    if (kind === "E") {
      const expected = createHash("sha256").update(buf.subarray(0, pos)).digest();
      if (len !== 32 || !payload.equals(expected)) throw new InvalidBundleError("its checksum does not match its content (the file was changed or damaged)");
      if (start + len !== buf.length) throw new InvalidBundleError("it has bytes after its end record");
      ended = true;
      break;
    }
    if (kind === "M") {
      if (manifestBytes) throw new InvalidBundleError("it has two manifests");
      manifestBytes = payload;
    } else if (kind === "O") {
      if (len < 33) throw new InvalidBundleError(`the object record at byte ${pos} is too short`);
      objects.set(payload.subarray(0, 32).toString("hex"), payload.subarray(32));
    } else {
      throw new InvalidBundleError(`unknown record kind ${JSON.stringify(kind)} at byte ${pos}`);
    }
    pos = start + len;
  }
  if (!ended) throw new InvalidBundleError("it is truncated: the end record is missing");
  if (!manifestBytes) throw new InvalidBundleError("it has no manifest");
  let json: unknown;
  try {
    json = JSON.parse(manifestBytes.toString("utf8"));
  } catch (e) {
    throw new InvalidBundleError("its manifest is not JSON", e);
  }
  // A version this code does not know is named as such, not as a malformed manifest.
  const head = typeof json === "object" && json !== null ? (json as { format?: unknown; version?: unknown }) : {};
  const version = head.version;
  if (head.format === "forge-bundle" && typeof version === "number" && !(VERSIONS as readonly number[]).includes(version)) {
    throw new ForgeError("INVALID_BUNDLE", `cannot read this bundle: it is format version ${version}, and this Forge reads versions ${VERSIONS.join(" and ")}`, {
      hint: "it was written by a newer Forge; upgrade Forge to import it",
      data: { version },
    });
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) throw new InvalidBundleError(`its manifest is malformed: ${z.prettifyError(parsed.error)}`);
  const manifest: Manifest = { ...parsed.data, sessions: parsed.data.sessions.map((s) => ({ milestones: [], ...s })) };
  const children = new Map<Hash, Hash[]>();
  for (const [hash, stored] of objects) {
    try {
      children.set(hash, childHashes(parseNode(hash, unpack(hash, stored))));
    } catch (e) {
      throw new InvalidBundleError(`object ${hash}: ${(e as Error).message}`, e);
    }
  }
  for (const s of manifest.sessions) {
    checkName("session", s.name);
    for (const b of s.branches) checkName("branch", b.name);
    checkMilestones(s);
  }
  return { manifest, objects, children };
}

/** Every milestone must have a good, unique name and run, within the bundle, from a checkpoint to a later one on its history. */
function checkMilestones(s: BundleSession): void {
  const byId = new Map(s.checkpoints.map((c) => [c.id, c]));
  const names = new Set<string>();
  for (const m of s.milestones) {
    const what = `milestone "${m.name}" of session "${s.name}"`;
    try {
      checkName("milestone", m.name);
    } catch (e) {
      throw new InvalidBundleError(`session "${s.name}": ${(e as Error).message}`, e);
    }
    if (names.has(m.name)) throw new InvalidBundleError(`session "${s.name}" has two milestones named "${m.name}"`);
    names.add(m.name);
    for (const [end, id] of [["starts", m.from], ["ends", m.to]] as const) {
      if (!byId.has(id)) throw new InvalidBundleError(`${what} ${end} at ${id}, which is not one of the session's checkpoints in the bundle`);
    }
    let id: string | null = (byId.get(m.to) as BundleSession["checkpoints"][number]).parentId;
    const seen = new Set<string>();
    while (id !== null && id !== m.from && !seen.has(id)) {
      seen.add(id);
      id = byId.get(id)?.parentId ?? null;
    }
    if (id !== m.from) throw new InvalidBundleError(`${what} does not run from a checkpoint to a later one on its history (${m.from} → ${m.to})`);
  }
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
}

export async function importBundle(ctx: StoreContext, bytes: Uint8Array, options: ImportOptions = {}): Promise<ImportReport> {
  const bundle = parseBundle(bytes);
  const { sessions } = bundle.manifest;
  if (options.as !== undefined) {
    checkName("session", options.as);
    if (sessions.length !== 1) throw new ForgeError("INVALID_ARGUMENT", `--as names one session, but the bundle holds ${sessions.length}`);
  }
  // Every tree must be whole: each object it needs is in the bundle or already stored.
  const outside = new Set<Hash>();
  const seen = new Set<Hash>();
  const walk = (root: Hash) => {
    const stack = [root];
    while (stack.length > 0) {
      const h = stack.pop() as Hash;
      if (seen.has(h)) continue;
      seen.add(h);
      const kids = bundle.children.get(h);
      if (kids) stack.push(...kids);
      else outside.add(h);
    }
  };
  for (const s of sessions) for (const c of s.checkpoints) for (const r of [c.stateRoot, c.filesRoot]) if (r !== null) walk(r);
  if (outside.size > 0) {
    const stored = await ctx.backend.hasObjects([...outside]);
    const lacking = [...outside].filter((h) => !stored.has(h));
    if (lacking.length > 0) throw new InvalidBundleError(`${lacking.length} object(s) its checkpoints need are neither in it nor in this store, e.g. ${lacking[0]}`);
  }
  const newBytes = await ctx.backend.putObjects([...bundle.objects].map(([hash, data]) => ({ hash, data })));
  const report = await ctx.backend.transaction(async (tx) => {
    const out: ImportReport["sessions"][number][] = [];
    for (const s of sessions) out.push(await importSession(tx, s, options.as));
    return out;
  });
  return { sessions: report, objects: bundle.objects.size, newBytes };
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
      headBranch: s.headBranch ?? (s.headCheckpoint === null ? "main" : null),
      headCheckpoint: s.headBranch === null ? s.headCheckpoint : null,
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
      // A parent left out of the bundle (and not here already) cuts the ancestry there.
      parentId: c.parentId !== null && (present.has(c.parentId) || (await tx.getCheckpoint(c.parentId))) ? c.parentId : null,
    });
    added++;
  }
  for (const b of s.branches) if (created || !(await tx.getRef(s.id, b.name))) await tx.setRef(s.id, b.name, b.checkpointId);
  if (created) {
    // A new session starts out holding the state at its HEAD.
    const headId = s.headBranch !== null ? (s.branches.find((b) => b.name === s.headBranch)?.checkpointId ?? null) : s.headCheckpoint;
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
    // parseBundle made sure both ends are among the checkpoints.
    milestones: s.milestones.map((m) => ({ ...m, from: ids.get(m.from) as string, to: ids.get(m.to) as string })),
  };
}
