// forge watch's defaults, for an interface to show without loading the watcher.
export { DEFAULT_EVERY_MS, DEFAULT_QUIET_MS, DEFAULT_RESCAN_MS } from "../../domains/watch/defaults.js";
