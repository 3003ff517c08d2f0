// secrets_scan: every secret a redaction rule recognises in the store's history — by
// session, checkpoints, path and rule, never the secret itself. `clean` when there is none.
import type { SecretFinding } from "../../timeline/secret-scan.js";
import { defineOperation } from "../operation.js";

/** `forge scan --json`, the `secrets_scan` result. */
export interface ScanResult {
  /** No secret anywhere in the store's history. */
  readonly clean: boolean;
  /** How many findings (distinct session, place, path and rule). */
  readonly count: number;
  readonly findings: readonly SecretFinding[];
  readonly sessions: number;
  readonly checkpoints: number;
  /** Distinct objects read (each scanned once, however many checkpoints share it). */
  readonly objects: number;
}

/** The secrets already in the store's history, by where they are (never what). */
export const secretsScanOperation = defineOperation({
  name: "secrets_scan",
  title: "Scan history for secrets",
  description:
    "Reports every secret a redaction rule recognises already in the store's history (states, file text, checkpoint messages and metadata, working states): the session, the checkpoints, the JSON or file path and the rule — never the secret itself. `clean` is true when there is none.",
  effect: "read",
  input: () => ({}),
  run: async (ctx): Promise<ScanResult> => {
    const progress = ctx.onProgress;
    const r = await (await ctx.store()).scanSecrets(progress && ((_name, done, total) => progress({ phase: "scanning sessions", done, total })));
    return { clean: r.findings.length === 0, count: r.findings.length, ...r };
  },
});
