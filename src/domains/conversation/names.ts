// The conversation domain's names — roles and message formats — in a module of their own, so
// the CLI can offer them as choices at start-up without loading the model or the converters.

export const ROLES = ["system", "user", "assistant", "tool"] as const;
export type Role = (typeof ROLES)[number];

/** Formats messages are read in; "auto" detects each message's. */
export const INPUT_FORMATS = ["auto", "forge", "openai", "langchain"] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

/** Formats messages are written in ("langchain": serialized, as `toJSON()`; "langchain-stored": as mapChatMessagesToStoredMessages). */
export const OUTPUT_FORMATS = ["forge", "openai", "langchain", "langchain-stored"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
