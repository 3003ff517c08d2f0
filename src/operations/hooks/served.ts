// A long-lived Forge process (`forge mcp`, `forge ui`) running the capture hooks of its
// workspace for the hook processes that ask it (domains/workspace/hook-serve.ts): a hook
// then costs Node's start and a round trip instead of loading the CLI, opening the store and
// reading the workspace's tree every time. It runs a hook only where the hook's own process
// would have done the same — the same build of Forge, environment, store and workspace
// folder — and one at a time, as hook processes take their turns at the store's lock.
import { realpathSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { findForgeRoot, resolveStoreUrl } from "../../core/config.js";
import { parsePayload, payloadCwd } from "../../core/hook-payload.js";
import { bundleBuild, type HookHandler, type ServedHookAnswer, type ServedHookRequest, servedEnv } from "../../domains/workspace/hook-serve.js";
import { HINT_VERSION } from "../../domains/workspace/watch-hint.js";
import type { Store } from "../../timeline/store.js";
import { CAPTURE_KINDS, type CaptureKind, type HostId, isHost } from "../agent/names.js";
import { OperationContext } from "../context.js";
import { runCaptureHook } from "./capture-run.js";

/** A context over the server's own store, which a hook never closes. */
class ServedContext extends OperationContext {
  readonly #store: () => Promise<Store>;

  constructor(store: () => Promise<Store>) {
    super({});
    this.#store = store;
  }

  override store(): Promise<Store> {
    return this.#store();
  }

  override async close(): Promise<void> {}
}

/** The real path of the folder holding .forge at or above `dir`, if any. */
function forgeRootOf(dir: string): string | undefined {
  const root = findForgeRoot(dir);
  return root === undefined ? undefined : realpathSync(root);
}

/**
 * Serves capture hooks over the process's store (`store`, opened on first use; `storeOption`:
 * the URL it was given, if any). Undefined where this process does not run from the CLI
 * bundle, whose build a hook process compares.
 */
export function hookServer(store: () => Promise<Store>, storeOption: string | undefined): HookHandler | undefined {
  let build: string;
  let ownStore: string | undefined;
  let ownRoot: string | undefined;
  try {
    const here = fileURLToPath(import.meta.url);
    if (basename(here) !== "forge.cjs") return undefined; // not the CLI bundle (the compiled modules, the library): no hook process loads it
    build = bundleBuild(here);
    ownStore = resolveStoreUrl(storeOption, process.cwd());
    ownRoot = forgeRootOf(process.cwd());
  } catch {
    return undefined;
  }
  if (ownStore === undefined || ownRoot === undefined) return undefined;
  let turn: Promise<unknown> = Promise.resolve();
  return async (request: unknown): Promise<ServedHookAnswer> => {
    const why = refusal(request, build, ownStore, ownRoot);
    if (why !== undefined) return { v: HINT_VERSION, refused: why };
    const r = request as ServedHookRequest;
    const run = turn.then(() =>
      runCaptureHook(
        { kind: r.kind as CaptureKind, host: r.host as HostId, strict: r.strict === true, verbose: false, stdin: r.stdin, cwd: r.cwd, storeNamed: false },
        () => {
          const ctx = new ServedContext(store);
          return { ctx, call: (op, input) => op.run(ctx, input), close: () => ctx.close() };
        },
      ),
    );
    turn = run.catch(() => undefined);
    try {
      const done = await run;
      return { v: HINT_VERSION, served: { ...done, pid: process.pid } };
    } catch (e) {
      return { v: HINT_VERSION, refused: `failed: ${e instanceof Error ? e.message : String(e)}` };
    }
  };
}

/** Why the hook `request` is not this server's to run, or undefined when it is. */
function refusal(request: unknown, build: string, ownStore: string, ownRoot: string): string | undefined {
  const r = request as Partial<ServedHookRequest> | null;
  if (
    typeof r !== "object" ||
    r === null ||
    typeof r.stdin !== "string" ||
    typeof r.cwd !== "string" ||
    typeof r.kind !== "string" ||
    typeof r.host !== "string"
  )
    return "not a hook request";
  if (!(CAPTURE_KINDS as readonly string[]).includes(r.kind) || !isHost(r.host)) return "not a capture hook";
  if (r.build !== build) return "another build of Forge";
  if (typeof r.env !== "object" || r.env === null || JSON.stringify(r.env) !== JSON.stringify(servedEnv())) return "another environment";
  let cwd = r.cwd;
  try {
    cwd = payloadCwd(parsePayload(r.stdin)) ?? r.cwd;
  } catch {
    // Not JSON: the hook says so itself, from its own folder.
  }
  try {
    if (resolveStoreUrl(undefined, cwd) !== ownStore || forgeRootOf(cwd) !== ownRoot) return "another store or workspace";
  } catch {
    return "another store or workspace";
  }
  return undefined;
}
