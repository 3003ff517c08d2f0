// `forge hook EVENT`: what a coding agent's host runs at its lifecycle events (the hook
// operations, over src/integrations/hooks/hooks.ts). It reads the host's JSON from stdin,
// runs the event's operation, prints nothing on stdout unless the host reads it
// (session-start's brief), and never fails the host's action: a problem is reported on
// stderr and the exit code is 0, unless --strict (or FORGE_HOOK_STRICT=1) asks for a
// non-zero exit. It runs at every event of the host, so it loads only what its event uses.
import { readFileSync } from "node:fs";
import { Command, Option } from "commander";
import { findForgeRoot } from "../../core/config.js";
import { ForgeError } from "../../core/errors.js";
import type { HookInput, HookReport } from "../../integrations/hooks/hooks.js";
import { describeError, needStore, runCaptureHook } from "../../operations/hooks/capture-run.js";
import { HOOK_EVENTS, type HookEvent } from "../../operations/hooks/input.js";
import { CAPTURE_KINDS, HOST_IDS, type CaptureKind, type HostId, isHost } from "../../operations/agent/names.js";
import { STRATEGIES, type Strategy } from "../../operations/files/shared.js";
import type { Store } from "../../timeline/store.js";
import { CliContext, type GlobalOptions } from "../context.js";
import { takeHookInput } from "../hook-input.js";
import { isTerminal, writeOut } from "../output.js";

/** How a host reads a hook's stdout: Claude Code takes plain text (SessionStart adds it to the context); Gemini CLI parses it as one JSON object. */
const LEGACY_HOSTS = ["claude", "gemini"] as const;
type LegacyHost = (typeof LEGACY_HOSTS)[number];

interface HookFlags {
  host: string;
  strict?: boolean;
  strategy: Strategy;
  snapshot: boolean;
  files?: boolean;
  always?: boolean;
  root?: string;
  verbose?: boolean;
}

/** A command's context whose store is found from the host's working folder, not this process's. */
class HookContext extends CliContext {
  readonly #cwd: string;
  #opened: Promise<Store> | undefined;

  constructor(global: GlobalOptions, cwd: string) {
    super(global);
    this.#cwd = cwd;
  }

  override store(): Promise<Store> {
    this.#opened ??= import("../../timeline/store.js").then(({ openStore }) => openStore(this.global.store, { cwd: this.#cwd, create: false }));
    return this.#opened;
  }

  override async close(): Promise<void> {
    const opened = this.#opened;
    this.#opened = undefined;
    if (opened) await (await opened.catch(() => undefined))?.close();
    await super.close();
  }
}

function readStdin(): string {
  const read = takeHookInput();
  if (read !== undefined) return read;
  // A host that sends nothing may leave stdin a terminal: do not wait on it.
  if (isTerminal(0)) return "";
  try {
    return readFileSync(0, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EAGAIN" || code === "EOF" || code === "ENXIO") return "";
    throw e;
  }
}

function say(event: string, line: string): void {
  process.stderr.write(`forge hook ${event}: ${line}\n`);
}

function writeOutput(host: LegacyHost, event: HookEvent, text: string): void {
  if (host === "gemini") {
    // Gemini CLI parses stdout as JSON whenever the hook exits 0: always print one object.
    const out = text === "" ? {} : { hookSpecificOutput: { hookEventName: event === "session-start" ? "SessionStart" : event, additionalContext: text } };
    writeOut(JSON.stringify(out) + "\n");
  } else if (text !== "") writeOut(text);
}

/** Runs the event's operation (only its module and what it uses are loaded). */
async function runEvent(ctx: CliContext, event: HookEvent, hostInput: HookInput, flags: HookFlags): Promise<HookReport> {
  const workspace = { strategy: flags.strategy, ...(flags.root !== undefined && { root: flags.root }) };
  switch (event) {
    case "session-start":
      return ctx.call((await import("../../operations/hooks/session-start.js")).sessionStartHookOperation, { hostInput, always: flags.always === true });
    case "pre-compact":
      return ctx.call((await import("../../operations/hooks/pre-compact.js")).preCompactHookOperation, {
        hostInput,
        files: flags.files === true,
        ...workspace,
      });
    case "post-edit":
      return ctx.call((await import("../../operations/hooks/post-edit.js")).postEditHookOperation, { hostInput, snapshot: flags.snapshot, ...workspace });
    case "stop":
      return ctx.call((await import("../../operations/hooks/stop.js")).stopHookOperation, { hostInput, files: flags.files !== false, ...workspace });
  }
}

async function hook(event: HookEvent, flags: HookFlags & { host: LegacyHost }, global: GlobalOptions): Promise<void> {
  const strict = flags.strict === true || process.env["FORGE_HOOK_STRICT"] === "1";
  let stdout = "";
  try {
    // Loaded here, not at the top: every other forge command would pay for it.
    const { readHostInput } = await import("../../operations/hooks/input.js");
    let input: HookInput = {};
    let named: string | undefined;
    try {
      ({ input, cwd: named } = await readHostInput(readStdin()));
    } catch (e) {
      // A malformed input does not stop the hook: what it is for is in its name.
      if (strict) throw e;
      say(event, `${(e as Error).message}; going on without it`);
    }
    const cwd = named ?? process.cwd();
    if (global.store === undefined && !process.env["FORGE_STORE"] && findForgeRoot(cwd) === undefined) {
      // A hook wired globally must not create stores in every folder the host visits.
      throw new ForgeError("STORE_UNAVAILABLE", `no Forge store for ${cwd}`, { hint: "run `forge init` in the project, or set FORGE_STORE" });
    }
    const ctx = new HookContext(global, cwd);
    try {
      // Opened first, whatever the event: a store that cannot be opened is reported at every event.
      await ctx.store();
      const report = await runEvent(ctx, event, input, flags);
      for (const w of report.warnings) say(event, `warning: ${w}`);
      if (flags.verbose) for (const a of report.actions) say(event, a);
      stdout = report.stdout;
    } finally {
      await ctx.close();
    }
  } catch (e) {
    const message = e instanceof ForgeError ? `${e.message}${e.hint ? ` (${e.hint})` : ""}` : e instanceof Error ? e.message : String(e);
    say(event, `${strict ? "error" : "skipped"}: ${message}`);
    process.exitCode = strict ? 1 : 0;
  }
  writeOutput(flags.host, event, stdout);
}

/** `forge hook <kind> --host <id>`: the capture of a host's session at one of its events (operations/hooks/capture-run.ts). */
async function captureHook(kind: CaptureKind, host: HostId, flags: HookFlags, global: GlobalOptions): Promise<void> {
  const run = await runCaptureHook(
    {
      kind,
      host,
      strict: flags.strict === true || process.env["FORGE_HOOK_STRICT"] === "1",
      verbose: flags.verbose === true,
      stdin: readStdin(),
      cwd: process.cwd(),
      storeNamed: global.store !== undefined,
    },
    (cwd) => {
      const ctx = new HookContext(global, cwd);
      return { ctx, call: (op, input) => ctx.call(op, input), close: () => ctx.close() };
    },
  );
  if (run.stderr !== "") process.stderr.write(run.stderr);
  if (run.code !== 0) process.exitCode = run.code;
  writeOut(run.stdout);
}

/** `forge hook commit-msg FILE [SOURCE] [SHA]`: from git's prepare-commit-msg; never stops a commit. */
async function commitMsgHook(file: string, source: string | undefined, flags: { strict?: boolean; verbose?: boolean }, global: GlobalOptions): Promise<void> {
  const strict = flags.strict === true || process.env["FORGE_HOOK_STRICT"] === "1";
  try {
    const cwd = process.cwd();
    needStore(global.store !== undefined, cwd);
    const ctx = new HookContext(global, cwd);
    try {
      const { commitMsgHookOperation } = await import("../../operations/agent/hooks.js");
      const r = await ctx.call(commitMsgHookOperation, { file, ...(source !== undefined && { source }), cwd });
      if (flags.verbose) say("commit-msg", r.checkpoint ? `Forge-Checkpoint: ${r.checkpoint.id} (${r.session})` : "no captured session is active: no trailer");
    } finally {
      await ctx.close();
    }
  } catch (e) {
    say("commit-msg", `${strict ? "error" : "skipped"}: ${describeError(e)}`);
    process.exitCode = strict ? 1 : 0;
  }
}

export function hookCommand(): Command {
  const cmd = new Command("hook").description(
    "what agent hosts run at their events (written by `forge enable`): capture the session, checkpoint at prompts, snapshot files (never fails the host)",
  );
  const descriptions: Record<HookEvent | CaptureKind, string> = {
    "session-start": "a host session starts: print the brief for the host after a compaction, resume or clear (--always: also at startup)",
    "pre-compact": "before the host compacts its context: a checkpoint (legacy hosts: --files for a workspace snapshot too)",
    "post-edit": "record the edited paths as the agent's and snapshot the workspace; other changes are reported as outside the agent",
    stop: "the end of a turn: the transcript imported and the files snapshotted when they changed",
    prompt: "a prompt was submitted (--host ID): a checkpoint of that moment's files, conversation and reasoning",
    tool: "a tool ran (--host ID): the transcript imported, and the files snapshotted when the tool may write",
    "session-end": "the host session ended (--host ID): the last of the transcript imported",
  };
  const events = [...new Set<HookEvent | CaptureKind>([...HOOK_EVENTS, ...CAPTURE_KINDS])];
  for (const event of events) {
    const legacy = (HOOK_EVENTS as readonly string[]).includes(event);
    const capture = (CAPTURE_KINDS as readonly string[]).includes(event);
    const choices = [...(legacy ? LEGACY_HOSTS : []), ...(capture ? HOST_IDS : [])];
    const host = new Option(
      "--host <host>",
      `the host running the hook: ${capture ? `${HOST_IDS.join(", ")} (capture)` : ""}${legacy && capture ? "; " : ""}${legacy ? "claude or gemini (stdout as text or one JSON object; no capture)" : ""}`,
    ).choices(choices);
    if (legacy) host.default("claude");
    else host.makeOptionMandatory();
    const sub = cmd
      .command(event)
      .description(descriptions[event])
      .addOption(host)
      .option("--strict", "exit 1 when Forge has a problem (default: report on stderr, exit 0)")
      .addOption(new Option("--strategy <s>", "what snapshots do with changes made outside the agent").choices(STRATEGIES).default("warn"))
      .option("--root <dir>", "the workspace folder (default: the folder holding .forge above the host's cwd)")
      .option("-v, --verbose", "say on stderr what was done");
    if (event === "post-edit") sub.option("--no-snapshot", "only record the edit (a later stop hook snapshots)");
    if (event === "pre-compact") sub.option("--files", "also snapshot the workspace's files");
    if (event === "stop") sub.option("--no-files", "no workspace snapshot");
    if (event === "session-start") sub.option("--always", "print the brief at startup too");
    sub.action(async (flags: HookFlags, c: Command) => {
      const global = c.optsWithGlobals<GlobalOptions>();
      if (isHost(flags.host)) return captureHook(event as CaptureKind, flags.host, flags, global);
      await hook(event as HookEvent, { ...flags, host: flags.host as LegacyHost, snapshot: flags.snapshot !== false }, global);
    });
  }
  cmd
    .command("commit-msg")
    .description("from git's prepare-commit-msg (installed by `forge enable`): a Forge-Checkpoint trailer when a captured session is active")
    .argument("<file>", "the commit message file")
    .argument("[source]", "git's commit source (message, template, merge, squash, commit)")
    .argument("[sha]", "the commit being amended")
    .option("--strict", "exit 1 when Forge has a problem (default: report on stderr, exit 0)")
    .option("-v, --verbose", "say on stderr what was done")
    .action(async (file: string, source: string | undefined, _sha: string | undefined, flags: { strict?: boolean; verbose?: boolean }, c: Command) => {
      await commitMsgHook(file, source, flags, c.optsWithGlobals<GlobalOptions>());
    });
  return cmd;
}
