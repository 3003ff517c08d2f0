// Checking a conversation export document on import: the envelope with zod, every message
// by the model's own checks, and the links between checkpoints, branches and HEAD. Loaded
// on demand: zod costs start-up time the commands that only append or list do not need.
import { z } from "zod";
import { ForgeError } from "../../core/errors.js";
import { checkName } from "../../core/ids.js";
import { DOCUMENT_FORMAT, DOCUMENT_VERSION, type ConversationDocument } from "./document.js";
import { checkMessages, isPlainObject, type Message } from "./model.js";

const checkpointSchema = z.object({
  id: z.string().min(1),
  seq: z.number().int().min(1),
  parent: z.string().min(1).nullable(),
  branch: z.string().min(1),
  name: z.string().min(1),
  description: z.string().default(""),
  tags: z.array(z.string()).default([]),
  trigger: z
    .string()
    .regex(/^[a-z][a-z0-9_-]{0,63}$/, "lower-case letters, digits, _ and -")
    .default("manual"),
  createdAt: z.string().refine((s) => Number.isFinite(Date.parse(s)), "not a date (ISO 8601)"),
  messageCount: z.number().int().min(0).optional(),
  messages: z.array(z.unknown()),
});

const documentSchema = z.object({
  format: z.literal(DOCUMENT_FORMAT),
  version: z.literal(DOCUMENT_VERSION),
  session: z.string().min(1),
  exportedAt: z.string().optional(),
  messages: z.array(z.unknown()),
  head: z.object({ branch: z.string().min(1).nullable(), checkpoint: z.string().min(1).nullable() }).default({ branch: "main", checkpoint: null }),
  branches: z.array(z.object({ name: z.string().min(1), checkpoint: z.string().min(1) })).default([]),
  checkpoints: z.array(checkpointSchema).default([]),
});

function invalid(what: string, cause?: unknown): ForgeError {
  return new ForgeError("INVALID_ARGUMENT", `not a valid conversation export: ${what}`, {
    hint: "nothing was imported",
    ...(cause !== undefined && { cause }),
  });
}

/**
 * Checks a whole export document — envelope, every message of every checkpoint, and the
 * links between checkpoints, branches and HEAD — and returns it typed, checkpoints by seq.
 * The first problem found is the error; it names the field, checkpoint and message index.
 */
export function parseDocument(v: unknown): ConversationDocument {
  if (!isPlainObject(v)) throw invalid(`expected a JSON object, not ${Array.isArray(v) ? "a list" : v === null ? "null" : `a ${typeof v}`}`);
  if (v["format"] !== DOCUMENT_FORMAT) throw invalid(`its format is ${JSON.stringify(v["format"])}, not "${DOCUMENT_FORMAT}"`);
  if (v["version"] !== DOCUMENT_VERSION) {
    throw invalid(`version ${JSON.stringify(v["version"])} is not supported (this Forge reads version ${DOCUMENT_VERSION})`);
  }
  const parsed = documentSchema.safeParse(v);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at =
      issue?.path
        .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
        .join("")
        .replace(/^\./, "") ?? "";
    throw invalid(`${at || "document"}: ${issue?.message ?? "malformed"}`, parsed.error);
  }
  const d = parsed.data;
  const messages = checkMessages(d.messages);
  const checkpoints = [...d.checkpoints].sort((a, b) => a.seq - b.seq);
  const ids = new Map<string, number>();
  const lists = new Map<string, Message[]>();
  for (const [i, c] of checkpoints.entries()) {
    const where = `checkpoint #${c.seq} ("${c.name}")`;
    if (ids.has(c.id)) throw invalid(`two checkpoints have the id ${c.id}`);
    if (i > 0 && checkpoints[i - 1]?.seq === c.seq) throw invalid(`two checkpoints have seq ${c.seq}`);
    if (c.parent !== null && !ids.has(c.parent)) throw invalid(`${where}: its parent ${c.parent} is not an earlier checkpoint of the file`);
    nameOk("branch", c.branch, `${where}: branch`);
    for (const t of c.tags) nameOk("tag", t, `${where}: tag`);
    ids.set(c.id, c.seq);
    const list = checkMessages(c.messages, where);
    lists.set(c.id, list);
    if (c.messageCount !== undefined && c.messageCount !== list.length) {
      throw invalid(`${where}: messageCount is ${c.messageCount} but it holds ${list.length} messages`);
    }
  }
  const branchNames = new Set<string>();
  for (const b of d.branches) {
    nameOk("branch", b.name, "branches");
    if (branchNames.has(b.name)) throw invalid(`branch "${b.name}" is listed twice`);
    if (!ids.has(b.checkpoint)) throw invalid(`branch "${b.name}" points at ${b.checkpoint}, which is not a checkpoint of the file`);
    branchNames.add(b.name);
  }
  // HEAD may be on a branch with no checkpoint yet (a new session, or after its checkpoints
  // were deleted): the next save starts it.
  if (d.head.branch !== null) nameOk("branch", d.head.branch, "head.branch");
  else if (d.head.checkpoint === null || !ids.has(d.head.checkpoint)) {
    throw invalid(`head is detached at ${JSON.stringify(d.head.checkpoint)}, which is not a checkpoint of the file`);
  }
  return {
    format: DOCUMENT_FORMAT,
    version: DOCUMENT_VERSION,
    session: d.session,
    exportedAt: d.exportedAt ?? "",
    messages,
    head: { branch: d.head.branch, checkpoint: d.head.branch === null ? d.head.checkpoint : null },
    branches: d.branches,
    checkpoints: checkpoints.map((c) => {
      const list = lists.get(c.id) as Message[];
      return { ...c, tags: [...new Set(c.tags)], messageCount: list.length, messages: list };
    }),
  };
}

function nameOk(kind: string, name: string, at: string): void {
  try {
    checkName(kind, name);
  } catch (e) {
    throw invalid(`${at}: ${(e as Error).message}`, e);
  }
}
