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
import { HOOK_EVENTS, type HookEvent } from "../../operations/hooks/input.js";
import { STRATEGIES, type Strategy } from "../../operations/files/shared.js";
import type { Store } from "../../timeline/store.js";
import { CliContext, type GlobalOptions } from "../context.js";
import { writeOut } from "../output.js";

/** How a host reads a hook's stdout: Claude Code takes plain text (SessionStart adds it to the context); Gemini CLI parses it as one JSON object. */
const HOSTS = ["claude", "gemini"] as const;
type Host = (typeof HOSTS)[number];

interface HookFlags {
  host: Host;
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
  // A host that sends nothing may leave stdin a terminal: do not wait on it.
  if (process.stdin.isTTY) return "";
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

function writeOutput(host: Host, event: HookEvent, text: string): void {
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

async function hook(event: HookEvent, flags: HookFlags, global: GlobalOptions): Promise<void> {
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

export function hookCommand(): Command {
  const cmd = new Command("hook").description(
    "for agent hosts' hooks: checkpoint at session start, before compaction, after edits and at the end of a turn (never fails the host)",
  );
  const descriptions: Record<HookEvent, string> = {
    "session-start": "print the session's brief for the host to add to the context (after a compaction, resume or clear; --always: also at startup)",
    "pre-compact": "an automatic checkpoint with the compaction trigger (--files: and a workspace snapshot)",
    "post-edit": "record the edited paths as the agent's and snapshot the workspace; other changes are reported as outside the agent",
    stop: "a closing checkpoint when the reasoning changed, and a workspace snapshot when files changed (--no-files: not)",
  };
  for (const event of HOOK_EVENTS) {
    const sub = cmd
      .command(event)
      .description(descriptions[event])
      .addOption(new Option("--host <host>", "the host reading stdout: claude (plain text) or gemini (one JSON object)").choices(HOSTS).default("claude"))
      .option("--strict", "exit 1 when Forge has a problem (default: report on stderr, exit 0)")
      .addOption(new Option("--strategy <s>", "what snapshots do with changes made outside the agent").choices(STRATEGIES).default("warn"))
      .option("--root <dir>", "the workspace folder (default: the folder holding .forge above the host's cwd)")
      .option("-v, --verbose", "say on stderr what was done");
    if (event === "post-edit") sub.option("--no-snapshot", "only record the edit (a later stop hook snapshots)");
    if (event === "pre-compact") sub.option("--files", "also snapshot the workspace's files");
    if (event === "stop") sub.option("--no-files", "no workspace snapshot");
    if (event === "session-start") sub.option("--always", "print the brief at startup too");
    sub.action(async (flags: HookFlags, c: Command) => {
      await hook(event, { ...flags, snapshot: flags.snapshot !== false }, c.optsWithGlobals<GlobalOptions>());
    });
  }
  return cmd;
}
