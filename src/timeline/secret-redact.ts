// `forge redact`: rewrites the secrets `forge scan` finds out of a store's history. Each state
// that holds one is read and encoded again through a redacting encoder (new leaves, new
// nodes up to a new root; everything unchanged keeps its hash), and in one metadata
// transaction, under the gc-epoch protocol, its checkpoints and working states are
// re-pointed at the new root and rows (messages, tags, metadata, session metadata, milestone
// descriptions) get their redacted text. A gc with no grace period then deletes the objects
// only the old trees used. Files are not rewritten — a snapshot keeps file bytes exact — and
// are reported instead.
import type { CheckpointRow, SessionRow } from "../backends/backend.js";
import type { Redactor } from "../core/redact/redactor.js";
import type { Hash } from "../objects/hash.js";
import { writeUnderEpoch } from "./epoch-write.js";
import { collectGarbage, type GcReport } from "./gc.js";
import { scanJson, TreeScanner, type SecretFinding } from "./secret-scan.js";
import type { StoreContext } from "./store-context.js";

/** How `forge redact` runs. */
export interface RedactOptions {
  /** Say what would change; change nothing. */
  readonly dryRun?: boolean;
}

/** What `forge redact` changed (or would change, on a dry run). */
export interface RedactReport {
  readonly dryRun: boolean;
  /** Distinct states encoded again. */
  readonly states: number;
  /** Checkpoints re-pointed or whose row changed. */
  readonly checkpoints: number;
  readonly workingStates: number;
  /** Sessions whose metadata changed. */
  readonly sessions: number;
  readonly milestones: number;
  /** Secrets in snapshotted files: not rewritten (file bytes stay exact); delete those snapshots to drop them. */
  readonly filesKept: readonly SecretFinding[];
  /** The gc that dropped the old objects (none on a dry run or when nothing changed). */
  readonly gc: GcReport | null;
}

interface Plan {
  readonly roots: Set<Hash>;
  readonly rows: Map<string, { row: CheckpointRow; patch: Partial<Pick<CheckpointRow, "message" | "tags" | "metadata">> }>;
  readonly work: Map<string, Hash>;
  readonly sessionMeta: Map<string, Record<string, unknown>>;
  readonly milestones: { sessionId: string; name: string; description: string }[];
  readonly filesKept: SecretFinding[];
}

/** Rewrites every secret a rule recognises out of the store's states and rows (files stay exact; see the report). */
export async function redactHistory(ctx: StoreContext, options: RedactOptions = {}): Promise<RedactReport> {
  const redactor = ctx.objects.redactor.enabledCopy();
  await redactor.load();
  const plan = await planRedaction(ctx, redactor);
  const touched = new Set([...plan.rows.keys()]);
  const meta = ctx.backend.meta;
  const byRoot = new Map<Hash, string[]>();
  for (const s of await meta.listSessions())
    for (const cp of await meta.listCheckpoints({ sessionId: s.id }))
      if (plan.roots.has(cp.stateRoot)) byRoot.set(cp.stateRoot, [...(byRoot.get(cp.stateRoot) ?? []), cp.id]);
  for (const ids of byRoot.values()) for (const id of ids) touched.add(id);
  const report = {
    dryRun: options.dryRun === true,
    states: plan.roots.size,
    checkpoints: touched.size,
    workingStates: plan.work.size,
    sessions: plan.sessionMeta.size,
    milestones: plan.milestones.length,
    filesKept: plan.filesKept,
  };
  const changes = plan.roots.size + plan.rows.size + plan.work.size + plan.sessionMeta.size + plan.milestones.length;
  if (options.dryRun || changes === 0) return { ...report, gc: null };
  await writeUnderEpoch(
    ctx,
    "redact the history",
    async () => {
      const map = new Map<Hash, Hash>();
      for (const root of new Set([...plan.roots, ...plan.work.values()])) {
        const tree = await ctx.objects.writeValue(await ctx.objects.readValue(root), "\0redact", undefined, redactor);
        map.set(root, tree.root);
      }
      return map;
    },
    async (tx, map) => {
      for (const [root, ids] of byRoot) for (const id of ids) await tx.updateCheckpoint(id, { stateRoot: map.get(root) as Hash });
      for (const { patch, row } of plan.rows.values()) await tx.updateCheckpoint(row.id, patch);
      for (const [sessionId, root] of plan.work) {
        const s = await tx.getSessionById(sessionId);
        // A working state written since the plan was made was redacted as it was written.
        if (s && s.workRoot === root) await tx.updateSession(sessionId, { workRoot: map.get(root) as Hash, workVersion: s.workVersion + 1 });
      }
      for (const [sessionId, metadata] of plan.sessionMeta) if (await tx.getSessionById(sessionId)) await tx.updateSession(sessionId, { metadata });
      for (const m of plan.milestones) {
        const row = await tx.getMilestone(m.sessionId, m.name);
        if (row) await tx.setMilestone({ ...row, description: m.description });
      }
    },
  );
  ctx.objects.forgetKnown();
  return { ...report, gc: await collectGarbage(ctx, { graceMs: 0 }) };
}

/** What holds a secret: state roots, rows, working states, session metadata, milestones; and files, which stay. */
async function planRedaction(ctx: StoreContext, redactor: Redactor): Promise<Plan> {
  const scanner = new TreeScanner(ctx, redactor);
  const plan: Plan = { roots: new Set(), rows: new Map(), work: new Map(), sessionMeta: new Map(), milestones: [], filesKept: [] };
  const meta = ctx.backend.meta;
  const sessions: SessionRow[] = await meta.listSessions();
  for (const s of sessions) {
    if (scanJson(redactor, s.metadata).length > 0) plan.sessionMeta.set(s.id, redactor.redactJsonSync(s.metadata));
    if (s.workRoot !== null && (await scanner.state(s.workRoot)).length > 0) plan.work.set(s.id, s.workRoot);
    for (const m of await meta.listMilestones(s.id)) {
      const description = redactor.redact(m.description);
      if (description !== m.description) plan.milestones.push({ sessionId: s.id, name: m.name, description });
    }
    for (const cp of await meta.listCheckpoints({ sessionId: s.id })) {
      if ((await scanner.state(cp.stateRoot)).length > 0) plan.roots.add(cp.stateRoot);
      const patch = { message: redactor.redact(cp.message), tags: redactor.redactJsonSync(cp.tags), metadata: redactor.redactJsonSync(cp.metadata) };
      if (patch.message !== cp.message || patch.tags !== cp.tags || patch.metadata !== cp.metadata) plan.rows.set(cp.id, { row: cp, patch });
      if (cp.filesRoot !== null)
        for (const l of await scanner.files(cp.filesRoot))
          plan.filesKept.push({ session: s.name, where: "files", path: l.path.join("/"), rule: l.rule, checkpoints: [{ id: cp.id, seq: cp.seq }] });
    }
  }
  return plan;
}
