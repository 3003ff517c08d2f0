// A bundle's manifest: its schema (zod; versions 1 and 2), the bounds on its size and shape,
// and the checks of its names and links (checkpoints, branches, HEAD, milestones) that import
// runs before writing anything.
import { z } from "zod";
import { ForgeError, InvalidBundleError, isForgeError } from "../core/errors.js";
import { checkName, isId } from "../core/ids.js";
import { isHash } from "../objects/hash.js";
import { jsonShape, JsonShapeError } from "../objects/json-shape.js";
import { formatBytes, MAX_MANIFEST_BYTES, MAX_MANIFEST_DEPTH, MAX_MANIFEST_VALUES } from "../objects/limits.js";

const hashSchema = z.string().refine(isHash, "not a SHA-256 hex hash");
const idSchema = z.string().refine(isId, "not a checkpoint id");
const nameSchema = z.string().min(1).max(128);
/**
 * Metadata: a JSON object kept as parsed, every key ("__proto__" included) an own key of it.
 * Not z.record, which drops a "__proto__" key silently.
 */
const metadataSchema = z.custom<Record<string, unknown>>(
  (v) => typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype,
  "expected a JSON object",
);

const checkpointSchema = z.object({
  id: idSchema,
  seq: z.number().int().min(1),
  parentId: idSchema.nullable(),
  branch: nameSchema,
  createdAt: z.number().int().nonnegative(),
  message: z.string(),
  tags: z.array(z.string()),
  trigger: z.string(),
  metadata: metadataSchema,
  stateRoot: hashSchema,
  filesRoot: hashSchema.nullable(),
  logicalBytes: z.number().int().nonnegative(),
  newBytes: z.number().int().nonnegative(),
});

/** A milestone in a version-2 manifest: `from` and `to` are ids of its session's checkpoints in the bundle. */
export const milestoneSchema = z.object({
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
  metadata: metadataSchema,
  headBranch: nameSchema.nullable(),
  headCheckpoint: idSchema.nullable(),
  branches: z.array(z.object({ name: nameSchema, checkpointId: idSchema })),
  checkpoints: z.array(checkpointSchema),
});

export const sessionSchema = sessionSchemaV1.extend({ milestones: z.array(milestoneSchema) });

/** The manifest versions this code reads; it writes the last. */
export const VERSIONS = [1, 2] as const;
export const VERSION = 2;

export const manifestSchema = z.discriminatedUnion("version", [
  z.object({ format: z.literal("forge-bundle"), version: z.literal(1), createdAt: z.string(), sessions: z.array(sessionSchemaV1) }),
  z.object({ format: z.literal("forge-bundle"), version: z.literal(2), createdAt: z.string(), sessions: z.array(sessionSchema) }),
]);

/** A manifest as this code works with it: any version read, with milestones (none for version 1). */
export interface Manifest {
  readonly format: "forge-bundle";
  readonly version: (typeof VERSIONS)[number];
  readonly createdAt: string;
  readonly sessions: BundleSession[];
}
export type BundleSession = z.infer<typeof sessionSchema>;
export type BundleMilestone = z.infer<typeof milestoneSchema>;

/** Why manifest JSON text is too big to read, or null: its bytes, values and nesting are bounded before it is parsed. */
export function manifestProblem(bytes: Buffer): string | null {
  if (bytes.length > MAX_MANIFEST_BYTES) return `would be ${formatBytes(bytes.length)}, more than the ${formatBytes(MAX_MANIFEST_BYTES)} a manifest may have`;
  try {
    jsonShape(bytes, 0, bytes.length, { maxValues: MAX_MANIFEST_VALUES, maxDepth: MAX_MANIFEST_DEPTH });
  } catch (e) {
    if (e instanceof JsonShapeError && e.kind === "limit") return e.why.replace(/^it /, "");
    throw e;
  }
  return null;
}

/** Parses and checks a manifest: JSON of a bounded shape, a version this code reads, the schema, names and links. */
export function parseManifest(bytes: Buffer, at: number): Manifest {
  try {
    jsonShape(bytes, 0, bytes.length, { maxValues: MAX_MANIFEST_VALUES, maxDepth: MAX_MANIFEST_DEPTH });
  } catch (e) {
    if (!(e instanceof JsonShapeError)) throw e;
    if (e.kind === "limit") throw new InvalidBundleError(`its manifest (the record at byte ${at}) ${e.why.replace(/^it /, "")}, more than a manifest may`);
    throw new InvalidBundleError(`its manifest (the record at byte ${at}) is not JSON: ${e.message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch (e) {
    throw new InvalidBundleError("its manifest is not JSON", e);
  }
  // A version this code does not know is named as such, not as a malformed manifest.
  const head = typeof json === "object" && json !== null ? (json as { format?: unknown; version?: unknown }) : {};
  const version = head.version;
  if (head.format === "forge-bundle" && typeof version === "number" && !(VERSIONS as readonly number[]).includes(version)) {
    throw new ForgeError(
      "INVALID_BUNDLE",
      `cannot read this bundle: it is format version ${version}, and this Forge reads versions ${VERSIONS.join(" and ")}`,
      {
        hint: "it was written by a newer Forge; upgrade Forge to import it",
        data: { version },
      },
    );
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) throw new InvalidBundleError(`its manifest is malformed: ${z.prettifyError(parsed.error)}`);
  const manifest: Manifest = { ...parsed.data, sessions: parsed.data.sessions.map((s) => ({ milestones: [], ...s })) };
  const sessionIds = new Set<string>();
  const sessionNames = new Set<string>();
  const checkpointIds = new Set<string>();
  for (const s of manifest.sessions) {
    named(s.name, () => checkName("session", s.name));
    if (sessionIds.has(s.id)) throw new InvalidBundleError(`it lists session ${s.id} twice`);
    if (sessionNames.has(s.name)) throw new InvalidBundleError(`it lists two sessions named "${s.name}"`);
    sessionIds.add(s.id);
    sessionNames.add(s.name);
    checkCheckpoints(s, checkpointIds);
    for (const b of s.branches) named(s.name, () => checkName("branch", b.name));
    checkHeads(s);
    checkMilestones(s);
  }
  return manifest;
}

/** Runs a name check, naming the session in what it throws. */
function named(session: string, check: () => void): void {
  try {
    check();
  } catch (e) {
    if (!isForgeError(e)) throw e;
    throw new InvalidBundleError(`session "${session}": ${e.message}`, e);
  }
}

/**
 * Checkpoint ids are unique in the bundle, seqs in their session, and a parent in the bundle
 * comes before its child (a lower seq, as every history Forge writes has): no cycles.
 */
function checkCheckpoints(s: BundleSession, ids: Set<string>): void {
  const seqs = new Set<number>();
  const byId = new Map(s.checkpoints.map((c) => [c.id, c]));
  for (const c of s.checkpoints) {
    if (ids.has(c.id)) throw new InvalidBundleError(`it lists checkpoint ${c.id} twice`);
    ids.add(c.id);
    if (seqs.has(c.seq)) throw new InvalidBundleError(`session "${s.name}" lists two checkpoints #${c.seq}`);
    seqs.add(c.seq);
    const parent = c.parentId === null ? undefined : byId.get(c.parentId);
    if (parent && parent.seq >= c.seq) {
      throw new InvalidBundleError(`checkpoint ${c.id} (#${c.seq} of session "${s.name}") has a parent #${parent.seq} that does not come before it`);
    }
  }
}

/** Every branch and a detached HEAD point at one of the session's checkpoints in the bundle; HEAD's branch is one of its branches. */
function checkHeads(s: BundleSession): void {
  const ids = new Set(s.checkpoints.map((c) => c.id));
  for (const b of s.branches) {
    if (!ids.has(b.checkpointId))
      throw new InvalidBundleError(
        `branch "${b.name}" of session "${s.name}" points at ${b.checkpointId}, which is not one of the session's checkpoints in the bundle`,
      );
  }
  if (s.headBranch !== null && !s.branches.some((b) => b.name === s.headBranch)) {
    throw new InvalidBundleError(`the HEAD of session "${s.name}" is on branch "${s.headBranch}", which the bundle does not hold`);
  }
  if (s.headBranch === null && s.headCheckpoint !== null && !ids.has(s.headCheckpoint)) {
    throw new InvalidBundleError(`the HEAD of session "${s.name}" is at ${s.headCheckpoint}, which is not one of the session's checkpoints in the bundle`);
  }
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
    for (const [end, id] of [
      ["starts", m.from],
      ["ends", m.to],
    ] as const) {
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
