// hosts_enable / hosts_disable: wire Forge into agent hosts' project config (their hooks run
// `forge hook <kind> --host <id>`, their MCP server is `forge mcp --profile lean`) plus a git
// prepare-commit-msg hook, and take exactly that back out. Every file is read, parsed and
// edited in memory first: a file Forge cannot read stops the command before anything is
// written. What was done is kept in .forge/hosts.json for disable.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { FORGE_DIR, readEnv } from "../../core/config.js";
import { ForgeError } from "../../core/errors.js";
import { type GitHookChange, installGitHook, removeGitHook } from "../../integrations/hosts/config/git-hook.js";
import { allConfigSpecs, configSpec } from "../../integrations/hosts/config/index.js";
import { type HostRecord, readManifest, writeManifest } from "../../integrations/hosts/config/manifest.js";
import { ProjectFiles } from "../../integrations/hosts/config/project-files.js";
import { planDisableHost, planEnableHost } from "../../integrations/hosts/config/wiring.js";
import type { HostConfigSpec, HostId } from "../../integrations/hosts/types.js";
import { type EarlierSessions, earlierSessions } from "../agent/import.js";
import { defineOperation } from "../operation.js";
import { type InitResult, initOperation } from "../store/init.js";
import { HOST_IDS } from "./names.js";
import { type HostChangeJson, projectRoot } from "./shared.js";

/** What `forge enable` did. */
export interface EnableResult {
  /** The project root (the folder holding .forge). */
  readonly root: string;
  /** The store enable created as `forge init` does, or null when the project had one. */
  readonly store: InitResult | null;
  /** named: the hosts given; found: those the project shows signs of (or had enabled). */
  readonly chosen: "named" | "found";
  readonly hosts: readonly HostChangeJson[];
  readonly gitHook: GitHookChange;
  /** The sessions the hosts recorded in this project before Forge, not yet imported (`forge agent import`). */
  readonly history: EarlierSessions;
}

/** What `forge disable` did. */
export interface DisableResult {
  readonly root: string;
  readonly hosts: readonly HostChangeJson[];
  /** Null while another host is still enabled (the git hook stays), or when enable installed none. */
  readonly gitHook: GitHookChange | null;
}

/** The hosts to enable when none is named: those whose files the project has, and those enabled before. */
async function foundHosts(root: string, enabled: readonly HostId[]): Promise<HostConfigSpec[]> {
  const { specs } = await allConfigSpecs();
  const found = specs.filter((s) => enabled.includes(s.id) || s.detect.some((p) => existsSync(join(root, p))));
  if (found.length > 0) return found;
  throw new ForgeError("INVALID_ARGUMENT", `found no agent host's files in ${root}`, {
    hint: `name the host to wire: forge enable ${specs.map((s) => s.id).join(" | ")}`,
    data: { reason: "NO_HOST_FOUND", supported: specs.map((s) => s.id), looked: specs.flatMap((s) => s.detect) },
  });
}

/** `forge enable [host...]`. */
export const enableOperation = defineOperation({
  name: "hosts_enable",
  title: "Wire Forge into agent hosts",
  description:
    "Adds Forge's hooks and MCP server to the project config of each host named (none named: the hosts the project has files of), and a git prepare-commit-msg hook; creates the store as `forge init` does when there is none. Keeps every key, comment and hook of the user's; running it again changes nothing.",
  effect: "write",
  input: (z) => ({
    folder: z.string().min(1).default("."),
    hosts: z.array(z.enum(HOST_IDS)).default([]),
    command: z.string().min(1).default("forge").describe("the command the hooks run Forge as"),
  }),
  run: async (ctx, input): Promise<EnableResult> => {
    const { root, hasStore } = projectRoot(input.folder);
    const manifest = readManifest(root);
    const named = [...new Set(input.hosts)];
    const specs = named.length > 0 ? await Promise.all(named.map((h) => configSpec(h))) : await foundHosts(root, Object.keys(manifest.hosts) as HostId[]);
    const files = new ProjectFiles(root);
    const records: Partial<Record<HostId, HostRecord>> = { ...manifest.hosts };
    const hosts: HostChangeJson[] = [];
    for (const spec of specs) {
      const prev = manifest.hosts[spec.id];
      const { record, changes } = planEnableHost(files, spec, input.command, prev);
      records[spec.id] = record;
      hosts.push({ host: spec.id, label: spec.label, wasEnabled: prev !== undefined, files: changes });
    }
    // Everything planned and every file parsed: only now is anything written.
    // As `forge init` here would: a --store URL is written down for the project; FORGE_STORE's is the environment's.
    const given = typeof ctx.options.store === "string" ? ctx.options.store : undefined;
    const store = given ?? (readEnv(["FORGE_STORE"])["FORGE_STORE"] || undefined);
    const init = { folder: root, remember: given !== undefined, ...(store !== undefined && { store }) };
    const created = hasStore ? null : await initOperation.run(ctx, init);
    files.commit();
    const git = installGitHook(root, input.command, manifest.gitHook);
    writeManifest(root, { version: 1, hosts: records, ...(git.record !== undefined && { gitHook: git.record }) });
    const history = await earlierSessions(root, join(root, FORGE_DIR));
    return { root, store: created, chosen: named.length > 0 ? "named" : "found", hosts, gitHook: git.change, history };
  },
});

/** `forge disable [host...]`. */
export const disableOperation = defineOperation({
  name: "hosts_disable",
  title: "Take Forge out of agent hosts",
  description:
    "Removes exactly what `forge enable` added to each host named (none named: every host enabled): a file still as enable left it gets the user's original bytes back, a file changed since loses only Forge's entries. The git hook goes when no host is left enabled.",
  effect: "write",
  input: (z) => ({ folder: z.string().min(1).default("."), hosts: z.array(z.enum(HOST_IDS)).default([]) }),
  run: async (_ctx, input): Promise<DisableResult> => {
    const { root, hasStore } = projectRoot(input.folder);
    if (!hasStore) return { root, hosts: [], gitHook: null };
    const manifest = readManifest(root);
    const enabled = Object.keys(manifest.hosts) as HostId[];
    const named = input.hosts.length > 0 ? [...new Set(input.hosts)] : enabled;
    const files = new ProjectFiles(root);
    const records: Partial<Record<HostId, HostRecord>> = { ...manifest.hosts };
    const hosts: HostChangeJson[] = [];
    for (const id of named) {
      const record = manifest.hosts[id];
      const label = (await configSpec(id).catch(() => undefined))?.label ?? id;
      hosts.push({ host: id, label, wasEnabled: record !== undefined, files: record ? planDisableHost(files, id, record) : [] });
      delete records[id];
    }
    files.commit();
    const last = Object.keys(records).length === 0;
    const gitHook = last && manifest.gitHook ? removeGitHook(root, manifest.gitHook) : null;
    writeManifest(root, { version: 1, hosts: records, ...(!last && manifest.gitHook !== undefined && { gitHook: manifest.gitHook }) });
    return { root, hosts, gitHook };
  },
});
