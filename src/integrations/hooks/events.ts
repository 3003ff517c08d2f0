// The hook events `forge hook` answers (see hooks.ts), apart from the work so the CLI can list them cheaply.
export const HOOK_EVENTS = ["session-start", "pre-compact", "post-edit", "stop"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];
