// Turns gitleaks' default rule set (vendor/gitleaks/gitleaks.toml, MIT) into the data Forge's
// redaction engine reads: src/core/redact/gitleaks-rules.ts (every rule, its regex rewritten
// from Go's RE2 syntax to a JavaScript RegExp source) and src/core/redact/gitleaks-keywords.ts
// (the keywords alone, for the cheap prefilter every string passes first).
//
//   node scripts/gitleaks-rules.mjs            regenerate both files
//   node scripts/gitleaks-rules.mjs --check    exit 1 if they differ from what would be generated
//
// To take a newer gitleaks: copy its config/gitleaks.toml over the vendored one, set
// GITLEAKS_VERSION below, run this, run test/redact. RE2 differences handled here: inline
// flags `(?i)` (to the end of the group), `(?i:…)`, `(?-i:…)` and `(?s:…)` — JavaScript on
// Node 20 has no inline modifiers, so case-insensitive parts are spelled out (`a` → `[aA]`,
// `[a-f]` → `[a-fA-F]`); POSIX classes `[[:alnum:]]`; `\z` and `\A`; a `]` first in a class.
// Rules tied to a file type (`path`) are left out: Forge scans values, not files.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "smol-toml";

const GITLEAKS_VERSION = "v8.30.1";
const GITLEAKS_COMMIT = "83d9cd684c87d95d656c1458ef04895a7f1cbd8e";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const toml = parse(readFileSync(join(root, "vendor", "gitleaks", "gitleaks.toml"), "utf8"));

const POSIX = {
  alnum: "a-zA-Z0-9",
  alpha: "a-zA-Z",
  digit: "0-9",
  xdigit: "0-9a-fA-F",
  upper: "A-Z",
  lower: "a-z",
  space: "\\t\\n\\v\\f\\r ",
  word: "\\w",
  punct: "!-\\/:-@\\[-`{-~",
};

const isLetter = (c) => /^[a-zA-Z]$/.test(c);
const swap = (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase());

/** The case-swapped counterpart of a class range lo-hi (its letters only), or "". */
function swappedRange(lo, hi) {
  const out = [];
  for (const [a, z] of [
    ["a", "z"],
    ["A", "Z"],
  ]) {
    const from = String.fromCharCode(Math.max(lo.charCodeAt(0), a.charCodeAt(0)));
    const to = String.fromCharCode(Math.min(hi.charCodeAt(0), z.charCodeAt(0)));
    if (from <= to) out.push(from === to ? swap(from) : `${swap(from)}-${swap(to)}`);
  }
  return out.join("");
}

/** Rewrites one RE2 pattern as a JavaScript RegExp source (no flags needed). */
export function re2ToJs(src) {
  let i = 0;
  let out = "";
  // Flag scopes: one per open group; `(?i)` changes the innermost.
  const scopes = [{ i: false, s: false }];
  const top = () => scopes[scopes.length - 1];
  while (i < src.length) {
    const c = src[i];
    if (c === "\\") {
      const n = src[i + 1];
      if (n === "z") out += "$";
      else if (n === "A") out += "^";
      else if (n === "Q" || n === "E" || n === "p" || n === "P") throw new Error(`unsupported escape \\${n} in ${src}`);
      else if (top().i && isLetter(n) && !/[wWdDsSbBnrtfvx]/.test(n)) out += `[${n}${swap(n)}]`;
      else out += `\\${n}`;
      i += 2;
      if (n === "x") {
        out += src.slice(i, i + 2);
        i += 2;
      }
      continue;
    }
    if (c === "(") {
      const m = /^\(\?([a-zA-Z-]*)(:|\))/.exec(src.slice(i));
      if (m) {
        const flags = m[1];
        const on = !flags.startsWith("-");
        const names = flags.replace("-", "");
        if (/[^is]/.test(names)) throw new Error(`unsupported flags (?${flags}) in ${src}`);
        const scope = { ...top() };
        for (const f of names) scope[f] = on;
        if (m[2] === ")") {
          Object.assign(top(), scope); // to the end of the enclosing group
          i += m[0].length;
          continue;
        }
        scopes.push(scope);
        out += "(?:";
        i += m[0].length;
        continue;
      }
      if (src.startsWith("(?P<", i)) {
        scopes.push({ ...top() });
        out += "(?<";
        i += 4;
        continue;
      }
      if (src.startsWith("(?", i)) throw new Error(`unsupported group at ${i} in ${src}`);
      scopes.push({ ...top() });
      out += "(";
      i++;
      continue;
    }
    if (c === ")") {
      scopes.pop();
      out += ")";
      i++;
      continue;
    }
    if (c === "[") {
      const [cls, next] = readClass(src, i, top().i);
      out += cls;
      i = next;
      continue;
    }
    if (c === ".") {
      out += top().s ? "[\\s\\S]" : "[^\\n]";
      i++;
      continue;
    }
    if (c === "{") {
      // A repetition {n}, {n,}, {n,m}, or a literal brace.
      const m = /^\{\d+(,\d*)?\}/.exec(src.slice(i));
      out += m ? m[0] : "\\{";
      i += m ? m[0].length : 1;
      continue;
    }
    if (c === "}") {
      out += "\\}";
      i++;
      continue;
    }
    out += top().i && isLetter(c) ? `[${c}${swap(c)}]` : c;
    i++;
  }
  if (scopes.length !== 1) throw new Error(`unbalanced groups in ${src}`);
  return out;
}

/** Reads a bracket class starting at `at`; returns its JavaScript form and where it ends. */
function readClass(src, at, fold) {
  let i = at + 1;
  let negate = false;
  if (src[i] === "^") {
    negate = true;
    i++;
  }
  const items = []; // each: a JS class fragment
  const letters = []; // ranges/chars to fold
  let first = true;
  while (i < src.length && (src[i] !== "]" || first)) {
    first = false;
    if (src.startsWith("[:", i)) {
      const end = src.indexOf(":]", i);
      const name = src.slice(i + 2, end);
      const neg = name.startsWith("^");
      if (neg || !(name in POSIX)) throw new Error(`unsupported POSIX class [:${name}:] in ${src}`);
      items.push(POSIX[name]);
      i = end + 2;
      continue;
    }
    let lo;
    let loText;
    if (src[i] === "\\") {
      const n = src[i + 1];
      if (n === "x") {
        loText = src.slice(i, i + 4);
        lo = String.fromCharCode(Number.parseInt(src.slice(i + 2, i + 4), 16));
        i += 4;
      } else {
        loText = `\\${n}`;
        lo = /[wWdDsSbntrfv]/.test(n) ? null : n;
        i += 2;
      }
    } else {
      lo = src[i];
      loText = lo === "]" || lo === "[" || lo === "^" || lo === "-" ? `\\${lo}` : lo;
      i++;
    }
    if (lo !== null && src[i] === "-" && src[i + 1] !== "]" && i + 1 < src.length) {
      let hi;
      let hiText;
      if (src[i + 1] === "\\") {
        const n = src[i + 2];
        if (n === "x") {
          hiText = src.slice(i + 1, i + 5);
          hi = String.fromCharCode(Number.parseInt(src.slice(i + 3, i + 5), 16));
          i += 5;
        } else {
          hiText = `\\${n}`;
          hi = n;
          i += 3;
        }
      } else {
        hi = src[i + 1];
        hiText = hi === "]" || hi === "[" ? `\\${hi}` : hi;
        i += 2;
      }
      items.push(`${loText}-${hiText}`);
      letters.push([lo, hi]);
      continue;
    }
    items.push(loText);
    if (lo !== null) letters.push([lo, lo]);
  }
  if (src[i] !== "]") throw new Error(`unterminated class in ${src}`);
  if (fold) for (const [lo, hi] of letters) items.push(swappedRange(lo, hi));
  return [`[${negate ? "^" : ""}${items.join("")}]`, i + 1];
}

const list = (v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const js = (v) => JSON.stringify(v);

/** Checks a converted pattern compiles; returns it. */
function compiled(id, re2) {
  const source = re2ToJs(re2);
  try {
    new RegExp(source, "g");
  } catch (e) {
    throw new Error(`rule ${id}: ${e.message}\n  RE2: ${re2}\n  JS:  ${source}`);
  }
  return source;
}

const rules = [];
const skipped = [];
for (const r of toml.rules) {
  if (r.path !== undefined || r.regex === undefined) {
    skipped.push(r.id);
    continue;
  }
  const allow = [];
  for (const a of list(r.allowlists)) {
    // A path in an allowlist never matches a value; with condition AND it can never allow.
    if (a.condition === "AND" && a.paths !== undefined) continue;
    const regexes = list(a.regexes).map((x, k) => compiled(`${r.id} allowlist ${k}`, x));
    const stopwords = list(a.stopwords).map((w) => w.toLowerCase());
    if (regexes.length === 0 && stopwords.length === 0) continue;
    allow.push({
      ...(a.regexTarget && a.regexTarget !== "secret" && { target: a.regexTarget }),
      ...(regexes.length && { regexes }),
      ...(stopwords.length && { stopwords }),
    });
  }
  rules.push({
    id: r.id,
    regex: compiled(r.id, r.regex),
    keywords: list(r.keywords).map((k) => k.toLowerCase()),
    ...(r.entropy !== undefined && { entropy: r.entropy }),
    ...(r.secretGroup !== undefined && { secretGroup: r.secretGroup }),
    ...(allow.length && { allow }),
  });
}
const global = {
  regexes: list(toml.allowlist?.regexes).map((x, k) => compiled(`global allowlist ${k}`, x)),
  stopwords: list(toml.allowlist?.stopwords).map((w) => w.toLowerCase()),
};

const header = (role) =>
  `// biome-ignore-all format: generated data, one rule a line\n// biome-ignore-all lint: generated data\n// GENERATED by scripts/gitleaks-rules.mjs from vendor/gitleaks/gitleaks.toml (gitleaks ${GITLEAKS_VERSION},\n// MIT, Copyright (c) 2019 Zachary Rice; see vendor/gitleaks/LICENSE). Do not edit: ${role}\n`;

const rulesTs = `${header("regenerate it.")}// Regexes are JavaScript sources converted from RE2; rules tied to a file type are left out (${skipped.join(", ")}).
import type { GitleaksRule, RuleAllowlist } from "./rule-types.js";

/** The gitleaks release these rules come from. */
export const GITLEAKS_VERSION = ${js(GITLEAKS_VERSION)};
/** The commit of that release. */
export const GITLEAKS_COMMIT = ${js(GITLEAKS_COMMIT)};

/** gitleaks' global allowlist: a finding whose secret matches one of these regexes or holds a stopword is no secret. */
export const GITLEAKS_GLOBAL_ALLOW: RuleAllowlist = ${js(global)};

/** Every rule of gitleaks' default configuration that applies to values (one a line). */
export const GITLEAKS_RULES: readonly GitleaksRule[] = [
${rules.map((r) => `  ${js(r)},`).join("\n")}
];
`;

const keywords = [...new Set(rules.flatMap((r) => r.keywords))].sort();
const keywordsTs = `${header("regenerate it.")}// Only the keywords, so the prefilter every string passes loads without the rules.

/** Every keyword of gitleaks' rules, lower case: a rule is tried only on text holding one of its keywords. */
export const GITLEAKS_KEYWORDS: readonly string[] = ${js(keywords)};
`;

const targets = [
  [join(root, "src", "core", "redact", "gitleaks-rules.ts"), rulesTs],
  [join(root, "src", "core", "redact", "gitleaks-keywords.ts"), keywordsTs],
];
if (process.argv.includes("--check")) {
  const stale = targets.filter(([path, text]) => {
    try {
      return readFileSync(path, "utf8") !== text;
    } catch {
      return true;
    }
  });
  for (const [path] of stale) console.error(`gitleaks-rules: ${path} is not what scripts/gitleaks-rules.mjs generates`);
  process.exit(stale.length > 0 ? 1 : 0);
}
for (const [path, text] of targets) writeFileSync(path, text);
console.log(`gitleaks-rules: ${rules.length} rules (${skipped.length} file-type rules left out), ${keywords.length} keywords, gitleaks ${GITLEAKS_VERSION}`);
