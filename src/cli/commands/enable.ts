// `forge enable [host...]`, `forge disable [host...]`, `forge status`: wire Forge into agent
// hosts' project config (hooks, MCP server) and git's commit hook, take it back out, and
// show what is wired and when each hook last fired.
import { Argument, Command } from "commander";
import { isForgeError } from "../../core/errors.js";
import type { DisableResult, EnableResult } from "../../operations/hosts/enable.js";
import { HOST_ALIASES, HOST_IDS, hostIdOf } from "../../operations/hosts/names.js";
import type { HostChangeJson } from "../../operations/hosts/shared.js";
import { run } from "../command.js";
import { UsageError } from "../context.js";
import { ago, c, printJson, println } from "../output.js";

const ops = {
  enable: () => import("../../operations/hosts/enable.js"),
  status: () => import("../../operations/hosts/status.js"),
};

type HostId = (typeof HOST_IDS)[number];

const hostArgument = () =>
  new Argument(
    "[host...]",
    `the agent hosts (also: ${Object.entries(HOST_ALIASES)
      .map(([alias, id]) => `${alias} for ${id}`)
      .join(", ")})`,
  ).choices([...HOST_IDS, ...Object.keys(HOST_ALIASES)]);

/** The hosts named, aliases resolved, each once. */
const hostIds = (names: readonly string[]): HostId[] => [...new Set(names.map((n) => hostIdOf(n) as HostId))];

/** One line per file a command touched, under a line per host. */
function printChanges(hosts: readonly HostChangeJson[]): void {
  for (const h of hosts) {
    println(`${c.bold(h.label)} ${c.dim(`(${h.host})`)}${h.files.length === 0 ? c.dim(h.wasEnabled ? "" : "  not enabled: nothing to do") : ""}`);
    for (const f of h.files) {
      println(`  ${f.action.padEnd(9)} ${f.file}`);
      for (const w of f.warnings) println(c.yellow(`  note: ${w}`));
    }
  }
}

function printGitHook(g: EnableResult["gitHook"] | DisableResult["gitHook"]): void {
  if (g === null) return;
  println(`${c.bold("git hook")}  ${g.action === "skipped" ? "skipped" : `${g.action.padEnd(9)} ${g.path}`}${g.note ? c.dim(` (${g.note})`) : ""}`);
}

/** The offer to import what the hosts recorded here before Forge. */
function printEarlier(h: EnableResult["history"]): void {
  if (h.error !== undefined) println(c.yellow(`note: could not look for earlier agent sessions: ${h.error}`));
  if (h.sessions === 0) return;
  const by = h.hosts.map((x) => `${x.label} ${x.sessions}`).join(", ");
  println(
    `${h.sessions} earlier ${h.sessions === 1 ? "session" : "sessions"} of this project found (${by}); run \`${h.command}\` to bring ${h.sessions === 1 ? "it" : "them"} in`,
  );
}

/** `forge enable [host...]`. */
export function enableCommand(): Command {
  return new Command("enable")
    .description("wire Forge into agent hosts: their hooks and MCP server in the project's config, and a git commit hook (none named: the hosts found here)")
    .addArgument(hostArgument())
    .action(
      run(async (ctx, names: string[]) => {
        const { enableOperation } = await ops.enable();
        let r: EnableResult;
        try {
          r = await ctx.call(enableOperation, { folder: ".", hosts: hostIds(names), command: "forge" });
        } catch (e) {
          // Nothing named and nothing found: the command line has to say which host.
          if (isForgeError(e) && e.data["reason"] === "NO_HOST_FOUND") throw new UsageError(`${e.message}; name one: forge enable ${HOST_IDS.join(" | ")}`);
          throw e;
        }
        if (ctx.json) return printJson(r);
        if (r.store) println(`Initialized empty Forge store in ${r.store.dir} (${r.store.store.split(":")[0]})`);
        printChanges(r.hosts);
        printGitHook(r.gitHook);
        printEarlier(r.history);
      }),
    );
}

/** `forge disable [host...]`. */
export function disableCommand(): Command {
  return new Command("disable")
    .description("take out of agent hosts' config exactly what forge enable added (none named: every host enabled)")
    .addArgument(hostArgument())
    .action(
      run(async (ctx, names: string[]) => {
        const r = await ctx.call((await ops.enable()).disableOperation, { folder: ".", hosts: hostIds(names) });
        if (ctx.json) return printJson(r);
        if (r.hosts.length === 0) return println(c.dim(`no host is enabled in ${r.root}`));
        printChanges(r.hosts);
        printGitHook(r.gitHook);
      }),
    );
}

/** `forge status`. */
export function statusCommand(): Command {
  return new Command("status").description("which agent hosts are wired here, whether their hooks are current, and when each last fired").action(
    run(async (ctx) => {
      const r = await ctx.call((await ops.status()).statusOperation, { folder: "." });
      if (ctx.json) return printJson(r);
      println(c.dim(r.store ? `project ${r.root}` : `project ${r.root} (no Forge store yet: forge enable creates one)`));
      for (const h of r.hosts) {
        const state = h.installed ? (h.current ? c.green("installed, current") : c.yellow("installed, not current: run forge enable")) : "not installed";
        println(`${c.bold(h.label.padEnd(19))} ${(h.enabled ? "enabled" : "-").padEnd(8)} ${state}`);
        for (const f of h.files) if (f.problem) println(c.red(`  ${f.problem}`));
        const fired = Object.entries(h.fired).filter((e): e is [string, string] => e[1] !== null);
        if (fired.length > 0) println(c.dim(`  last fired: ${fired.map(([k, t]) => `${k} ${ago(t)}`).join(", ")}`));
      }
      if (r.unsupported.length > 0) println(c.dim(`not supported yet: ${r.unsupported.join(", ")}`));
      println(
        `${c.bold("git hook".padEnd(19))} ${r.gitHook.installed ? c.green("installed") : r.gitHook.path === null ? "- (not a git work tree)" : "not installed"}${r.gitHook.path ? c.dim(` ${r.gitHook.path}`) : ""}`,
      );
    }),
  );
}
