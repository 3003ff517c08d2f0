// The redaction corpus: a positive sample for each kind of secret the issue names (and a few
// more of gitleaks' rules), each replaced by `[REDACTED:<rule>]` with its context kept, and
// negative samples that must come back unchanged.
import { spawnSync } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { entropy } from "../../src/core/redact/detect.js";
import { GITLEAKS_RULES, GITLEAKS_VERSION } from "../../src/core/redact/gitleaks-rules.js";
import { mayHoldSecret } from "../../src/core/redact/prefilter.js";
import { Redactor, RulesNotLoaded } from "../../src/core/redact/redactor.js";

// Random, but never a string that happens to repeat its characters enough to fall under a
// rule's entropy floor (the vault token's 20-letter alphabet did, now and then): a secret
// of that shape is one gitleaks does not report either, so the case would test nothing.
const pick = (alphabet: string, n: number): string => {
  for (;;) {
    const s = [...randomBytes(n)].map((b) => alphabet[b % alphabet.length]).join("");
    if (entropy(s) >= 0.85 * Math.log2(Math.min(n, alphabet.length))) return s;
  }
};
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** [rule, text holding the secret, the secret] */
const POSITIVE: readonly (readonly [string, (secret: string) => string, string])[] = [
  ["aws-access-token", (s) => `aws configure set aws_access_key_id ${s}`, `AKIA${pick(B32, 16)}`],
  ["generic-api-key", (s) => `aws_secret_access_key = ${s}`, `${pick(ALNUM, 20)}/${pick(ALNUM, 19)}`],
  ["gcp-api-key", (s) => `maps key ${s} in the page`, `AIza${pick(ALNUM, 35)}`],
  ["azure-ad-client-secret", (s) => `client secret: ${s}`, `${pick(ALNUM, 3)}8Q~${pick(ALNUM, 31)}`],
  ["github-pat", (s) => `git clone https://github.com/x/y.git with ${s}`, `ghp_${pick(ALNUM, 36)}`],
  ["github-fine-grained-pat", (s) => `GH_TOKEN ${s}`, `github_pat_${pick(ALNUM, 82)}`],
  ["gitlab-pat", (s) => `export GITLAB ${s} now`, `glpat-${pick(ALNUM, 20)}`],
  ["slack-bot-token", (s) => `slack ${s}`, `xoxb-${pick("0123456789", 12)}-${pick("0123456789", 12)}-${pick(ALNUM, 24)}`],
  ["openai-api-key", (s) => `OPENAI_API_KEY="${s}"`, `sk-proj-${pick(ALNUM, 74)}T3BlbkFJ${pick(ALNUM, 74)}`],
  ["anthropic-api-key", (s) => `ANTHROPIC_API_KEY=${s}`, `sk-ant-api03-${pick(ALNUM, 93)}AA`],
  ["huggingface-access-token", (s) => `hf ${s}`, `hf_${pick("abcdefghijklmnopqrstuvwxyz", 34)}`],
  ["private-key", (s) => `key file:\n${s}\n`, `-----BEGIN RSA PRIVATE KEY-----\n${pick(ALNUM, 64)}\n${pick(ALNUM, 64)}\n-----END RSA PRIVATE KEY-----`],
  [
    "jwt",
    (s) => `Authorization header had ${s} in it`,
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
  ],
  ["url-password", (s) => `migrate postgres://app:${s}@db:5432/x tonight`, "S3cr3tPassw0rd"],
  ["url-password", (s) => `redis://default:${s}@cache.internal:6379/0`, "hunter2hunter2"],
  ["password-assignment", (s) => `DB_PASSWORD=${s}`, "hunter22x"],
  ["password-assignment", (s) => `{"user": "app", "password": "${s}"}`, "S3cr3tPassw0rd"],
  ["authorization-header", (s) => `GET /v1/models HTTP/1.1\nAuthorization: Bearer ${s}\nAccept: */*`, pick(ALNUM, 40)],
  ["curl-auth-header", (s) => `curl -H "Authorization: Bearer ${s}" https://api.example.com`, pick(ALNUM, 40)],
  ["stripe-access-token", (s) => `stripe ${s}`, `sk_live_${pick(ALNUM, 24)}`],
  ["npm-access-token", (s) => `//registry.npmjs.org/:_authToken=${s}`, `npm_${pick(ALNUM, 36)}`],
  ["twilio-api-key", (s) => `twilio ${s}`, `SK${pick("0123456789abcdef", 32)}`],
  ["vault-service-token", (s) => `VAULT ${s}`, `s.${pick("ABCDEFGHIJ0123456789", 24)}`],
];

/** Text that holds no secret and must be stored exactly. */
const NEGATIVE: readonly string[] = [
  `Merged commit ${randomBytes(20).toString("hex")} into main`,
  `the image digest is sha256:${createHash("sha256").update(randomBytes(8)).digest("hex")}`,
  `the cache key: ${createHash("sha256").update(randomBytes(8)).digest("hex")}`,
  `api_key_sha1 = ${randomBytes(20).toString("hex")}`,
  `job ${randomUUID()} finished; request id: ${randomUUID()}`,
  `token: ${randomUUID()}`,
  `<img src="data:image/png;base64,${randomBytes(6000).toString("base64")}">`,
  "The password is never logged.",
  "password: required",
  `password = "$\{DB_PASSWORD}"`,
  "DB_PASSWORD=changeme",
  "postgres://app:password@localhost/dev",
  "user_id, session_token_count, apiVersion, keyboard, accessibility, authorName",
  "function getApiKey(name) { return process.env[name]; }",
  "The secret to a good sourdough is patience.",
  "Already stored: password=[REDACTED:password-assignment] and ghp [REDACTED:github-pat]",
  "",
];

describe("the rule set", () => {
  it("is gitleaks' default configuration, recorded by version, with every regex compiling in JavaScript", () => {
    expect(GITLEAKS_VERSION).toMatch(/^v8\.\d+\.\d+$/);
    expect(GITLEAKS_RULES.length).toBeGreaterThan(200);
    for (const r of GITLEAKS_RULES) expect(() => new RegExp(r.regex, "gd"), r.id).not.toThrow();
  });

  it("is what scripts/gitleaks-rules.mjs generates from the vendored TOML", () => {
    const script = fileURLToPath(new URL("../../scripts/gitleaks-rules.mjs", import.meta.url));
    const r = spawnSync(process.execPath, [script, "--check"], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  it("measures randomness as gitleaks does (Shannon entropy in bits a character)", () => {
    expect(entropy("aaaa")).toBe(0);
    expect(entropy("abcd")).toBe(2);
  });
});

describe("redaction", () => {
  const redactor = new Redactor();
  beforeAll(() => redactor.load());

  it.each(POSITIVE.map(([rule, text, secret]) => [rule, text(secret), secret] as const))("%s: %j", (rule, text, secret) => {
    const out = redactor.redact(text);
    expect(out).not.toContain(secret);
    expect(out).toContain(`[REDACTED:${rule}]`);
    // The context stays: only the secret is replaced.
    expect(out.replace(`[REDACTED:${rule}]`, secret)).toBe(text);
  });

  it.each(NEGATIVE.map((t) => [t.slice(0, 60), t] as const))("leaves alone: %s", (_label, text) => {
    expect(redactor.redact(text)).toBe(text);
  });

  it("redacts every secret of a text, each by its own rule", () => {
    const gh = `ghp_${pick(ALNUM, 36)}`;
    const aws = `AKIA${pick(B32, 16)}`;
    const out = redactor.redact(`clone with ${gh} then upload with ${aws} and migrate postgres://app:S3cr3tPassw0rd@db:5432/x`);
    expect(out).toBe(
      "clone with [REDACTED:github-pat] then upload with [REDACTED:aws-access-token] and migrate postgres://app:[REDACTED:url-password]@db:5432/x",
    );
  });

  it("is idempotent: a redacted text is redacted no further", () => {
    for (const [, text, secret] of POSITIVE) {
      const once = redactor.redact(text(secret));
      expect(redactor.redact(once)).toBe(once);
    }
  });

  it("finds a secret deep in a long text (scanned around each keyword)", () => {
    const gh = `ghp_${pick(ALNUM, 36)}`;
    const long = `${"lorem ipsum dolor sit amet ".repeat(2000)}token ${gh} ${"consectetur adipiscing ".repeat(2000)}`;
    expect(redactor.redact(long)).not.toContain(gh);
  });

  it("stays fast on text built to make a backtracking regex explode", () => {
    const start = performance.now();
    redactor.redact(`curl ${"a".repeat(200_000)}`);
    redactor.redact(`password${"=".repeat(50_000)}`);
    redactor.redact(`${"key ".repeat(50_000)}`);
    expect(performance.now() - start).toBeLessThan(2000);
  });

  it("redacts keys and values of JSON, sharing what did not change", async () => {
    const gh = `ghp_${pick(ALNUM, 36)}`;
    const clean = { notes: ["nothing here"] };
    const value = { clean, env: { GITHUB_TOKEN: gh }, [`https://x:${"S3cr3tPassw0rd"}@host/`]: 1 };
    const out = await redactor.redactJson(value);
    expect(JSON.stringify(out)).not.toContain(gh);
    expect(JSON.stringify(out)).not.toContain("S3cr3tPassw0rd");
    expect(out.clean).toBe(clean);
    expect(await redactor.redactJson(clean)).toBe(clean);
  });
});

describe("the allow-list", () => {
  const gh = `ghp_${pick(ALNUM, 36)}`;
  const text = `token ${gh} and DB_PASSWORD=hunter22x`;
  beforeAll(() => new Redactor().load());

  it("by rule id turns that rule off, and no other", () => {
    expect(new Redactor({ allow: { rules: ["github-pat"] } }).redact(text)).toBe("token " + gh + " and DB_PASSWORD=[REDACTED:password-assignment]");
  });

  it("by exact value keeps that value, and no other", () => {
    expect(new Redactor({ allow: { values: ["hunter22x"] } }).redact(text)).toBe("token [REDACTED:github-pat] and DB_PASSWORD=hunter22x");
  });

  it("by JSON path keeps what sits there (* one step, ** any)", () => {
    const r = new Redactor({ allow: { paths: ["fixtures.**", "messages.*.raw"] } });
    expect(r.redact(text, ["fixtures", "aws", 3])).toBe(text);
    expect(r.redact(text, ["messages", 2, "raw"])).toBe(text);
    expect(r.redact(text, ["messages", 2, "content"])).not.toContain(gh);
    expect(r.redact(text)).not.toContain(gh);
  });

  it("turned off (enabled: false) keeps everything", () => {
    expect(new Redactor({ enabled: false }).redact(text)).toBe(text);
  });
});

describe("the prefilter", () => {
  it("passes every positive sample of the corpus", () => {
    for (const [rule, text, secret] of POSITIVE) expect(mayHoldSecret(text(secret)), rule).toBe(true);
  });

  it("lets text with no keyword of any rule through without loading the rules", () => {
    expect(mayHoldSecret("the quick brown fox jumps over the lazy dog")).toBe(false);
    // Two-letter keywords (jwt's "ey", twilio's "sk", vault's "s.") need what their regex needs after them.
    expect(mayHoldSecret('They ask about the task. {"task": null, "hypotheses": []}')).toBe(false);
    expect(mayHoldSecret("uses ghp_ tokens")).toBe(true);
    expect(mayHoldSecret("AKIA")).toBe(true);
  });

  it("asks for the rules (RulesNotLoaded) only for text that may hold a secret, in a process that has not loaded them", () => {
    const token = `ghp_${pick(ALNUM, 36)}`;
    const script = `
      const { Redactor, RulesNotLoaded } = await import(${JSON.stringify(new URL("../../dist/core/redact/redactor.js", import.meta.url).href)});
      const r = new Redactor();
      const plain = r.redact("the quick brown fox");
      let threw = false;
      try { r.redact("token ${token}"); } catch (e) { threw = e instanceof RulesNotLoaded; }
      await r.load();
      console.log(JSON.stringify([plain, threw, r.redact("token ${token}")]));`;
    const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(out.stderr).toBe("");
    expect(JSON.parse(out.stdout)).toEqual(["the quick brown fox", true, "token [REDACTED:github-pat]"]);
    expect(RulesNotLoaded).toBeDefined();
  });
});
