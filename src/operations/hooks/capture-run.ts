// A capture hook (`forge hook <kind> --host <id>`, what `forge enable` writes for every host)
// run from the host's payload to what it prints and exits with — in the hook's own process
// (cli/commands/hook.ts), or in a long-lived Forge process of the same workspace that the
// hook handed it to (operations/hooks/served.ts): one body, so both say and do the same.
// It never fails the host's action: a problem is reported on stderr and the code is 0,
// unless `strict` asks for 1.
import { findForgeRoot } from "../../core/config.js";
import { ForgeError } from "../../core/errors.js";
import { parsePayload, payloadCwd } from "../../core/hook-payload.js";
import type { CaptureKind, HostId } from "../agent/names.js";
import type { OperationContext } from "../context.js";
import type { InputOf, Operation, Shape } from "../operation.js";

/** What a hook prints and exits with. */
export interface HookRun {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number;
}

/** One run of a capture hook. */
export interface CaptureRun {
  readonly kind: CaptureKind;
  readonly host: HostId;
  /** Exit 1 on a problem (--strict, FORGE_HOOK_STRICT=1) instead of 0. */
  readonly strict: boolean;
  /** Say on stderr what was done. */
  readonly verbose: boolean;
  /** What the host sent on stdin. */
  readonly stdin: string;
  /** The hook's working folder, for a payload that names none. */
  readonly cwd: string;
  /** Whether the command line named a store (then no .forge folder need be found). */
  readonly storeNamed: boolean;
}

/** Where the hook's operation runs: a context over the store found from `cwd`, and how it is called there. */
export interface HookSeat {
  readonly ctx: OperationContext;
  call<S extends Shape, R>(op: Operation<S, R>, input: InputOf<S>): Promise<R>;
  close(): Promise<void>;
}

export async function runCaptureHook(run: CaptureRun, seatFor: (cwd: string) => HookSeat): Promise<HookRun> {
  let stderr = "";
  const say = (line: string) => {
    stderr += `forge hook ${run.kind}: ${line}\n`;
  };
  let stdout: string | undefined;
  let code = 0;
  try {
    let payload: Record<string, unknown> = {};
    try {
      payload = parsePayload(run.stdin);
    } catch (e) {
      if (run.strict) throw e;
      say(`the hook input is not JSON (${(e as Error).message}); going on without it`);
    }
    const cwd = payloadCwd(payload) ?? run.cwd;
    needStore(run.storeNamed, cwd);
    const seat = seatFor(cwd);
    try {
      // Opened first: a store that cannot be opened is reported at every event.
      await seat.ctx.store();
      const { captureHookOperation } = await import("../agent/hooks.js");
      const report = await seat.call(captureHookOperation, { host: run.host, kind: run.kind, payload, cwd });
      for (const w of report.warnings) say(`warning: ${w}`);
      if (run.verbose) for (const a of report.actions) say(a);
      stdout = report.stdout;
    } finally {
      await seat.close();
    }
  } catch (e) {
    say(`${run.strict ? "error" : "skipped"}: ${describeError(e)}`);
    code = run.strict ? 1 : 0;
  }
  // A host that parses stdout (as JSON) gets what it expects whatever happened.
  if (stdout === undefined) {
    const { hostOutput } = await import("../agent/names.js");
    stdout = await hostOutput(run.host, run.kind, "").catch(() => "");
  }
  return { stdout, stderr, code };
}

/** NO_STORE unless a store is named or found for `cwd`: a hook wired globally must not create stores in every folder the host visits. */
export function needStore(storeNamed: boolean, cwd: string): void {
  if (!storeNamed && !process.env["FORGE_STORE"] && findForgeRoot(cwd) === undefined)
    throw new ForgeError("NO_STORE", `no Forge store for ${cwd}`, { hint: "run `forge enable` (or `forge init`) in the project, or set FORGE_STORE" });
}

/** An error as one line: a Forge error with its hint. */
export function describeError(e: unknown): string {
  return e instanceof ForgeError ? `${e.message}${e.hint ? ` (${e.hint})` : ""}` : e instanceof Error ? e.message : String(e);
}
