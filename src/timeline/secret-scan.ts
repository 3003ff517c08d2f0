// Finds the secrets already in a store's history (written before redaction, by a store with
// redaction off or an allow-list since changed, or in files a snapshot keeps exact): every
// session's checkpoints — their states, the text of their files, their messages, tags and
// metadata — working states, session metadata and milestone descriptions. Each object is
// scanned once however many checkpoints share it, and a checkpoint's tree is entered only
// along sub-trees that hold a finding. A finding names where (session, checkpoints, a JSON
// path or a file path) and the rule, never the secret.
import type { CheckpointRow } from "../backends/backend.js";
import { formatJsonPath, type JsonPathKey, type Redactor } from "../core/redact/redactor.js";
import type { Hash } from "../objects/hash.js";
import { childHashes, type TreeNode } from "../objects/node.js";
import type { StoreContext } from "./store-context.js";

/** One secret in history: where it is and which rule found it. */
export interface SecretFinding {
  readonly session: string;
  /** "state", "files", "message", "tags", "metadata" (of checkpoints), "working state", "session metadata" or "milestone". */
  readonly where: string;
  /** A JSON path in the value (`messages.3.content`) or a file path; "" for a message. */
  readonly path: string;
  readonly rule: string;
  /** The checkpoints holding it (none for a working state, session metadata or a milestone). */
  readonly checkpoints: readonly { readonly id: string; readonly seq: number }[];
}

/** What `scanHistory` found, and how much it looked at. */
export interface SecretScanReport {
  readonly findings: readonly SecretFinding[];
  readonly sessions: number;
  readonly checkpoints: number;
  /** Distinct objects read. */
  readonly objects: number;
}

/** A finding inside one object (its path relative to the object), or under a root (from the root). */
export interface Local {
  readonly path: readonly JsonPathKey[];
  readonly rule: string;
}

const BINARY_SAMPLE = 8000;

/** Scans every session of the store; `onSession` is told each session's name as it starts. */
export async function scanHistory(ctx: StoreContext, onSession?: (name: string, done: number, total: number) => void): Promise<SecretScanReport> {
  // A store that does not redact still has its history scanned, with its allow-list.
  const redactor = ctx.objects.redactor.enabledCopy();
  await redactor.load();
  const scanner = new TreeScanner(ctx, redactor);
  const out = new Map<string, { f: Omit<SecretFinding, "checkpoints">; cps: Map<string, number> }>();
  const add = (f: Omit<SecretFinding, "checkpoints">, cp?: CheckpointRow) => {
    const key = JSON.stringify([f.session, f.where, f.path, f.rule]);
    let e = out.get(key);
    if (e === undefined) out.set(key, (e = { f, cps: new Map() }));
    if (cp !== undefined) e.cps.set(cp.id, cp.seq);
  };
  const meta = ctx.backend.meta;
  const sessions = await meta.listSessions();
  let checkpoints = 0;
  for (const [n, s] of sessions.entries()) {
    onSession?.(s.name, n, sessions.length);
    for (const l of scanJson(redactor, s.metadata)) add({ session: s.name, where: "session metadata", path: formatJsonPath(l.path), rule: l.rule });
    if (s.workRoot !== null)
      for (const l of await scanner.state(s.workRoot)) add({ session: s.name, where: "working state", path: formatJsonPath(l.path), rule: l.rule });
    for (const m of await meta.listMilestones(s.id))
      for (const f of redactor.findings(m.description)) add({ session: s.name, where: "milestone", path: m.name, rule: f.rule });
    for (const cp of await meta.listCheckpoints({ sessionId: s.id })) {
      checkpoints++;
      const put = (where: string, path: string, rule: string) => add({ session: s.name, where, path, rule }, cp);
      for (const f of redactor.findings(cp.message)) put("message", "", f.rule);
      for (const l of scanJson(redactor, cp.tags)) put("tags", formatJsonPath(l.path), l.rule);
      for (const l of scanJson(redactor, cp.metadata)) put("metadata", formatJsonPath(l.path), l.rule);
      for (const l of await scanner.state(cp.stateRoot)) put("state", formatJsonPath(l.path), l.rule);
      if (cp.filesRoot !== null) for (const l of await scanner.files(cp.filesRoot)) put("files", l.path.join("/"), l.rule);
    }
  }
  const findings = [...out.values()].map(({ f, cps }) => ({ ...f, checkpoints: [...cps].map(([id, seq]) => ({ id, seq })).sort((a, b) => a.seq - b.seq) }));
  return { findings, sessions: sessions.length, checkpoints, objects: scanner.objects };
}

/**
 * The findings in a JSON value, by path (exported for `forge redact`). `absolute`: the paths are where the value sits (the
 * allow-list's paths apply here); else they are relative to an object, judged once known whole.
 */
export function scanJson(redactor: Redactor, value: unknown, absolute = true, path: JsonPathKey[] = [], out: Local[] = []): Local[] {
  const found = (text: string, at: JsonPathKey[]) => {
    for (const f of redactor.findings(text, absolute ? at : undefined)) out.push({ path: at, rule: f.rule });
  };
  if (typeof value === "string") found(value, [...path]);
  else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) scanJson(redactor, value[i], absolute, [...path, i], out);
  } else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      found(k, [...path, k]);
      scanJson(redactor, v, absolute, [...path, k], out);
    }
  }
  return out;
}

/** Scans trees object by object, each object once, and finds the paths of findings from a root. */
export class TreeScanner {
  readonly #ctx: StoreContext;
  readonly #redactor: Redactor;
  /** Per object: its own findings (paths relative to it), and whether anything under it has one. */
  readonly #own = new Map<Hash, readonly Local[]>();
  readonly #dirty = new Map<Hash, boolean>();
  readonly #nodes = new Map<Hash, TreeNode>();

  /** `redactor` must have its rules loaded. */
  constructor(ctx: StoreContext, redactor: Redactor) {
    this.#ctx = ctx;
    this.#redactor = redactor;
  }

  /** Distinct objects scanned so far. */
  get objects(): number {
    return this.#own.size;
  }

  /** Findings in the JSON value at `root`, with paths from the root (the allow-list's paths apply). */
  async state(root: Hash): Promise<Local[]> {
    await this.#load(root, "state");
    const out: Local[] = [];
    this.#collect(root, [], out);
    return out.filter((l) => !this.#redactor.pathAllowed(l.path));
  }

  /** Findings in the text of the files under the folder `root`, with file paths. */
  async files(root: Hash): Promise<Local[]> {
    await this.#load(root, "files");
    const out: Local[] = [];
    this.#collectFiles(root, [], out);
    return out;
  }

  /** Reads every object under `root` not read yet, level by level, and scans each once. */
  async #load(root: Hash, kind: "state" | "files"): Promise<void> {
    let level = this.#own.has(root) ? [] : [root];
    while (level.length > 0) {
      const nodes = await this.#ctx.objects.getNodes(level);
      const next = new Set<Hash>();
      for (const [h, node] of nodes) {
        this.#nodes.set(h, node);
        this.#own.set(h, this.#scanNode(node, kind));
        for (const c of childHashes(node)) if (!this.#own.has(c) && !nodes.has(c)) next.add(c);
      }
      level = [...next];
    }
    // Drop the bodies of clean leaves: only the structure above findings is walked again.
    for (const [h, node] of this.#nodes)
      if (node.kind === "b" || (node.kind === "j" && node.refs.length === 0 && this.#own.get(h)?.length === 0)) this.#nodes.delete(h);
  }

  #scanNode(node: TreeNode, kind: "state" | "files"): Local[] {
    if (node.kind === "j") return scanJson(this.#redactor, JSON.parse(node.body) as unknown, false);
    if (node.kind === "b" && kind === "files") {
      const data = node.data;
      if (data.subarray(0, BINARY_SAMPLE).includes(0)) return [];
      return this.#redactor.findings(data.toString("utf8")).map((f) => ({ path: [], rule: f.rule }));
    }
    return [];
  }

  /** Whether `hash` or anything under it holds a finding (memoized). */
  #isDirty(hash: Hash): boolean {
    let d = this.#dirty.get(hash);
    if (d === undefined) {
      const node = this.#nodes.get(hash);
      d = (this.#own.get(hash)?.length ?? 0) > 0 || (node !== undefined && childHashes(node).some((c) => this.#isDirty(c)));
      this.#dirty.set(hash, d);
    }
    return d;
  }

  #collect(hash: Hash, at: readonly JsonPathKey[], out: Local[], offset = 0): void {
    if (!this.#isDirty(hash)) return;
    const node = this.#nodes.get(hash);
    if (node?.kind === "a") {
      let start = offset;
      for (const [h, count] of node.entries) {
        this.#collect(h, at, out, start);
        start += count;
      }
      return;
    }
    // A chunk of an array (offset > 0 or not) holds items whose first path step is their index in it.
    const shift = (p: readonly JsonPathKey[]) => (offset > 0 && typeof p[0] === "number" ? [p[0] + offset, ...p.slice(1)] : p);
    for (const l of this.#own.get(hash) ?? []) out.push({ path: [...at, ...shift(l.path)], rule: l.rule });
    if (node?.kind === "j") for (const [h, ...p] of node.refs) this.#collect(h, [...at, ...shift(p)], out);
  }

  #collectFiles(hash: Hash, at: readonly string[], out: Local[]): void {
    if (!this.#isDirty(hash)) return;
    const node = this.#nodes.get(hash);
    if (node?.kind === "d") {
      for (const [h, name, type] of node.entries) if (type === "d" || type === "f") this.#collectFiles(h, [...at, name], out);
      return;
    }
    if (node?.kind === "f") {
      for (const [h] of node.entries) this.#collectFiles(h, at, out);
      return;
    }
    for (const l of this.#own.get(hash) ?? []) out.push({ path: [...at], rule: l.rule });
  }
}
