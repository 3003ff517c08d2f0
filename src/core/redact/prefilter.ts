// The test every string passes before any rule is loaded: does it hold a keyword of any rule
// (gitleaks' own prefilter)? Most strings do not, and cost one native regex scan; the rules
// (tens of KB of regex sources) load only for text that does.
import { FORGE_RULES } from "./forge-rules.js";
import { GITLEAKS_KEYWORDS } from "./gitleaks-keywords.js";

/** Keywords that hold no other keyword: finding any keyword means finding one of these. */
function minimal(words: readonly string[]): string[] {
  const sorted = [...new Set(words)].sort((a, b) => a.length - b.length);
  const out: string[] = [];
  for (const w of sorted) if (!out.some((k) => w.includes(k))) out.push(w);
  return out;
}

/**
 * Two-letter keywords are in every other word ("they", "task", "uses."): for them the
 * prefilter looks for what their rule's regex needs right after them (jwt: `ey` + 17
 * alphanumerics; twilio-api-key: `SK` + 32 hex digits; vault-service-token: `s.` + 24
 * alphanumerics), so plain prose does not load the rules. test/redact holds each rule's
 * sample to passing it.
 */
const SHARPER: Readonly<Record<string, string>> = { ey: "ey[a-z0-9]{17}", sk: "sk[0-9a-f]{32}", "s.": "s\\.[a-z0-9]{24}" };

const escapeRegex = (k: string) => k.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
/** Built with the first string tested (a few ms): a process that only reads never builds it. */
let prefilter: RegExp | undefined;
function buildPrefilter(): RegExp {
  const keywords = minimal([...GITLEAKS_KEYWORDS, ...FORGE_RULES.flatMap((r) => r.keywords)].filter((k) => !(k in SHARPER)));
  return new RegExp([...keywords.map(escapeRegex), ...Object.values(SHARPER)].join("|"), "i");
}

/** Whether `text` holds a keyword of some rule, i.e. whether any rule could find a secret in it. */
export function mayHoldSecret(text: string): boolean {
  prefilter ??= buildPrefilter();
  return prefilter.test(text);
}
