// Each host's config module (config/<host>.ts, exporting `config`), loaded when a command
// needs it. The path is computed so that the build does not depend on every host's module
// being written yet: a host whose module is missing is "not supported yet", not a crash.
import { ForgeError } from "../../../core/errors.js";
import { HOST_IDS, type HostConfigSpec, type HostId } from "../types.js";

/** Whether `name` is a host Forge knows. */
export function isHostId(name: string): name is HostId {
  return (HOST_IDS as readonly string[]).includes(name);
}

/** Thrown for a host Forge knows whose config module is not there (yet). */
function notSupported(id: HostId, cause?: unknown): ForgeError {
  return new ForgeError("INVALID_ARGUMENT", `forge enable does not support ${id} yet`, {
    hint: "upgrade Forge, or run `forge status` to see the hosts this version wires",
    data: { host: id },
    cause,
  });
}

/** The config module of `id`. An unknown name or a module that is missing is an INVALID_ARGUMENT error. */
export async function configSpec(id: string): Promise<HostConfigSpec> {
  if (!isHostId(id)) throw new ForgeError("INVALID_ARGUMENT", `unknown host "${id}"`, { hint: `the hosts: ${HOST_IDS.join(", ")}`, data: { host: id } });
  let mod: { config?: HostConfigSpec };
  try {
    mod = (await import(`./${id}.js`)) as { config?: HostConfigSpec };
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { url?: string };
    const missing = err.code === "ERR_MODULE_NOT_FOUND" && `${err.url ?? ""} ${err.message}`.includes(`config/${id}.`);
    if (missing) throw notSupported(id, e);
    throw e;
  }
  if (mod.config?.id !== id) throw notSupported(id);
  return mod.config;
}

/** The config modules of every host this build has, in HOST_IDS order, and the hosts it does not support yet. */
export async function allConfigSpecs(): Promise<{ readonly specs: readonly HostConfigSpec[]; readonly unsupported: readonly HostId[] }> {
  const specs: HostConfigSpec[] = [];
  const unsupported: HostId[] = [];
  for (const id of HOST_IDS) {
    try {
      specs.push(await configSpec(id));
    } catch (e) {
      if (!(e instanceof ForgeError) || e.data["host"] !== id) throw e;
      unsupported.push(id);
    }
  }
  return { specs, unsupported };
}
