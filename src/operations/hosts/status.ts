// hosts_status: for each agent host, whether Forge's hooks are in its project config
// (installed), exactly as this version writes them (current), and when each of Forge's hook
// events last fired in the project; and whether the git commit hook is in place.
import { join } from "node:path";
import { FORGE_DIR } from "../../core/config.js";
import { lastFired } from "../../integrations/hosts/fired.js";
import { gitHookState } from "../../integrations/hosts/config/git-hook.js";
import { allConfigSpecs } from "../../integrations/hosts/config/index.js";
import { readManifest } from "../../integrations/hosts/config/manifest.js";
import { ProjectFiles } from "../../integrations/hosts/config/project-files.js";
import { type FileState, hostFileStates } from "../../integrations/hosts/config/wiring.js";
import { CAPTURE_KINDS, type HostId } from "../../integrations/hosts/types.js";
import { defineOperation } from "../operation.js";
import { projectRoot } from "./shared.js";

/** One host's wiring in the project. */
export interface HostStatusJson {
  readonly host: HostId;
  readonly label: string;
  /** Whether `forge enable` wired it in this project (its manifest says so). */
  readonly enabled: boolean;
  /** Every Forge hook and server entry is in the host's files. */
  readonly installed: boolean;
  /** …and exactly as this version of Forge writes them (false: run `forge enable` again to update). */
  readonly current: boolean;
  readonly files: readonly FileState[];
  /** When each Forge event last fired in the project (ISO 8601), null for never. */
  readonly fired: Readonly<Record<string, string | null>>;
}

/** What `forge status` shows. */
export interface StatusResult {
  readonly root: string;
  /** Whether the project has a Forge store (.forge). */
  readonly store: boolean;
  readonly hosts: readonly HostStatusJson[];
  /** Hosts Forge knows that this build cannot wire yet. */
  readonly unsupported: readonly HostId[];
  readonly gitHook: { readonly path: string | null; readonly installed: boolean };
}

/** `forge status`. */
export const statusOperation = defineOperation({
  name: "hosts_status",
  title: "Agent hosts' wiring",
  description:
    "For each agent host: whether Forge's hooks are in its project config, whether they are the ones this version writes, and when each Forge hook event last fired in the project; and whether the git commit hook is installed.",
  effect: "read",
  input: (z) => ({ folder: z.string().min(1).default(".") }),
  run: async (_ctx, input): Promise<StatusResult> => {
    const { root, hasStore } = projectRoot(input.folder);
    const manifest = hasStore ? readManifest(root) : { version: 1 as const, hosts: {} };
    const { specs, unsupported } = await allConfigSpecs();
    const files = new ProjectFiles(root);
    const hosts = specs.map((spec): HostStatusJson => {
      const record = manifest.hosts[spec.id];
      const states = hostFileStates(files, spec, record?.command ?? "forge");
      const times = lastFired(join(root, FORGE_DIR), spec.id);
      const fired: Record<string, string | null> = {};
      for (const kind of CAPTURE_KINDS) fired[kind] = times[kind]?.toISOString() ?? null;
      if (times["commit-msg"]) fired["commit-msg"] = times["commit-msg"].toISOString();
      return {
        host: spec.id,
        label: spec.label,
        enabled: record !== undefined,
        installed: states.every((s) => s.installed),
        current: states.every((s) => s.current),
        files: states,
        fired,
      };
    });
    return { root, store: hasStore, hosts, unsupported, gitHook: gitHookState(root) };
  },
});
