// The walk preload bin/forge.js starts before the CLI loads (domains/workspace/walk-preload.ts),
// handed to the workspace domain: the CLI's entry passes it on without reaching into a domain.
export { adoptWalkPreload } from "../../domains/workspace/walk-preload.js";
export { adoptStatPreload } from "../../domains/workspace/stat-preload.js";
