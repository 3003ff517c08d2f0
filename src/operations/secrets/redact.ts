// secrets_redact: rewrites the secrets in the store's history out of it (states encoded
// again, checkpoints re-pointed, rows redacted, old objects collected); files stay exact.
import type { RedactReport } from "../../timeline/secret-redact.js";
import { defineOperation } from "../operation.js";

/** Rewrites every secret a redaction rule recognises out of the store's history. */
export const secretsRedactOperation = defineOperation({
  name: "secrets_redact",
  title: "Redact secrets out of history",
  description:
    "REWRITES HISTORY: every state holding a secret a redaction rule recognises is stored again with the secret replaced by [REDACTED:<rule>], its checkpoints and working states point at the new state, messages, tags and metadata are redacted, and the old objects are deleted (a gc with no grace period). Files in snapshots are kept exact and listed in `filesKept`. `dryRun`: only say what would change.",
  effect: "destructive",
  input: (z) => ({ dryRun: z.boolean().default(false).describe("say what would change; change nothing") }),
  run: async (ctx, input): Promise<RedactReport> => (await ctx.store()).redactSecrets({ dryRun: input.dryRun }),
});
