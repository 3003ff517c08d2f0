// Finds secrets in one string with a loaded rule set, as gitleaks' detector does: a rule is
// tried only where one of its keywords occurs; the secret is the rule's capture group; it
// must be random enough (entropy) and not allowed by the global or the rule's allowlists.
// Forge adds: values already redacted, the payload of a `data:…;base64,` URI, and hashes or
// UUIDs taken for a generic key are never secrets.
import { GITLEAKS_GLOBAL_ALLOW, GITLEAKS_RULES } from "./gitleaks-rules.js";
import { FORGE_RULES } from "./forge-rules.js";
import { KeywordFinder } from "./keyword-finder.js";
import type { GitleaksRule, RuleAllowlist } from "./rule-types.js";

/** One secret in a string: where it is (UTF-16 offsets) and the rule that found it. */
export interface Finding {
  readonly rule: string;
  readonly start: number;
  readonly end: number;
}

interface CompiledAllow {
  readonly target: "secret" | "match" | "line";
  readonly regexes: readonly RegExp[];
  readonly stopwords: readonly string[];
}

interface CompiledRule {
  readonly id: string;
  readonly source: GitleaksRule;
  regex: RegExp | undefined;
  allow: readonly CompiledAllow[] | undefined;
}

/** The rule set, compiled as it is used: each regex on its first use. */
export interface RuleSet {
  readonly rules: readonly CompiledRule[];
  /** Every keyword, and the rules that name it. */
  readonly byKeyword: ReadonlyMap<string, readonly CompiledRule[]>;
  /** Finds every keyword in lower-cased text: at each place, the longest one there. */
  readonly keywords: KeywordFinder;
  readonly global: CompiledAllow;
}

/** Strings up to this long are scanned whole; longer ones around each keyword only (JS regexes backtrack; RE2 did not). */
const WHOLE = 8192;
const BEFORE = 320;
const AFTER = 1024;
/** A private key block is long. */
const AFTER_LONG = 32768;

const REDACTED_MARK = "[REDACTED:";
const DATA_URI = /data:[\w.+/-]{1,100};base64,[A-Za-z0-9+/=]{32,}/g;
const HASH_OR_UUID = /^(?:[0-9a-f]{40}|[0-9a-f]{64}|[0-9A-F]{40}|[0-9A-F]{64}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;
const SECRETISH_KEY = /passw|secret|private|pwd/i;
const GENERIC = new Set(["generic-api-key", "password-assignment"]);

function compileAllow(a: RuleAllowlist): CompiledAllow {
  return { target: a.target ?? "secret", regexes: (a.regexes ?? []).map((r) => new RegExp(r)), stopwords: a.stopwords ?? [] };
}

/** Builds the rule set: gitleaks' rules and Forge's. Regexes compile on first use. */
export function buildRuleSet(): RuleSet {
  const rules: CompiledRule[] = [...GITLEAKS_RULES, ...FORGE_RULES].map((source) => ({ id: source.id, source, regex: undefined, allow: undefined }));
  const own = new Map<string, CompiledRule[]>();
  for (const r of rules) {
    for (const k of r.source.keywords) {
      const list = own.get(k) ?? [];
      list.push(r);
      own.set(k, list);
    }
  }
  // The finder gives the longest keyword at each place; it stands for every keyword inside it.
  const words = [...own.keys()].sort((a, b) => b.length - a.length);
  const byKeyword = new Map<string, CompiledRule[]>();
  for (const k of words) byKeyword.set(k, [...new Set(words.filter((w) => k.includes(w)).flatMap((w) => own.get(w) ?? []))]);
  return { rules, byKeyword, keywords: new KeywordFinder(words), global: compileAllow(GITLEAKS_GLOBAL_ALLOW) };
}

/** Shannon entropy of `s`, in bits a character. */
export function entropy(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** What decides, besides the rules, whether a finding stands. */
export interface DetectOptions {
  /** Rule ids never reported. */
  readonly allowRules?: ReadonlySet<string>;
  /** Exact secrets never reported. */
  readonly allowValues?: ReadonlySet<string>;
}

/** The secrets in `text`, in order, none overlapping. */
export function detect(set: RuleSet, text: string, options: DetectOptions = {}): Finding[] {
  const lower = text.toLowerCase();
  // Which rules have a keyword here, and where the keywords are.
  const where = new Map<CompiledRule, number[]>();
  // Keywords may overlap ("sk" inside "sk-ant-api03"): every place is looked at.
  set.keywords.find(lower, (keyword, index) => {
    for (const r of set.byKeyword.get(keyword) ?? []) {
      const at = where.get(r);
      if (at === undefined) where.set(r, [index]);
      else at.push(index);
    }
  });
  if (where.size === 0) return [];
  const dataUris = dataUriSpans(text);
  const found: Finding[] = [];
  for (const [rule, positions] of where) {
    if (options.allowRules?.has(rule.id)) continue;
    for (const [from, to] of windows(text.length, positions, rule.id === "private-key" ? AFTER_LONG : AFTER)) {
      for (const f of matchRule(set, rule, text, from, to, options)) {
        if (!dataUris.some(([s, e]) => f.start >= s && f.end <= e)) found.push(f);
      }
    }
  }
  return resolveOverlaps(found);
}

/** The spans of text to run a rule on: all of it when short, else around each keyword. */
function windows(length: number, positions: readonly number[], after: number): [number, number][] {
  if (length <= WHOLE) return [[0, length]];
  const out: [number, number][] = [];
  for (const p of positions) {
    const from = Math.max(0, p - BEFORE);
    const to = Math.min(length, p + after);
    const last = out[out.length - 1];
    if (last !== undefined && from <= last[1]) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

function dataUriSpans(text: string): [number, number][] {
  if (!text.includes(";base64,")) return [];
  const out: [number, number][] = [];
  DATA_URI.lastIndex = 0;
  for (let m = DATA_URI.exec(text); m !== null; m = DATA_URI.exec(text)) out.push([m.index, m.index + m[0].length]);
  return out;
}

function matchRule(set: RuleSet, rule: CompiledRule, text: string, from: number, to: number, options: DetectOptions): Finding[] {
  rule.regex ??= new RegExp(rule.source.regex, "gd");
  const re = rule.regex;
  const slice = from === 0 && to === text.length ? text : text.slice(from, to);
  const out: Finding[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(slice); m !== null; m = re.exec(slice)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    const span = secretSpan(rule.source, m);
    if (span === undefined) continue;
    const secret = slice.slice(span[0], span[1]);
    if (!stands(set, rule, secret, m, slice, options)) continue;
    out.push({ rule: rule.id, start: from + span[0], end: from + span[1] });
  }
  return out;
}

/** Where the secret of a match is: the rule's group, else the first non-empty group, else the match (newlines trimmed). */
function secretSpan(rule: GitleaksRule, m: RegExpExecArray): [number, number] | undefined {
  const indices = m.indices;
  if (indices === undefined) return undefined;
  if (rule.secretGroup !== undefined) return indices[rule.secretGroup] ?? undefined;
  for (let g = 1; g < indices.length; g++) {
    const span = indices[g];
    if (span !== undefined && span[1] > span[0]) return span;
  }
  let [s, e] = indices[0] as [number, number];
  while (s < e && m.input[s] === "\n") s++;
  while (e > s && m.input[e - 1] === "\n") e--;
  return [s, e];
}

function stands(set: RuleSet, rule: CompiledRule, secret: string, m: RegExpExecArray, text: string, options: DetectOptions): boolean {
  if (secret.length === 0 || secret.includes(REDACTED_MARK)) return false;
  if (options.allowValues?.has(secret)) return false;
  const min = rule.source.entropy;
  if (min !== undefined && entropy(secret) <= min) return false;
  if (GENERIC.has(rule.id) && HASH_OR_UUID.test(secret) && !SECRETISH_KEY.test(m[0].slice(0, m[0].indexOf(secret)))) return false;
  const line = () => {
    const s = text.lastIndexOf("\n", m.index) + 1;
    const e = text.indexOf("\n", m.index + m[0].length);
    return text.slice(s, e < 0 ? text.length : e);
  };
  if (allowed(set.global, secret, m[0], line)) return false;
  rule.allow ??= (rule.source.allow ?? []).map(compileAllow);
  return !rule.allow.some((a) => allowed(a, secret, m[0], line));
}

function allowed(a: CompiledAllow, secret: string, match: string, line: () => string): boolean {
  if (a.regexes.length > 0) {
    const target = a.target === "secret" ? secret : a.target === "match" ? match : line();
    if (a.regexes.some((r) => r.test(target))) return true;
  }
  if (a.stopwords.length > 0) {
    const lower = secret.toLowerCase();
    if (a.stopwords.some((w) => lower.includes(w))) return true;
  }
  return false;
}

/**
 * Findings in order, none overlapping: a rule for a known format wins over a generic one
 * (the redaction then names the format), else the earlier (at the same start, the longer).
 */
function resolveOverlaps(found: Finding[]): Finding[] {
  found.sort((a, b) => Number(GENERIC.has(a.rule)) - Number(GENERIC.has(b.rule)) || a.start - b.start || b.end - a.end);
  const out: Finding[] = [];
  for (const f of found) if (!out.some((o) => f.start < o.end && o.start < f.end)) out.push(f);
  return out.sort((a, b) => a.start - b.start);
}

/** `text` with every finding replaced by `[REDACTED:<rule>]`. */
export function applyFindings(text: string, findings: readonly Finding[]): string {
  let out = "";
  let at = 0;
  for (const f of findings) {
    out += `${text.slice(at, f.start)}[REDACTED:${f.rule}]`;
    at = f.end;
  }
  return out + text.slice(at);
}
