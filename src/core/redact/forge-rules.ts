// Forge's own rules, for what gitleaks' default set leaves to its generic rule and that rule's
// entropy floor lets through: a password in a URL's user part, a password-like key assigned a
// value (`DB_PASSWORD=hunter22`, `"password": "S3cr3tPassw0rd"`), and an Authorization header.
// Same shape as the generated gitleaks data (rule-types.ts), so one engine runs both.
import type { GitleaksRule } from "./rule-types.js";

/** Values a password field holds in examples and templates, never a real password. */
const PLACEHOLDERS = String.raw`^(?:\$\{?[\w.:-]+\}?|%[\w]+%|\{\{[^}]*\}\}|<[^>]*>|\*+|x+|\.+|(?:your|my|the)?[_-]?(?:pass(?:word)?|passwd|pwd|secret|changeme|change[_-]?it|example|placeholder|redacted|hidden|none|null|nil|undefined|true|false|required|optional|string|text|value|token)s?)$`;

/** The rules Forge adds to gitleaks' (`[REDACTED:<id>]` names them like gitleaks' own). */
export const FORGE_RULES: readonly GitleaksRule[] = [
  {
    // scheme://user:PASSWORD@host — database URLs, git remotes, proxies, brokers.
    id: "url-password",
    regex: String.raw`\b[a-zA-Z][a-zA-Z0-9+.-]{1,30}://[^\s:/?#@'"\x60]{1,256}:([^\s@/?#'"\x60]{3,256})@[^\s/?#@'"\x60]{1,256}`,
    keywords: ["://"],
    allow: [{ regexes: [PLACEHOLDERS] }],
  },
  {
    // KEY=value, key: value, "key": "value" where the key names a password or secret. A
    // value of letters only (a word: "password: required") or a placeholder is no secret.
    id: "password-assignment",
    regex: String.raw`[\w.-]{0,40}(?:[pP][aA][sS][sS](?:[wW](?:[oO][rR])?[dD]|[pP][hH][rR][aA][sS][eE])|[pP][wW][dD]|[sS][eE][cC][rR][eE][tT])[\w.-]{0,20}["'\x60]?[ \t]{0,3}(?:=|:=|:|=>)[ \t]{0,3}["'\x60]?([^\s"'\x60,;)\]}]{6,200})`,
    keywords: ["passw", "pwd", "secret"],
    allow: [{ regexes: [PLACEHOLDERS, "^[a-zA-Z]+$", String.raw`^[\w.]+\(`] }],
  },
  {
    // Authorization: Bearer|Basic|Token <credentials>, in headers, curl lines and logs.
    id: "authorization-header",
    regex: String.raw`[aA][uU][tT][hH][oO][rR][iI][zZ][aA][tT][iI][oO][nN]["'\x60]?[ \t]{0,3}[:=][ \t]{0,3}["'\x60]?(?:[bB][eE][aA][rR][eE][rR]|[bB][aA][sS][iI][cC]|[tT][oO][kK][eE][nN])[ \t]+([A-Za-z0-9._~+/-]{8,}={0,2})`,
    keywords: ["authorization"],
    entropy: 2.5,
    allow: [{ regexes: [PLACEHOLDERS] }],
  },
];
