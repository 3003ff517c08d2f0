// Which entries of a host's config are Forge's, and how the hosts' config modules write
// them: a hook runs `forge hook <kind> --host <host>`, so an entry all of whose commands
// run that is Forge's, whatever else an older version or the user put around it.
import type { CaptureKind, HostId, JsonOp } from "../types.js";

/** The command a host runs at Forge's event `kind`: exactly `<forge> hook <kind> --host <host>`. */
export function hookCommand(forge: string, kind: CaptureKind, host: HostId): string {
  return `${forge} hook ${kind} --host ${host}`;
}

/**
 * Ops that add one hook group per event in the shape Claude Code, Gemini CLI and Codex share:
 * `hooks.<Event>` a list of `{matcher?, hooks: [{type: "command", command, …extra}]}`.
 */
export function hookGroupOps(
  forge: string,
  host: HostId,
  events: readonly { readonly event: string; readonly kind: CaptureKind; readonly matcher?: string }[],
  extra: (kind: CaptureKind) => Readonly<Record<string, unknown>> = () => ({}),
): JsonOp[] {
  return events.map(({ event, kind, matcher }) => ({
    op: "append",
    path: ["hooks", event],
    value: { ...(matcher !== undefined && { matcher }), hooks: [{ ...extra(kind), type: "command", command: hookCommand(forge, kind, host) }] },
  }));
}

/** Deep equality of plain JSON values (key order does not matter). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const rb = b as Record<string, unknown>;
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(rb, k) && deepEqual((a as Record<string, unknown>)[k], rb[k]));
}

const COMMAND_KEYS = new Set(["command", "bash", "powershell", "commandWindows", "command_windows"]);

/** The command lines in a config value (the strings under `command`, `bash`, `powershell` keys, at any depth). */
export function commandsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(commandsIn);
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => (typeof v === "string" ? (COMMAND_KEYS.has(k) ? [v] : []) : commandsIn(v)));
}

/** Whether two entries run the same commands (and some): the same Forge hook, written by another version. */
export function sameCommands(a: unknown, b: unknown): boolean {
  const ca = commandsIn(a).sort();
  const cb = commandsIn(b).sort();
  return ca.length > 0 && deepEqual(ca, cb);
}

/** Whether a command line runs `forge … hook <kind> --host <host>`. */
export function isForgeHookCommand(command: string, host: HostId): boolean {
  return /(^|[\s/"'])forge[\w.-]*["']?\s+hook\s+[\w-]+/.test(command) && new RegExp(`--host[= ]${host}(\\s|$|["'])`).test(command);
}

/** Whether an entry is Forge's for `host`: it runs commands, and every one is a Forge hook of that host. */
export function isForgeEntry(value: unknown, host: HostId): boolean {
  const commands = commandsIn(value);
  return commands.length > 0 && commands.every((c) => isForgeHookCommand(c, host));
}
