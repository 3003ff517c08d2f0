// forge watch's defaults, apart from the watcher so the CLI can show them without loading it.
export const DEFAULT_EVERY_MS = 10 * 60_000;
export const DEFAULT_QUIET_MS = 2_000;
export const DEFAULT_RESCAN_MS = 5 * 60_000;
