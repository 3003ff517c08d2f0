// Secret redaction: every string agent data brings into a store passes `redact` before it is
// hashed or stored, and each secret a rule recognises becomes `[REDACTED:<rule>]`. The rules
// (gitleaks' default set and Forge's own, detect.ts) load on the first string that holds a
// keyword; until then a string costs one regex test (prefilter.ts). The allow-list from the
// store's config turns a false positive off by rule id, by exact value, or by JSON path.
import type { Finding, RuleSet } from "./detect.js";
import { formatJsonPath, type JsonPathKey, PathPatterns } from "./json-path.js";
import { mayHoldSecret } from "./prefilter.js";

export type { Finding } from "./detect.js";

/** What the allow-list of `.forge/config.json` (`redact.allow`) holds. */
export interface RedactionAllowList {
  /** Rule ids (`generic-api-key`) never applied. */
  readonly rules?: readonly string[];
  /** Exact values never redacted (a test fixture's fake key). */
  readonly values?: readonly string[];
  /** JSON paths in states (`fixtures.**`, `messages.*.content`) where nothing is redacted. */
  readonly paths?: readonly string[];
}

/** How a store redacts (`redact` in `.forge/config.json`). */
export interface RedactionOptions {
  /** On by default; false stores strings as they come. */
  readonly enabled?: boolean;
  readonly allow?: RedactionAllowList;
}

/** Thrown by the synchronous calls when a string needs the rules and they are not loaded yet: `await redactor.load()` and call again. */
export class RulesNotLoaded extends Error {
  constructor() {
    super("the redaction rules are not loaded yet");
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

let loaded: { set: RuleSet; detect: typeof import("./detect.js").detect; apply: typeof import("./detect.js").applyFindings } | undefined;
let loading: Promise<void> | undefined;

/** Loads the rule set once per process. */
function loadRules(): Promise<void> {
  loading ??= import("./detect.js").then((m) => {
    loaded = { set: m.buildRuleSet(), detect: m.detect, apply: m.applyFindings };
  });
  return loading;
}

/** One store's redaction: the rules (shared by the process) and the store's allow-list. */
export class Redactor {
  /** A redactor that changes nothing (redaction turned off). */
  static readonly OFF = new Redactor({ enabled: false });

  /** Whether it redacts at all (`redact.enabled` is not false). */
  readonly enabled: boolean;
  readonly #options: RedactionOptions;
  readonly #rules: ReadonlySet<string>;
  readonly #values: ReadonlySet<string>;
  readonly #paths: PathPatterns;

  constructor(options: RedactionOptions = {}) {
    this.enabled = options.enabled !== false;
    this.#options = options;
    this.#rules = new Set(options.allow?.rules ?? []);
    this.#values = new Set(options.allow?.values ?? []);
    this.#paths = new PathPatterns(options.allow?.paths ?? []);
  }

  /** This redactor turned on (the same allow-list): what a scan looks with, whether the store redacts or not. */
  enabledCopy(): Redactor {
    return this.enabled ? this : new Redactor({ ...this.#options, enabled: true });
  }

  /** Whether the allow-list names paths: then callers pass each string's path. */
  get tracksPaths(): boolean {
    return this.enabled && !this.#paths.empty;
  }

  /** Whether the allow-list's paths let `path` (a JSON path in a state) hold anything. */
  pathAllowed(path: readonly JsonPathKey[]): boolean {
    return !this.#paths.empty && this.#paths.matches(path);
  }

  /** Whether the rules are loaded (the synchronous calls then never throw RulesNotLoaded). */
  get ready(): boolean {
    return loaded !== undefined;
  }

  /** Loads the rules (once per process); the synchronous calls need them for text that holds a keyword. */
  load(): Promise<void> {
    return loadRules();
  }

  /**
   * The secrets in `text` (never their values, only where they are). `path`: where the text
   * sits in its state, for the allow-list's paths. Throws RulesNotLoaded when the text holds a
   * keyword and the rules are not loaded.
   */
  findings(text: string, path?: readonly JsonPathKey[]): Finding[] {
    if (!this.enabled || !mayHoldSecret(text)) return [];
    if (path !== undefined && !this.#paths.empty && this.#paths.matches(path)) return [];
    if (loaded === undefined) throw new RulesNotLoaded();
    return loaded.detect(loaded.set, text, { allowRules: this.#rules, allowValues: this.#values });
  }

  /** `text` with each secret replaced by `[REDACTED:<rule>]` (the same string when it holds none). Throws RulesNotLoaded as `findings`. */
  redact(text: string, path?: readonly JsonPathKey[]): string {
    const found = this.findings(text, path);
    return found.length === 0 || loaded === undefined ? text : loaded.apply(text, found);
  }

  /** `redact`, loading the rules first when they are needed. */
  async redactText(text: string, path?: readonly JsonPathKey[]): Promise<string> {
    try {
      return this.redact(text, path);
    } catch (e) {
      if (!(e instanceof RulesNotLoaded)) throw e;
      await this.load();
      return this.redact(text, path);
    }
  }

  /**
   * Bytes that are UTF-8 text (a run's saved state, most often JSON) with their secrets
   * redacted; the same bytes when they hold none or are not text (binary data is kept exact).
   */
  async redactBytes(bytes: Uint8Array): Promise<Uint8Array> {
    if (!this.enabled || bytes.length === 0) return bytes;
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return bytes; // not text: nothing a rule recognises is stored as it was typed
    }
    const redacted = await this.redactText(text);
    return redacted === text ? bytes : new TextEncoder().encode(redacted);
  }

  /**
   * A JSON value with every string (keys too) redacted: the same value when nothing changed,
   * else a copy sharing what did not. For small values beside a state (checkpoint messages,
   * metadata, a session's metadata); states go through the value encoder, which skips what
   * it encoded before.
   */
  async redactJson<T>(value: T): Promise<T> {
    if (!this.enabled) return value;
    try {
      return this.#json(value, []) as T;
    } catch (e) {
      if (!(e instanceof RulesNotLoaded)) throw e;
      await this.load();
      return this.#json(value, []) as T;
    }
  }

  /** `redactJson` without loading: throws RulesNotLoaded when the rules are needed. */
  redactJsonSync<T>(value: T): T {
    return this.enabled ? (this.#json(value, []) as T) : value;
  }

  #json(v: unknown, path: JsonPathKey[]): unknown {
    if (typeof v === "string") return this.redact(v, path);
    if (typeof v !== "object" || v === null) return v;
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        const r = this.#json(v[i], path);
        path.pop();
        if (r !== v[i]) (out ??= v.slice())[i] = r;
      }
      return out ?? v;
    }
    let changed = false;
    const entries: [string, unknown][] = [];
    for (const [k, x] of Object.entries(v)) {
      path.push(k);
      const key = this.redact(k, path);
      const r = this.#json(x, path);
      path.pop();
      if (key !== k || r !== x) changed = true;
      entries.push([key, r]);
    }
    if (!changed) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of entries) Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    return out;
  }
}

export { formatJsonPath, type JsonPathKey };
