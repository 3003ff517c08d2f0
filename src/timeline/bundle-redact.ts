// A bundle is made elsewhere, maybe by a Forge that did not redact, so its objects may hold
// secrets this store would never have stored. Import redacts them as every other write does:
// a JSON node whose strings hold a secret is not written; each state that reaches one is
// assembled and encoded again through the store's redacting encoder, and its checkpoints
// point at the new root. What the manifest's rows carry (messages, metadata, tags, milestone
// descriptions) is redacted too. Files (`b`, `f`, `d` nodes) stay byte for byte: a snapshot
// keeps files exact.
import type { StoredObject } from "../backends/backend.js";
import { storedKind, unpackUntrusted } from "../objects/codec.js";
import type { Hash } from "../objects/hash.js";
import { childHashes, parseNode, type TreeNode } from "../objects/node.js";
import { assemble } from "../objects/object-store.js";
import type { BundleSession } from "./bundle-manifest.js";
import type { StoreContext } from "./store-context.js";

const J = "j".charCodeAt(0);

/** The redaction of one bundle import: `filter` while its objects are written, then `apply` to its manifest. */
export class BundleRedaction {
  readonly #ctx: StoreContext;
  /** JSON nodes of the bundle that hold a secret: kept here, never written. */
  readonly #held = new Map<Hash, TreeNode>();

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** How many of the bundle's objects held a secret. */
  get heldObjects(): number {
    return this.#held.size;
  }

  /** The batches as given, less the JSON nodes holding a secret (kept aside for `apply`). */
  async *filter(batches: AsyncIterable<StoredObject[]>): AsyncGenerator<StoredObject[]> {
    const redactor = this.#ctx.objects.redactor;
    for await (const batch of batches) {
      if (!redactor.enabled) {
        yield batch;
        continue;
      }
      const kept: StoredObject[] = [];
      for (const o of batch) {
        if (storedKind(o.data) !== J) {
          kept.push(o);
          continue;
        }
        const node = parseNode(o.hash, unpackUntrusted(o.hash, o.data));
        if (node.kind === "j" && (await holdsSecret(this.#ctx, node))) this.#held.set(o.hash, node);
        else kept.push(o);
      }
      if (kept.length > 0) yield kept;
    }
  }

  /**
   * The manifest's sessions with their rows redacted and, where a state reaches a held node,
   * the state encoded again (its objects written now) and its checkpoints re-pointed.
   */
  async apply(sessions: readonly BundleSession[]): Promise<{ sessions: BundleSession[]; states: number }> {
    const redactor = this.#ctx.objects.redactor;
    const roots = new Map<Hash, Hash>();
    if (this.#held.size > 0) {
      for (const root of new Set(sessions.flatMap((s) => s.checkpoints.map((c) => c.stateRoot)))) {
        const nodes = await this.#load(root);
        if (![...nodes.keys()].some((h) => this.#held.has(h))) continue;
        const tree = await this.#ctx.objects.writeValue(assemble(root, nodes), "bundle-import");
        roots.set(root, tree.root);
      }
    }
    const out: BundleSession[] = [];
    for (const s of sessions) {
      out.push({
        ...s,
        metadata: await redactor.redactJson(s.metadata),
        checkpoints: await Promise.all(
          s.checkpoints.map(async (c) => ({
            ...c,
            stateRoot: roots.get(c.stateRoot) ?? c.stateRoot,
            message: await redactor.redactText(c.message),
            tags: await redactor.redactJson(c.tags),
            metadata: await redactor.redactJson(c.metadata),
          })),
        ),
        milestones: await Promise.all(s.milestones.map(async (m) => ({ ...m, description: await redactor.redactText(m.description) }))),
      });
    }
    return { sessions: out, states: roots.size };
  }

  /** Every node of the state at `root`: held ones from here, the rest from the store (written by now). */
  async #load(root: Hash): Promise<Map<Hash, TreeNode>> {
    const all = new Map<Hash, TreeNode>();
    let level = [root];
    while (level.length > 0) {
      const fromStore = level.filter((h) => !this.#held.has(h));
      const got = await this.#ctx.objects.getNodes(fromStore);
      const next = new Set<Hash>();
      for (const h of level) {
        const node = this.#held.get(h) ?? (got.get(h) as TreeNode);
        all.set(h, node);
        for (const c of childHashes(node)) if (!all.has(c)) next.add(c);
      }
      level = [...next];
    }
    return all;
  }
}

/** Whether a JSON node's strings, keys or child paths hold a secret. */
async function holdsSecret(ctx: StoreContext, node: TreeNode & { kind: "j" }): Promise<boolean> {
  const redactor = ctx.objects.redactor;
  const body: unknown = JSON.parse(node.body);
  if ((await redactor.redactJson(body)) !== body) return true;
  const paths = node.refs.map((r) => r.slice(1));
  return (await redactor.redactJson(paths)) !== paths;
}
