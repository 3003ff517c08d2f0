// The shape of a detection rule, as the generated gitleaks data and Forge's own rules spell
// it: plain data (strings, numbers) that the engine compiles on first use.

/** Values that are no secret after all, for one rule (or for all: the global allowlist). */
export interface RuleAllowlist {
  /**
   * What `regexes` are tested on: the secret itself (default), the whole match, or the line
   * holding it.
   */
  readonly target?: "match" | "line";
  /** JavaScript RegExp sources; any one matching allows the finding. */
  readonly regexes?: readonly string[];
  /** Lower-case words; a secret holding one is allowed. */
  readonly stopwords?: readonly string[];
}

/** One rule: a regex whose first non-empty capture group (or whole match) is the secret. */
export interface GitleaksRule {
  /** The rule id, as `[REDACTED:<id>]` shows it (gitleaks' own ids for its rules). */
  readonly id: string;
  /** A JavaScript RegExp source (no flags: case-insensitive parts are spelled out). */
  readonly regex: string;
  /** Lower-case words; the rule is tried only on text holding one (none: always tried). */
  readonly keywords: readonly string[];
  /** The least Shannon entropy (bits a character) the secret must have. */
  readonly entropy?: number;
  /** Which capture group is the secret (default: the first non-empty one). */
  readonly secretGroup?: number;
  readonly allow?: readonly RuleAllowlist[];
}
